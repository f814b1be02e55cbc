"""The map picture as SVG text: a pure function of a variant, a position and optional orders.

A picture is drawn in layers, bottom to top (:class:`Layers`): the ground (sea, land, what lies
off the board), the owners' tints, the lines (borders, coasts, frame), the marks (supply
centres, units, orders, dislodged units), the labels (province names with a halo, above
everything on the map so that no arrow hides one) and the legend below the map. The ground, the
lines and the labels never change for a variant: :mod:`bot.render.png` rasterises them once.

Every drawn thing carries an id or a class a test (or a stylesheet) can find:

- ``province-<id>`` (class ``land``/``coast``/``sea``), ``coastline`` edges, ``label-<id>``
  (class ``full`` when it shows the full name);
- ``sc-<id>`` supply-centre markers (class ``owner-<POWER>``), ``owned owner-<POWER>`` tints;
- ``unit-<id>`` units (classes ``army``/``fleet``, ``power-<POWER>``, ``neutral``, ``vassal``,
  ``bribed``; ``data-initial`` the letter drawn on it), ``dislodged-<id>`` dislodged units,
  drawn offset from their province;
- ``order-<kind>-<where>...`` one group per order (``order-move-par-bur``,
  ``order-support-mun-par-bur``, ``order-hold-lon``, ``order-convoy-nth-lon-nwy``,
  ``order-retreat-bur-pic``, ``order-build-lon``, ``order-disband-lon``, ``order-vassal-cyp-JER``...),
  with class ``succeeded``, ``failed`` or ``invalid`` when results are given. Every order keeps
  its power's colour; a failed one is dashed with a cross at its end, an invalid one dotted with
  a "no" sign;
- ``legend`` below the map: the phase; each power's colour, initial, centres and prestige; a key
  to every kind of symbol the picture uses; the caller's lines and every order that has no place
  on the map, at most :data:`MAX_NOTES` of them (the rest summed up in one line that points to
  the season's report).
"""

from __future__ import annotations

import functools
import math
import pickle
from dataclasses import dataclass
from typing import Iterable, Mapping, NamedTuple, Sequence
from xml.sax.saxutils import escape

from adjudicator.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold, SupportMove, canonical

from adjudicator.prestige.orders import Bribe, Rebel, SeizeFief, Vassal
from adjudicator.position import Position
from adjudicator.prestige.state import lord_of
from adjudicator.results import Outcome, OrderResult
from adjudicator.variant import Variant, get_variant
from adjudicator.vocab import NEUTRAL, Location, Power, ProvinceId, Unit, UnitType

from . import cache, palette
from .geometry import MapGeometry, geometry_for, hatch
from .labels import Label, place_labels, text_width

DEFAULT_SIZE = 1000
"""Default width in pixels. Discord shows a picture about 550 pixels wide until it is clicked;
every text is big enough to read at that size."""

UNIT_R = 13.0
LABEL_SIZE = 15.0
"""Province names, in picture units (the map is 1000 wide)."""
LABEL_CLEAR = UNIT_R + 8
"""How far a province's name keeps from every unit point: clear of a unit and the rings drawn
round it (hold, build, convoy)."""
CENTRE_MARK = 16.0
"""The room a supply centre's dot takes left of its province's name."""
LETTER_SIZE = 15.0
LEGEND_SIZE = 19.0
HATCH_SPACING = 7.0
HATCH_WIDTH = 1.6
"""Owned land's hatching: lines this far apart and this wide (picture units)."""
MAX_NOTES = 6
"""Lines of notes (bids, orders with no place on the map) the legend shows at most."""
_FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
_LINE = 1.45 * LEGEND_SIZE
_DISLODGED_OFFSET = (17.0, -15.0)  # up and right: the label is below
_SIDE = 6.0  # how far the two arrows of a head-to-head stand apart, each to its own right

Point = tuple[float, float]


