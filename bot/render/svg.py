"""The map picture as SVG text: a pure function of a variant, a position and optional orders.

Every drawn thing carries an id or a class a test (or a stylesheet) can find:

- ``province-<id>`` (class ``land``/``coast``/``sea``), ``coastline`` edges, ``label-<id>``;
- ``sc-<id>`` supply-centre markers (class ``owner-<POWER>``);
- ``unit-<id>`` units (classes ``army``/``fleet``, ``power-<POWER>``, ``neutral``, ``vassal``,
  ``bribed``), ``dislodged-<id>`` dislodged units, drawn offset from their province;
- ``order-<kind>-<where>...`` one group per order (``order-move-par-bur``,
  ``order-support-mun-par-bur``, ``order-hold-lon``, ``order-convoy-nth-lon-nwy``,
  ``order-retreat-bur-pic``, ``order-build-lon``, ``order-disband-lon``, ``order-vassal-cyp``...),
  with class ``succeeded``, ``failed`` or ``invalid`` when results are given; failed and invalid
  orders are drawn dashed and greyed, with a cross at their end;
- ``legend`` below the map: the phase, each power's colour and centre count, the caller's lines,
  and every order that has no place on the map (lending prestige, waiving a build...).
"""

from __future__ import annotations

import base64
import functools
import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence
from xml.sax.saxutils import escape

from adjudicator.orders import (
    Bribe,
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Rebel,
    Retreat,
    SeizeFief,
    SupportHold,
    SupportMove,
    Vassal,
    canonical,
)
from adjudicator.position import Position
from adjudicator.results import Outcome, OrderResult
from adjudicator.variant import Variant, get_variant
from adjudicator.vocab import NEUTRAL, Location, Power, ProvinceId, Unit, UnitType

from . import palette
from .geometry import MapGeometry, geometry_for

DEFAULT_SIZE = 800
"""Default width in pixels: what Discord shows of an attachment without a click."""

UNIT_R = 11.0
_FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
_LEGEND_LINE = 22.0
_DISLODGED_OFFSET = (15.0, 13.0)

Point = tuple[float, float]


