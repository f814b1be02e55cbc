"""The band under the map: the game and the season, each power with its centres and prestige
as they stand after the season (and how they changed), the prestige orders that have no place
on the map, and a key to every kind of symbol the picture uses.

Who bid what and what it cost is not repeated here: every bid is drawn where it applies, and
the season's results list each one with its outcome.
"""

from __future__ import annotations

from typing import Sequence

from PIL import Image

from adjudicator.variant import Variant

from . import palette, sprites
from .facts import FAILED, INVALID, PENDING, SUCCEEDED, Facts, Pledge, Standing
from .layout import UNIT_R

MARGIN = 14.0
TITLE_SIZE = 21.0
TEXT_SIZE = 17.0
SMALL_SIZE = 15.0
ROW = 26.0
"""Picture units: the legend is set at the map's scale."""

KEY = {
    "army": "army", "fleet": "fleet", "neutral": "neutral", "centre": "supply centre",
    "changed": "centre taken this season", "move": "move", "support": "support", "convoy": "convoy",
    "hold": "hold", "retreat": "retreat", "random retreat": "retreat at random (neutral)", "build": "build",
    "disband": "disband", "dislodged": "dislodged", "failed": "failed", "invalid": "could not be given",
    "vassal": "vassal of", "bribed": "bribed by", "bribe": "BRIBE bid", "fief": "SEIZE FIEF", "rebel": "REBEL bid",
    "crossing": "strait crossing",
}
"""Every kind of symbol, in the order the key lists them, with its words."""

_MARK = {SUCCEEDED: " \u2713", FAILED: " \u2717", INVALID: " (could not be given)", PENDING: ""}


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else f"\u2212{-n}" if n < 0 else "\u00b10"


def _pledges(variant: Variant, pledges: Sequence[Pledge]) -> str:
    out = []
    for p in pledges:
        if p.kind == "loyalty":
            out.append(f"SECURE LOYALTY {p.amount}{_MARK[p.status]}")
        else:
            out.append(f"LEND {p.amount} to {p.to}{_MARK[p.status]}")
    return ", ".join(out)


class _Band:
    def __init__(self, width: int) -> None:
        self.width = width
        self.scale = width / 1000.0
        self.items: list = []    # (kind, args) drawn once the height is known

    def text(self, x: float, y: float, words: str, size: float, *, bold: bool = False, colour: str = palette.INK,
             room: float | None = None) -> float:
        """Words with their baseline at ``y``; returns where they end (picture units)."""
        s = self.scale
        words = self._fit(words, size, bold, room)
        sprite, base = sprites.text(words, size * s, colour, bold)
        self.items.append(("image", sprite, (round(x * s), round(y * s) - base)))
        return x + sprite.width / s

    def _fit(self, words: str, size: float, bold: bool, room: float | None) -> str:
        if room is None:
            return words
        from . import fonts

        face = fonts.font(size * self.scale, bold=bold)
        if face.getlength(words) <= room * self.scale:
            return words
        while words and face.getlength(words + "\u2026") > room * self.scale:
            words = words[:-1]
        return words + "\u2026"

    def draw(self, height: float) -> Image.Image:
        s = self.scale
        image = Image.new("RGB", (self.width, max(1, round(height * s))), palette.LEGEND_BG)
        from .raster import _Canvas
        from .scene import Line

        canvas = _Canvas(image, s)
        canvas.line(Line("rule", ((0, 1), (1000, 1)), palette.FRAME, 1.0, casing=palette.FRAME))
        for kind, *args in self.items:
            if kind == "image":
                sprite, at = args
                image.paste(sprite, at, sprite)
            elif kind == "sprite":
                sprite, at = args
                sprites.paste(image, sprite, at, s)
            elif kind == "mark":
                mark, = args
                canvas.line(mark) if isinstance(mark, Line) else canvas.ring(mark)
        return image


