"""A picture's pixels: the map's shared layers (:mod:`bot.render.layers`), the owned land, the
marks of a :class:`~bot.render.scene.Scene` and the legend (:mod:`bot.render.legend`),
composed with Pillow and aggdraw and written as a PNG with the map's own palette.

Nothing is interpreted per picture: the base is copied, each owned province pasted (tinted and
hatched once per owner, then kept), each line drawn directly (aggdraw, anti-aliased, on the
part of the picture it covers), the names an arrow crosses pasted again over it, and every
unit, dot, badge and tag pasted from a sprite drawn once. The palette is made once per map
from a sample of everything a picture may show, so that writing a picture needs no colour
search of its own.
"""

from __future__ import annotations

import io
import math
from typing import Iterable, Sequence

import aggdraw
import numpy as np
from PIL import Image

from adjudicator.variant import Variant
from adjudicator.vocab import NEUTRAL, UnitType

from . import palette, sprites
from .facts import FAILED, INVALID
from .layers import MapLayers
from .scene import (CASING, HEAD_LENGTH, HEAD_WIDTH, Badge, Dot, Line, Outcome, Ring, Scene, Tag, Token)

PNG_LEVEL = 3
"""zlib's level for the PNG: as small as level 6 within a tenth, in half the time."""
_DASH = {FAILED: (7.0, 4.0), INVALID: (1.2, 4.6)}
"""On and off lengths (picture units) of a failed order's dashes and an invalid one's dots."""


def _dashes(points: Sequence[tuple[float, float]], on: float, off: float) -> list[list[tuple[float, float]]]:
    """The pieces of a polyline drawn dashed."""
    out: list[list[tuple[float, float]]] = []
    piece: list[tuple[float, float]] = [points[0]]
    drawing, left = True, on
    for a, b in zip(points, points[1:]):
        length = math.dist(a, b)
        at = 0.0
        while length - at > left:
            at += left
            t = at / length
            p = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
            if drawing:
                piece.append(p)
                out.append(piece)
            piece = [p]
            drawing = not drawing
            left = on if drawing else off
        left -= length - at
        if drawing:
            piece.append(b)
        else:
            piece = [b]
    if drawing and len(piece) > 1:
        out.append(piece)
    return out


class _Canvas:
    """The picture, drawn on a piece at a time: aggdraw copies what it draws on, so each line is
    drawn on the part of the picture it covers."""

    def __init__(self, image: Image.Image, scale: float) -> None:
        self.image = image
        self.scale = scale

    def _region(self, points: Iterable[tuple[float, float]], pad: float) -> tuple[int, int, int, int]:
        pts = list(points)
        s = self.scale
        x0 = max(0, math.floor(min(x for x, _ in pts) * s - pad * s))
        y0 = max(0, math.floor(min(y for _, y in pts) * s - pad * s))
        x1 = min(self.image.width, math.ceil(max(x for x, _ in pts) * s + pad * s))
        y1 = min(self.image.height, math.ceil(max(y for _, y in pts) * s + pad * s))
        return x0, y0, max(x1, x0 + 1), max(y1, y0 + 1)

    def line(self, mark: Line) -> tuple[int, int, int, int]:
        s = self.scale
        pad = mark.width + 2 * CASING + HEAD_WIDTH + 2
        box = self._region(mark.points, pad)
        piece = self.image.crop(box)
        draw = aggdraw.Draw(piece)
        draw.settransform((-box[0], -box[1]))
        points = list(mark.points)
        tip = points[-1]
        if mark.head:   # the shaft stops at the head's neck
            (ax, ay), (bx, by) = points[-2], points[-1]
            length = math.hypot(bx - ax, by - ay) or 1.0
            ux, uy = (bx - ax) / length, (by - ay) / length
            neck = (bx - ux * HEAD_LENGTH, by - uy * HEAD_LENGTH)
            points[-1] = neck
        pieces = [points] if mark.status not in _DASH else _dashes(points, *_DASH[mark.status])
        if mark.status == INVALID:   # a row of dots, each with its own edge
            r = (mark.width / 2 + CASING / 2) * s
            edge, fill = aggdraw.Pen(mark.casing, 0.9 * s), aggdraw.Brush(mark.colour)
            for part in pieces:
                x, y = part[0]
                draw.ellipse((x * s - r, y * s - r, x * s + r, y * s + r), edge, fill)
        else:
            for pen in (aggdraw.Pen(mark.casing, (mark.width + 2 * CASING) * s), aggdraw.Pen(mark.colour, mark.width * s)):
                for part in pieces:
                    draw.line([v * s for point in part for v in point], pen)
        if mark.head:
            (ax, ay), (bx, by) = mark.points[-2], mark.points[-1]
            length = math.hypot(bx - ax, by - ay) or 1.0
            ux, uy = (bx - ax) / length, (by - ay) / length
            nx, ny = tip[0] - ux * HEAD_LENGTH, tip[1] - uy * HEAD_LENGTH
            head = [tip, (nx - uy * HEAD_WIDTH, ny + ux * HEAD_WIDTH), (nx + uy * HEAD_WIDTH, ny - ux * HEAD_WIDTH)]
            fill = mark.colour if mark.status != INVALID else palette.HALO
            draw.polygon([v * s for point in head for v in point], aggdraw.Pen(mark.casing, 1.3 * s),
                         aggdraw.Brush(fill))
        if mark.end:
            x, y = mark.points[-1]
            r = 3.2 * s
            draw.ellipse((x * s - r, y * s - r, x * s + r, y * s + r), aggdraw.Pen(mark.casing, 1.2 * s),
                         aggdraw.Brush(mark.colour))
        draw.flush()
        self.image.paste(piece, box)
        return box