def _f(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _pts(points: Iterable[Point]) -> str:
    return " ".join(f"{_f(x)},{_f(y)}" for x, y in points)


# -- the static part of a map: cells, borders, coasts, labels (cached per variant) ---------


@dataclass(frozen=True)
class _Base:
    geometry: MapGeometry
    cells_svg: str
    lines_svg: str
    cell_paths: dict[ProvinceId, str]
    label_at: dict[ProvinceId, Point]
    labels_svg: str


_BASES: dict[str, _Base] = {}


def _label_text(pid: ProvinceId) -> str:
    return pid[:1].upper() + pid[1:]


def _base(variant: Variant) -> _Base:
    base = _BASES.get(variant.name)
    if base is not None:
        return base
    geo = geometry_for(variant.name)
    cells, paths, label_at = [], {}, {}
    for pid, polys in sorted(geo.cells.items()):
        prov = variant.provinces[pid]
        path = "".join("M" + " L".join(f"{_f(x)},{_f(y)}" for x, y in poly) + "Z" for poly in polys)
        paths[pid] = path
        fill = palette.SEA if prov.is_sea else palette.LAND
        cells.append(f'<path id="province-{pid}" class="{prov.kind.value}" d="{path}" fill="{fill}"/>')
        ax, ay = geo.anchor(Location(pid))
        label_at[pid] = (ax, ay + UNIT_R + 10)
    off = "".join("M" + " L".join(f"{_f(x)},{_f(y)}" for x, y in poly) + "Z" for poly in geo.off_map)
    cells.append(f'<path id="off-map" d="{off}" fill="{palette.OFF_MAP}"/>')
    strokes: dict[str, list[str]] = {"border sea": [], "border land": [], "coastline": [], "edge": []}
    for (x1, y1), (x2, y2) in geo.edge:
        strokes["edge"].append(f"M{_f(x1)},{_f(y1)} L{_f(x2)},{_f(y2)}")
    for a, b, (x1, y1), (x2, y2) in geo.borders:
        sea_a, sea_b = variant.provinces[a].is_sea, variant.provinces[b].is_sea
        kind = "border sea" if sea_a and sea_b else "coastline" if sea_a or sea_b else "border land"
        strokes[kind].append(f"M{_f(x1)},{_f(y1)} L{_f(x2)},{_f(y2)}")
    styles = {
        "border sea": f'stroke="{palette.SEA_BORDER}" stroke-width="1"',
        "border land": f'stroke="{palette.BORDER}" stroke-width="1"',
        "coastline": f'stroke="{palette.COAST}" stroke-width="2.2"',
        "edge": f'stroke="{palette.FRAME}" stroke-width="1.6"',
    }
    lines = [f'<path class="{kind}" d="{"".join(d)}" fill="none" {styles[kind]} stroke-linecap="round"/>'
             for kind, d in strokes.items() if d]
    base = _Base(geo, "\n".join(cells), "\n".join(lines), paths, label_at, _labels(variant, label_at))
    _BASES[variant.name] = base
    return base


def _labels(variant: Variant, label_at: Mapping[ProvinceId, Point]) -> str:
    out = []
    for pid, (x, y) in sorted(label_at.items()):
        prov = variant.provinces[pid]
        colour = palette.SEA_LABEL if prov.is_sea else palette.LAND_LABEL
        style = ' font-style="italic"' if prov.is_sea else ""
        out.append(f'<text id="label-{pid}" x="{_f(x)}" y="{_f(y)}" font-family="{_FONT}" font-size="12"{style} '
                   f'text-anchor="middle" fill="{colour}">{escape(_label_text(pid))}</text>')
    return "".join(out)


@functools.lru_cache(maxsize=8)
def _raster_layers(variant_name: str, size: int) -> tuple[str, str]:
    """The map's unchanging layers as PNG data URLs at ``size`` pixels wide: (cells and borders,
    labels on a transparent ground). Drawing them as two images instead of some four hundred
    elements is what keeps :func:`render_png` fast."""
    import cairosvg

    base = _base(get_variant(variant_name))
    geo = base.geometry
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{round(size * geo.height / geo.width)}" '
            f'viewBox="0 0 {_f(geo.width)} {_f(geo.height)}">')
    ground = head + base.cells_svg + base.lines_svg + "</svg>"
    labels = head + base.labels_svg + "</svg>"
    return tuple(  # type: ignore[return-value]
        "data:image/png;base64," + base64.b64encode(cairosvg.svg2png(bytestring=svg.encode("utf-8"))).decode("ascii")
        for svg in (ground, labels)
    )


# -- small drawing helpers ------------------------------------------------------------------


def _power_colour(variant: Variant, power: Power | None) -> str:
    if power is None or power == NEUTRAL:
        return palette.NEUTRAL
    info = variant.powers.get(power)
    return info.colour if info else palette.NEUTRAL


def _toward(a: Point, b: Point, distance: float) -> Point:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy) or 1.0
    return a[0] + dx / length * distance, a[1] + dy / length * distance


def _arrow(points: Sequence[Point], colour: str, failed: bool, width: float = 4.2) -> list[str]:
    """A cased polyline with a head at its last point (heads are polygons: no SVG markers)."""
    *body, tip = points
    prev = body[-1]
    length = math.hypot(tip[0] - prev[0], tip[1] - prev[1]) or 1.0
    ux, uy = (tip[0] - prev[0]) / length, (tip[1] - prev[1]) / length
    head_len, head_w = 3.6 * width, 2.2 * width
    neck = (tip[0] - ux * head_len, tip[1] - uy * head_len)
    left = (neck[0] - uy * head_w, neck[1] + ux * head_w)
    right = (neck[0] + uy * head_w, neck[1] - ux * head_w)
    line = _pts([*body, neck])
    dash = ' stroke-dasharray="7 4"' if failed else ""
    out = [
        f'<polyline points="{line}" fill="none" stroke="{palette.INK}" stroke-width="{_f(width + 2.4)}" '
        f'stroke-linejoin="round"{dash}/>',
        f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="{_f(width)}" '
        f'stroke-linejoin="round"{dash}/>',
        f'<polygon points="{_pts([tip, left, right])}" fill="{colour}" stroke="{palette.INK}" stroke-width="1.2"/>',
    ]
    if failed:
        out.append(_cross(tip, 5.5))
    return out


