"""What a picture draws on the map, as values: a pure function of the map's geometry and the
:class:`~bot.render.facts.Facts` of a board or a season.

:func:`scene` lays every mark out in picture units (the map :data:`~bot.render.layout.WIDTH`
wide), bottom to top: supports and convoys, moves and retreats, then the supply centres' dots,
the units, the rings and badges on them, the bids' tags and the marks of failed and invalid
orders. :mod:`bot.render.raster` draws them; tests read them.

How an order looks: a move is a thick arrow in its power's colour from unit to unit; a support
a thin line ending in a small circle on the move it supports (or round the unit it holds in
place); a convoy a thin line from the fleet to the convoyed move; a hold a ring round the unit; a
retreat an arrow cased in red from the dislodged unit; a build a ring round the new unit; a
disband a cross. A failed order is dashed with a cross at its end, one that could not be given
dotted with a "no" sign. A unit this season dislodged has a red ring; a dislodged unit waiting
to retreat is drawn smaller, up and right of the unit that took its place.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from collections.abc import Mapping

from adjudicator.orders import Build, Convoy, Disband, Hold, Move, Retreat, SupportHold, SupportMove, UnitOrder
from adjudicator.variant import Variant
from adjudicator.vocab import NEUTRAL, Location, Power, ProvinceId, UnitType

from . import palette
from .facts import FAILED, INVALID, PENDING, RANDOM, SUCCEEDED, Bid, Facts
from .geometry import MapGeometry, MapPlaces, Place
from .labels import name_box
from .layout import DISLODGED_OFFSET, DISLODGED_R, UNIT_R

Point = tuple[float, float]

ARROW_WIDTH = 4.0
HEAD_LENGTH = 8.0
HEAD_WIDTH = 6.0
"""A move's arrow: shaft width, and the head's length and half width."""
THIN_WIDTH = 2.2
"""A support's or a convoy's line."""
CASING = 1.1
"""The dark edge on each side of a line."""
GAP = 1.5
"""Between a line's end and the edge of the unit it meets."""
SIDE = 5.0
"""How far the two arrows of a head-to-head stand apart, each to its own right."""
RING_R = UNIT_R + 4.0
"""A ring round a unit (hold, build, convoy, a support to hold)."""


@dataclass(frozen=True)
class Line:
    """A polyline: a move, a retreat, a support, a convoy. ``head`` draws an arrowhead at its
    end; ``end`` a small circle there (a support); ``status`` dashes or dots it."""

    kind: str
    points: tuple[Point, ...]
    colour: str
    width: float
    casing: str = palette.INK
    head: bool = False
    end: bool = False
    status: str = PENDING


@dataclass(frozen=True)
class Ring:
    kind: str
    centre: Point
    r: float
    colour: str
    width: float = 2.6
    casing: str | None = palette.INK
    status: str = PENDING


@dataclass(frozen=True)
class Token:
    """A unit: its power (for its colour and pattern), its type, where; ``small`` for a
    dislodged unit waiting to retreat."""

    power: Power
    type: UnitType
    at: Point
    small: bool = False


@dataclass(frozen=True)
class Dot:
    """A supply centre's dot, in its owner's colour (``None``: nobody's); ``changed`` when it
    changed hands this season."""

    province: ProvinceId
    at: Point
    owner: Power | None
    changed: bool = False


@dataclass(frozen=True)
class Badge:
    """A small round badge on a unit: a vassal's lord (``vassal``) or a briber (``bribe``)."""

    kind: str
    at: Point
    colour: str


@dataclass(frozen=True)
class Tag:
    """A bid drawn where it applies: its kind's symbol and the amount, in the bidder's colour."""

    kind: str
    at: Point
    colour: str
    amount: int | None
    status: str = PENDING


@dataclass(frozen=True)
class Outcome:
    """The mark of a failed order (``cross``) or of one that could not be given (``no``)."""

    kind: str
    at: Point
    r: float = 5.5


Mark = Line | Ring | Token | Dot | Badge | Tag | Outcome


@dataclass(frozen=True)
class Scene:
    marks: tuple[Mark, ...]
    used: frozenset[str] = field(default_factory=frozenset)
    """The kinds of symbol the picture uses, for the legend's key."""


def _unit(direction: Point) -> Point:
    length = math.hypot(*direction) or 1.0
    return direction[0] / length, direction[1] / length


