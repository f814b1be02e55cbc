"""Where a province's name goes and which name fits: the full name where there is room, its id
where there is not.

A label sits beside the province's unit point, clear of the unit and the rings drawn round it
(hold, build, convoy) and of every other unit point and label: under the unit where there is
room, else beside it or above it (:func:`place_labels`). Its width is measured with the advance
widths of DejaVu Sans (the font the pictures name first, and the one the judge's image installs), so the
choice does not depend on the machine; the room is the width of the province's shape along the
label's line, read from the drawn polygons.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

from adjudicator.variant import Province

Point = tuple[float, float]
Polygon = Sequence[Point]

# Advance widths of DejaVu Sans (Book and Bold), characters 32..126, in thousandths of an em.
_BOOK = (
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636, 636,
    636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656,
    557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613,
    635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818,
    592, 592, 525, 636, 337, 636, 838,
)
_BOLD = (
    348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696, 696, 696,
    696, 696, 696, 696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 372, 775,
    637, 995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457, 365, 457, 838, 500, 500, 675,
    716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687, 716, 716, 493, 595, 478, 712, 652, 924,
    645, 652, 582, 712, 365, 712, 838,
)


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    """The width of ``text`` set in DejaVu Sans at ``size`` (characters it has no width for
    count as a wide letter)."""
    table = _BOLD if bold else _BOOK
    return size * sum(table[o - 32] if 32 <= (o := ord(c)) < 127 else 700 for c in text) / 1000


def chord(polygons: Sequence[Polygon], x: float, y: float) -> float:
    """The width of the shape along the horizontal line at ``y``, through ``x``: the stretch of
    that line around ``x`` that lies inside any of the polygons (0 when ``x`` is outside)."""
    crossings: list[float] = []
    for poly in polygons:
        n = len(poly)
        for i in range(n):
            (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
            if (y1 <= y < y2) or (y2 <= y < y1):
                crossings.append(x1 + (y - y1) * (x2 - x1) / (y2 - y1))
    crossings.sort()
    for left, right in zip(crossings[0::2], crossings[1::2]):
        if left <= x <= right:
            return right - left
    return 0.0


@dataclass(frozen=True)
class Label:
    """A province's name as drawn: the text, its centre and baseline, its width."""

    text: str
    x: float
    y: float
    width: float
    full: bool
    """Whether the full name fitted (otherwise the text is the province's id)."""


def short_name(pid: str) -> str:
    return pid[:1].upper() + pid[1:]


def place_label(province: Province, polygons: Sequence[Polygon], at: Point, size: float, *,
                gap: float) -> Label:
    """The label of ``province``: centred under ``at`` (the unit point), ``gap`` below it; the
    full name when it fits inside the shape along both the top and the baseline of the text,
    the id otherwise."""
    x, y = at[0], at[1] + gap + 0.75 * size
    full = province.name
    width = text_width(full, size)
    room = min(chord(polygons, x, y), chord(polygons, x, y - 0.7 * size))
    if width + 0.6 * size <= room:
        return Label(full, x, y, width, True)
    short = short_name(str(province.id))
    return Label(short, x, y, text_width(short, size), False)


Box = tuple[float, float, float, float]

UNIT_CORE = 14.0
"""A unit's own glyph: a label that must touch a unit's rings never covers the unit itself."""


def _box(label: Label, size: float) -> Box:
    """The label's box with its halo: left, top, right, bottom."""
    pad = 0.14 * size
    return (label.x - label.width / 2 - pad, label.y - 0.78 * size - pad, label.x + label.width / 2 + pad,
            label.y + 0.22 * size + pad)


def _hits_disc(box: Box, centre: Point, r: float) -> bool:
    x = min(max(centre[0], box[0]), box[2])
    y = min(max(centre[1], box[1]), box[3])
    return math.hypot(centre[0] - x, centre[1] - y) < r


def _overlap(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _candidates(province: Province, polygons: Sequence[Polygon], at: Point, size: float, clear: float,
                mark: float):
    """Where the label may go, best first: the full name under the unit, right of it, left of it,
    below right, below left and above it, then the id in the same places. ``clear`` is how far from the unit point the label keeps;
    ``mark`` the room a supply-centre dot takes left of the label."""
    names = [(province.name, True), (short_name(str(province.id)), False)]
    clear += 0.14 * size + 0.5  # the halo
    for text, full in names:
        width = text_width(text, size)
        d = 0.75 * clear
        for dx, dy in ((0.0, clear + 0.78 * size), (clear + mark + width / 2, 0.35 * size),
                       (-clear - width / 2, 0.35 * size), (d + width / 2, d + 0.78 * size),
                       (-d - width / 2, d + 0.78 * size), (0.0, -clear - 0.22 * size)):
            x, y = at[0] + dx, at[1] + dy
            if full:
                room = min(chord(polygons, x, y), chord(polygons, x, y - 0.7 * size))
                if width + 0.6 * size > room:
                    continue
            yield Label(text, x, y, width, full)


def place_labels(provinces: Mapping[str, Province], shapes: Mapping[str, Sequence[Polygon]],
                 points: Mapping[str, Point], others: Sequence[Point], size: float, *, clear: float,
                 mark: float, frame: tuple[float, float]) -> dict[str, Label]:
    """Every province's label, clear of every unit point (``points``, one per province, and
    ``others``: where else a unit may stand, as on a split coast) by ``clear``, of every other
    label and of the frame (``frame``: width and height). The most crowded provinces choose
    first; a province where no place is clear takes the one that overlaps least."""
    discs = list(points.values()) + list(others)
    glyph = min(clear, UNIT_CORE)

    def crowd(pid: str) -> int:
        x, y = points[pid]
        return -sum(1 for p in discs if math.hypot(p[0] - x, p[1] - y) < 6 * clear)

    placed: dict[str, Label] = {}
    boxes: list[Box] = []
    for pid in sorted(points, key=lambda p: (crowd(p), p)):
        best, best_cost = None, math.inf
        here = points[pid]
        # a label reads as its province's while its middle is nearer its own unit point than any other
        candidates = [label for label in _candidates(provinces[pid], shapes[pid], here, size, clear, mark)
                      if all(math.dist((label.x, label.y - 0.35 * size), p) >
                             math.dist((label.x, label.y - 0.35 * size), here) for q, p in points.items() if q != pid)]
        if not candidates:
            candidates = [place_label(provinces[pid], shapes[pid], points[pid], size, gap=clear)]
        for rank, label in enumerate(candidates):
            box = _box(label, size)
            cost = 20 * sum(_overlap(box, other) for other in boxes)
            cost += 8000.0 if _hits_disc(box, points[pid], clear) else 0.0   # its own unit and rings
            if not chord(shapes[pid], label.x, label.y - 0.35 * size):
                cost += 1500.0                                               # outside its province
            cost += sum(500.0 for p in discs if _hits_disc(box, p, clear))   # another unit's rings
            cost += sum(8000.0 for p in discs if _hits_disc(box, p, glyph))  # another unit
            if box[0] < 0 or box[1] < 0 or box[2] > frame[0] or box[3] > frame[1]:
                cost += 20000.0
            if cost == 0:
                best = label
                break
            if cost + rank < best_cost:
                best, best_cost = label, cost + rank
        placed[pid] = best
        boxes.append(_box(best, size))
    return placed