def _cross(at: Point, r: float) -> str:
    x, y = at
    d = f"M{_f(x - r)},{_f(y - r)} L{_f(x + r)},{_f(y + r)} M{_f(x - r)},{_f(y + r)} L{_f(x + r)},{_f(y - r)}"
    return (
        f'<path class="cross" d="{d}" stroke="#FFFFFF" stroke-width="5" stroke-linecap="round"/>'
        f'<path d="{d}" stroke="{palette.INK}" stroke-width="2.4" stroke-linecap="round"/>'
    )


def _unit_glyph(unit_type: UnitType, at: Point, fill: str, stroke: str, stroke_width: float,
                dashed: bool = False) -> str:
    x, y = at
    dash = ' stroke-dasharray="3 2"' if dashed else ""
    if unit_type is UnitType.ARMY:
        shape = (f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(UNIT_R)}" fill="{fill}" stroke="{stroke}" '
                 f'stroke-width="{_f(stroke_width)}"{dash}/>')
    else:
        hull = [(x - 14, y - 7), (x + 14, y - 7), (x + 9, y + 8), (x - 9, y + 8)]
        shape = (f'<polygon points="{_pts(hull)}" fill="{fill}" stroke="{stroke}" '
                 f'stroke-width="{_f(stroke_width)}" stroke-linejoin="round"{dash}/>')
    letter = (f'<text x="{_f(x)}" y="{_f(y + 4.5)}" font-family="{_FONT}" font-size="12.5" font-weight="bold" '
              f'text-anchor="middle" fill="{palette.ink_on(fill)}">{unit_type.value}</text>')
    return shape + letter


# -- the picture -----------------------------------------------------------------------------


