"""The drawn shape of a map in the picture's units, read from the variant's committed GeoJSON.

The shapes come from real geography (``tools/derive_map_shapes.py`` derives them once; see
:mod:`adjudicator.drawn`), and so do the fixed places of every province (where its unit, name
and supply centre's dot go, :class:`Place`). Here they are only projected to the picture: the
frame is :data:`WIDTH` units wide, x to the right, y down. Pure Python, computed once per
variant.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections import defaultdict
from dataclasses import dataclass

from adjudicator.drawn import drawn_map
from adjudicator.projection import MapProjection
from adjudicator.variant import get_variant
from adjudicator.vocab import Location, ProvinceId

from .layout import WIDTH
import itertools

_CROSSING_MIN = 10.0
"""The shortest line a crossing is drawn with (picture units)."""

Point = tuple[float, float]
Ring = tuple[Point, ...]
Line = tuple[Point, ...]


@dataclass(frozen=True)
class Place:
    """Where the picture puts things in one province, in picture units: the same every season."""

    unit: Point
    """Where a unit standing in the province is drawn (an army, or a fleet off a coast not split)."""
    label: Point
    """The middle of the province's name."""
    label_text: str
    """The name drawn: the full name where it fits, else the province's id."""
    centre: Point | None = None
    """A supply centre's dot (``None`` for a province that is not one)."""
    coasts: tuple[tuple[str, Point], ...] = ()
    """Where a fleet on each split coast is drawn."""
    dislodged: Point | None = None
    """Where a dislodged unit waiting to retreat is drawn, beside the unit that took its place
    (``None`` for a province nothing may enter)."""


@dataclass(frozen=True)
class MapGeometry:
    """Shapes and anchor points of one variant's map, in picture units."""

    width: float
    height: float
    cells: dict[ProvinceId, tuple[Ring, ...]]
    """Each province's shape as closed rings: outer rings and holes wound opposite ways, so that
    an SVG path of all of them (nonzero fill) draws the shape."""
    anchors: dict[Location, Point]
    """Where a unit standing at a location is drawn (one per province, one per split coast)."""
    borders: tuple[tuple[ProvinceId, ProvinceId, Line], ...]
    """Every border two provinces share: the two provinces and the line."""
    off_map: tuple[Ring, ...] = ()
    """Land that belongs to no province (rings, as ``cells``)."""
    edge: tuple[Line, ...] = ()
    """Lines where a province meets land off the board."""
    water: tuple[Ring, ...] = ()
    """Water that belongs to no province: lakes, straits, seas off the board (rings)."""
    shores: tuple[Line, ...] = ()
    """Lines where a land province meets water no province owns (a coastline)."""
    sea_edges: tuple[Line, ...] = ()
    """Lines where a sea province meets water no province owns: the open sea beyond the board."""
    rivers: tuple[Line, ...] = ()
    crossings: tuple[tuple[ProvinceId, ProvinceId, Point, Point], ...] = ()
    """Adjacent provinces joined across water by a line: the two provinces and the line's ends."""
    projection: MapProjection | None = None
    places: dict[ProvinceId, Place] | None = None
    """Each province's fixed places (:class:`Place`)."""

    def anchor(self, location: Location) -> Point:
        """Where a unit at ``location`` stands; a coast not drawn falls back to the province."""
        point = self.anchors.get(location)
        if point is None:
            point = self.anchors[Location(location.province)]
        return point

    def to_picture(self, lon: float, lat: float) -> Point:
        """A point given in degrees, in picture units."""
        assert self.projection is not None
        return self.projection.to_picture(lon, lat)


def _rings(geometry: dict | None) -> list[list[list[float]]]:
    """Every ring of a Polygon or MultiPolygon (GeoJSON lon/lat)."""
    if not geometry:
        return []
    if geometry["type"] == "Polygon":
        return list(geometry["coordinates"])
    if geometry["type"] == "MultiPolygon":
        return [ring for polygon in geometry["coordinates"] for ring in polygon]
    raise ValueError(f"not a polygon: {geometry['type']}")