def draw_map(variant: Variant, layers: MapLayers, scene: Scene, owned: Iterable[tuple[str, str]]) -> Image.Image:
    """A picture's map drawn on a copy of the base (whose legend band is left for
    :func:`bot.render.legend.draw_legend`): the owned land (province, owner) and the marks."""
    image = layers.base.copy()
    s = layers.scale
    leans = palette.hatch_leans(variant)
    for province, owner in owned:
        if province not in layers.masks:
            continue
        colour = palette.power_colour(variant, owner)
        patch, at, mask = layers.owned(province, palette.owned_tint(colour), palette.hatch_colour(colour),
                                       leans.get(owner, 1))
        image.paste(patch, at, mask)
    canvas = _Canvas(image, s)
    touched = [canvas.line(m) for m in scene.marks if isinstance(m, Line)]
    for mark in scene.marks:    # the rings of orders lie under the names too
        if isinstance(mark, Ring) and mark.kind != "dislodged":
            touched.append(_ring(image, mark, s))
    if touched:   # the names the lines crossed, over them again
        boxes = layers.name_boxes
        hit = np.zeros(len(boxes), dtype=bool)
        for t in touched:
            hit |= (boxes[:, 0] < t[2]) & (t[0] < boxes[:, 2]) & (boxes[:, 1] < t[3]) & (t[1] < boxes[:, 3])
        for i in np.flatnonzero(hit):
            sprite, at = layers.name_list[i]
            image.paste(sprite, at, sprite)
    patterns = palette.patterns(variant)
    for mark in scene.marks:
        if isinstance(mark, Dot):
            colour = palette.power_colour(variant, mark.owner) if mark.owner else None
            sprites.paste(image, sprites.dot(colour, mark.changed, s), mark.at, s)
        elif isinstance(mark, Token):
            colour = palette.power_colour(variant, mark.power)
            pattern = "plain" if mark.power == NEUTRAL else patterns.get(mark.power, "plain")
            sprites.paste(image, sprites.unit(colour, pattern, mark.type is UnitType.FLEET, s, mark.small), mark.at, s)
        elif isinstance(mark, Ring) and mark.kind == "dislodged":
            _ring(image, mark, s)
        elif isinstance(mark, Badge):
            sprites.paste(image, sprites.badge(mark.kind, mark.colour, s), mark.at, s)
        elif isinstance(mark, Tag):
            sprites.paste(image, sprites.tag(mark.kind, mark.colour, mark.amount, mark.status == FAILED, s), mark.at, s)
        elif isinstance(mark, Outcome):
            sprite = sprites.no_sign(mark.r, s) if mark.kind == "no" else sprites.cross(mark.r, s)
            sprites.paste(image, sprite, mark.at, s)
    return image