def _f(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _pts(points: Iterable[Point]) -> str:
    return " ".join(f"{_f(x)},{_f(y)}" for x, y in points)


def _text(x: float, y: float, text: str, size: float, fill: str, *, bold: bool = False, italic: bool = False,
          anchor: str = "start", halo: str | None = None, attrs: str = "") -> str:
    """A text, with a halo (the same text stroked wide underneath) when ``halo`` is a colour."""
    style = f'font-family="{_FONT}" font-size="{_f(size)}"'
    if bold:
        style += ' font-weight="bold"'
    if italic:
        style += ' font-style="italic"'
    if anchor != "start":
        style += f' text-anchor="{anchor}"'
    body = escape(text)
    under = ""
    if halo:
        under = (f'<text x="{_f(x)}" y="{_f(y)}" {style} fill="{halo}" stroke="{halo}" '
                 f'stroke-width="{_f(size * 0.28)}" stroke-linejoin="round">{body}</text>')
    return f'{under}<text{attrs} x="{_f(x)}" y="{_f(y)}" {style} fill="{fill}">{body}</text>'


def hatch_angles(variant: Variant) -> dict[Power, float]:
    """Which way each power's hatching leans: rising to the right and to the left in turn, in the
    order the map file lists the powers."""
    return {code: 45.0 if i % 2 == 0 else -45.0 for i, code in enumerate(variant.powers)}


@functools.cache
def _hatch_path(variant_name: str, pid: ProvinceId, angle: float) -> str:
    lines = hatch(_base(variant_name).geometry.cells[pid], angle, HATCH_SPACING)
    return "".join(f"M{_f(a[0])},{_f(a[1])}L{_f(b[0])},{_f(b[1])}" for a, b in lines)


def initials(variant: Variant) -> dict[Power, str]:
    """One letter per power, different for every power of the variant: the first letter of its
    code that no power before it has taken."""
    out: dict[Power, str] = {}
    for code in variant.powers:
        letter = next((c for c in str(code).upper() if c.isalpha() and c not in out.values()), str(code)[:1])
        out[code] = letter
    return out


# -- the unchanging part of a map: ground, lines, labels (one per variant) ---------------------


@dataclass(frozen=True)
class _Base:
    geometry: MapGeometry
    ground_svg: str
    lines_svg: str
    labels_svg: str
    cell_paths: dict[ProvinceId, str]
    labels: dict[ProvinceId, Label]
    initials: dict[Power, str]
    hatch_angles: dict[Power, float]


def _path(polys) -> str:
    return "".join("M" + " L".join(f"{_f(x)},{_f(y)}" for x, y in poly) + "Z" for poly in polys)


@functools.cache
def _base(variant_name: str) -> _Base:
    """What every picture of the variant shares: worked out once per process, and kept on disk
    between processes (:mod:`bot.render.cache`)."""
    variant = get_variant(variant_name)
    name = cache.entry_name(variant.name, "base")
    data = cache.load(name)
    if data is not None:
        try:
            base = pickle.loads(data)
            if isinstance(base, _Base):
                return base
        except Exception:  # an entry from elsewhere or damaged: worked out afresh and written again
            pass
    base = _build_base(variant)
    cache.store(name, pickle.dumps(base, protocol=pickle.HIGHEST_PROTOCOL))
    return base


def _build_base(variant: Variant) -> _Base:
    geo = geometry_for(variant.name)
    ground = [f'<rect width="{_f(geo.width)}" height="{_f(geo.height)}" fill="{palette.SEA}"/>']
    paths = {}
    for pid, polys in sorted(geo.cells.items()):
        prov = variant.provinces[pid]
        paths[pid] = path = _path(polys)
        fill = palette.SEA if prov.is_sea else palette.LAND
        ground.append(f'<path id="province-{pid}" class="{prov.kind.value}" d="{path}" fill="{fill}"/>')
    points = {pid: geo.anchor(Location(pid)) for pid in geo.cells}
    coasts = [p for loc, p in geo.anchors.items() if loc.coast]
    labels = place_labels(variant.provinces, geo.cells, points, coasts, LABEL_SIZE, clear=LABEL_CLEAR,
                          mark=CENTRE_MARK, frame=(geo.width, geo.height))
    if geo.off_map:
        ground.append(f'<path id="off-map" d="{_path(geo.off_map)}" fill="{palette.OFF_MAP}"/>')
    if geo.water:
        ground.append(f'<path id="water" d="{_path(geo.water)}" fill="{palette.SEA}"/>')
    strokes: dict[str, list[str]] = {"river": [], "border sea": [], "border land": [], "coastline": [], "edge": [],
                                     "crossing": []}
    crossings = [_crossing_line(p, q) for _, _, p, q in geo.crossings]
    for kind, lines in (("edge", geo.edge), ("coastline", geo.shores), ("border sea", geo.sea_edges),
                        ("river", geo.rivers), ("crossing", crossings)):
        strokes[kind] += ["M" + " L".join(f"{_f(x)},{_f(y)}" for x, y in line) for line in lines]
    for a, b, line in geo.borders:
        sea_a, sea_b = variant.provinces[a].is_sea, variant.provinces[b].is_sea
        kind = "border sea" if sea_a and sea_b else "coastline" if sea_a or sea_b else "border land"
        strokes[kind].append("M" + " L".join(f"{_f(x)},{_f(y)}" for x, y in line))
    styles = {
        "river": f'stroke="{palette.SEA_BORDER}" stroke-width="1.2"',
        "border sea": f'stroke="{palette.SEA_BORDER}" stroke-width="1.2"',
        "border land": f'stroke="{palette.BORDER}" stroke-width="1.3"',
        "coastline": f'stroke="{palette.COAST}" stroke-width="2.4"',
        "edge": f'stroke="{palette.FRAME}" stroke-width="1.6"',
        "crossing": f'stroke="{palette.INK}" stroke-width="{_f(CROSSING_WIDTH)}"',
    }
    lines = []
    for kind, d in strokes.items():
        if not d:
            continue
        if kind == "crossing":  # on a pale casing, with a bar across each end: a way over the water
            lines.append(f'<path class="crossing-casing" d="{"".join(d)}" fill="none" stroke="{palette.HALO}" '
                         f'stroke-width="{_f(CROSSING_WIDTH + 3)}" stroke-linecap="round"/>')
            d = d + [_crossing_ends(p, q) for p, q in crossings]
        lines.append(f'<path class="{kind}" d="{"".join(d)}" fill="none" {styles[kind]} stroke-linecap="round"/>')
    lines.append(f'<rect width="{_f(geo.width)}" height="{_f(geo.height)}" fill="none" stroke="{palette.FRAME}" '
                 f'stroke-width="3"/>')
    text = []
    for pid, label in sorted(labels.items()):
        prov = variant.provinces[pid]
        colour = palette.SEA_LABEL if prov.is_sea else palette.LAND_LABEL
        cls = "label full" if label.full else "label"
        text.append(_text(label.x, label.y, label.text, LABEL_SIZE, colour, italic=prov.is_sea, anchor="middle",
                          halo=palette.HALO, attrs=f' id="label-{pid}" class="{cls}"'))
    return _Base(geo, "".join(ground), "".join(lines), "".join(text), paths, labels, initials(variant),
                 hatch_angles(variant))


# -- small drawing helpers ------------------------------------------------------------------


CROSSING_WIDTH = 3.2
CROSSING_LENGTH = 26.0
"""A crossing (Constantinople-Nicaea over the Bosporus) is drawn at least this long, its middle
on the strait, so that it reads at the size Discord shows."""


def _crossing_line(p: Point, q: Point) -> tuple[Point, Point]:
    length = math.dist(p, q)
    if length >= CROSSING_LENGTH:
        return p, q
    mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
    ux, uy = (q[0] - p[0]) / (length or 1.0), (q[1] - p[1]) / (length or 1.0)
    h = CROSSING_LENGTH / 2
    return (mx - ux * h, my - uy * h), (mx + ux * h, my + uy * h)


def _crossing_ends(p: Point, q: Point, half: float = 5.0) -> str:
    """A short bar across each end of a crossing's line."""
    length = math.dist(p, q) or 1.0
    nx, ny = -(q[1] - p[1]) / length * half, (q[0] - p[0]) / length * half
    return "".join(f"M{_f(x - nx)},{_f(y - ny)} L{_f(x + nx)},{_f(y + ny)}" for x, y in (p, q))


def _toward(a: Point, b: Point, distance: float) -> Point:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy) or 1.0
    return a[0] + dx / length * distance, a[1] + dy / length * distance