def _chains(segments: list[tuple[tuple, tuple]]) -> list[list[tuple]]:
    """Join segments (pairs of hashable points) into as few polylines as possible."""
    ends: dict[tuple, list[int]] = defaultdict(list)
    for i, (a, b) in enumerate(segments):
        ends[a].append(i)
        ends[b].append(i)
    used = [False] * len(segments)
    lines = []
    order = sorted(range(len(segments)), key=lambda i: len(ends[segments[i][0]]) != 2)
    for i in reversed(order):   # start where a chain ends, if it ends
        if used[i]:
            continue
        used[i] = True
        line = list(segments[i])
        for forward in (True, False):
            while True:
                tip = line[-1] if forward else line[0]
                nxt = next((j for j in ends[tip] if not used[j]), None) if len(ends[tip]) == 2 else None
                if nxt is None:
                    break
                used[nxt] = True
                a, b = segments[nxt]
                other = b if a == tip else a
                if forward:
                    line.append(other)
                else:
                    line.insert(0, other)
        lines.append(line)
    return lines


def _closest_pair(these: list[Point], those: list[Point]) -> tuple[Point, Point]:
    """The nearest two points, one of each list (the ends of a crossing's line)."""
    those = sorted(set(those))
    xs = [p[0] for p in those]
    best, pair = math.inf, (these[0], those[0])
    for p in set(these):
        i = bisect.bisect_left(xs, p[0])
        for step in (1, -1):
            j = i if step == 1 else i - 1
            while 0 <= j < len(those) and abs(xs[j] - p[0]) < best:
                d = math.dist(p, those[j])
                if d < best:
                    best, pair = d, (p, those[j])
                j += step
    return pair


def _tenth(point: Point) -> Point:
    return round(point[0], 1), round(point[1], 1)


def build_geometry(variant_name: str) -> MapGeometry:
    """Read and project a variant's drawn map (use :func:`geometry_for`, which caches it)."""
    variant = get_variant(variant_name)
    doc = drawn_map(variant.name)
    proj = MapProjection.from_dict(doc["projection"])
    scale = WIDTH / proj.width
    memo: dict[tuple[float, float], Point] = {}

    def pic(coord) -> Point:
        key = (coord[0], coord[1])
        point = memo.get(key)
        if point is None:
            x, y = proj.to_picture(key[0], key[1])
            point = memo[key] = (round(x * scale, 2), round(y * scale, 2))
        return point

    cells: dict[ProvinceId, tuple[Ring, ...]] = {}
    anchors: dict[Location, Point] = {}
    places: dict[ProvinceId, Place] = {}
    owner: dict[tuple, list[str]] = defaultdict(list)   # segment (sorted ends, lon/lat) -> who has it
    for feature in doc["features"]:
        pid = ProvinceId(feature["id"])
        rings = _rings(feature["geometry"])
        cells[pid] = tuple(tuple(pic(c) for c in ring) for ring in rings)
        props = feature["properties"]
        unit = _tenth(pic(props["unit"]))
        anchors[Location(pid)] = unit
        coasts = tuple((coast, _tenth(pic(point))) for coast, point in sorted(props.get("coast_units", {}).items()))
        for coast, point in coasts:
            anchors[Location(pid, coast)] = point
        places[pid] = Place(unit, _tenth(pic(props["label"])), props["label_text"],
                            _tenth(pic(props["centre"])) if "centre" in props else None, coasts,
                            _tenth(pic(props["dislodged"])) if "dislodged" in props else None)
        for ring in rings:
            for a, b in itertools.pairwise(ring):
                owner[tuple(sorted((tuple(a), tuple(b))))].append(pid)
    water_rings = _rings(doc.get("water"))
    off_rings = _rings(doc.get("off_map"))
    for tag, rings in (("~water", water_rings), ("~off", off_rings)):
        for ring in rings:
            for a, b in itertools.pairwise(ring):
                owner[tuple(sorted((tuple(a), tuple(b))))].append(tag)

    by_pair: dict[tuple[str, ...], list] = defaultdict(list)
    for segment, who in owner.items():
        if len(who) == 2:
            by_pair[tuple(sorted(who))].append(segment)
    borders: list[tuple[ProvinceId, ProvinceId, Line]] = []
    edge: list[Line] = []
    shores: list[Line] = []
    sea_edges: list[Line] = []
    for pair, segments in sorted(by_pair.items()):
        lines = [tuple(pic(p) for p in line) for line in _chains(segments)]
        one, other = pair
        if one.startswith("~") and other.startswith("~"):
            continue
        if other == "~water" or one == "~water":
            province = variant.provinces[ProvinceId(other if one == "~water" else one)]
            (sea_edges if province.is_sea else shores).extend(lines)
        elif other == "~off" or one == "~off":
            edge += lines
        else:
            borders += [(ProvinceId(one), ProvinceId(other), line) for line in lines]

    crossings = []
    for a, b in doc.get("crossings", ()):
        p, q = _closest_pair([pt for ring in cells[ProvinceId(a)] for pt in ring],
                             [pt for ring in cells[ProvinceId(b)] for pt in ring])
        if math.dist(p, q) < _CROSSING_MIN:     # shores a point apart: a short line across
            (ax, ay), (bx, by) = anchors[Location(ProvinceId(a))], anchors[Location(ProvinceId(b))]
            d = math.hypot(bx - ax, by - ay) or 1.0
            mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
            h = _CROSSING_MIN / 2
            p, q = (mx - (bx - ax) / d * h, my - (by - ay) / d * h), (mx + (bx - ax) / d * h, my + (by - ay) / d * h)
        crossings.append((ProvinceId(a), ProvinceId(b), p, q))

    rivers = []
    for line in (doc.get("rivers") or {}).get("coordinates", ()):
        rivers.append(tuple(pic(c) for c in line))
    return MapGeometry(
        width=WIDTH, height=round(proj.height * scale, 1), cells=cells, anchors=anchors,
        borders=tuple(borders), off_map=tuple(tuple(pic(c) for c in r) for r in off_rings),
        edge=tuple(edge), water=tuple(tuple(pic(c) for c in r) for r in water_rings),
        shores=tuple(shores), sea_edges=tuple(sea_edges), rivers=tuple(rivers), crossings=tuple(crossings), projection=proj,
        places=places)


