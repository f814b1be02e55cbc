"""The picture's colours under simulated colour-vision deficiency.

Simulation: Machado, Oliveira and Fernandes, "A Physiologically-based Model for Simulation of
Color Vision Deficiency", IEEE TVCG 15(6), 2009: the matrices for protanopia, deuteranopia and
tritanopia at severity 1.0, applied to linear RGB. Distances are CIE76 (Euclidean in CIELAB, D65).
A distance under about 10 is hard to tell apart at a glance; over 15 is plain.
"""

from __future__ import annotations

import itertools

import pytest

from adjudicator.variant import get_variant
from bot.render import palette

MACHADO_2009 = {
    "protan": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deutan": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritan": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}
VISIONS = (None, "protan", "deutan", "tritan")


def _linear(colour: str) -> list[float]:
    c = colour.lstrip("#")
    out = []
    for i in (0, 2, 4):
        v = int(c[i:i + 2], 16) / 255
        out.append(v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4)
    return out


def seen(colour: str, vision: str | None) -> list[float]:
    rgb = _linear(colour)
    if vision is None:
        return rgb
    return [min(1.0, max(0.0, sum(m * x for m, x in zip(row, rgb)))) for row in MACHADO_2009[vision]]


def lab(rgb: list[float]) -> tuple[float, float, float]:
    r, g, b = rgb
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def distance(a: str, b: str, vision: str | None) -> float:
    return sum((p - q) ** 2 for p, q in zip(lab(seen(a, vision)), lab(seen(b, vision)))) ** 0.5


def test_the_simulation_is_machado_2009():
    # white stays white under every matrix (each row sums to 1), pure red turns dark yellow for a protan
    for matrix in MACHADO_2009.values():
        assert all(abs(sum(row) - 1) < 1e-3 for row in matrix)
    red = seen("#FF0000", "protan")
    assert red[0] == pytest.approx(0.152286) and red[1] == pytest.approx(0.114503)
    assert distance("#FF0000", "#00FF00", None) > 80 and distance("#FF0000", "#00FF00", "deutan") < 50


@pytest.mark.parametrize("name", ["standard", "crusader"])
@pytest.mark.parametrize("vision", VISIONS)
def test_owned_land_never_reads_as_water(name, vision):
    for info in get_variant(name).powers.values():
        tint = palette.owned_tint(info.colour)
        assert distance(tint, palette.SEA, vision) >= 15, f"{info.name}'s land is near the sea's colour ({vision})"
        if vision is None:
            assert distance(tint, palette.LAND, vision) >= 12, f"{info.name}'s land is near unowned land"
    assert distance(palette.LAND, palette.SEA, vision) >= 30


@pytest.mark.parametrize("name", ["standard", "crusader"])
@pytest.mark.parametrize("vision", VISIONS)
def test_units_stand_out_from_land_and_sea(name, vision):
    # every unit is outlined in ink besides; on its own power's tint (a pale shade of the same
    # colour, by design) the outline carries more of the difference
    for info in get_variant(name).powers.values():
        for ground in (palette.LAND, palette.SEA):
            assert distance(info.colour, ground, vision) >= 10, (info.name, ground, vision)
        assert distance(info.colour, palette.owned_tint(info.colour), vision) >= 8, (info.name, vision)


@pytest.mark.parametrize("name", ["standard", "crusader"])
@pytest.mark.parametrize("vision", VISIONS)
def test_powers_that_colour_alone_would_confuse_differ_by_their_pattern(name, vision):
    variant = get_variant(name)
    patterns = palette.patterns(variant)
    confusable = [(a, b) for (a, ia), (b, ib) in itertools.combinations(variant.powers.items(), 2)
                  if distance(ia.colour, ib.colour, vision) < 15]
    for a, b in confusable:
        assert patterns[a] != patterns[b]
    if vision is None:  # with normal vision the palette alone tells every power apart
        assert not confusable
    # the pattern on a unit reads against its colour (black or white, whichever is further)
    for info in variant.powers.values():
        ink = palette.ink_on(info.colour)
        assert distance(ink, info.colour, vision) >= 35, (info.name, vision)
