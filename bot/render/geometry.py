"""The drawn shape of a map, derived from its data once per variant and cached.

Neither map ships with a picture, so the shapes come from the representative point of each
province (``lat``/``lon`` in the map file):

1. project the points equirectangularly, scaling longitude by the cosine of the mean latitude;
2. ease them apart where they crowd (so that small provinces keep room for a unit and a label)
   while a spring keeps each near its real place, and nudge the layout so that provinces that
   border each other in the rules share an edge on the picture, and those that do not, do not;
3. cut the frame into Voronoi cells (``scipy.spatial.Voronoi``); mirroring every point across
   the four sides of the frame makes the outer cells end exactly at the frame.

Everything here is in the picture's own units: the frame is :data:`WIDTH` wide.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy.spatial import Voronoi, cKDTree

from adjudicator.variant import Variant, get_variant
from adjudicator.vocab import Location, ProvinceId

WIDTH = 1000.0
"""Width of the map frame in picture units (the SVG's viewBox)."""

_MARGIN = 0.06  # of the span of the points, on every side of the frame
_ITERATIONS = 240
_PULL = 0.05
_PUSH = 0.05
_ANCHOR = 0.04


@dataclass(frozen=True)
class MapGeometry:
    """Shapes and anchor points of one variant's map, in picture units."""

    width: float
    height: float
    cells: dict[ProvinceId, tuple[tuple[tuple[float, float], ...], ...]]
    """Each province's shape: one or more convex polygons (their union)."""
    anchors: dict[Location, tuple[float, float]]
    """Where a unit standing at a location is drawn (one per province, one per split coast)."""
    borders: tuple[tuple[ProvinceId, ProvinceId, tuple[float, float], tuple[float, float]], ...]
    """Every edge two cells share: the two provinces and the edge's end points."""
    off_map: tuple[tuple[tuple[float, float], ...], ...] = ()
    """Polygons of the frame that belong to no province."""
    edge: tuple[tuple[tuple[float, float], tuple[float, float]], ...] = ()
    """Edges between the board and what lies off it."""

    def anchor(self, location: Location) -> tuple[float, float]:
        """Where a unit at ``location`` stands; a coast not drawn falls back to the province."""
        point = self.anchors.get(location)
        if point is None:
            point = self.anchors[Location(location.province)]
        return point


def _project(variant: Variant) -> tuple[list[ProvinceId], np.ndarray]:
    ids = sorted(variant.provinces)
    lat = np.array([variant.provinces[p].lat for p in ids])
    lon = np.array([variant.provinces[p].lon for p in ids])
    x = lon * math.cos(math.radians(float(lat.mean())))
    y = -lat
    return ids, np.column_stack([x, y])


def _mirrored(points: np.ndarray, width: float, height: float) -> np.ndarray:
    """The points and their mirror images across the four sides of the frame."""
    left = points * [-1, 1]
    right = points * [-1, 1] + [2 * width, 0]
    top = points * [1, -1]
    bottom = points * [1, -1] + [0, 2 * height]
    return np.vstack([points, left, right, top, bottom])


def _ghosts(points: np.ndarray, width: float, height: float, spacing: float, fine: float = 0.5) -> np.ndarray:
    """Points of no province on a grid, wherever the map has none nearby: they keep the cells at
    the edge of the map from swallowing the whole frame."""
    step = fine * spacing
    rows = np.arange(step / 2, height, step * 0.866)
    grid = np.array([(x, y) for r, y in enumerate(rows)
                     for x in np.arange(step / 2 + (step / 2 if r % 2 else 0), width, step)])
    dist, _ = cKDTree(points).query(grid)
    return grid[dist > 1.25 * spacing]


def _voronoi_neighbours(points: np.ndarray, ghosts: np.ndarray, width: float, height: float
                        ) -> set[tuple[int, int]]:
    vor = Voronoi(_mirrored(np.vstack([points, ghosts]), width, height))
    n = len(points)
    return {(min(a, b), max(a, b)) for a, b in vor.ridge_points if a < n and b < n}


def _relax(points: np.ndarray, width: float, height: float, spacing: float,
           adjacent: set[tuple[int, int]]) -> np.ndarray:
    """Ease crowded points apart and bend the layout towards the map's borders (cheap: N < 200)."""
    origin = points.copy()
    ghosts = _ghosts(points, width, height, spacing, fine=0.9)
    p = points.copy()
    n = len(p)
    not_self = ~np.eye(n, dtype=bool)
    neighbours: set[tuple[int, int]] = set()
    isolated = set(range(n)) - {i for pair in adjacent for i in pair}  # impassable: any border will do
    for step in range(_ITERATIONS):
        delta = p[:, None, :] - p[None, :, :]
        dist = np.sqrt((delta**2).sum(-1)) + np.eye(n)
        push = np.clip(spacing - dist, 0, None) / dist * not_self
        force = 0.15 * (delta * push[:, :, None]).sum(1)
        if step % 4 == 0:
            neighbours = _voronoi_neighbours(p, ghosts, width, height)
        pull = np.zeros_like(p)
        for a, b in adjacent - neighbours:  # borders in the rules, not on the picture
            d = p[b] - p[a]
            pull[a] += _PULL * d
            pull[b] -= _PULL * d
        for a, b in neighbours - adjacent:  # borders on the picture, not in the rules
            if a in isolated or b in isolated:
                continue
            d = p[b] - p[a]
            norm = math.hypot(*d) or 1.0
            pull[a] -= _PUSH * spacing * d / norm
            pull[b] += _PUSH * spacing * d / norm
        p = p + force + pull + _ANCHOR * (origin - p)
        p[:, 0] = np.clip(p[:, 0], 0.02 * width, 0.98 * width)
        p[:, 1] = np.clip(p[:, 1], 0.02 * height, 0.98 * height)
    return p


def _bridges(points: np.ndarray, ghosts: np.ndarray, width: float, height: float,
             adjacent: set[tuple[int, int]]) -> tuple[np.ndarray, list[int]]:
    """Extra seeds, a close pair halfway between two bordering provinces whose cells do not
    touch: each seed belongs to one of the two, so their shapes reach each other."""
    missing = adjacent - _voronoi_neighbours(points, ghosts, width, height)
    seeds, owners = [], []
    for a, b in sorted(missing):
        pa, pb = points[a], points[b]
        seeds += [pa + 0.42 * (pb - pa), pa + 0.58 * (pb - pa)]
        owners += [a, b]
    return np.array(seeds).reshape(-1, 2), owners


def _polygon_centroid(poly: np.ndarray) -> tuple[float, float]:
    x, y = poly[:, 0], poly[:, 1]
    x1, y1 = np.roll(x, -1), np.roll(y, -1)
    cross = x * y1 - x1 * y
    area = cross.sum() / 2
    if abs(area) < 1e-9:
        return float(x.mean()), float(y.mean())
    return float(((x + x1) * cross).sum() / (6 * area)), float(((y + y1) * cross).sum() / (6 * area))


def _fit(points: np.ndarray) -> tuple[np.ndarray, float]:
    """Scale and shift the points into a frame :data:`WIDTH` wide with a margin; its height."""
    lo, hi = points.min(0), points.max(0)
    span = hi - lo
    lo, hi = lo - _MARGIN * span, hi + _MARGIN * span
    scale = WIDTH / (hi - lo)[0]
    return (points - lo) * scale, float((hi - lo)[1] * scale)


def _spacing(points: np.ndarray) -> float:
    """How far apart provinces should at least be: a little more than the typical neighbour."""
    dist, _ = cKDTree(points).query(points, k=2)
    return 1.5 * float(np.median(dist[:, 1]))


def _cell(vor: Voronoi, i: int, width: float, height: float) -> np.ndarray:
    poly = vor.vertices[vor.regions[vor.point_region[i]]]
    centre = poly.mean(0)
    poly = poly[np.argsort(np.arctan2(poly[:, 1] - centre[1], poly[:, 0] - centre[0]))]
    poly[:, 0] = np.clip(poly[:, 0], 0, width)
    poly[:, 1] = np.clip(poly[:, 1], 0, height)
    return poly


def _rounded(points) -> tuple[tuple[float, float], ...]:
    return tuple((round(float(x), 1), round(float(y), 1)) for x, y in points)


def build_geometry(variant: Variant) -> MapGeometry:
    """Derive the map's shapes from its data (slow-ish; use :func:`geometry_for`)."""
    ids, points = _project(variant)
    points, height = _fit(points)
    index = {pid: i for i, pid in enumerate(ids)}
    adjacent = set()
    for pid in ids:
        for other in variant.province_neighbours(pid):
            a, b = index[pid], index[other]
            adjacent.add((min(a, b), max(a, b)))
    spacing = _spacing(points)
    points, height = _fit(_relax(points, WIDTH, height, spacing, adjacent))
    spacing = _spacing(points)
    ghosts = _ghosts(points, WIDTH, height, spacing)
    bridges, bridge_owners = _bridges(points, ghosts, WIDTH, height, adjacent)

    n = len(ids)
    seeds = np.vstack([points, bridges, ghosts])
    owner = list(range(n)) + bridge_owners + [-1] * len(ghosts)
    vor = Voronoi(_mirrored(seeds, WIDTH, height))
    polys: dict[ProvinceId, list[tuple[tuple[float, float], ...]]] = {pid: [] for pid in ids}
    centroids: dict[ProvinceId, tuple[float, float]] = {}
    off_map = []
    for i, who in enumerate(owner):
        poly = _cell(vor, i, WIDTH, height)
        if who < 0:
            off_map.append(_rounded(poly))
            continue
        polys[ids[who]].append(_rounded(poly))
        if i < n:
            centroids[ids[i]] = _polygon_centroid(poly)

    borders = []
    edge = []
    ridge_mid: dict[tuple[ProvinceId, ProvinceId], tuple[float, float]] = {}
    for (a, b), (va, vb) in zip(vor.ridge_points, vor.ridge_vertices):
        if a >= len(seeds) or b >= len(seeds) or va < 0 or vb < 0 or owner[a] == owner[b]:
            continue
        e1, e2 = _rounded(vor.vertices[[va, vb]])
        if owner[a] < 0 or owner[b] < 0:
            edge.append((e1, e2))
            continue
        pa, pb = ids[owner[a]], ids[owner[b]]
        borders.append((pa, pb, e1, e2))
        mid = ((e1[0] + e2[0]) / 2, (e1[1] + e2[1]) / 2)
        ridge_mid.setdefault((pa, pb), mid)
        ridge_mid.setdefault((pb, pa), mid)

    anchors: dict[Location, tuple[float, float]] = {}
    for pid in ids:
        cx, cy = centroids[pid]
        anchors[Location(pid)] = (round(cx, 1), round(cy, 1))
        for coast in variant.provinces[pid].coasts:
            seas = {x.province for x in variant.fleet_neighbours(Location(pid, coast))}
            mids = [ridge_mid.get((pid, s)) or centroids[s] for s in seas]
            if not mids:
                continue
            mx = sum(m[0] for m in mids) / len(mids)
            my = sum(m[1] for m in mids) / len(mids)
            anchors[Location(pid, coast)] = (round(cx + 0.6 * (mx - cx), 1), round(cy + 0.6 * (my - cy), 1))
    return MapGeometry(width=WIDTH, height=round(height, 1),
                       cells={pid: tuple(p) for pid, p in polys.items()}, anchors=anchors,
                       borders=tuple(borders), off_map=tuple(off_map), edge=tuple(edge))


@functools.cache
def geometry_for(variant_name: str) -> MapGeometry:
    """The cached geometry of a registered variant."""
    return build_geometry(get_variant(variant_name))