def _beside(points: Sequence[Point], offset: float) -> list[Point]:
    """``points`` moved ``offset`` to the right of the way from the first to the last."""
    (x1, y1), (x2, y2) = points[0], points[-1]
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    nx, ny = -(y2 - y1) / length * offset, (x2 - x1) / length * offset
    return [(x + nx, y + ny) for x, y in points]


_DASH = {"": "", "succeeded": "", "failed": ' stroke-dasharray="8 5"', "invalid": ' stroke-dasharray="0.1 6" stroke-linecap="round"'}


def _end_mark(status: str, at: Point, r: float = 6.0) -> str:
    if status == "failed":
        return _cross(at, r)
    if status == "invalid":
        return _no_sign(at, r + 1)
    return ""


def _arrow(points: Sequence[Point], colour: str, status: str, width: float = 4.6,
           casing: str = palette.INK) -> list[str]:
    """A cased polyline with a head at its last point (heads are polygons: no SVG markers)."""
    *body, tip = points
    prev = body[-1]
    length = math.hypot(tip[0] - prev[0], tip[1] - prev[1]) or 1.0
    ux, uy = (tip[0] - prev[0]) / length, (tip[1] - prev[1]) / length
    head_len, head_w = 3.4 * width, 2.1 * width
    neck = (tip[0] - ux * head_len, tip[1] - uy * head_len)
    left = (neck[0] - uy * head_w, neck[1] + ux * head_w)
    right = (neck[0] + uy * head_w, neck[1] - ux * head_w)
    line = _pts([*body, neck])
    dash = _DASH[status]
    out = [
        f'<polyline points="{line}" fill="none" stroke="{casing}" stroke-width="{_f(width + 2.6)}" '
        f'stroke-linejoin="round"{dash}/>',
        f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="{_f(width)}" '
        f'stroke-linejoin="round"{dash}/>',
        f'<polygon points="{_pts([tip, left, right])}" fill="{colour if status != "invalid" else palette.HALO}" '
        f'stroke="{palette.INK}" stroke-width="1.3"/>',
    ]
    mark = _end_mark(status, tip)
    if mark:
        out.append(mark)
    return out


def _cross(at: Point, r: float) -> str:
    x, y = at
    d = f"M{_f(x - r)},{_f(y - r)} L{_f(x + r)},{_f(y + r)} M{_f(x - r)},{_f(y + r)} L{_f(x + r)},{_f(y - r)}"
    return (
        f'<path class="cross" d="{d}" stroke="{palette.HALO}" stroke-width="5.5" stroke-linecap="round"/>'
        f'<path d="{d}" stroke="{palette.INK}" stroke-width="2.6" stroke-linecap="round"/>'
    )


def _no_sign(at: Point, r: float) -> str:
    """A circle with a bar across it: an order that could not be given."""
    x, y = at
    k = r * 0.7071
    return (f'<g class="no-sign"><circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" fill="{palette.HALO}" '
            f'stroke="{palette.INK}" stroke-width="2.2"/>'
            f'<path d="M{_f(x - k)},{_f(y + k)} L{_f(x + k)},{_f(y - k)}" stroke="{palette.INK}" stroke-width="2.2"/></g>')


def _unit_glyph(unit_type: UnitType, at: Point, fill: str, stroke: str, stroke_width: float, letter: str = "",
                dashed: bool = False) -> str:
    x, y = at
    dash = ' stroke-dasharray="3 2"' if dashed else ""
    if unit_type is UnitType.ARMY:
        shape = (f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(UNIT_R)}" fill="{fill}" stroke="{stroke}" '
                 f'stroke-width="{_f(stroke_width)}"{dash}/>')
    else:  # a hull: wide at the deck, narrow at the keel
        r = UNIT_R
        hull = [(x - 1.35 * r, y - 0.62 * r), (x + 1.35 * r, y - 0.62 * r), (x + 0.85 * r, y + 0.78 * r),
                (x - 0.85 * r, y + 0.78 * r)]
        shape = (f'<polygon points="{_pts(hull)}" fill="{fill}" stroke="{stroke}" '
                 f'stroke-width="{_f(stroke_width)}" stroke-linejoin="round"{dash}/>')
    if not letter:
        return shape
    return shape + _text(x, y + 0.36 * LETTER_SIZE, letter, LETTER_SIZE, palette.ink_on(fill), bold=True,
                         anchor="middle")


# -- the picture -----------------------------------------------------------------------------