class _Drawing:
    def __init__(self, variant: Variant, position: Position, results: Mapping[Order, OrderResult],
                 controllers: Mapping[ProvinceId, Power], raster: bool = False):
        self.raster = raster  # drawn for a PNG: leave out what only an SVG reader sees
        self.variant = variant
        self.position = position
        self.base = _base(variant)
        self.geo = self.base.geometry
        self.results = results
        self.controllers = controllers
        self.notes: list[str] = []
        self.move_paths: dict[tuple[ProvinceId, ProvinceId], list[Point]] = {}
        dislodged = {d.unit.province: d.unit for d in position.dislodged}
        self.dislodged = dislodged

    # where things are
    def unit_point(self, location: Location, dislodged: bool = False) -> Point:
        x, y = self.geo.anchor(location)
        if dislodged:
            return x + _DISLODGED_OFFSET[0], y + _DISLODGED_OFFSET[1]
        return x, y

    def unit_at(self, province: ProvinceId) -> Unit | None:
        return self.position.unit_at(province)

    def status(self, order: Order) -> tuple[str, bool]:
        """The outcome class for an order, and whether to draw it as failed."""
        result = self.results.get(order)
        if result is None:
            return "", False
        if result.outcome is Outcome.SUCCEEDS:
            return "succeeded", False
        return ("failed" if result.outcome is Outcome.FAILS else "failed invalid"), True

    def order_colour(self, order: Order, failed: bool) -> str:
        colour = _power_colour(self.variant, order.power)
        return palette.mix(colour, palette.FAILED, 0.55) if failed else colour

    # layers
    def ownership(self) -> list[str]:
        out = []
        for pid, owner in sorted(self.position.supply_centers.items()):
            if owner == NEUTRAL or pid not in self.base.cell_paths:
                continue
            colour = _power_colour(self.variant, owner)
            out.append(f'<path class="owned owner-{owner}" d="{self.base.cell_paths[pid]}" fill="{colour}"/>')
        return out

    def centres(self) -> list[str]:
        out = []
        for pid in sorted(self.variant.supply_centers):
            owner = self.position.supply_centers.get(pid, NEUTRAL)
            x, y = self.base.label_at[pid]
            half = 3.5 * len(pid) + 9
            colour = _power_colour(self.variant, owner)
            out.append(
                f'<g id="sc-{pid}" class="sc owner-{owner}">'
                f'<circle cx="{_f(x - half)}" cy="{_f(y - 4)}" r="5.5" fill="{colour}" stroke="{palette.INK}" '
                f'stroke-width="1.8"/></g>'
            )
        return out

    def unit(self, unit: Unit, dislodged: bool = False) -> str:
        at = self.unit_point(unit.location, dislodged)
        classes = ["unit", unit.type.noun, f"power-{unit.power}"]
        fill = _power_colour(self.variant, unit.power)
        extra, ring_colour, badge = "", None, ""
        if unit.power == NEUTRAL:
            classes.append("neutral")
            lord = self.lord_of(unit)
            if lord:
                classes.append("vassal")
                ring_colour, badge = _power_colour(self.variant, lord), "V"
                extra = f' data-lord="{lord}"'
        controller = self.controllers.get(unit.province)
        if controller and controller != unit.power and not dislodged:
            classes.append("bribed")
            ring_colour, badge = _power_colour(self.variant, controller), "B"
            extra += f' data-controller="{controller}"'
        if dislodged:
            classes.append("dislodged")
        ident = f"dislodged-{unit.province}" if dislodged else f"unit-{unit.province}"
        parts = [f'<g id="{ident}" class="{" ".join(classes)}"{extra}>']
        if ring_colour:
            parts.append(f'<circle cx="{_f(at[0])}" cy="{_f(at[1])}" r="{_f(UNIT_R + 5)}" fill="none" '
                         f'stroke="{ring_colour}" stroke-width="4.5"/>')
        stroke = "#C62828" if dislodged else palette.INK
        parts.append(_unit_glyph(unit.type, at, fill, stroke, 2.2 if dislodged else 1.5,
                                 dashed=unit.power == NEUTRAL))
        if badge:
            bx, by = at[0] + UNIT_R + 3, at[1] - UNIT_R - 2
            parts.append(
                f'<circle cx="{_f(bx)}" cy="{_f(by)}" r="6.5" fill="{ring_colour}" stroke="{palette.INK}" '
                f'stroke-width="1"/><text x="{_f(bx)}" y="{_f(by + 3.5)}" font-family="{_FONT}" font-size="9.5" '
                f'font-weight="bold" text-anchor="middle" fill="{palette.ink_on(ring_colour)}">{badge}</text>'
            )
        parts.append("</g>")
        return "".join(parts)

    def lord_of(self, unit: Unit) -> Power | None:
        state = self.position.prestige
        if state is None or not state.vassals:
            return None
        home = state.neutral_homes.get(unit.location) or state.neutral_homes.get(unit.location.without_coast())
        return state.vassals.get(home or unit.province)

    # orders
    def group(self, ident: str, kind: str, order: Order, body: list[str]) -> str:
        status, _ = self.status(order)
        classes = " ".join(x for x in ("order", kind, status) if x)
        title = "" if self.raster else f"<title>{escape(canonical(order))}</title>"
        return f'<g id="{ident}" class="{classes}">{title}{"".join(body)}</g>'

    def move_path(self, order: Move, convoys: Sequence[Convoy]) -> list[Point]:
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
        occupied = self.unit_at(order.destination.province) is not None
        points[0] = _toward(start, points[1], UNIT_R + 2)
        points[-1] = _toward(end, points[-2], UNIT_R + 3 if occupied else 4)
        return points

    def draw_orders(self, orders: Sequence[Order]) -> tuple[list[str], list[str]]:
        """(lines under the arrows: supports and convoys; arrows and rings on top)."""
        under, over = [], []
        convoys = [o for o in orders if isinstance(o, Convoy)]
        for order in orders:
            if isinstance(order, Move):
                self.move_paths[(order.province, order.destination.province)] = self.move_path(order, convoys)
        for order in orders:
            _, failed = self.status(order)
            colour = self.order_colour(order, failed)
            if isinstance(order, Move):
                path = self.move_paths[(order.province, order.destination.province)]
                ident = f"order-move-{order.province}-{order.destination.province}"
                over.append(self.group(ident, "move", order, _arrow(path, colour, failed)))
            elif isinstance(order, Hold):
                over.append(self.group(f"order-hold-{order.province}", "hold", order,
                                       [self.ring(self.unit_point(order.location), colour, failed)]))
            elif isinstance(order, SupportHold):
                target = self.unit_point(order.target)
                start = self.unit_point(order.location)
                end = _toward(target, start, UNIT_R + 4)
                body = self.thin_line([_toward(start, target, UNIT_R), end], colour, failed)
                body.append(self.ring(target, colour, failed, r=UNIT_R + 4, width=2.0))
                under.append(self.group(f"order-support-{order.province}-{order.target.province}",
                                        "support", order, body))
            elif isinstance(order, SupportMove):
                key = (order.target.province, order.destination.province)
                path = self.move_paths.get(key) or [self.unit_point(order.target), self.geo.anchor(order.destination)]
                mid = _midpoint(path)
                start = self.unit_point(order.location)
                body = self.thin_line([_toward(start, mid, UNIT_R), mid], colour, failed)
                body.append(f'<circle cx="{_f(mid[0])}" cy="{_f(mid[1])}" r="3.5" fill="{colour}" '
                            f'stroke="{palette.INK}" stroke-width="1"/>')
                ident = f"order-support-{order.province}-{order.target.province}-{order.destination.province}"
                under.append(self.group(ident, "support", order, body))
            elif isinstance(order, Convoy):
                fleet = self.unit_point(order.location)
                src = self.unit_point(order.target)
                dst = self.geo.anchor(order.destination)
                body = self.thin_line([_toward(src, fleet, UNIT_R), fleet, _toward(dst, fleet, UNIT_R)],
                                      colour, failed, width=2.0, casing="#FFFFFF")
                body.append(self.ring(fleet, colour, failed, r=UNIT_R + 6, width=2.0))
                ident = f"order-convoy-{order.province}-{order.target.province}-{order.destination.province}"
                under.append(self.group(ident, "convoy", order, body))
            elif isinstance(order, Retreat):
                start = self.unit_point(order.location, dislodged=order.province in self.dislodged)
                end = self.geo.anchor(order.destination)
                path = [_toward(start, end, UNIT_R + 2), _toward(end, start, 4)]
                ident = f"order-retreat-{order.province}-{order.destination.province}"
                over.append(self.group(ident, "retreat", order, _arrow(path, colour, failed, width=3.4)))
            elif isinstance(order, Disband):
                at = self.unit_point(order.location, dislodged=order.province in self.dislodged)
                over.append(self.group(f"order-disband-{order.province}", "disband", order,
                                       [self.ring(at, colour, failed, width=2.0), _cross(at, UNIT_R)]))
            elif isinstance(order, Build):
                at = self.unit_point(order.location)
                body = [self.ring(at, colour, failed, r=UNIT_R + 5, width=2.5)]
                if order.unit_type is not None:
                    body.append(_unit_glyph(order.unit_type, at, colour, palette.INK, 1.5, dashed=True))
                over.append(self.group(f"order-build-{order.province}", "build", order, body))
            elif isinstance(order, (Vassal, Bribe, SeizeFief, Rebel)):
                over.append(self.prestige_tag(order, colour, failed))
                if isinstance(order, Bribe) and order.order is not None:
                    inner, inner_over = self.draw_orders([order.order])
                    under.extend(inner)
                    over.extend(inner_over)
            else:  # Waive, SecureLoyalty, Lend: nothing to point at on the map
                status, _ = self.status(order)
                suffix = f" ({status.split()[-1]})" if status else ""
                self.notes.append(f"{canonical(order)}{suffix}")
        return under, over

    def ring(self, at: Point, colour: str, failed: bool, r: float = UNIT_R + 5, width: float = 3.0) -> str:
        dash = ' stroke-dasharray="5 3"' if failed else ""
        return (f'<circle cx="{_f(at[0])}" cy="{_f(at[1])}" r="{_f(r)}" fill="none" stroke="{palette.INK}" '
                f'stroke-width="{_f(width + 2)}"{dash}/>'
                f'<circle cx="{_f(at[0])}" cy="{_f(at[1])}" r="{_f(r)}" fill="none" stroke="{colour}" '
                f'stroke-width="{_f(width)}"{dash}/>')

    def thin_line(self, points: Sequence[Point], colour: str, failed: bool, width: float = 2.6,
                  casing: str = palette.INK) -> list[str]:
        dash = ' stroke-dasharray="6 4"' if failed else ""
        line = _pts(points)
        out = [
            f'<polyline points="{line}" fill="none" stroke="{casing}" stroke-width="{_f(width + 2)}" '
            f'stroke-linejoin="round"{dash}/>',
            f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="{_f(width)}" '
            f'stroke-linejoin="round"{dash}/>',
        ]
        if failed:
            out.append(_cross(points[-1], 4.5))
        return out

    def prestige_tag(self, order: Vassal | Bribe | SeizeFief | Rebel, colour: str, failed: bool) -> str:
        province = order.location.province if isinstance(order, (Vassal, Bribe)) else order.province
        word = {Vassal: "V", Bribe: "B", SeizeFief: "F", Rebel: "R"}[type(order)]
        bid = getattr(order, "bid", None)
        text = f"{word}{bid}" if bid is not None else word
        x, y = self.geo.anchor(Location(province))
        x, y = x - UNIT_R - 14, y - UNIT_R - 4
        w = 8 + 7.2 * len(text)
        dash = ' stroke-dasharray="4 2"' if failed else ""
        kind = {Vassal: "vassal", Bribe: "bribe", SeizeFief: "seize", Rebel: "rebel"}[type(order)]
        body = [
            f'<rect x="{_f(x - w / 2)}" y="{_f(y - 8)}" width="{_f(w)}" height="15" rx="4" fill="{colour}" '
            f'stroke="{palette.INK}" stroke-width="1.3"{dash}/>',
            f'<text x="{_f(x)}" y="{_f(y + 3.5)}" font-family="{_FONT}" font-size="10.5" font-weight="bold" '
            f'text-anchor="middle" fill="{palette.ink_on(colour)}">{escape(text)}</text>',
        ]
        return self.group(f"order-{kind}-{province}-{order.power}", kind, order, body)


