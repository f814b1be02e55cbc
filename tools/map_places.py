"""Where the picture puts things in each province, worked out once with the drawn map.

For every province: the unit point (and one per split coast), the name (its middle, and the text:
the full name where it fits inside the province, else the id) and, for a supply centre, the dot.
Every one lies inside its own province; names keep clear of every unit (and of the place a
dislodged unit is drawn), of each other and of the frame; dots keep clear of units and names;
the unit points of two adjacent provinces stand at least :data:`UNIT_SPACING` apart where the
shapes allow.

The work is done on the labelled grid of ``derive_map_shapes.py`` (a cell is about a pixel of
the picture): first the unit points, in a few rounds in which each province in turn takes the
point of its ground that suits it best given the others (deep inside it, near the real place,
far from the others' points); then the names, most crowded province first, each at the best
place its box fits (a province whose name fits nowhere clear moves its unit to where it does);
then the dots. Deterministic: the same grid gives the same places.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import ndimage

from bot.render.labels import name_box, short_name
from bot.render.layout import CENTRE_R, DISLODGED_R, UNIT_R

UNIT_SPACING = 46.0
"""The unit points of two adjacent provinces are kept at least this far apart where the shapes
allow (picture units; the picture's test asks for 40)."""
SPACING = 32.0
"""...and those of any two provinces this far."""
UNIT_DEPTH = 11.0
"""How deep inside its province a unit point lies, where the province is that deep."""
KEEP_OUT = UNIT_R + 1.0
"""How far a name keeps from a unit point (its symbol and a little air)."""
LABEL_GAP = 2.0
"""Air between two names."""
DOT_CLEAR = 2.0
"""Air round a supply centre's dot."""
FULL_NAME = 0.75
"""The full name is drawn where its box lies at least this much inside the province (the id elsewhere)."""
COAST_REACH = 30.0
"""How far from the map's hint for a split coast its fleet may stand."""
LEVELS = ("inside its province", "partly outside its province", "over a unit or another name")


@dataclass
class Province:
    index: int
    pid: str
    name: str
    kind: str
    centre: bool
    mask: np.ndarray
    depth: np.ndarray
    real: tuple[float, float]
    coasts: dict[str, tuple[float, float]]
    enterable: bool = True
    """False for a province nothing may enter (Switzerland): it has no unit to keep clear of."""


def depth_px(mask: np.ndarray, cell: float) -> np.ndarray:
    """How far inside the shape each cell lies, in picture units."""
    return ndimage.distance_transform_edt(np.pad(mask, 1))[1:-1, 1:-1] * cell


class Placer:
    """The places of one map, on its labelled grid."""

    def __init__(self, lab: np.ndarray, cell_px: float, provinces: list[Province], adjacent: set[tuple[int, int]],
                 frame: tuple[float, float]) -> None:
        self.lab = lab
        self.cell = cell_px
        self.provinces = provinces
        self.adjacent = adjacent
        self.frame = frame
        self.ny, self.nx = lab.shape
        self.units: dict[int, tuple[float, float]] = {}
        self.dislodged: dict[int, tuple[float, float]] = {}
        """Where a dislodged unit waiting to retreat is drawn, beside the unit that took its place."""
        self.coast_units: dict[int, dict[str, tuple[float, float]]] = {}
        self.names: dict[int, tuple[str, tuple[float, float], tuple[float, float, float, float]]] = {}
        self.dots: dict[int, tuple[float, float]] = {}
        self.levels: dict[str, int] = {}
        """How well each name fitted (an index of :data:`LEVELS`)."""
        self.inside = [np.cumsum(np.cumsum(np.pad(p.mask, ((1, 0), (1, 0))).astype(np.int32), 0), 1)
                       for p in provinces]
        self.neighbours = {p.index: {q for q in range(len(provinces)) if (min(p.index, q), max(p.index, q)) in adjacent}
                           for p in provinces}
        self.order = sorted(provinces, key=lambda p: (int(p.mask.sum()), p.pid))
        self.candidates = {p.index: self._candidates(p, min(UNIT_DEPTH, 0.6 * float(p.depth.max())))
                           for p in provinces}

    # -- the grid ------------------------------------------------------------------------------

    def _candidates(self, p: Province, need: float, step: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        deep = (p.depth >= need) & (np.arange(self.nx) % step == 0)[None, :] & (np.arange(self.ny) % step == 0)[:, None]
        rows, cols = np.nonzero(deep)
        if not len(rows):
            rows, cols = (np.atleast_1d(v) for v in np.unravel_index(np.argmax(p.depth), p.depth.shape))
        return (cols + 0.5) * self.cell, (rows + 0.5) * self.cell, p.depth[rows, cols]

    def _cells(self, p: Province, near: tuple[float, float], reach: float, most: int = 4000, depth: float = 2.0):
        """Cells of the province at least ``depth`` inside it (as deep as it gets, if not that
        deep), the ones within ``reach`` of ``near`` where there are enough of them."""
        rows, cols = np.nonzero(p.depth >= min(depth, 0.5 * float(p.depth.max())))
        x, y = (cols + 0.5) * self.cell, (rows + 0.5) * self.cell
        close = np.hypot(x - near[0], y - near[1]) < reach
        if close.sum() >= 20:
            x, y = x[close], y[close]
        if len(x) > most:
            pick = np.linspace(0, len(x) - 1, most).astype(int)
            x, y = x[pick], y[pick]
        return x, y

    def _inside_at(self, p: Province, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        r = np.clip((np.asarray(y) / self.cell).astype(int), 0, self.ny - 1)
        c = np.clip((np.asarray(x) / self.cell).astype(int), 0, self.nx - 1)
        return p.mask[r, c]

    def _share_inside(self, p: Province, x0, y0, x1, y1) -> np.ndarray:
        """The share of each box lying inside the province (from its summed-area table)."""
        s = self.inside[p.index]
        c0 = np.clip(np.floor(x0 / self.cell).astype(int), 0, self.nx)
        r0 = np.clip(np.floor(y0 / self.cell).astype(int), 0, self.ny)
        c1 = np.clip(np.ceil(x1 / self.cell).astype(int), 0, self.nx)
        r1 = np.clip(np.ceil(y1 / self.cell).astype(int), 0, self.ny)
        count = s[r1, c1] - s[r0, c1] - s[r1, c0] + s[r0, c0]
        full = np.maximum((np.ceil(x1 / self.cell) - np.floor(x0 / self.cell)) *
                          (np.ceil(y1 / self.cell) - np.floor(y0 / self.cell)), 1)
        return count / full

    # -- units ---------------------------------------------------------------------------------

    def _points(self, exclude: int | None = None):
        for q, point in self.units.items():
            if q != exclude and self.provinces[q].enterable:
                yield q, point
        for q, coasts in self.coast_units.items():
            if q != exclude:
                for point in coasts.values():
                    yield q, point

    def _unit_scores(self, p: Province) -> np.ndarray:
        x, y, depth = self.candidates[p.index]
        score = 2.0 * np.minimum(depth, 16.0) - 0.03 * np.hypot(x - p.real[0], y - p.real[1])
        for q, (ux, uy) in self._points(exclude=p.index):
            d = np.hypot(x - ux, y - uy)
            near = q in self.neighbours[p.index]
            want = UNIT_SPACING if near else SPACING
            score = score - np.where(d < want, (want - d) ** 2, 0.0) * (3.0 if near else 1.0)
        return score

    def place_units(self, rounds: int = 8) -> None:
        for p in self.provinces:   # start at the candidate nearest the real place
            x, y, _ = self.candidates[p.index]
            k = int(np.argmin(np.hypot(x - p.real[0], y - p.real[1])))
            self.units[p.index] = (float(x[k]), float(y[k]))
        for _ in range(rounds):
            for p in self.order:
                x, y, _ = self.candidates[p.index]
                k = int(np.argmax(self._unit_scores(p)))
                self.units[p.index] = (float(x[k]), float(y[k]))
            self._place_coasts()

    def _place_coasts(self) -> None:
        """A fleet on a split coast stands near that coast (within :data:`COAST_REACH` of the
        map's hint for it), as far from the other units as it can."""
        for p in self.provinces:
            if not p.coasts:
                continue
            x, y, depth = self._candidates(p, min(6.0, 0.5 * float(p.depth.max())), step=1)
            placed: dict[str, tuple[float, float]] = {}
            for coast, (hx, hy) in sorted(p.coasts.items()):
                near = np.hypot(x - hx, y - hy)
                score = np.minimum(depth, 10.0) - 0.3 * near - np.where(near > COAST_REACH, 1e6, 0.0)
                others = [pt for _, pt in self._points(exclude=p.index)] + [self.units[p.index]] + list(placed.values())
                for ux, uy in others:
                    d = np.hypot(x - ux, y - uy)
                    score = score - np.where(d < SPACING, (SPACING - d) ** 2, 0.0)
                k = int(np.argmax(score))
                placed[coast] = (float(x[k]), float(y[k]))
            self.coast_units[p.index] = placed

    def _dislodged_spot(self, p: Province, unit: tuple[float, float], boxes=()) -> tuple[float, float] | None:
        """Where a dislodged unit of ``p`` goes when its unit point is ``unit``: inside the
        province, beside the unit (up and to the right where there is room), clear of the other
        units and their dislodged units."""
        if not p.enterable:
            return None
        x, y, depth = self._candidates(p, min(0.8 * DISLODGED_R, 0.5 * float(p.depth.max())), step=1)
        d = np.hypot(x - unit[0], y - unit[1])
        want = UNIT_R + DISLODGED_R + 1.0
        cost = 3.0 * np.abs(d - want) + 0.3 * np.hypot(x - (unit[0] + 14.0), y - (unit[1] - 13.0))
        cost = cost + np.where(d < UNIT_R, 1000.0, 0.0) - np.minimum(depth, DISLODGED_R)
        for q, (ux, uy) in self._points(exclude=p.index):
            cost = cost + 50.0 * np.maximum(UNIT_R + DISLODGED_R + 2 - np.hypot(x - ux, y - uy), 0)
        for q, (ux, uy) in self.dislodged.items():
            if q != p.index:
                cost = cost + 50.0 * np.maximum(2 * DISLODGED_R + 2 - np.hypot(x - ux, y - uy), 0)
        for b in boxes:      # and clear of the names, its own too, where it can
            nx_, ny_ = np.clip(x, b[0], b[2]), np.clip(y, b[1], b[3])
            cost = cost + 30.0 * np.maximum(DISLODGED_R + 1 - np.hypot(x - nx_, y - ny_), 0)
        k = int(np.argmin(cost))
        return float(x[k]), float(y[k])

    def place_dislodged(self, boxes=()) -> None:
        """Each province's dislodged unit's place; once the names are placed (``boxes``), clear of
        them where the province leaves room."""
        for p in self.order:
            spot = self._dislodged_spot(p, self.units[p.index], boxes)
            if spot is not None:
                self.dislodged[p.index] = spot

    # -- names ---------------------------------------------------------------------------------

    def _discs(self, own: int, unit: tuple[float, float]) -> np.ndarray:
        """The keep-out discs for the name of province ``own`` with its unit at ``unit``: every
        unit, and every other province's dislodged unit (a province's own dislodged unit, drawn
        only while it waits to retreat, may stand over the end of its own name), as rows of x, y, r."""
        rows = [(ux, uy, KEEP_OUT) for _, (ux, uy) in self._points(exclude=own)]
        rows += [(x, y, DISLODGED_R + 1.0) for q, (x, y) in self.dislodged.items() if q != own]
        if self.provinces[own].enterable:
            rows.append((unit[0], unit[1], KEEP_OUT))
            rows += [(x, y, KEEP_OUT) for x, y in self.coast_units.get(own, {}).values()]
        return np.array(rows)

    def _fit_name(self, p: Province, discs: np.ndarray, boxes: list, unit: tuple[float, float]):
        """The best place for the province's name: (level, cost, text, middle, box)."""
        width, height = self.frame
        x, y = self._cells(p, unit, 80.0)
        found = {}
        for text in (p.name, short_name(p.pid)):
            box = name_box(0.0, 0.0, text)
            x0, y0, x1, y1 = x + box[0], y + box[1], x + box[2], y + box[3]
            nx_ = np.clip(discs[None, :, 0], x0[:, None], x1[:, None])
            ny_ = np.clip(discs[None, :, 1], y0[:, None], y1[:, None])
            hits = np.maximum(discs[None, :, 2] - np.hypot(discs[None, :, 0] - nx_, discs[None, :, 1] - ny_), 0).sum(1)
            over = np.zeros_like(x)
            for b in boxes:
                w = np.minimum(x1, b[2]) + LABEL_GAP - np.maximum(x0, b[0])
                h = np.minimum(y1, b[3]) + LABEL_GAP - np.maximum(y0, b[1])
                over += np.where((w > 0) & (h > 0), w * h, 0.0)
            out = (x0 < 2) | (y0 < 2) | (x1 > width - 2) | (y1 > height - 2)
            share = self._share_inside(p, x0, y0, x1, y1)
            clear = (hits == 0) & (over == 0) & ~out
            level = np.where(clear & (share >= 0.999), 0, np.where(clear, 1, 2))
            cost = (200.0 * (1 - share) + 100.0 * hits + 10.0 * over + 1000.0 * out
                    + 0.03 * np.hypot(x - unit[0], y - (unit[1] + 24)))
            # the full name only where it is clear of all and (nearly) inside the province
            usable = (level == 0) | ((level == 1) & (share >= FULL_NAME)) if text == p.name else np.ones_like(clear)
            if not usable.any():
                continue
            k = int(np.argmin(np.where(usable, level * 1e6 + cost, np.inf)))
            found[text] = (int(level[k]), float(cost[k]), text, (float(x[k]), float(y[k])),
                           (float(x0[k]), float(y0[k]), float(x1[k]), float(y1[k])))
        return found.get(p.name) or found.get(short_name(p.pid))

    def place_names(self) -> None:
        boxes: dict[int, tuple] = {}
        for p in self.order:
            found = self._fit_name(p, self._discs(p.index, self.units[p.index]), list(boxes.values()),
                                   self.units[p.index])
            self._take(p, found, boxes)
        for _ in range(3):    # a name that fits nowhere clear: its unit moves to where it does
            crowded = [p for p in self.order if self.levels[p.pid] == 2]
            if not crowded:
                break
            for p in crowded:
                self._move_for_name(p, boxes)

    def _take(self, p: Province, found, boxes: dict) -> None:
        level, _, text, middle, box = found
        self.names[p.index] = (text, middle, box)
        self.levels[p.pid] = level
        boxes[p.index] = box

    def _move_for_name(self, p: Province, boxes: dict) -> None:
        """Try the unit at other points of the province (keeping clear of the adjacent units and
        of every other name) and take the one whose name fits best."""
        x, y, _ = self.candidates[p.index]
        score = self._unit_scores(p)
        others = {q: b for q, b in boxes.items() if q != p.index}
        ok = np.ones_like(x, dtype=bool)
        for q, (ux, uy) in self._points(exclude=p.index):
            if q in self.neighbours[p.index]:
                ok &= np.hypot(x - ux, y - uy) >= UNIT_SPACING - 6
        for b in others.values():   # the unit may not cover another name
            nx_, ny_ = np.clip(x, b[0], b[2]), np.clip(y, b[1], b[3])
            ok &= np.hypot(x - nx_, y - ny_) >= KEEP_OUT
        if not ok.any():
            return
        order = np.argsort(-np.where(ok, score, -np.inf))[:150]
        best = None
        for k in order:
            if not ok[k]:
                continue
            unit = (float(x[k]), float(y[k]))
            found = self._fit_name(p, self._discs(p.index, unit), list(others.values()), unit)
            if found is None:
                continue
            key = (found[0], found[1] - 0.2 * float(score[k]))
            if best is None or key < best[0]:
                best = (key, unit, found)
        if best is not None and best[2][0] < self.levels[p.pid]:
            spot = self._dislodged_spot(p, best[1])
            if spot is not None and any(math.hypot(spot[0] - min(max(spot[0], b[0]), b[2]),
                                                   spot[1] - min(max(spot[1], b[1]), b[3])) < DISLODGED_R + 1.0
                                        for b in others.values()):
                return
            self.units[p.index] = best[1]
            if spot is not None:
                self.dislodged[p.index] = spot
            self._take(p, best[2], boxes)

    # -- dots ----------------------------------------------------------------------------------

    def place_dots(self) -> None:
        boxes = [b for _, _, b in self.names.values()]
        self.place_dislodged(boxes)
        points = [pt for _, pt in self._points()]
        reach_units = [UNIT_R] * len(points)
        for p in self.order:
            if not p.centre:
                continue
            _text, (_mx, my), box = self.names[p.index]
            x, y = self._cells(p, (box[0], my), 150.0, depth=2.5)
            r = CENTRE_R + DOT_CLEAR
            inner = self._inside_at(p, x - r, y) & self._inside_at(p, x + r, y) & \
                self._inside_at(p, x, y - r) & self._inside_at(p, x, y + r)
            # every unit, and every other province's dislodged unit (its own is seldom drawn)
            spots = [pt for q, pt in self.dislodged.items() if q != p.index]
            units = np.array(points + spots)
            reach = np.array(reach_units + [DISLODGED_R] * len(spots))
            d = np.hypot(x[:, None] - units[None, :, 0], y[:, None] - units[None, :, 1]) - reach[None, :]
            hit_units = np.maximum(r - d, 0).sum(1)
            hit_boxes = np.zeros_like(x)
            for b in boxes:
                nx_, ny_ = np.clip(x, b[0], b[2]), np.clip(y, b[1], b[3])
                hit_boxes += np.maximum(r - np.hypot(x - nx_, y - ny_), 0)
            for (dx, dy) in self.dots.values():
                hit_boxes += np.maximum(2 * r - np.hypot(x - dx, y - dy), 0)
            # best: clear of all, wholly inside, just left of the name
            cost = 200.0 * hit_units + 300.0 * hit_boxes + 20.0 * ~inner + 0.2 * np.hypot(x - (box[0] - r), y - my)
            k = int(np.argmin(cost))
            self.dots[p.index] = (float(x[k]), float(y[k]))


__all__ = ["LEVELS", "Placer", "Province", "depth_px"]