class _Drawing:
    def __init__(self, variant: Variant, position: Position, results: Mapping[Order, OrderResult],
                 controllers: Mapping[ProvinceId, Power], raster: bool = False):
        self.raster = raster  # drawn for a PNG: leave out what only an SVG reader sees
        self.variant = variant
        self.position = position
        self.base = _base(variant.name)
        self.geo = self.base.geometry
        self.results = results
        self.controllers = controllers
        self.notes: list[str] = []
        self.used: set[str] = set()  # kinds of symbol drawn, for the key
        self.move_paths: dict[tuple[ProvinceId, ProvinceId], list[Point]] = {}
        self.dislodged = {d.unit.province: d.unit for d in position.dislodged}

    def colour(self, power: Power | None) -> str:
        if power is None or power == NEUTRAL:
            return palette.NEUTRAL
        info = self.variant.powers.get(power)
        return info.colour if info else palette.NEUTRAL

    # where things are
    def unit_point(self, location: Location, dislodged: bool = False) -> Point:
        x, y = self.geo.anchor(location)
        if dislodged:
            return x + _DISLODGED_OFFSET[0], y + _DISLODGED_OFFSET[1]
        return x, y

    def status(self, order: Order) -> str:
        """'' (no result given), 'succeeded', 'failed' or 'invalid'."""
        result = self.results.get(order)
        if result is None:
            return ""
        if result.outcome is Outcome.SUCCEEDS:
            return "succeeded"
        self.used.add("failed" if result.outcome is Outcome.FAILS else "invalid")
        return "failed" if result.outcome is Outcome.FAILS else "invalid"

    # layers
    def owned(self) -> tuple[Owned, ...]:
        """Owned land: a pale tint of the owner's colour, hatched in the colour itself (the lines
        leaning one way or the other by power), so that no owner's land reads as water, however
        blue its owner."""
        out = []
        for pid, owner in sorted(self.position.supply_centers.items()):
            if owner == NEUTRAL or pid not in self.base.cell_paths:
                continue
            colour = self.colour(owner)
            out.append(Owned(pid, owner, palette.owned_tint(colour), palette.hatch_colour(colour),
                             self.base.hatch_angles.get(owner, 45.0)))
        return tuple(out)

    def ownership(self, owned: Sequence[Owned]) -> str:
        out = []
        for pid, owner, tint, lines, angle in owned:
            out.append(f'<path class="owned owner-{owner}" d="{self.base.cell_paths[pid]}" fill="{tint}"/>'
                       f'<path class="hatch" d="{_hatch_path(self.variant.name, pid, angle)}" fill="none" '
                       f'stroke="{lines}" stroke-width="{_f(HATCH_WIDTH)}"/>')
        return "".join(out)

    def centres(self) -> str:
        out = []
        by_owner: dict[Power, list[str]] = {}
        for pid in sorted(self.variant.supply_centers):
            owner = self.position.supply_centers.get(pid, NEUTRAL)
            label = self.base.labels[pid]
            x, y = label.x - label.width / 2 - 8, label.y - 0.35 * LABEL_SIZE
            if self.raster:  # one path of circles per owner
                by_owner.setdefault(owner, []).append(f"M{_f(x - 5.5)},{_f(y)} a5.5,5.5 0 1,0 11,0 a5.5,5.5 0 1,0 -11,0Z")
                continue
            out.append(
                f'<g id="sc-{pid}" class="sc owner-{owner}">'
                f'<circle cx="{_f(x)}" cy="{_f(y)}" r="5.5" fill="{self.colour(owner)}" stroke="{palette.INK}" '
                f'stroke-width="2"/></g>'
            )
        for owner, circles in by_owner.items():
            out.append(f'<path d="{"".join(circles)}" fill="{self.colour(owner)}" stroke="{palette.INK}" '
                       f'stroke-width="2"/>')
        if out:
            self.used.add("centre")
        return "".join(out)

    def unit(self, unit: Unit, dislodged: bool = False) -> str:
        at = self.unit_point(unit.location, dislodged)
        classes = ["unit", unit.type.noun, f"power-{unit.power}"]
        self.used.add(unit.type.noun)
        fill = self.colour(unit.power)
        letter = "" if unit.power == NEUTRAL else self.base.initials.get(unit.power, "")
        extra, ring_colour, badge = f' data-initial="{letter}"' if letter else "", None, ""
        if unit.power == NEUTRAL:
            classes.append("neutral")
            self.used.add("neutral")
            lord = self.lord_of(unit)
            if lord:
                classes.append("vassal")
                self.used.add("vassal")
                ring_colour, badge = self.colour(lord), "V"
                extra += f' data-lord="{lord}"'
        controller = self.controllers.get(unit.province)
        if controller and controller != unit.power and not dislodged:
            classes.append("bribed")
            self.used.add("bribed")
            ring_colour, badge = self.colour(controller), "B"
            extra += f' data-controller="{controller}"'
        if dislodged:
            classes.append("dislodged")
            self.used.add("dislodged")
        ident = f"dislodged-{unit.province}" if dislodged else f"unit-{unit.province}"
        parts = [] if self.raster else [f'<g id="{ident}" class="{" ".join(classes)}"{extra}>']
        if ring_colour:
            parts.append(f'<circle cx="{_f(at[0])}" cy="{_f(at[1])}" r="{_f(UNIT_R + 5)}" fill="none" '
                         f'stroke="{ring_colour}" stroke-width="4.5"/>')
        stroke = palette.DISLODGED if dislodged else palette.INK
        parts.append(_unit_glyph(unit.type, at, fill, stroke, 2.6 if dislodged else 1.6, letter,
                                 dashed=unit.power == NEUTRAL or dislodged))
        if badge:
            parts.append(_badge((at[0] + UNIT_R + 3, at[1] - UNIT_R - 2), badge, ring_colour))
        if not self.raster:
            parts.append("</g>")
        return "".join(parts)

    def lord_of(self, unit: Unit) -> Power | None:
        state = self.position.prestige
        return None if state is None else lord_of(state, unit)

    # orders
    def group(self, ident: str, kind: str, order: Order, status: str, body: list[str]) -> str:
        if self.raster:  # ids, classes and titles are for SVG readers; a raster only costs each element
            return "".join(body)
        classes = " ".join(x for x in ("order", kind, status) if x)
        return f'<g id="{ident}" class="{classes}"><title>{escape(canonical(order))}</title>{"".join(body)}</g>'

    def move_path(self, order: Move, convoys: Sequence[Convoy], moves: set[tuple[ProvinceId, ProvinceId]]
                  ) -> list[Point]:
        start = self.unit_point(order.location)
        end = self.geo.anchor(order.destination)
        via = [self.unit_point(c.location) for c in convoys
               if c.target.province == order.province and c.destination.province == order.destination.province]
        chain: list[Point] = []
        here = start
        while via:  # nearest fleet first: a path from the army through the fleets
            nxt = min(via, key=lambda p: math.dist(p, here))
            via.remove(nxt)
            chain.append(nxt)
            here = nxt
        points = [start, *chain, end]
        occupied = self.position.unit_at(order.destination.province) is not None
        points[0] = _toward(start, points[1], UNIT_R + 2)
        points[-1] = _toward(end, points[-2], UNIT_R + 3 if occupied else 4)
        if (order.destination.province, order.province) in moves and not chain:  # a head-to-head: side by side
            points = _beside(points, _SIDE)
        return points

    def draw_orders(self, orders: Sequence[Order]) -> tuple[list[str], list[str]]:
        """(lines under the units: supports and convoys; arrows and rings over them)."""
        under: list[str] = []
        over: list[str] = []
        convoys = [o for o in orders if isinstance(o, Convoy)]
        moves = {(o.province, o.destination.province) for o in orders if isinstance(o, Move)}
        for order in orders:
            if isinstance(order, Move):
                self.move_paths[(order.province, order.destination.province)] = self.move_path(order, convoys, moves)
        for order in orders:
            status = self.status(order)
            colour = self.colour(order.power)
            if isinstance(order, Move):
                self.used.add("move")
                path = self.move_paths[(order.province, order.destination.province)]
                ident = f"order-move-{order.province}-{order.destination.province}"
                over.append(self.group(ident, "move", order, status, _arrow(path, colour, status)))
            elif isinstance(order, Hold):
                self.used.add("hold")
                at = self.unit_point(order.location)
                body = [self.ring(at, colour, status)]
                mark = _end_mark(status, (at[0] + UNIT_R + 4, at[1] + UNIT_R + 4), 5)
                if mark:
                    body.append(mark)
                over.append(self.group(f"order-hold-{order.province}", "hold", order, status, body))
            elif isinstance(order, SupportHold):
                self.used.add("support")
                target = self.unit_point(order.target)
                start = self.unit_point(order.location)
                end = _toward(target, start, UNIT_R + 5)
                body = self.thin_line([_toward(start, target, UNIT_R), end], colour, status)
                body.append(self.ring(target, colour, status, r=UNIT_R + 5, width=2.2))
                under.append(self.group(f"order-support-{order.province}-{order.target.province}",
                                        "support", order, status, body))
            elif isinstance(order, SupportMove):
                self.used.add("support")
                key = (order.target.province, order.destination.province)
                path = self.move_paths.get(key) or [self.unit_point(order.target), self.geo.anchor(order.destination)]
                mid = _midpoint(path)
                start = self.unit_point(order.location)
                body = self.thin_line([_toward(start, mid, UNIT_R), mid], colour, status)
                body.append(f'<circle cx="{_f(mid[0])}" cy="{_f(mid[1])}" r="4" fill="{colour}" '
                            f'stroke="{palette.INK}" stroke-width="1.2"/>')
                ident = f"order-support-{order.province}-{order.target.province}-{order.destination.province}"
                under.append(self.group(ident, "support", order, status, body))
            elif isinstance(order, Convoy):
                self.used.add("convoy")
                fleet = self.unit_point(order.location)
                src = self.unit_point(order.target)
                dst = self.geo.anchor(order.destination)
                body = self.thin_line([_toward(src, fleet, UNIT_R), fleet, _toward(dst, fleet, UNIT_R)],
                                      colour, status, width=2.2, casing=palette.HALO)
                body.append(self.ring(fleet, colour, status, r=UNIT_R + 7, width=2.2))
                ident = f"order-convoy-{order.province}-{order.target.province}-{order.destination.province}"
                under.append(self.group(ident, "convoy", order, status, body))
            elif isinstance(order, Retreat):
                self.used.add("retreat")
                start = self.unit_point(order.location, dislodged=order.province in self.dislodged)
                end = self.geo.anchor(order.destination)
                path = [_toward(start, end, UNIT_R + 2), _toward(end, start, 4)]
                ident = f"order-retreat-{order.province}-{order.destination.province}"
                over.append(self.group(ident, "retreat", order, status,
                                       _arrow(path, colour, status, width=3.6, casing=palette.DISLODGED)))
            elif isinstance(order, Disband):
                self.used.add("disband")
                at = self.unit_point(order.location, dislodged=order.province in self.dislodged)
                body = [self.ring(at, colour, status, width=2.2), _cross(at, UNIT_R)]
                if status == "invalid":
                    body.append(_no_sign((at[0] + UNIT_R, at[1] + UNIT_R), 6))
                over.append(self.group(f"order-disband-{order.province}", "disband", order, status, body))
            elif isinstance(order, Build):
                self.used.add("build")
                at = self.unit_point(order.location)
                body = [self.ring(at, colour, status, r=UNIT_R + 6, width=2.8)]
                if order.unit_type is not None:
                    body.append(_unit_glyph(order.unit_type, at, colour, palette.INK, 1.6,
                                            self.base.initials.get(order.power, ""), dashed=True))
                mark = _end_mark(status, (at[0] + UNIT_R + 4, at[1] + UNIT_R + 4))
                if mark:
                    body.append(mark)
                over.append(self.group(f"order-build-{order.province}", "build", order, status, body))
            elif isinstance(order, (Vassal, Bribe, SeizeFief, Rebel)):
                over.append(self.prestige_tag(order, colour, status))
                if isinstance(order, Bribe) and order.order is not None:
                    inner, inner_over = self.draw_orders([order.order])
                    under.extend(inner)
                    over.extend(inner_over)
            else:  # Waive, SecureLoyalty, Lend: nothing to point at on the map
                suffix = f" ({status})" if status else ""
                self.notes.append(f"{canonical(order)}{suffix}")
        return under, over

    def ring(self, at: Point, colour: str, status: str, r: float = UNIT_R + 5, width: float = 3.0) -> str:
        dash = _DASH[status]
        return (f'<circle cx="{_f(at[0])}" cy="{_f(at[1])}" r="{_f(r)}" fill="none" stroke="{palette.INK}" '
                f'stroke-width="{_f(width + 2)}"{dash}/>'
                f'<circle cx="{_f(at[0])}" cy="{_f(at[1])}" r="{_f(r)}" fill="none" stroke="{colour}" '
                f'stroke-width="{_f(width)}"{dash}/>')

    def thin_line(self, points: Sequence[Point], colour: str, status: str, width: float = 2.8,
                  casing: str = palette.INK) -> list[str]:
        dash = _DASH[status]
        line = _pts(points)
        out = [
            f'<polyline points="{line}" fill="none" stroke="{casing}" stroke-width="{_f(width + 2.2)}" '
            f'stroke-linejoin="round"{dash}/>',
            f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="{_f(width)}" '
            f'stroke-linejoin="round"{dash}/>',
        ]
        mark = _end_mark(status, points[-1], 4.8)
        if mark:
            out.append(mark)
        return out

    def prestige_tag(self, order: Vassal | Bribe | SeizeFief | Rebel, colour: str, status: str) -> str:
        province = order.location.province if isinstance(order, (Vassal, Bribe)) else order.province
        word = {Vassal: "V", Bribe: "B", SeizeFief: "F", Rebel: "R"}[type(order)]
        kind = {Vassal: "vassal", Bribe: "bribe", SeizeFief: "seize", Rebel: "rebel"}[type(order)]
        self.used.add("bid")
        bid = getattr(order, "bid", None)
        text = f"{word}{bid}" if bid is not None else word
        x, y = self.geo.anchor(Location(province))
        x, y = x - UNIT_R - 16, y - UNIT_R - 5
        w = 8 + text_width(text, 12, bold=True)
        dash = _DASH[status]
        body = [
            f'<rect x="{_f(x - w / 2)}" y="{_f(y - 9)}" width="{_f(w)}" height="17" rx="4" fill="{colour}" '
            f'stroke="{palette.INK}" stroke-width="1.4"{dash}/>',
            _text(x, y + 4.2, text, 12, palette.ink_on(colour), bold=True, anchor="middle"),
        ]
        mark = _end_mark(status, (x + w / 2, y - 8), 4.5)
        if mark:
            body.append(mark)
        return self.group(f"order-{kind}-{province}-{order.power}", kind, order, status, body)