def _trim(a: Point, b: Point, from_a: float, from_b: float) -> tuple[Point, Point]:
    ux, uy = _unit((b[0] - a[0], b[1] - a[1]))
    return (a[0] + ux * from_a, a[1] + uy * from_a), (b[0] - ux * from_b, b[1] - uy * from_b)


def _right(points: tuple[Point, Point], offset: float) -> tuple[Point, Point]:
    (x1, y1), (x2, y2) = points
    ux, uy = _unit((x2 - x1, y2 - y1))
    nx, ny = -uy * offset, ux * offset
    return (x1 + nx, y1 + ny), (x2 + nx, y2 + ny)


def _midpoint(a: Point, b: Point, t: float = 0.5) -> Point:
    return a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t


def tag_width(amount: int | None) -> float:
    """How wide a bid's tag is drawn: its symbol, and its amount (up to three digits)."""
    return 17.0 + (3.0 + 8.4 * len(str(amount)) if amount is not None else 0.0)


_BOXES: dict[int, tuple[object, list]] = {}


def _name_boxes(geo) -> list[tuple[float, float, float, float]]:
    """The boxes of a map's names (worked out once per map)."""
    kept = _BOXES.get(id(geo))
    if kept is None or kept[0] is not geo:
        places = geo.places or {}
        kept = _BOXES[id(geo)] = (geo, [name_box(p.label[0], p.label[1], p.label_text) for p in places.values()])
    return kept[1]


def _overlap(a, b) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def shaft_length(line: Line) -> float:
    """How long an arrow's shaft is drawn (its length without the head)."""
    length = sum(math.dist(a, b) for a, b in zip(line.points, line.points[1:]))
    return length - (HEAD_LENGTH if line.head else 0.0)