def _midpoint(path: Sequence[Point]) -> Point:
    lengths = [math.dist(a, b) for a, b in zip(path, path[1:])]
    half = sum(lengths) / 2
    for (a, b), length in zip(zip(path, path[1:]), lengths):
        if half <= length and length > 0:
            t = half / length
            return a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
        half -= length
    return path[-1]


def _legend(variant: Variant, position: Position, lines: Sequence[str], top: float, width: float) -> tuple[str, float]:
    """The legend band under the map, and its height."""
    parts = [f'<text x="14" y="{_f(top + 24)}" font-family="{_FONT}" font-size="17" font-weight="bold" '
             f'fill="{palette.INK}">{escape(variant.title)} · {escape(position.phase.long_name)}</text>']
    counts = position.center_counts()
    x, y = 14.0, top + 50
    for code, info in variant.powers.items():
        label = f"{info.name} {counts.get(code, 0)}"
        if position.prestige is not None and code in position.prestige.prestige:
            label += f" · {position.prestige.prestige[code]}p"
        w = 26 + 7.6 * len(label)
        if x + w > width - 10:
            x, y = 14.0, y + _LEGEND_LINE
        parts.append(
            f'<g class="key power-{code}"><rect x="{_f(x)}" y="{_f(y - 11)}" width="14" height="14" '
            f'fill="{info.colour}" stroke="{palette.INK}" stroke-width="1"/>'
            f'<text x="{_f(x + 20)}" y="{_f(y)}" font-family="{_FONT}" font-size="13.5" '
            f'fill="{palette.INK}">{escape(label)}</text></g>'
        )
        x += w + 12
    y += 6
    for i, line in enumerate(lines):
        y += _LEGEND_LINE
        parts.append(f'<text class="legend-line" id="legend-{i}" x="14" y="{_f(y)}" font-family="{_FONT}" '
                     f'font-size="14" fill="{palette.INK}">{escape(line)}</text>')
    height = y - top + 14
    rect = (f'<rect x="0" y="{_f(top)}" width="{_f(width)}" height="{_f(height)}" fill="{palette.LEGEND_BG}" '
            f'stroke="{palette.FRAME}" stroke-width="2"/>')
    return f'<g id="legend">{rect}{"".join(parts)}</g>', height


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
    :param orders: orders to draw on the board. When left out, the orders of ``results`` are drawn.
    :param results: outcomes of the orders; failed and invalid orders are drawn dashed and greyed.
    :param controllers: province -> power commanding the unit there this season (bribes), marked
        with a ring and a "B" in the controller's colour; by default ``position.prestige.bribed``.
    :param legend: lines of text for the legend below the map (e.g. who won which bid).
    :param size: width of the picture in pixels; the height follows the map's proportions.
    """
    return _render(variant, position, orders=orders, results=results, controllers=controllers,
                   legend=legend, size=size, raster=False)


def _render(
    variant: Variant | str,
    position: Position,
    *,
    orders: Sequence[Order] | None,
    results: Sequence[OrderResult] | None,
    controllers: Mapping[ProvinceId, Power] | None,
    legend: Sequence[str] | None,
    size: int,
    raster: bool,
) -> str:
    """The SVG; with ``raster`` the unchanging layers come as two embedded images (for PNG)."""
    if isinstance(variant, str):
        variant = get_variant(variant)
    if not isinstance(size, int) or size <= 0:
        raise ValueError(f"size must be a positive whole number of pixels, like 800: {size!r}")
    result_list = list(results or ())
    if orders is None:
        orders = [r.order for r in result_list]
    by_order = {r.order: r for r in result_list}
    if controllers is None and position.prestige is not None:
        controllers = getattr(position.prestige, "bribed", None)
    drawing = _Drawing(variant, position, by_order, controllers or {}, raster)
    geo = drawing.geo
    under, over = drawing.draw_orders(list(orders))
    notes = list(legend or ()) + drawing.notes
    legend_svg, legend_h = _legend(variant, position, notes, geo.height, geo.width)
    total_h = geo.height + legend_h
    px_h = round(size * total_h / geo.width)
    frame = f'width="{_f(geo.width)}" height="{_f(geo.height)}"'
    if raster:
        ground_url, labels_url = _raster_layers(variant.name, size)
        cells = f'<image x="0" y="0" {frame} xlink:href="{ground_url}"/>'
        labels = f'<image x="0" y="0" {frame} xlink:href="{labels_url}"/>'
    else:
        cells, labels = drawing.base.cells_svg, drawing.base.labels_svg

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'width="{size}" height="{px_h}" viewBox="0 0 {_f(geo.width)} {_f(total_h)}" '
        f'data-variant="{variant.name}" data-phase="{position.phase}">',
        f'<title>{escape(variant.title)}: {escape(position.phase.long_name)}</title>',
        f'<rect {frame} fill="{palette.SEA}"/>',
        f'<g id="cells">{cells}</g>',
        f'<g id="ownership" opacity="0.42">{"".join(drawing.ownership())}</g>',
        f'<g id="borders">{drawing.base.lines_svg}</g>',
        f'<rect {frame} fill="none" stroke="{palette.FRAME}" stroke-width="3"/>',
        f'<g id="labels">{labels}</g>',
        f'<g id="centres">{"".join(drawing.centres())}</g>',
        f'<g id="units">{"".join(drawing.unit(u) for u in position.units)}</g>',
        f'<g id="supports">{"".join(under)}</g>',
        f'<g id="dislodged-units">{"".join(drawing.unit(d.unit, dislodged=True) for d in position.dislodged)}</g>',
        f'<g id="orders">{"".join(over)}</g>',
        legend_svg,
        "</svg>",
    ]
    return "\n".join(parts)


__all__ = ["render_svg", "DEFAULT_SIZE"]