def _badge(at: Point, letter: str, colour: str) -> str:
    x, y = at
    return (f'<circle cx="{_f(x)}" cy="{_f(y)}" r="7.5" fill="{colour}" stroke="{palette.INK}" stroke-width="1.2"/>'
            + _text(x, y + 4, letter, 11, palette.ink_on(colour), bold=True, anchor="middle"))


def _midpoint(path: Sequence[Point]) -> Point:
    lengths = [math.dist(a, b) for a, b in zip(path, path[1:])]
    half = sum(lengths) / 2
    for (a, b), length in zip(zip(path, path[1:]), lengths):
        if half <= length and length > 0:
            t = half / length
            return a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
        half -= length
    return path[-1]


# -- the legend ------------------------------------------------------------------------------

_KEY_ORDER = ("army", "fleet", "neutral", "centre", "move", "support", "convoy", "hold", "retreat", "build",
              "disband", "dislodged", "failed", "invalid", "vassal", "bribed", "bid", "crossing")
_KEY_WORDS = {
    "army": "army", "fleet": "fleet", "neutral": "neutral unit", "centre": "supply centre", "move": "move",
    "support": "support", "convoy": "convoy", "hold": "hold", "retreat": "retreat", "build": "build",
    "disband": "disband", "dislodged": "dislodged", "failed": "failed", "invalid": "invalid order",
    "vassal": "vassal", "bribed": "bribed", "bid": "bid (V vassal, B bribe, F fief, R rebel)",
    "crossing": "strait crossing",
}


