"""The band under the map: the game and the season, each power with its centres and prestige
as they stand after the season (and how they changed), the prestige orders that have no place
on the map, and a key to every kind of symbol the picture uses.

Who bid what and what it cost is not repeated here: every bid is drawn where it applies, and
the season's results list each one with its outcome.

The band has the same height in every picture of a map (:func:`band_height`: room for every
power and the whole key), so that it is part of the base every picture copies; what a season
writes in it is pasted in blocks (the title, a row per power, the key), each drawn once and
kept, since the same rows and keys come back season after season. A block is drawn on the
band's own background, and knows the box of what it drew: only that box of the band changes.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import NamedTuple

from PIL import Image

from adjudicator.variant import Variant, get_variant

from . import fonts, palette, sprites
from .facts import FAILED, INVALID, PENDING, SUCCEEDED, Facts, Pledge, Standing
from .layout import UNIT_R, WIDTH
from .scene import ARROW_WIDTH, THIN_WIDTH, Line
from .strokes import CROSSING_WIDTH, Canvas, crossing_ends

MARGIN = 14.0
TITLE_SIZE = 21.0
TEXT_SIZE = 17.0
SMALL_SIZE = 15.0
ROW = 26.0
TITLE_HEIGHT = MARGIN + TITLE_SIZE + SMALL_SIZE * 1.5 + 8
"""Picture units: the legend is set at the map's scale."""

KEY = {
    "army": "army", "fleet": "fleet", "neutral": "neutral", "centre": "supply centre",
    "changed": "centre taken this season", "move": "move", "support": "support", "convoy": "convoy",
    "hold": "hold", "retreat": "retreat", "random retreat": "retreat at random (neutral)", "build": "build",
    "disband": "disband", "dislodged": "dislodged", "failed": "failed", "invalid": "could not be given",
    "vassal": "vassal of", "bribed": "bribed by", "bribe": "BRIBE bid", "fief": "SEIZE FIEF", "rebel": "REBEL bid",
    "vassal bid": "VASSAL bid", "crossing": "strait crossing",
}
"""Every kind of symbol, in the order the key lists them, with its words."""

_MARK = {SUCCEEDED: " \u2713", FAILED: " \u2717", INVALID: " (could not be given)", PENDING: ""}


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else f"\u2212{-n}" if n < 0 else "\u00b10"


def pledge_text(pledges: Sequence[Pledge]) -> str:
    """A power's SECURE LOYALTY and LEND orders, with how they went."""
    out = []
    for p in pledges:
        if p.kind == "loyalty":
            out.append(f"SECURE LOYALTY {p.amount}{_MARK[p.status]}")
        else:
            out.append(f"LEND {p.amount} to {p.to}{_MARK[p.status]}")
    return ", ".join(out)


class Block(NamedTuple):
    """A block of the legend: its pixels, and the box (left, top, right, bottom pixels) that
    holds all it drew on its background (:data:`palette.LEGEND_BG`, the band's own); ``None``
    when it drew nothing."""

    image: Image.Image
    drawn: tuple[int, int, int, int] | None


class _Block:
    """A white block of the legend ``width`` pixels wide, drawn on in picture units, with the
    box of what was drawn on it."""

    def __init__(self, width: int, height: float) -> None:
        self.scale = width / WIDTH
        self.image = Image.new("RGB", (width, max(1, round(height * self.scale))), palette.LEGEND_BG)
        self.drawn: tuple[int, int, int, int] | None = None

    def _drew(self, box: tuple[int, int, int, int]) -> None:
        w, h = self.image.size
        x0, y0, x1, y1 = max(0, box[0]), max(0, box[1]), min(w, box[2]), min(h, box[3])
        if x0 < x1 and y0 < y1:
            d = self.drawn
            self.drawn = (x0, y0, x1, y1) if d is None else \
                (min(d[0], x0), min(d[1], y0), max(d[2], x1), max(d[3], y1))

    def block(self) -> Block:
        return Block(self.image, self.drawn)

    def text(self, x: float, y: float, words: str, size: float, *, bold: bool = False, colour: str = palette.INK,
             room: float | None = None) -> float:
        """Words with their baseline at ``y``, cut short to fit in ``room`` when given; returns where
        they end (picture units)."""
        s = self.scale
        if room is not None:
            words = _fitted(words, size * s, bold, room * s)
        sprite, base = sprites.text(words, size * s, colour, bold)
        at = (round(x * s), round(y * s) - base)
        self.image.paste(sprite, at, sprite)
        self._drew((at[0], at[1], at[0] + sprite.width, at[1] + sprite.height))
        return x + sprite.width / s

    def sprite(self, sprite: sprites.Sprite, at: tuple[float, float]) -> None:
        self._drew(sprites.paste(self.image, sprite, at, self.scale))

    def mark(self, mark) -> None:
        self._drew(Canvas(self.image, self.scale).line(mark))