def _ring(image: Image.Image, mark: Ring, scale: float) -> tuple[int, int, int, int]:
    sprite = sprites.ring(mark.colour, mark.r, mark.width, mark.casing, mark.status, scale)
    sprites.paste(image, sprite, mark.centre, scale)
    x, y = round(mark.centre[0] * scale - sprite[1]), round(mark.centre[1] * scale - sprite[2])
    return x, y, x + sprite[0].width, y + sprite[0].height


def png(image: Image.Image, layers: MapLayers) -> bytes:
    """The picture written as a PNG with the map's palette."""
    out = io.BytesIO()
    image.quantize(palette=layers.palette, dither=Image.Dither.NONE).save(out, "PNG", compress_level=PNG_LEVEL)
    return out.getvalue()


def sample_palette(variant: Variant, layers: MapLayers) -> Image.Image:
    """The palette of a map's pictures: 256 colours chosen from a picture of everything they
    may show (the base, every power's land, units, lines, dots and tags, the legend's text)."""
    from .legend import sample_blocks
    from .scene import ARROW_WIDTH, THIN_WIDTH

    s = layers.scale
    sample = layers.base.copy()
    provinces = [p for p in sorted(layers.masks) if not variant.provinces[p].is_sea]
    powers = list(variant.powers)
    angles = palette.hatch_leans(variant)
    for i, province in enumerate(provinces):
        owner = powers[i % len(powers)]
        colour = palette.power_colour(variant, owner)
        patch, at, mask = layers.owned(province, palette.owned_tint(colour), palette.hatch_colour(colour),
                                       angles.get(owner, 1))
        sample.paste(patch, at, mask)
    canvas = _Canvas(sample, s)
    w, h = layers.width / s, layers.height / s
    colours = [palette.power_colour(variant, p) for p in powers] + [palette.NEUTRAL]
    patterns = palette.patterns(variant)
    for i, colour in enumerate(colours):
        y = h * (i + 1) / (len(colours) + 2)
        canvas.line(Line("move", ((w * 0.05, y), (w * 0.95, y + 40)), colour, ARROW_WIDTH, head=True))
        canvas.line(Line("support", ((w * 0.1, y + 15), (w * 0.9, y - 30)), colour, THIN_WIDTH, end=True))
        for j, fleet in enumerate((False, True)):
            power = powers[i] if i < len(powers) else NEUTRAL
            sprites.paste(sample, sprites.unit(colour, patterns.get(power, "plain"), fleet, s),
                          (w * (0.2 + 0.1 * j), y), s)
        sprites.paste(sample, sprites.dot(colour, True, s), (w * 0.5, y), s)
        sprites.paste(sample, sprites.tag("bribe", colour, 3, False, s), (w * 0.6, y), s)
    blocks = sample_blocks(variant, layers.width)
    both = Image.new("RGB", (sample.width, sample.height + sum(b.height for b in blocks)))
    both.paste(sample, (0, 0))
    y = sample.height
    for block in blocks:
        both.paste(block, (0, y))
        y += block.height
    exact = _flat_colours(variant)
    found = both.quantize(256 - len(exact), method=Image.Quantize.FASTOCTREE).getpalette()[:3 * (256 - len(exact))]
    entries = [c for colour in exact for c in palette.rgb(colour)] + found
    out = Image.new("P", (1, 1))
    out.putpalette(entries + [0] * (768 - len(entries)))
    return out


def _flat_colours(variant: Variant) -> list[str]:
    """The colours a picture paints flat (ground, lines, each power's own, tint and hatching):
    exact entries of the palette, so that no flat area shifts colour when written."""
    colours = [palette.LAND, palette.SEA, palette.OFF_MAP, palette.SEA_LABEL, palette.LAND_LABEL, palette.BORDER,
               palette.SEA_BORDER, palette.COAST, palette.FRAME, palette.INK, palette.NEUTRAL, palette.HALO,
               palette.DISLODGED, palette.LEGEND_BG, "#FFFFFF"]
    for power in variant.powers:
        colour = palette.power_colour(variant, power)
        colours += [colour, palette.owned_tint(colour), palette.hatch_colour(colour),
                    palette.mix(colour, "#FFFFFF", 0.55)]
    return list(dict.fromkeys(c.upper() for c in colours))


__all__ = ["PNG_LEVEL", "draw_map", "png", "sample_palette"]
