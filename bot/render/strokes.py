"""Lines drawn on a picture: an order's line (a move's arrow, a support, a convoy, a retreat),
dashed or dotted by its outcome, and a strait crossing's bar; anti-aliased by aggdraw, each on the
part of the picture it covers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import aggdraw
from PIL import Image

from . import palette
from .facts import FAILED, INVALID
from .scene import CASING, HEAD_LENGTH, HEAD_WIDTH, Line
import itertools

CROSSING_WIDTH = 3.2
CROSSING_LENGTH = 26.0
"""A crossing (Constantinople-Nicaea over the Bosporus) is drawn at least this long, its middle
on the strait, so that it reads at the size Discord shows."""
_DASH = {FAILED: (7.0, 4.0), INVALID: (1.2, 4.6)}
"""On and off lengths (picture units) of a failed order's dashes and an invalid one's dots."""


def dashes(points: Sequence[tuple[float, float]], on: float, off: float) -> list[list[tuple[float, float]]]:
    """The pieces of a polyline drawn dashed."""
    out: list[list[tuple[float, float]]] = []
    piece: list[tuple[float, float]] = [points[0]]
    drawing, left = True, on
    for a, b in itertools.pairwise(points):
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


class Canvas:
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

    def box(self, mark: Line) -> tuple[int, int, int, int]:
        """The part of the picture a line covers (pixels)."""
        return self._region(mark.points, mark.width + 2 * CASING + HEAD_WIDTH + 2)

    def line(self, mark: Line) -> tuple[int, int, int, int]:
        """Draw one line; the part of the picture it covered."""
        return self.lines([mark])[0]

    def lines(self, marks: Sequence[Line]) -> list[tuple[int, int, int, int]]:
        """Draw lines in their order, those whose parts of the picture overlap on one piece (a
        piece costs more than a line); the part each covered."""
        boxes = [self.box(m) for m in marks]
        groups: list[tuple[list[int], tuple[int, int, int, int]]] = []
        for i, box in enumerate(boxes):   # a line joins the piece of the one before it: the order stays
            if groups:
                members, around = groups[-1]
                merged = (min(around[0], box[0]), min(around[1], box[1]), max(around[2], box[2]),
                          max(around[3], box[3]))
                if _meets(around, box) and _area(merged) <= 1.3 * (_area(around) + _area(box)):
                    groups[-1] = (members + [i], merged)
                    continue
            groups.append(([i], box))
        for members, around in groups:
            piece = self.image.crop(around)
            draw = aggdraw.Draw(piece)
            draw.settransform((-around[0], -around[1]))
            for i in members:
                self._stroke(draw, marks[i])
            draw.flush()
            self.image.paste(piece, around)
        return boxes

    def _stroke(self, draw, mark: Line) -> None:
        s = self.scale
        points = list(mark.points)
        tip = points[-1]
        if mark.head:   # the shaft stops at the head's neck
            (ax, ay), (bx, by) = points[-2], points[-1]
            length = math.hypot(bx - ax, by - ay) or 1.0
            ux, uy = (bx - ax) / length, (by - ay) / length
            neck = (bx - ux * HEAD_LENGTH, by - uy * HEAD_LENGTH)
            points[-1] = neck
        pieces = [points] if mark.status not in _DASH else dashes(points, *_DASH[mark.status])
        if mark.status == INVALID:   # a row of dots, each with its own edge
            r = (mark.width / 2 + CASING / 2) * s
            edge, fill = aggdraw.Pen(mark.casing, 0.9 * s), aggdraw.Brush(mark.colour)
            for part in pieces:
                x, y = part[0]
                draw.ellipse((x * s - r, y * s - r, x * s + r, y * s + r), edge, fill)
        else:   # every dash in one path: one call a pen
            path = aggdraw.Path()
            for part in pieces:
                path.moveto(part[0][0] * s, part[0][1] * s)
                for x, y in part[1:]:
                    path.lineto(x * s, y * s)
            for pen in (aggdraw.Pen(mark.casing, (mark.width + 2 * CASING) * s), aggdraw.Pen(mark.colour, mark.width * s)):
                draw.path(path, pen)
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


def _area(box) -> int:
    return (box[2] - box[0]) * (box[3] - box[1])


def _meets(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def crossing_line(p, q):
    """A crossing's line, lengthened to :data:`CROSSING_LENGTH` about its middle when shorter."""
    length = math.dist(p, q)
    if length >= CROSSING_LENGTH:
        return p, q
    mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
    ux, uy = (q[0] - p[0]) / (length or 1.0), (q[1] - p[1]) / (length or 1.0)
    h = CROSSING_LENGTH / 2
    return (mx - ux * h, my - uy * h), (mx + ux * h, my + uy * h)


def crossing_ends(p, q, half: float = 5.0) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """A short bar across each end of a crossing's line."""
    length = math.dist(p, q) or 1.0
    nx, ny = -(q[1] - p[1]) / length * half, (q[0] - p[0]) / length * half
    return [((x - nx, y - ny), (x + nx, y + ny)) for x, y in (p, q)]


__all__ = ["CROSSING_LENGTH", "CROSSING_WIDTH", "Canvas", "crossing_ends", "crossing_line", "dashes"]