@functools.cache
def geometry_for(variant_name: str) -> MapGeometry:
    """The cached geometry of a registered variant."""
    return build_geometry(variant_name)


@dataclass(frozen=True)
class MapPlaces:
    """What a picture's marks need of a map: its size, each province's fixed places, whether it
    draws crossings. Read from the drawn map's properties alone (its shapes are drawn once, with
    the layers), and kept on disk with them."""

    width: float
    height: float
    places: dict[ProvinceId, Place]
    crossings: tuple[tuple[ProvinceId, ProvinceId], ...] = ()

    def anchor(self, location: Location) -> Point:
        """Where a unit at ``location`` stands; a coast not drawn falls back to the province."""
        place = self.places[location.province]
        if location.coast:
            for coast, point in place.coasts:
                if coast == location.coast:
                    return point
        return place.unit


def _places(variant_name: str) -> MapPlaces:
    doc = drawn_map(get_variant(variant_name).name)
    proj = MapProjection.from_dict(doc["projection"])
    scale = WIDTH / proj.width

    def pic(coord) -> Point:
        x, y = proj.to_picture(coord[0], coord[1])
        return _tenth((round(x * scale, 2), round(y * scale, 2)))

    places = {}
    for feature in doc["features"]:
        props = feature["properties"]
        places[ProvinceId(feature["id"])] = Place(
            pic(props["unit"]), pic(props["label"]), props["label_text"],
            pic(props["centre"]) if "centre" in props else None,
            tuple((coast, pic(point)) for coast, point in sorted(props.get("coast_units", {}).items())),
            pic(props["dislodged"]) if "dislodged" in props else None)
    crossings = tuple((ProvinceId(a), ProvinceId(b)) for a, b in doc.get("crossings", ()))
    return MapPlaces(WIDTH, round(proj.height * scale, 1), places, crossings)


@functools.cache
def places_for(variant_name: str) -> MapPlaces:
    """The fixed places of a registered variant's map (:class:`MapPlaces`): worked out once and
    kept on disk between processes (:mod:`bot.render.cache`)."""
    import pickle

    from . import cache

    name = cache.entry_name(get_variant(variant_name).name, "places")
    data = cache.load(name)
    if data is not None:
        try:
            found = pickle.loads(data)
            if isinstance(found, MapPlaces):
                return found
        except Exception:  # noqa: BLE001, S110 (an entry from elsewhere or damaged: worked out afresh and written again)
            pass
    found = _places(variant_name)
    cache.store(name, pickle.dumps(found, protocol=pickle.HIGHEST_PROTOCOL))
    return found
