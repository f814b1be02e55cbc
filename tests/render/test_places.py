"""The drawn maps as the picture shows them, measured with real polygon geometry (shapely) in
picture units at the size the judge posts (1000 pixels wide, a pixel a unit).

Every province's fixed places (its unit, a unit on each split coast, a dislodged unit, its name
and its supply centre's dot: ``variant show NAME --format geojson``) lie inside it; names keep
clear of every unit, of other names and of the frame; dots keep clear of units and names. Where
the map is crowded it is drawn larger (lenses), so that the unit points of two adjacent
provinces are at least 40 pixels apart, every border the rules have is at least 8 pixels long,
provinces the rules keep apart neither touch nor run along each other within a few pixels, and
a move between adjacent provinces is drawn with a shaft behind its head.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import Point, box, shape

from adjudicator.drawn import drawn_map
from adjudicator.orders import Move
from adjudicator.projection import MapProjection
from adjudicator.variant import get_variant
from adjudicator.vocab import Location, Power, Unit, UnitType
from bot.render.geometry import geometry_for
from bot.render.labels import name_box, short_name
from bot.render.layout import CENTRE_R, DISLODGED_R, UNIT_R

VARIANTS = ["crusader", "standard"]
UNIT_SPACING = 40.0
BORDER = 8.0
APART = 5.0
"""Provinces the rules keep apart are at least this far apart everywhere (picture units)."""
SHAFT = 6.0


def _picture(doc):
    proj = MapProjection.from_dict(doc["projection"])
    scale = 1000.0 / proj.width

    def project(coords):
        return np.array([[v * scale for v in proj.to_picture(lon, lat)] for lon, lat in coords])

    return project


@pytest.fixture(scope="module", params=VARIANTS)
def board(request):
    """The variant, its shapes in picture units, its places, and the pairs the rules make adjacent."""
    variant = get_variant(request.param)
    doc = drawn_map(request.param)
    project = _picture(doc)
    shapes = {f["id"]: shapely.transform(shape(f["geometry"]), project) for f in doc["features"]}
    pairs = {frozenset(e) for e in variant.army_edges} | {frozenset(x.province for x in e) for e in variant.fleet_edges}
    return variant, doc, shapes, geometry_for(request.param).places, pairs


def _isolated(variant):
    return {p for p in variant.provinces if not variant.province_neighbours(p)}


def _unit_points(place):
    return [place.unit] + [p for _, p in place.coasts]


def test_every_place_lies_inside_its_own_province(board):
    variant, doc, shapes, places, _ = board
    outside = []
    for pid, place in places.items():
        points = {"unit": place.unit, "name": place.label, **{f"coast {c}": p for c, p in place.coasts}}
        if place.centre is not None:
            points["centre"] = place.centre
        if place.dislodged is not None:
            points["dislodged"] = place.dislodged
        outside += [(pid, what) for what, p in points.items() if not shapes[pid].contains(Point(p))]
    assert outside == []
    centres = {pid for pid, place in places.items() if place.centre is not None}
    assert centres == set(variant.supply_centers)
    assert {f["id"] for f in doc["features"]} == set(places)


def test_each_name_is_the_full_name_or_the_id(board):
    variant, _, _, places, _ = board
    for pid, place in places.items():
        assert place.label_text in (variant.provinces[pid].name, short_name(pid)), pid
    assert sum(1 for pid, p in places.items() if p.label_text == variant.provinces[pid].name) > len(places) // 3


def test_the_unit_points_of_adjacent_provinces_stand_40_apart(board):
    _, _, _, places, pairs = board
    close = []
    for pair in pairs:
        a, b = sorted(pair)
        d = min(math.dist(p, q) for p in _unit_points(places[a]) for q in _unit_points(places[b]))
        if d < UNIT_SPACING:
            close.append((round(d, 1), a, b))
    assert sorted(close) == []


def test_every_border_the_rules_have_is_8_long(board):
    _, doc, shapes, _, pairs = board
    crossings = {frozenset(p) for p in doc["crossings"]}
    short = []
    for pair in pairs - crossings:
        a, b = sorted(pair)
        length = shapes[a].boundary.intersection(shapes[b].boundary).length
        if length < BORDER:
            short.append((round(length, 1), a, b))
    assert sorted(short) == []


def test_provinces_the_rules_keep_apart_neither_touch_nor_run_close(board):
    variant, _, shapes, _, pairs = board
    isolated = _isolated(variant)
    keys = sorted(shapes)
    tree = shapely.STRtree([shapes[k] for k in keys])
    near = []
    for i, a in enumerate(keys):
        for j in tree.query(shapes[a].buffer(APART)):
            b = keys[j]
            if j <= i or frozenset((a, b)) in pairs or {a, b} & isolated:
                continue
            d = shapes[a].distance(shapes[b])
            if d < APART:
                near.append((round(d, 1), a, b))
    assert sorted(near) == []


def _covers(b, centre, r) -> bool:
    """Does the box ``b`` reach into the disc of radius ``r`` round ``centre``?"""
    x, y = min(max(centre[0], b[0]), b[2]), min(max(centre[1], b[1]), b[3])
    return math.hypot(centre[0] - x, centre[1] - y) < r


def test_no_name_is_covered_by_a_unit_or_another_name(board):
    variant, _, _, places, _ = board
    geo_height = max(y for shape_ in board[2].values() for y in [shape_.bounds[3]])
    isolated = _isolated(variant)
    discs = [(pid, p, UNIT_R) for pid, place in places.items() if pid not in isolated for p in _unit_points(place)]
    dislodged = [(pid, place.dislodged, DISLODGED_R) for pid, place in places.items() if place.dislodged is not None]
    boxes = {pid: name_box(*place.label, place.label_text) for pid, place in places.items()}
    covered = []
    for pid, b in boxes.items():
        covered += [(pid, "unit of " + q) for q, p, r in discs if _covers(b, p, r)]
        # a province's own dislodged unit, drawn only while it waits to retreat, may touch its own name
        covered += [(pid, "dislodged unit of " + q) for q, p, r in dislodged if q != pid and _covers(b, p, r)]
        covered += [(pid, "name of " + q) for q, c in boxes.items()
                    if q != pid and c[0] < b[2] and b[0] < c[2] and c[1] < b[3] and b[1] < c[3]]
        if b[0] < 0 or b[1] < 0 or b[2] > 1000 or b[3] > geo_height + 30:
            covered.append((pid, "the frame"))
    assert covered == []


def test_the_supply_centres_dots_are_clear_of_units_and_names(board):
    variant, _, _, places, _ = board
    isolated = _isolated(variant)
    discs = [(pid, p, UNIT_R) for pid, place in places.items() if pid not in isolated for p in _unit_points(place)]
    boxes = {pid: name_box(*place.label, place.label_text) for pid, place in places.items()}
    hit = []
    for pid, place in places.items():
        if place.centre is None:
            continue
        hit += [(pid, q) for q, p, r in discs if math.dist(p, place.centre) < r + CENTRE_R / 2]  # most of it seen
        hit += [(pid, "name of " + q) for q, b in boxes.items() if _covers(b, place.centre, CENTRE_R)]
    assert hit == []


def test_a_move_between_adjacent_provinces_has_a_shaft(board):
    """Every move the rules allow, drawn between two occupied provinces (the shortest arrow
    there is: it stops at the unit it meets), has a shaft behind its head."""
    from bot.render.facts import Drawn, Facts
    from bot.render.scene import Line, scene, shaft_length

    variant = board[0]
    geo = geometry_for(variant.name)
    edges = [(a, b, UnitType.ARMY) for a, b in variant.army_edges] + \
            [(a, b, UnitType.FLEET) for a, b in variant.fleet_edges]
    short = []
    for a, b, kind in edges:
        a, b = (Location.parse(str(x)) if not isinstance(x, Location) else x for x in (a, b))
        for src, dst in ((a, b), (b, a)):
            units = (Unit(Power("NEU"), kind, src), Unit(Power("NEU"), kind, dst))
            facts = Facts(_board(variant, units), {}, (Drawn(Move(Power("NEU"), kind, src, dst)),))
            line, = [m for m in scene(variant, geo, facts).marks if isinstance(m, Line)]
            if shaft_length(line) < SHAFT:
                short.append((round(shaft_length(line), 1), str(src), str(dst)))
    assert sorted(short) == []


def _board(variant, units):
    from adjudicator.opening import starting_position

    return starting_position(variant).with_changes(units=units)


def test_the_checks_see_what_they_look_for():
    """The measures above fail on shapes that break them (a check that cannot fail is no check)."""
    a, b = box(0, 0, 10, 10), box(10, 0, 20, 10)
    assert a.boundary.intersection(b.boundary).length == 10            # a border 10 long
    assert box(0, 0, 10, 10).boundary.intersection(box(10, 10, 20, 20).boundary).length == 0  # a corner: none
    assert box(0, 0, 10, 10).distance(box(13, 0, 20, 10)) == 3 < APART  # a sliver 3 wide between two
    assert _covers(name_box(50, 50, "Acre"), (50 + 30, 50), UNIT_R)     # a unit on the end of a name
    assert not _covers(name_box(50, 50, "Acre"), (50 + 60, 50), UNIT_R)
