"""Colours of the map picture.

Powers bring their own colour from the map file (both maps use the Okabe-Ito palette, which
stays distinguishable with the common kinds of colour blindness); every power's units also carry
a pattern of their own (:func:`patterns`), so that colour is never the only cue, and no letter
that could be read as a unit's type. The rest sits behind them: pale land, a clear
mid-blue sea, mid grey for whatever belongs to no one. Land a power owns is tinted a pale shade of
its colour (:func:`owned_tint`); the sea is dark enough that no tint, not even of the two blue
powers, comes near it, under normal vision or simulated protan, deutan or tritan vision (a test
measures it).
"""

from __future__ import annotations

import functools
from adjudicator.variant import Variant

OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}

LAND = "#F2EBDA"
SEA = "#8CC2E6"
OFF_MAP = "#DCD8CE"
"""Land beyond the board's provinces."""
SEA_LABEL = "#0E3A5E"
LAND_LABEL = "#3A3A3A"
BORDER = "#9C9484"
SEA_BORDER = "#6FA6D2"
COAST = "#44607A"
FRAME = "#44607A"
INK = "#1E1E1E"
NEUTRAL = "#B8B8B8"
"""Neutral supply centres and neutral units."""
HALO = "#FFFFFF"
"""Drawn round labels and letters so that they read over anything."""
DISLODGED = "#C62828"
LEGEND_BG = "#FFFFFF"
OWNED_TINT = 0.72
"""How far an owner's colour is moved towards the land colour to tint its land."""


PATTERNS = ("plain", "bar", "pillar", "slash", "cross", "dot", "ring", "backslash")
"""What each power's units carry inside their colour, in the order the map file lists the powers:
nothing, a bar across, a bar upright, a slanting bar, a cross, a dot, a ring, a bar slanting the
other way."""


def patterns(variant: Variant) -> dict:
    """Each power's pattern (:data:`PATTERNS`), different for every power of the variant."""
    return {code: PATTERNS[i % len(PATTERNS)] for i, code in enumerate(variant.powers)}


def hatch_leans(variant: Variant) -> dict:
    """Which way each power's hatching leans: rising to the right (1) and to the left (-1) in
    turn, in the order the map file lists the powers."""
    return {code: 1 if i % 2 == 0 else -1 for i, code in enumerate(variant.powers)}


def power_colour(variant: Variant, power) -> str:
    """A power's colour; neutral grey for ``NEU`` and for a power the variant does not know."""
    info = variant.powers.get(power)
    return info.colour if info is not None and info.colour else NEUTRAL


def rgb(colour: str) -> tuple[int, int, int]:
    """``#RRGGBB`` as three bytes."""
    return _rgb(colour)


def _rgb(colour: str) -> tuple[int, int, int]:
    c = colour.lstrip("#")
    if len(c) == 3:
        c = "".join(ch * 2 for ch in c)
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


@functools.cache
def mix(colour: str, other: str, amount: float) -> str:
    """``colour`` moved ``amount`` (0..1) of the way towards ``other``."""
    a, b = _rgb(colour), _rgb(other)
    return "#" + "".join(f"{round(x + (y - x) * amount):02X}" for x, y in zip(a, b))


def ink_on(colour: str) -> str:
    """Black or white, whichever reads better on ``colour``."""
    r, g, b = _rgb(colour)
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return INK if luminance > 140 else "#FFFFFF"


def owned_tint(colour: str) -> str:
    """The tint of land owned by the power of ``colour``."""
    return mix(colour, LAND, OWNED_TINT)


HATCH_TINT = 0.2
"""How far an owner's colour is moved towards the land colour to hatch its land."""


def hatch_colour(colour: str) -> str:
    """The lines hatching land owned by the power of ``colour``."""
    return mix(colour, LAND, HATCH_TINT)