@functools.lru_cache(maxsize=4096)
def _fitted(words: str, size: float, bold: bool, room: float) -> str:
    """``words`` as they fit in ``room`` pixels at ``size``: whole, or cut with an ellipsis. Kept:
    a map's subtitles come back in every picture."""
    face = fonts.font(size, bold=bold)
    if face.getlength(words) <= room:
        return words
    while words and face.getlength(words + "\u2026") > room:
        words = words[:-1]
    return words + "\u2026"


def _symbol(block: _Block, kind: str, x: float, y: float) -> None:
    """A small drawing of one kind of symbol, centred on (x, y), about 34 wide."""
    s = block.scale
    grey = palette.NEUTRAL
    if kind in ("army", "fleet"):
        block.sprite(sprites.unit("#FFFFFF", "plain", kind == "fleet", s), (x, y))
    elif kind == "neutral":
        block.sprite(sprites.unit(grey, "plain", False, s), (x, y))
    elif kind == "centre":
        block.sprite(sprites.dot(None, False, s), (x, y))
    elif kind == "changed":
        block.sprite(sprites.dot(grey, True, s), (x, y))
    elif kind in ("move", "failed", "invalid"):
        status = {"move": PENDING, "failed": FAILED, "invalid": INVALID}[kind]
        end = x + (17 if kind == "move" else 10)
        block.mark(Line(kind, ((x - 17, y), (end, y)), grey, ARROW_WIDTH, head=True, status=status))
        if kind == "failed":
            block.sprite(sprites.cross(5.5, s), (end, y))
        elif kind == "invalid":
            block.sprite(sprites.no_sign(6.5, s), (end, y))
    elif kind in ("retreat", "random retreat"):
        block.mark(Line(kind, ((x - 17, y), (x + 17, y)), grey, ARROW_WIDTH - 0.8, casing=palette.DISLODGED, head=True))
    elif kind in ("support", "convoy"):
        block.mark(Line(kind, ((x - 17, y), (x + 14, y)), grey, THIN_WIDTH, end=True))
        if kind == "convoy":
            block.sprite(sprites.ring(grey, 8.0, THIN_WIDTH, palette.INK, PENDING, s), (x - 8, y))
    elif kind in ("hold", "build"):
        block.sprite(sprites.ring(grey, 10.0, 2.6, palette.INK, PENDING, s), (x, y))
        if kind == "build":
            block.sprite(sprites.unit(grey, "plain", False, s, True), (x, y))
    elif kind == "disband":
        block.sprite(sprites.cross(UNIT_R - 2, s), (x, y))
    elif kind == "dislodged":
        block.sprite(sprites.unit(grey, "plain", False, s, True), (x, y))
        block.sprite(sprites.ring(palette.DISLODGED, 10.5, 2.0, None, PENDING, s), (x, y))
    elif kind in ("vassal", "bribed"):
        block.sprite(sprites.badge("vassal" if kind == "vassal" else "bribe", grey, s), (x, y))
    elif kind in ("bribe", "fief", "rebel", "vassal bid"):
        tag = "vassal" if kind == "vassal bid" else kind
        block.sprite(sprites.tag(tag, grey, None if kind == "fief" else 2, False, s), (x, y))
    elif kind == "crossing":
        p, q = (x - 15, y), (x + 15, y)
        block.mark(Line(kind, (p, q), palette.INK, CROSSING_WIDTH, casing=palette.HALO))
        for a, b in crossing_ends(p, q):
            block.mark(Line(kind, (a, b), palette.INK, CROSSING_WIDTH - 1.2, casing=palette.INK))