def _symbol(band: _Band, variant: Variant, kind: str, x: float, y: float) -> None:
    """A small drawing of one kind of symbol, centred on (x, y), about 34 wide."""
    from .scene import ARROW_WIDTH, THIN_WIDTH, Line, Ring

    s = band.scale
    grey = palette.NEUTRAL
    if kind in ("army", "fleet"):
        band.items.append(("sprite", sprites.unit("#FFFFFF", "plain", kind == "fleet", s), (x, y)))
    elif kind == "neutral":
        band.items.append(("sprite", sprites.unit(grey, "plain", False, s), (x, y)))
    elif kind == "centre":
        band.items.append(("sprite", sprites.dot(None, False, s), (x, y)))
    elif kind == "changed":
        band.items.append(("sprite", sprites.dot(grey, True, s), (x, y)))
    elif kind in ("move", "failed", "invalid"):
        status = {"move": PENDING, "failed": FAILED, "invalid": INVALID}[kind]
        band.items.append(("mark", Line(kind, ((x - 17, y), (x + 17, y)), grey, ARROW_WIDTH, head=True, status=status)))
        if kind == "failed":
            band.items.append(("sprite", sprites.cross(5.5, s), (x + 17, y)))
        elif kind == "invalid":
            band.items.append(("sprite", sprites.no_sign(6.5, s), (x + 17, y)))
    elif kind in ("retreat", "random retreat"):
        band.items.append(("mark", Line(kind, ((x - 17, y), (x + 17, y)), grey, ARROW_WIDTH - 0.8,
                                        casing=palette.DISLODGED, head=True)))
    elif kind in ("support", "convoy"):
        band.items.append(("mark", Line(kind, ((x - 17, y), (x + 14, y)), grey, THIN_WIDTH, end=True)))
        if kind == "convoy":
            band.items.append(("mark", Ring(kind, (x - 8, y), 8.0, grey, THIN_WIDTH)))
    elif kind in ("hold", "build"):
        band.items.append(("mark", Ring(kind, (x, y), 10.0, grey)))
        if kind == "build":
            band.items.append(("sprite", sprites.unit(grey, "plain", False, s, True), (x, y)))
    elif kind == "disband":
        band.items.append(("sprite", sprites.cross(UNIT_R - 2, s), (x, y)))
    elif kind == "dislodged":
        band.items.append(("sprite", sprites.unit(grey, "plain", False, s, True), (x, y)))
        band.items.append(("mark", Ring(kind, (x, y), 10.5, palette.DISLODGED, 2.0, casing=None)))
    elif kind in ("vassal", "bribed"):
        band.items.append(("sprite", sprites.badge("vassal" if kind == "vassal" else "bribe", grey, s), (x, y)))
    elif kind in ("bribe", "fief", "rebel"):
        band.items.append(("sprite", sprites.tag(kind, grey, None if kind == "fief" else 2, False, s), (x, y)))
    elif kind == "crossing":
        from .layers import CROSSING_WIDTH, crossing_ends

        p, q = (x - 15, y), (x + 15, y)
        band.items.append(("mark", Line(kind, (p, q), palette.INK, CROSSING_WIDTH, casing=palette.HALO)))
        for a, b in crossing_ends(p, q):
            band.items.append(("mark", Line(kind, (a, b), palette.INK, CROSSING_WIDTH - 1.2, casing=palette.INK)))


def legend(variant: Variant, facts: Facts, used: frozenset[str], title: str, subtitle: str, width: int) -> Image.Image:
    """The legend band of a picture ``width`` pixels wide."""
    band = _Band(width)
    y = MARGIN + TITLE_SIZE
    band.text(MARGIN, y, title, TITLE_SIZE, bold=True, room=1000 - 2 * MARGIN)
    y += SMALL_SIZE * 1.5
    band.text(MARGIN, y, subtitle, SMALL_SIZE, colour=palette.LAND_LABEL, room=1000 - 2 * MARGIN)
    y += 8
    pledges: dict[str, list[Pledge]] = {}
    for p in facts.pledges:
        pledges.setdefault(p.power, []).append(p)
    patterns = palette.patterns(variant)
    s = band.scale
    for standing in facts.standings:
        y += ROW
        _power_row(band, variant, standing, pledges.get(standing.power, ()), patterns, y, facts.adjudicated)
    y += ROW * 0.6
    x = MARGIN
    line_y = y + ROW * 0.7
    for kind in KEY:
        if kind not in used:
            continue
        words = KEY[kind]
        from . import fonts

        w = 44 + fonts.font(SMALL_SIZE * s).getlength(words) / s
        if x + w > 1000 - MARGIN and x > MARGIN:
            x, line_y = MARGIN, line_y + ROW
        _symbol(band, variant, kind, x + 17, line_y - 5)
        band.text(x + 40, line_y, words, SMALL_SIZE)
        x += w + 16
    height = line_y + MARGIN
    return band.draw(height)


def _power_row(band: _Band, variant: Variant, standing: Standing, pledges: Sequence[Pledge], patterns, y: float,
               adjudicated: bool) -> None:
    s = band.scale
    info = variant.powers[standing.power]
    colour = palette.power_colour(variant, standing.power)
    band.items.append(("sprite", sprites.unit(colour, patterns.get(standing.power, "plain"), False, s), (MARGIN + 11, y - 6)))
    name = info.name[4:] if info.name.startswith("The ") else info.name
    band.text(MARGIN + 30, y, name, TEXT_SIZE, room=340)
    change = f" ({_signed(standing.centres - standing.centres_before)})" if adjudicated and \
        standing.centres != standing.centres_before else ""
    centres = f"{standing.centres} centre{'s' if standing.centres != 1 else ''}{change}"
    x = band.text(390, y, centres, TEXT_SIZE, bold=True)
    band.text(x + 6, y, f"\u00b7 {standing.units} unit{'s' if standing.units != 1 else ''}", TEXT_SIZE)
    if standing.prestige is not None:
        change = f" ({_signed(standing.prestige - (standing.prestige_before or 0))})" if adjudicated and \
            standing.prestige != standing.prestige_before else ""
        band.text(600, y, f"{standing.prestige} prestige{change}", TEXT_SIZE, bold=True)
    if pledges:
        band.text(770, y, _pledges(variant, pledges), SMALL_SIZE, room=1000 - MARGIN - 770)


def sample_legend(variant: Variant, width: int) -> Image.Image:
    """A legend with every symbol and the longest words, for the palette."""
    from .facts import Facts, Standing

    standings = tuple(Standing(p, 10, 9, 10, 5, 7) for p in variant.powers)
    pledges = (Pledge("loyalty", next(iter(variant.powers)), 2, None, SUCCEEDED),)
    facts = Facts(board=None, owners={}, pledges=pledges, standings=standings, adjudicated=True)  # type: ignore[arg-type]
    return legend(variant, facts, frozenset(KEY), "Sample game \u00b7 Fall 1101 Movement",
                  variant.title, width)


__all__ = ["KEY", "legend", "sample_legend"]