class _Layout:
    def __init__(self, variant: Variant, geo: MapGeometry | MapPlaces, facts: Facts) -> None:
        self.variant = variant
        self.geo = geo
        self.facts = facts
        self.places: Mapping[ProvinceId, Place] = geo.places or {}
        self.units = {u.province: u for u in facts.board.units}
        self.retreating = {d.unit.province: d for d in facts.board.dislodged}
        self.used: set[str] = set()
        self.under: list[Mark] = []
        self.over: list[Mark] = []
        self.top: list[Mark] = []
        self.moves: dict[ProvinceId, tuple[Point, Point]] = {}
        self.occupied = set(self.units)
        self.built: list[tuple[Build, str]] = []
        self.name_boxes = _name_boxes(geo)
        self.unit_points = [self.point(u.location) for u in facts.board.units]
        self.tag_boxes: list[tuple[float, float, float, float]] = []

    def colour(self, power: Power) -> str:
        return palette.power_colour(self.variant, power)

    def point(self, location: Location) -> Point:
        return self.geo.anchor(location)

    def unit_point(self, province: ProvinceId) -> Point:
        unit = self.units.get(province)
        return self.point(unit.location if unit else Location(province))

    def dislodged_point(self, location: Location) -> Point:
        place = self.places.get(location.province)
        if place is not None and place.dislodged is not None:
            return place.dislodged
        x, y = self.point(Location(location.province))
        return x + DISLODGED_OFFSET[0], y + DISLODGED_OFFSET[1]

    def outcome(self, status: str, at: Point, r: float = 5.5) -> None:
        if status == FAILED:
            self.top.append(Outcome("cross", at, r))
            self.used.add("failed")
        elif status == INVALID:
            self.top.append(Outcome("no", at, r + 1))
            self.used.add("invalid")

    # -- orders ----------------------------------------------------------------------------

    def moves_first(self) -> None:
        """Where every move's arrow runs, before the supports that end on it are laid out."""
        moves = [d.order for d in self.facts.orders if isinstance(d.order, Move)]
        heads = {(order.location.province, order.destination.province) for order in moves}
        for order in moves:
            a, b = self.point(order.location), self.point(order.destination)
            target = order.destination.province
            end_gap = UNIT_R + GAP if target in self.occupied else 3.0
            ends = _trim(a, b, UNIT_R + GAP, end_gap)
            if (target, order.location.province) in heads:     # head to head: each to its own right
                ends = _right(ends, SIDE)
            self.moves[order.location.province] = ends

    def order(self, drawn) -> None:
        order: UnitOrder = drawn.order
        colour = self.colour(order.power)
        status = drawn.status
        if isinstance(order, Move):
            ends = self.moves[order.location.province]
            self.over.append(Line("move", ends, colour, ARROW_WIDTH, head=True, status=status))
            self.used.add("move")
            self.outcome(status, ends[1])
        elif isinstance(order, SupportMove):
            a = self.unit_point(order.location.province)
            supported = self.moves.get(order.target.province)
            if supported is not None and self._supports(order, supported):
                b = _midpoint(*supported, 0.55)
            else:
                b = self.point(order.destination)
            ends = _trim(a, b, UNIT_R + GAP, 0.0)
            self.under.append(Line("support", ends, colour, THIN_WIDTH, end=True, status=status))
            self.used.add("support")
            self.outcome(status, ends[1], 4.5)
        elif isinstance(order, SupportHold):
            a = self.unit_point(order.location.province)
            b = self.unit_point(order.target.province)
            ends = _trim(a, b, UNIT_R + GAP, RING_R)
            self.under.append(Line("support", ends, colour, THIN_WIDTH, status=status))
            self.under.append(Ring("support", b, RING_R, colour, THIN_WIDTH, status=status))
            self.used.add("support")
            self.outcome(status, ends[1], 4.5)
        elif isinstance(order, Convoy):
            a = self.unit_point(order.location.province)
            convoyed = self.moves.get(order.target.province)
            b = _midpoint(*convoyed) if convoyed is not None else self.point(order.destination)
            ends = _trim(a, b, RING_R, 0.0)
            self.under.append(Ring("convoy", a, RING_R, colour, THIN_WIDTH, status=status))
            self.under.append(Line("convoy", ends, colour, THIN_WIDTH, end=True, status=status))
            self.used.add("convoy")
            self.outcome(status, ends[1], 4.5)
        elif isinstance(order, Hold):
            at = self.unit_point(order.location.province)
            self.over.append(Ring("hold", at, RING_R, colour, status=status))
            self.used.add("hold")
            self.outcome(status, (at[0] + RING_R * 0.7, at[1] - RING_R * 0.7))
        elif isinstance(order, Retreat):
            a = self.dislodged_point(order.location)
            b = self.point(order.destination)
            ends = _trim(a, b, DISLODGED_R + GAP, 3.0 if order.destination.province not in self.occupied else UNIT_R + GAP)
            grey = drawn.given_by == RANDOM
            self.over.append(Line("retreat", ends, colour, ARROW_WIDTH - 0.8, casing=palette.DISLODGED, head=True,
                                  status=status))
            self.used.add("random retreat" if grey else "retreat")
            self.outcome(status, ends[1])
        elif isinstance(order, Disband):
            waiting = order.location.province in self.retreating
            at = self.dislodged_point(order.location) if waiting else self.unit_point(order.location.province)
            if status in (PENDING, SUCCEEDED):
                self.top.append(Outcome("disband", at, (DISLODGED_R if waiting else UNIT_R) - 1))
                self.used.add("disband")
            else:
                self.outcome(status, at)
        elif isinstance(order, Build):
            at = self.point(order.location)
            self.built.append((order, status))
            self.over.append(Ring("build", at, RING_R, colour, status=status))
            self.used.add("build")
            self.outcome(status, (at[0] + RING_R * 0.7, at[1] - RING_R * 0.7))

    def _supports(self, order: SupportMove, move: tuple[Point, Point]) -> bool:
        drawn = next((d.order for d in self.facts.orders if isinstance(d.order, Move)
                      and d.order.location.province == order.target.province), None)
        return drawn is not None and drawn.destination.province == order.destination.province

    # -- bids ------------------------------------------------------------------------------

    def tag_point(self, province: ProvinceId, near_unit: bool, width: float) -> Point:
        """Where a bid's tag goes: beside the unit it bids for (or the centre it names), on the
        side where it covers least of the names, units and tags already there."""
        place = self.places.get(province)
        if place is None:
            return self.point(Location(province))
        ux, uy = place.unit if near_unit or place.centre is None else place.centre
        reach = UNIT_R + 6.0 if near_unit or place.centre is None else 8.0
        near = reach + width + 60.0
        boxes = [b for b in self.name_boxes + self.tag_boxes
                 if b[0] < ux + near and ux - near < b[2] and b[1] < uy + near and uy - near < b[3]]
        boxes += [(p[0] - UNIT_R, p[1] - UNIT_R, p[0] + UNIT_R, p[1] + UNIT_R) for p in self.unit_points
                  if abs(p[0] - ux) < near and abs(p[1] - uy) < near]
        best: Point = (ux, uy)  # (the first side tried takes its place)
        best_cost = math.inf
        for k in range(12):
            angle = math.pi * (1.25 + k / 6)        # from up-left, clockwise
            x = ux + math.cos(angle) * (reach + width / 2)
            y = uy + math.sin(angle) * (reach + 6.0)
            box = (x - width / 2, y - 9.0, x + width / 2, y + 9.0)
            cost = sum(_overlap(box, other) for other in boxes) + 0.01 * k
            if box[0] < 0 or box[1] < 0 or box[2] > self.geo.width or box[3] > self.geo.height:
                cost += 1e4
            if cost < best_cost:
                best, best_cost = (x, y), cost
        self.tag_boxes.append((best[0] - width / 2, best[1] - 9.0, best[0] + width / 2, best[1] + 9.0))
        return best

    def bid(self, bid: Bid) -> None:
        width = tag_width(bid.amount)
        at = self.tag_point(bid.province, bid.on_unit, width)
        self.top.append(Tag(bid.kind, at, self.colour(bid.power), bid.amount, bid.status))
        self.used.add("vassal bid" if bid.kind == "vassal" else bid.kind)
        self.outcome(bid.status, (at[0] + width / 2, at[1] - 8.0), 4.5)