def _key_symbol(kind: str, x: float, y: float) -> str:
    """A small drawing of one kind of symbol, centred on (x, y), about 36 wide."""
    ink = palette.INK
    grey = palette.NEUTRAL
    if kind in ("army", "fleet"):
        return _unit_glyph(UnitType.ARMY if kind == "army" else UnitType.FLEET, (x, y), "#FFFFFF", ink, 1.6)
    if kind == "neutral":
        return _unit_glyph(UnitType.ARMY, (x, y), grey, ink, 1.6, dashed=True)
    if kind == "centre":
        return f'<circle cx="{_f(x)}" cy="{_f(y)}" r="5.5" fill="#FFFFFF" stroke="{ink}" stroke-width="2"/>'
    if kind in ("move", "failed", "invalid"):
        status = "" if kind == "move" else kind
        return "".join(_arrow([(x - 18, y), (x + 18, y)], grey, status, width=4.0))
    if kind == "retreat":
        return "".join(_arrow([(x - 18, y), (x + 18, y)], grey, "", width=3.4, casing=palette.DISLODGED))
    if kind == "support":
        return (f'<polyline points="{_pts([(x - 18, y), (x + 14, y)])}" stroke="{ink}" stroke-width="5" fill="none"/>'
                f'<polyline points="{_pts([(x - 18, y), (x + 14, y)])}" stroke="{grey}" stroke-width="2.8" fill="none"/>'
                f'<circle cx="{_f(x + 14)}" cy="{_f(y)}" r="4" fill="{grey}" stroke="{ink}" stroke-width="1.2"/>')
    if kind == "convoy":
        return (f'<circle cx="{_f(x)}" cy="{_f(y)}" r="11" fill="none" stroke="{ink}" stroke-width="4.2"/>'
                f'<circle cx="{_f(x)}" cy="{_f(y)}" r="11" fill="none" stroke="{grey}" stroke-width="2.2"/>'
                f'<polyline points="{_pts([(x - 18, y + 6), (x, y), (x + 18, y + 6)])}" stroke="{grey}" '
                f'stroke-width="2.2" fill="none"/>')
    if kind in ("hold", "build"):
        r = 11 if kind == "hold" else 12
        return (f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{r}" fill="none" stroke="{ink}" stroke-width="5"/>'
                f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{r}" fill="none" stroke="{grey}" stroke-width="3"/>'
                + (f'<circle cx="{_f(x)}" cy="{_f(y)}" r="6" fill="{grey}" stroke="{ink}" stroke-width="1.2" '
                   f'stroke-dasharray="3 2"/>' if kind == "build" else ""))
    if kind == "disband":
        return _cross((x, y), 9)
    if kind == "dislodged":
        return (f'<circle cx="{_f(x)}" cy="{_f(y)}" r="10" fill="#FFFFFF" stroke="{palette.DISLODGED}" '
                f'stroke-width="2.6" stroke-dasharray="3 2"/>')
    if kind in ("vassal", "bribed"):
        return (f'<circle cx="{_f(x)}" cy="{_f(y)}" r="12" fill="none" stroke="{grey}" stroke-width="4"/>'
                + _badge((x + 12, y - 9), "V" if kind == "vassal" else "B", grey))
    if kind == "crossing":
        p, q = (x - 16, y), (x + 16, y)
        d = f"M{_f(p[0])},{_f(y)} L{_f(q[0])},{_f(y)}" + _crossing_ends(p, q)
        return (f'<path d="{d}" stroke="{palette.HALO}" stroke-width="{_f(CROSSING_WIDTH + 3)}" '
                f'stroke-linecap="round" fill="none"/>'
                f'<path d="{d}" stroke="{palette.INK}" stroke-width="{_f(CROSSING_WIDTH)}" stroke-linecap="round" '
                f'fill="none"/>')
    if kind == "bid":
        return (f'<rect x="{_f(x - 14)}" y="{_f(y - 9)}" width="28" height="17" rx="4" fill="{grey}" '
                f'stroke="{ink}" stroke-width="1.4"/>' + _text(x, y + 4.2, "V2", 12, ink, bold=True, anchor="middle"))
    return ""