def _key_lines(used: frozenset[str], scale: float) -> list[list[tuple[str, float]]]:
    """The key's symbols, line by line, each with where it starts."""
    lines: list[list[tuple[str, float]]] = [[]]
    x = MARGIN
    for kind, label in KEY.items():
        if kind not in used:
            continue
        w = 44 + fonts.font(SMALL_SIZE * scale).getlength(label) / scale
        if x + w > WIDTH - MARGIN and x > MARGIN:
            x = MARGIN
            lines.append([])
        lines[-1].append((kind, x))
        x += w + 16
    return lines if lines[0] else []


@functools.lru_cache(maxsize=128)
def key_block(used: frozenset[str], width: int) -> Block:
    """The key to the symbols ``used``."""
    scale = width / WIDTH
    lines = _key_lines(used, scale)
    block = _Block(width, ROW * len(lines) + ROW * 0.4)
    for i, line in enumerate(lines):
        y = ROW * (i + 0.8)
        for kind, x in line:
            _symbol(block, kind, x + 17, y - 5)
            block.text(x + 40, y, KEY[kind], SMALL_SIZE)
    return block.block()


@functools.lru_cache(maxsize=256)
def title_block(title: str, subtitle: str, width: int) -> Block:
    block = _Block(width, TITLE_HEIGHT)
    y = MARGIN + TITLE_SIZE
    block.text(MARGIN, y, title, TITLE_SIZE, bold=True, room=WIDTH - 2 * MARGIN)
    block.text(MARGIN, y + SMALL_SIZE * 1.5, subtitle, SMALL_SIZE, colour=palette.LAND_LABEL, room=WIDTH - 2 * MARGIN)
    return block.block()


def row_words(variant: Variant, standing: Standing, pledges: str, adjudicated: bool) -> tuple[str, str, str, str]:
    """A power's row: its name, its centres, its units, its prestige (each with how it changed)."""
    info = variant.powers[standing.power]
    name = info.name.removeprefix("The ")
    change = f" ({_signed(standing.centres - standing.centres_before)})" if adjudicated and \
        standing.centres != standing.centres_before else ""
    centres = f"{standing.centres} centre{'s' if standing.centres != 1 else ''}{change}"
    units = f"\u00b7 {standing.units} unit{'s' if standing.units != 1 else ''}"
    column = ""
    if standing.column is not None:
        change = f" ({_signed(standing.column - (standing.column_before or 0))})" if adjudicated and \
            standing.column != standing.column_before else ""
        column = f"{standing.column} {standing.column_name}{change}"
    return name, centres, units, column


CENTRES_X, COLUMN_X, PLEDGES_X = 390.0, 600.0, 770.0
"""Where a power's row writes its centres (and units after them), its prestige (the rules'
column) and its pledges, unless a row's words reach further (:func:`columns`)."""
GAP = 16.0
"""The least room between the end of one column's words and the next column."""
UNITS_AFTER = 6.0
"""The room between a row's centres and its units, written after them."""


@functools.lru_cache(maxsize=4096)
def _length(words: str, size: float, bold: bool) -> float:
    """How long ``words`` are at ``size`` pixels, in pixels."""
    return fonts.font(size, bold=bold).getlength(words)


def columns(rows: Sequence[tuple[str, str, str, str]], scale: float) -> tuple[float, float]:
    """Where every row of a legend starts its prestige and its pledges (``rows``: each power's
    :func:`row_words`): at :data:`COLUMN_X` and :data:`PLEDGES_X`, or further right, all rows
    alike, when the longest centres and units (or prestige) would come within :data:`GAP` of them."""
    def length(words: str, bold: bool) -> float:
        return _length(words, TEXT_SIZE * scale, bold) / scale

    units_end = max((CENTRES_X + length(centres, True) + UNITS_AFTER + length(units, False)
                     for _, centres, units, _ in rows), default=CENTRES_X)
    column_x = max(COLUMN_X, units_end + GAP)
    column_end = max((column_x + length(column, True) for *_, column in rows if column), default=column_x)
    return column_x, max(PLEDGES_X, column_end + GAP)