def scene(variant: Variant, geo: MapGeometry | MapPlaces, facts: Facts) -> Scene:
    """Every mark of a picture, bottom to top (see the module's docstring)."""
    lay = _Layout(variant, geo, facts)
    lay.moves_first()
    for drawn in facts.orders:
        lay.order(drawn)
    dots: list[Mark] = []
    for province in sorted(variant.supply_centers):
        place = lay.places.get(province)
        if place is None or place.centre is None:
            continue
        owner = facts.owners.get(province)
        owner = None if owner in (None, NEUTRAL) else owner
        before = facts.board.supply_centers.get(province)
        before = None if before in (None, NEUTRAL) else before
        changed = facts.adjudicated and owner != before
        dots.append(Dot(province, place.centre, owner, changed))
        if changed:
            lay.used.add("changed")
    if dots:
        lay.used.add("centre")
    tokens: list[Mark] = []
    for unit in facts.board.units:
        at = lay.point(unit.location)
        tokens.append(Token(unit.power, unit.type, at))
        lay.used.add("army" if unit.type is UnitType.ARMY else "fleet")
        if unit.power == NEUTRAL:
            lay.used.add("neutral")
        if unit.province in facts.dislodged:
            tokens.append(Ring("dislodged", at, UNIT_R + 3.0, palette.DISLODGED, 2.4, casing=None))
            lay.used.add("dislodged")
        lord = facts.lords.get(unit.province)
        if lord is not None and unit.power == NEUTRAL:
            tokens.append(Badge("vassal", (at[0] + UNIT_R * 0.8, at[1] + UNIT_R * 0.8), lay.colour(lord)))
            lay.used.add("vassal")
        briber = facts.bribed.get(unit.province)
        if briber is not None:
            tokens.append(Badge("bribe", (at[0] + UNIT_R * 0.8, at[1] + UNIT_R * 0.8), lay.colour(briber)))
            lay.used.add("bribed")
    for d in facts.board.dislodged:
        at = lay.dislodged_point(d.unit.location)
        tokens.append(Token(d.unit.power, d.unit.type, at, small=True))
        tokens.append(Ring("dislodged", at, DISLODGED_R + 2.0, palette.DISLODGED, 2.0, casing=None))
        lay.used.add("dislodged")
    for order, status in lay.built:
        tokens.append(Token(order.power, order.unit_type or UnitType.ARMY, lay.point(order.location)))
    for bid in facts.bids:
        lay.bid(bid)
    if geo.crossings:
        lay.used.add("crossing")
    marks = tuple(lay.under) + tuple(lay.over) + tuple(dots) + tuple(tokens) + tuple(lay.top)
    return Scene(marks, frozenset(lay.used))


__all__ = [
    "ARROW_WIDTH",
    "HEAD_LENGTH",
    "Badge",
    "Dot",
    "Line",
    "Mark",
    "Outcome",
    "Ring",
    "Scene",
    "Tag",
    "Token",
    "scene",
    "shaft_length",
]