def _legend(variant: Variant, position: Position, used: set[str], notes: Sequence[str], top: float,
            width: float) -> tuple[str, float]:
    """The legend band under the map, and its height."""
    size = LEGEND_SIZE
    parts = [_text(14, top + 1.4 * size, f"{variant.title} · {position.phase.long_name}", size * 1.1, palette.INK,
                   bold=True)]
    counts = position.center_counts()
    letters = initials(variant)
    x, y = 14.0, top + 1.4 * size + _LINE + 4
    for code, info in variant.powers.items():
        name = info.name[4:] if info.name.startswith("The ") else info.name
        label = f"{name} {counts.get(code, 0)}"
        if position.prestige is not None and code in position.prestige.prestige:
            label += f" · {position.prestige.prestige[code]}p"
        w = 30 + text_width(label, size)
        if x + w > width - 10 and x > 14:
            x, y = 14.0, y + _LINE
        parts.append(
            f'<g class="key power-{code}"><rect x="{_f(x)}" y="{_f(y - 0.85 * size)}" width="{_f(1.1 * size)}" '
            f'height="{_f(1.1 * size)}" rx="3" fill="{info.colour}" stroke="{palette.INK}" stroke-width="1.2"/>'
            + _text(x + 0.55 * size, y - 0.3 * size + 0.36 * 14, letters[code], 14, palette.ink_on(info.colour),
                    bold=True, anchor="middle")
            + _text(x + 1.1 * size + 7, y, label, size, palette.INK) + "</g>"
        )
        x += w + 16
    kinds = [k for k in _KEY_ORDER if k in used]
    if kinds:
        x, y = 14.0, y + _LINE + 6
        for kind in kinds:
            word = _KEY_WORDS[kind]
            w = 54 + text_width(word, size * 0.85)
            if x + w > width - 10 and x > 14:
                x, y = 14.0, y + _LINE + 2
            parts.append(f'<g class="key symbol-{kind}">{_key_symbol(kind, x + 20, y - 0.3 * size)}'
                         + _text(x + 50, y, word, size * 0.85, palette.INK) + "</g>")
            x += w + 14
    lines = list(notes)
    if len(lines) > MAX_NOTES:
        rest = len(lines) - (MAX_NOTES - 1)
        lines = lines[:MAX_NOTES - 1] + [f"... and {rest} more: see the season's report"]
    y += 6
    for i, line in enumerate(lines):
        y += _LINE
        parts.append(_text(14, y, _clip(line, width - 28, size * 0.9), size * 0.9, palette.INK,
                           attrs=f' class="legend-line" id="legend-{i}"'))
    height = y - top + 0.7 * size
    rect = (f'<rect x="0" y="{_f(top)}" width="{_f(width)}" height="{_f(height)}" fill="{palette.LEGEND_BG}" '
            f'stroke="{palette.FRAME}" stroke-width="2"/>')
    return f'<g id="legend">{rect}{"".join(parts)}</g>', height