@functools.lru_cache(maxsize=1024)
def row_block(variant_name: str, standing: Standing, pledges: str, adjudicated: bool, width: int,
              at: tuple[float, float] = (COLUMN_X, PLEDGES_X)) -> Block:
    """A power's row, its prestige and pledges starting ``at`` (:func:`columns`)."""
    variant = get_variant(variant_name)
    block = _Block(width, ROW)
    y = ROW * 0.72
    colour = palette.power_colour(variant, standing.power)
    pattern = palette.patterns(variant).get(standing.power, "plain")
    block.sprite(sprites.unit(colour, pattern, False, block.scale), (MARGIN + 11, y - 6))
    name, centres, units, prestige = row_words(variant, standing, pledges, adjudicated)
    column_x, pledges_x = at
    block.text(MARGIN + 30, y, name, TEXT_SIZE, room=340)
    x = block.text(CENTRES_X, y, centres, TEXT_SIZE, bold=True)
    block.text(x + UNITS_AFTER, y, units, TEXT_SIZE)
    if prestige:
        block.text(column_x, y, prestige, TEXT_SIZE, bold=True)
    if pledges:
        block.text(pledges_x, y, pledges, SMALL_SIZE, room=WIDTH - MARGIN - pledges_x)
    return block.block()


@functools.cache
def band_height(variant_name: str, width: int) -> int:
    """The legend band's height in pixels: room for the title, every power and the whole key."""
    variant = get_variant(variant_name)
    scale = width / WIDTH
    lines = len(_key_lines(frozenset(KEY), scale))
    return round((TITLE_HEIGHT + ROW * len(variant.powers) + ROW * 0.6 + ROW * lines + ROW * 0.4 + MARGIN) * scale)


def draw_legend(image: Image.Image, top: int, variant: Variant, facts: Facts, used: frozenset[str], title: str,
                subtitle: str) -> list[tuple[int, int, int, int]]:
    """Paste the legend's blocks into the band of ``image`` that starts ``top`` pixels down; the
    boxes (left, top, right, bottom pixels) of what they drew there. The band is the blocks' own
    background, so only those boxes differ from it."""
    width = image.width
    scale = width / WIDTH
    pledges: dict[str, list[Pledge]] = {}
    for p in facts.pledges:
        pledges.setdefault(p.power, []).append(p)
    texts = [pledge_text(pledges.get(standing.power, ())) for standing in facts.standings]
    at = columns([row_words(variant, standing, text, facts.adjudicated)
                  for standing, text in zip(facts.standings, texts)], scale)
    placed = []
    y = top + max(1, round(2 * scale))     # under the frame line (as wide) between the map and the band
    for block in [title_block(title, subtitle, width)] + [
            row_block(variant.name, standing, text, facts.adjudicated, width, at)
            for standing, text in zip(facts.standings, texts)]:
        placed.append((block, y))
        y += block.image.height
    placed.append((key_block(used, width), y + round(ROW * 0.6 * scale)))
    boxes = []
    for block, y in placed:
        image.paste(block.image, (0, y))
        if block.drawn is not None:
            x0, y0, x1, y1 = block.drawn
            boxes.append((x0, y + y0, x1, y + y1))
    return boxes


def legend_words(variant: Variant, facts: Facts, used: frozenset[str], title: str, subtitle: str) -> list[str]:
    """Everything the legend writes, in order (what a reader of the picture reads there)."""
    pledges: dict[str, list[Pledge]] = {}
    for p in facts.pledges:
        pledges.setdefault(p.power, []).append(p)
    words = [title, subtitle]
    for standing in facts.standings:
        text = pledge_text(pledges.get(standing.power, ()))
        words += [w for w in row_words(variant, standing, text, facts.adjudicated) if w] + ([text] if text else [])
    words += [KEY[k] for k in KEY if k in used]
    return words


def sample_blocks(variant: Variant, width: int) -> list[Image.Image]:
    """Legend blocks with every symbol and the longest words, for the palette."""
    standings = [Standing(p, 10, 9, 10, 5, 7, "prestige") for p in variant.powers]
    blocks = [title_block("Sample game \u00b7 Fall 1101 Movement", variant.title, width),
              key_block(frozenset(KEY), width)]
    blocks += [row_block(variant.name, s, "SECURE LOYALTY 2 \u2713", True, width) for s in standings]
    return [block.image for block in blocks]


__all__ = ["KEY", "Block", "band_height", "columns", "draw_legend", "key_block", "legend_words", "pledge_text", "row_block",
           "sample_blocks", "title_block"]