def _clip(text: str, room: float, size: float) -> str:
    if text_width(text, size) <= room:
        return text
    while text and text_width(text + "...", size) > room:
        text = text[:-1]
    return text + "..."


# -- the whole picture -------------------------------------------------------------------------


class Owned(NamedTuple):
    """A province a power owns, as drawn: tinted and hatched."""

    province: ProvinceId
    owner: Power
    tint: str
    lines: str
    angle: float


@dataclass(frozen=True)
class Layers:
    """A picture's layers as SVG fragments, bottom to top, in picture units (the map is
    ``geometry.width`` wide; the legend below it). ``ground``, ``lines`` and ``labels`` are the
    same for every picture of the variant."""

    variant: str
    head: str
    """The opening ``<svg>`` tag (size in pixels, viewBox, data attributes) and the title."""
    size: tuple[int, int]
    """Width and height in pixels."""
    map_height: float
    ground: str
    ownership: str
    """The owners' tints as SVG (empty when drawn for a raster, which paints ``owned``)."""
    lines: str
    marks: str
    labels: str
    legend: str
    owned: tuple[Owned, ...] = ()
    """The land each power owns (a province each), for a raster to tint."""

    def svg(self) -> str:
        return "\n".join([
            self.head,
            f'<g id="ground">{self.ground}</g>',
            f'<g id="ownership">{self.ownership}</g>',
            f'<g id="lines">{self.lines}</g>',
            self.marks,
            f'<g id="labels">{self.labels}</g>',
            self.legend,
            "</svg>",
        ])


def layers(
    variant: Variant | str,
    position: Position,
    *,
    orders: Sequence[Order] | None = None,
    results: Sequence[OrderResult] | None = None,
    controllers: Mapping[ProvinceId, Power] | None = None,
    legend: Sequence[str] | None = None,
    size: int = DEFAULT_SIZE,
    raster: bool = False,
) -> Layers:
    """The picture :func:`render_svg` draws, in its layers (see :class:`Layers`)."""
    if isinstance(variant, str):
        variant = get_variant(variant)
    if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
        raise ValueError(f"size must be a positive whole number of pixels, like 1000: {size!r}")
    result_list = list(results or ())
    if orders is None:
        orders = [r.order for r in result_list]
    by_order = {r.order: r for r in result_list}
    if controllers is None and position.prestige is not None:
        controllers = getattr(position.prestige, "bribed", None)
    drawing = _Drawing(variant, position, by_order, controllers or {}, raster)
    geo = drawing.geo
    under, over = drawing.draw_orders(list(orders))
    if geo.crossings:
        drawing.used.add("crossing")
    marks = "".join([
        f'<g id="centres">{drawing.centres()}</g>',
        f'<g id="supports">{"".join(under)}</g>',
        f'<g id="units">{"".join(drawing.unit(u) for u in position.units)}</g>',
        f'<g id="dislodged-units">{"".join(drawing.unit(d.unit, dislodged=True) for d in position.dislodged)}</g>',
        f'<g id="orders">{"".join(over)}</g>',
    ])
    notes = list(legend or ()) + drawing.notes
    legend_svg, legend_h = _legend(variant, position, drawing.used, notes, geo.height, geo.width)
    px_h = round(size * (geo.height + legend_h) / geo.width)
    view_h = px_h * geo.width / size  # exactly the pixels' proportions: no stretch, no offset
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{px_h}" '
            f'viewBox="0 0 {_f(geo.width)} {view_h:.3f}" data-variant="{variant.name}" '
            f'data-phase="{position.phase}">\n'
            f'<title>{escape(variant.title)}: {escape(position.phase.long_name)}</title>')
    base = drawing.base
    owned = drawing.owned()
    ownership = "" if raster else drawing.ownership(owned)  # a raster paints ``owned`` itself
    return Layers(variant.name, head, (size, px_h), geo.height, base.ground_svg, ownership, base.lines_svg, marks,
                  base.labels_svg, legend_svg, owned)


def render_svg(
    variant: Variant | str,
    position: Position,
    *,
    orders: Sequence[Order] | None = None,
    results: Sequence[OrderResult] | None = None,
    controllers: Mapping[ProvinceId, Power] | None = None,
    legend: Sequence[str] | None = None,
    size: int = DEFAULT_SIZE,
) -> str:
    """Draw ``position`` on ``variant``'s map and return the SVG document as text.

    :param variant: the variant, or its registered name.
    :param position: the board to draw (units, supply-centre owners, dislodged units; vassals
        are read from ``position.prestige``).
    :param orders: orders to draw on the board. When left out, the orders of ``results`` are
        drawn. Give only the orders players gave: a unit nobody ordered gets no hold ring.
    :param results: outcomes of the orders: failed orders are drawn dashed with a cross,
        invalid ones dotted with a "no" sign, both in their power's colour.
    :param controllers: province -> power commanding the unit there this season (bribes), marked
        with a ring and a "B" in the controller's colour; by default ``position.prestige.bribed``.
    :param legend: lines of text for the legend below the map (e.g. who won which bid); past
        :data:`MAX_NOTES` lines they are summed up in one.
    :param size: width of the picture in pixels; the height follows the map's proportions.
    """
    return layers(variant, position, orders=orders, results=results, controllers=controllers, legend=legend,
                  size=size).svg()


__all__ = ["DEFAULT_SIZE", "Layers", "Owned", "initials", "layers", "render_svg"]
