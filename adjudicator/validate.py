"""Is an order legal here? One function per order kind, each with a reason a player can act on.

:func:`check` returns the order as the judge understands it (unit type filled in from the
board, a wrongly named coast of the unit's own position ignored (DATC 6.B.10), an army's coast
dropped (6.B.12), the only reachable coast of a split-coast province filled in (6.B.2)), or
the reason it is illegal. Legality depends on the board (a convoy needs fleets at sea), never
on the other orders given: an illegal order is ignored and its unit holds (DATC 4.E.1).

The :class:`Board` caches what every check of one phase shares.

Most orders of a phase are legal and name their unit as it stands. Each movement check first
tries that case with table lookups only (:attr:`MapTables.steps`, ``reach``, ``supported``): when
it applies, the answer is the one the full check would give; anything else (a wrong unit, a
convoy, an unusual coast) goes through the full check, which finds the reason.
"""

from __future__ import annotations

import dataclasses
from typing import Mapping

from .orders import (PRESTIGE_ORDER_TYPES, Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold,
                     SupportMove, UnitOrder, Waive)
from .maptables import map_tables
from .position import Dislodgement, Position, units_by_province
from .vocab import NEUTRAL, Location, PhaseKind, Power, ProvinceId, ProvinceKind, Unit, UnitType

# Enum members as module constants: looking one up on its class is slow in a hot loop.
ARMY, FLEET = UnitType.ARMY, UnitType.FLEET
SEA, LAND = ProvinceKind.SEA, ProvinceKind.LAND
MOVEMENT, RETREAT, ADJUSTMENT = PhaseKind.MOVEMENT, PhaseKind.RETREAT, PhaseKind.ADJUSTMENT

_MOVEMENT_TYPES = (Hold, Move, SupportHold, SupportMove, Convoy)


# -- the map questions every check asks (cached per variant) ------------------------------


def province_name(variant, province: ProvinceId) -> str:
    """``Picardy``, ``the North Sea``: the name as it reads inside a sentence."""
    return map_tables(variant).name(province)


def power_adjective(variant, power: Power) -> str:
    info = variant.powers.get(power)
    return info.adjective if info else ("neutral" if power == NEUTRAL else power)


# -- the board of one phase -----------------------------------------------------------------


class Board:
    """What the checks of one phase share: the position, who commands each unit, fleets at sea."""

    def __init__(self, variant, position: Position, commander: Mapping[ProvinceId, Power] | None = None,
                 hooks=None):
        self.variant = variant
        self.position = position
        self.commander = commander or {}
        self.hooks = hooks
        self.tables = map_tables(variant)
        self.nb = self.tables.neighbours
        self.shores = self.tables.shores
        self.kind = position.phase.kind
        self.checks = _CHECKS[self.kind]
        self.units = units_by_province(position)
        self._dislodged = {d.unit.province: d for d in position.dislodged}
        self._minimal: dict[tuple[ProvinceId, ProvinceId], frozenset[ProvinceId]] = {}
        self._fleet_seas: frozenset[ProvinceId] | None = None

    @property
    def fleet_seas(self) -> frozenset[ProvinceId]:
        """The seas where a fleet stands (the only places a convoy can pass), found on first use."""
        seas = self._fleet_seas
        if seas is None:
            units = self.units
            seas = self._fleet_seas = frozenset(p for p in self.tables.seas.intersection(units)
                                                if units[p].type is FLEET)
        return seas

    def name(self, province: ProvinceId) -> str:
        return self.tables.name(province)

    def home_centers(self, power: Power) -> tuple[ProvinceId, ...]:
        if self.hooks is not None:
            return tuple(self.hooks.home_centers(self.variant, self.position, power))
        return self.variant.home_centers(power)

    def dislodgement(self, province: ProvinceId) -> Dislodgement | None:
        return self._dislodged.get(province)

    # convoy routes through the fleets at sea now

    def convoy_possible(self, src: ProvinceId, dst: ProvinceId, without: ProvinceId | None = None) -> bool:
        """Could an army be convoyed from ``src`` to ``dst`` by fleets on the board (any orders)?"""
        if src not in self.shores or dst not in self.shores or src == dst:
            return False
        fleets = self.fleet_seas - {without} if without else self.fleet_seas
        frontier = [s for s in self.nb[src] if s in fleets]
        seen = set(frontier)
        while frontier:
            here = frontier.pop()
            if dst in self.nb[here]:
                return True
            for nxt in self.nb[here]:
                if nxt in fleets and nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
        return False

    def on_minimal_route(self, fleet: ProvinceId, src: ProvinceId, dst: ProvinceId) -> bool:
        """Is ``fleet`` necessary on some convoy route from ``src`` to ``dst`` (DATC 6.G.19)?

        A route is a chain of fleets at sea; it is minimal when no fleet of it can be left out,
        which is a chain with no shortcut between fleets that are not next to each other.
        """
        key = (src, dst)
        if key not in self._minimal:
            self._minimal[key] = self._minimal_route_fleets(src, dst)
        return fleet in self._minimal[key]

    def _minimal_route_fleets(self, src: ProvinceId, dst: ProvinceId) -> frozenset[ProvinceId]:
        nb, fleets, found = self.nb, self.fleet_seas, set()

        def extend(path: list[ProvinceId]) -> None:
            last = path[-1]
            if dst in nb[last]:
                found.update(path)
                return
            for nxt in nb[last]:
                if nxt not in fleets or nxt in path or src in nb[nxt]:
                    continue
                if any(nxt in nb[p] for p in path[:-1]):
                    continue    # a shortcut: the fleets between would be unnecessary
                path.append(nxt)
                extend(path)
                path.pop()

        for first in nb[src]:
            if first in fleets:
                extend([first])
        return frozenset(found)


# -- the checks -------------------------------------------------------------------------------


def check(board: Board, order: Order) -> tuple[Order | None, str | None]:
    """``(order as understood, None)`` when legal in this phase, else ``(None, reason)``."""
    checker = board.checks.get(type(order))
    if checker is not None:
        return checker(board, order)
    return _check_by_kind(board, order)


def _check_by_kind(board: Board, order: Order) -> tuple[Order | None, str | None]:
    """:func:`check` for an order of a type the phase does not take (or of a subclass)."""
    if isinstance(order, PRESTIGE_ORDER_TYPES):
        return None, "prestige orders need the prestige rules"
    kind = board.kind
    if kind is MOVEMENT:
        if not isinstance(order, _MOVEMENT_TYPES):
            return None, _wrong_phase(order, "a movement phase")
        return _check_movement(board, order)
    if kind is RETREAT:
        if isinstance(order, (Retreat, Move, Disband)):
            return _check_retreat(board, order)
        return None, _wrong_phase(order, "a retreat phase")
    if isinstance(order, (Build, Disband, Waive)):
        return _check_adjustment(board, order)
    return None, _wrong_phase(order, "an adjustment phase")


def _wrong_phase(order: Order, phase: str) -> str:
    allowed = {"a movement phase": "hold, move, support or convoy",
               "a retreat phase": "a dislodged unit may only retreat or disband",
               "an adjustment phase": "build, remove (disband) or waive"}[phase]
    what = {Hold: "holds", Move: "moves", SupportHold: "supports", SupportMove: "supports", Convoy: "convoys",
            Retreat: "retreats", Disband: "disbands", Build: "builds", Waive: "waives"}.get(type(order), "orders")
    return f"no {what} in {phase}: {allowed}"


def _unit(board: Board, order: UnitOrder, unit: Unit | None, entitled: Power | None = None) -> str | None:
    """Why ``order`` may not be given to ``unit`` (missing, other type, someone else's), or None."""
    if unit is None:
        return f"there is no unit in {board.name(order.location.province)}"
    if order.unit_type is not None and order.unit_type is not unit.type:
        return (f"the unit in {board.name(order.location.province)} is {unit.type.a_noun}, "
                f"not {order.unit_type.a_noun}")
    entitled = entitled or board.commander.get(unit.location.province, unit.power)
    if order.power != entitled:
        owner = power_adjective(board.variant, unit.power)
        return f"not your unit: {unit.short} is {owner}"
    return None


def _same_place(a: Location, b: Location) -> bool:
    return a is b or (a.province == b.province and a.coast == b.coast)


def _names_unit(order: UnitOrder, unit: Unit) -> bool:
    """Does ``order`` name ``unit`` exactly as it stands (type and coast)?"""
    return order.unit_type is unit.type and _same_place(order.location, unit.location)


def _understood(order: UnitOrder, unit: Unit, **changes) -> UnitOrder:
    if order.unit_type is unit.type and order.location == unit.location and all(
            getattr(order, k) == v for k, v in changes.items()):
        return order
    return dataclasses.replace(order, unit_type=unit.type, location=unit.location, **changes)


def _province_only(location: Location) -> Location:
    """``location`` without its coast."""
    return location if location.coast is None else Location(location.province)


def fleet_destination(board: Board, source: Location, dest: Location) -> Location | str:
    """Where a fleet at ``source`` ordered to ``dest`` goes (coast settled), or why it cannot."""
    tables = board.tables
    province = dest.province
    if tables.kind[province] is LAND:
        return f"a fleet cannot go to {tables.name(province)}, which is inland"
    reach = tables.fleet_coasts(source, province)
    if not reach:
        if province in tables.army_adjacent.get(source.province, ()):
            return (f"no coast leads from {tables.location_name(source)} to {tables.name(province)}, "
                    f"so a fleet cannot move there")
        return f"not adjacent: {tables.name(province)} is not adjacent to {tables.location_name(source)}"
    if not tables.coasts[province]:
        return _province_only(dest)
    if dest.coast:
        if dest.coast not in reach:
            return f"a fleet in {tables.location_name(source)} cannot reach {tables.location_name(dest)}"
        return dest
    if len(reach) == 1:
        return Location(province, reach[0])
    coasts = " or ".join(f"{province}/{c}" for c in reach)
    return f"name the coast: {coasts}"


def _ordered_unit(board: Board, order: UnitOrder) -> Unit | str:
    """The unit ``order`` commands, or why it commands none."""
    unit = board.units.get(order.location.province)
    if unit is None or (order.unit_type is not None and order.unit_type is not unit.type) \
            or order.power != board.commander.get(unit.location.province, unit.power):
        return _unit(board, order, unit)
    return unit


def _check_movement(board: Board, order: UnitOrder) -> tuple[Order | None, str | None]:
    """Any movement-phase order, whatever its class (subclasses included)."""
    if isinstance(order, Hold):
        return _check_hold(board, order)
    if isinstance(order, Move):
        return _check_move(board, order)
    if isinstance(order, Convoy):
        return _check_convoy_order(board, order)
    if isinstance(order, SupportHold):
        return _check_support_hold(board, order)
    return _check_support_move(board, order)


# The fast paths below look the unit up by the province the order names, so the order names
# the unit's place exactly when it names the same coast.

OTHER, UNDERSTOOD, AS_WRITTEN = 0, 1, 2


def _as_given(board: Board, order: UnitOrder, unit: Unit) -> int:
    """How ``order`` names ``unit``, the unit in the province it names: ``AS_WRITTEN`` (its
    type and coast exactly), ``UNDERSTOOD`` (the type left out or the coast misnamed), or
    ``OTHER`` (a unit of another type, or one the power giving the order does not command: its
    owner commands it, unless ``board.commander`` says otherwise; the full check says why)."""
    commander = board.commander
    if order.power != (commander.get(unit.location.province, unit.power) if commander else unit.power):
        return OTHER
    named = order.unit_type
    if named is unit.type:
        return AS_WRITTEN if order.location.coast == unit.location.coast else UNDERSTOOD
    return UNDERSTOOD if named is None else OTHER


def _check_hold(board: Board, order: Hold) -> tuple[Order | None, str | None]:
    unit = board.units.get(order.location.province)
    given = _as_given(board, order, unit) if unit is not None and type(order) is Hold else OTHER
    if given:
        return (order if given == AS_WRITTEN else Hold(order.power, unit.type, unit.location)), None
    unit = _ordered_unit(board, order)
    if isinstance(unit, str):
        return None, unit
    if type(order) is Hold and _names_unit(order, unit):
        return order, None
    return _understood(order, unit), None


def _check_move(board: Board, order: Move) -> tuple[Order | None, str | None]:
    unit = board.units.get(order.location.province)
    given = _as_given(board, order, unit) if unit is not None and type(order) is Move else OTHER
    if given:
        dest, here = order.destination, unit.location
        to = None if order.via_convoy else \
            board.tables.steps.get((unit.type, here.province, here.coast), _NO_STEPS).get((dest.province, dest.coast))
        if to is None and unit.type is ARMY and board.convoy_possible(here.province, dest.province):
            to = _province_only(dest)   # by convoy
        if to is not None:
            if given == AS_WRITTEN and dest.coast == to.coast:
                return order, None
            return Move(order.power, unit.type, here, to, order.via_convoy), None
    unit = _ordered_unit(board, order)
    if isinstance(unit, str):
        return None, unit
    dest = _move_destination(board, unit, order.destination, order.via_convoy)
    if isinstance(dest, str):
        return None, dest
    if type(order) is Move:
        if _names_unit(order, unit) and _same_place(order.destination, dest):
            return order, None
        return Move(order.power, unit.type, unit.location, dest, order.via_convoy), None
    return _understood(order, unit, destination=dest), None


_NO_STEPS: Mapping = {}


def _move_destination(board: Board, unit: Unit, dest: Location, via_convoy: bool = False,
                      without: ProvinceId | None = None) -> Location | str:
    tables, src, province = board.tables, unit.location.province, dest.province
    kind = tables.kind.get(province)
    if kind is None:
        return f"there is no province {province!r}"
    if province == src:
        return f"{unit.short} is in {tables.name(src)} already; a unit cannot move to where it stands"
    if unit.type is FLEET:
        if via_convoy:
            return "only armies can be convoyed"
        return fleet_destination(board, unit.location, dest)
    if kind is SEA:
        return f"an army cannot go to {tables.name(province)}, which is a sea"
    adjacent = province in tables.army_adjacent.get(src, ())
    if adjacent and not via_convoy:
        return _province_only(dest)
    if board.convoy_possible(src, province, without):
        return _province_only(dest)
    if adjacent:
        return f"no fleet could convoy {unit.short} to {tables.name(province)}"
    if without and board.convoy_possible(src, province):
        return (f"the only convoy route for {unit.short} to {tables.name(province)} "
                f"runs through the supporting fleet")
    return (f"not adjacent: {tables.name(province)} is not adjacent to {tables.name(src)}, "
            f"and no fleets at sea could convoy {unit.short} there")


def _target(board: Board, order: SupportHold | SupportMove | Convoy, verb: str) -> Unit | str:
    province = order.target.province
    target = board.units.get(province)
    if target is None:
        return f"there is no unit in {board.name(province)} to {verb}"
    if order.target_type is not None and order.target_type is not target.type:
        return f"the unit in {board.name(province)} is {target.type.a_noun}, not {order.target_type.a_noun}"
    return target


def _can_reach(board: Board, unit: Unit, province: ProvinceId) -> bool:
    """Could ``unit`` move to ``province`` by itself (any coast)? Only then may it support there."""
    here = unit.location
    return province in board.tables.reach.get((unit.type, here.province, here.coast), ())


def _supporter_and_target(board: Board, order: SupportHold | SupportMove) -> tuple[Unit, Unit] | str:
    unit = _ordered_unit(board, order)
    if isinstance(unit, str):
        return unit
    target = _target(board, order, "support")
    if isinstance(target, str):
        return target
    if target.location.province == unit.location.province:
        return "a unit cannot support itself"
    return unit, target


def _check_support_hold(board: Board, order: SupportHold) -> tuple[Order | None, str | None]:
    units = board.units
    unit, target = units.get(order.location.province), units.get(order.target.province)
    given = _as_given(board, order, unit) if unit is not None and target is not None and type(order) is SupportHold \
        and (order.target_type is target.type or order.target_type is None) else OTHER
    if given:
        there = target.location.province
        if there != unit.location.province and _can_reach(board, unit, there):
            if given == AS_WRITTEN and order.target_type is target.type and order.target.coast == target.location.coast:
                return order, None
            return SupportHold(order.power, unit.type, unit.location, target.type, target.location), None
    found = _supporter_and_target(board, order)
    if isinstance(found, str):
        return None, found
    unit, target = found
    if not _can_reach(board, unit, target.location.province):
        return None, (f"{unit.short} cannot support a unit in {board.name(target.location.province)}: "
                      f"it could not move there itself")
    if type(order) is SupportHold:
        if _names_unit(order, unit) and order.target_type is target.type and _same_place(order.target, target.location):
            return order, None
        return SupportHold(order.power, unit.type, unit.location, target.type, target.location), None
    return _understood(order, unit, target_type=target.type, target=target.location), None


def _check_support_move(board: Board, order: SupportMove) -> tuple[Order | None, str | None]:
    units, tables = board.units, board.tables
    unit, target = units.get(order.location.province), units.get(order.target.province)
    given = _as_given(board, order, unit) if unit is not None and target is not None and type(order) is SupportMove \
        and (order.target_type is target.type or order.target_type is None) else OTHER
    if given:
        here, there, named = unit.location, target.location, order.destination
        province = named.province
        dest = tables.supported.get((target.type, there.province, there.coast), _NO_STEPS).get((province, named.coast))
        if dest is not None and province != here.province and there.province != here.province \
                and _can_reach(board, unit, province):
            if given == AS_WRITTEN and order.target_type is target.type and order.target.coast == there.coast \
                    and named.coast == dest.coast:
                return order, None
            return SupportMove(order.power, unit.type, here, target.type, there, dest), None
    found = _supporter_and_target(board, order)
    if isinstance(found, str):
        return None, found
    unit, target = found
    dest, here = order.destination, unit.location.province
    if dest.province == here:
        return None, f"{unit.short} cannot support a move into {board.name(here)}, where it stands itself"
    if not _can_reach(board, unit, dest.province):
        return None, (f"{unit.short} cannot support a move to {board.name(dest.province)}: "
                      f"it could not move there itself")
    # a support need not name the coast of a supported fleet move (DATC 6.B.7, 6.B.8, 6.B.15)
    army = target.type is ARMY
    supported = _move_destination(board, target, _province_only(dest), without=here) \
        if army or not dest.coast else _move_destination(board, target, dest)
    if isinstance(supported, str) and not supported.startswith("name the coast"):
        return None, f"the supported move is impossible ({supported})"
    if army or not board.tables.coasts[dest.province]:
        dest = _province_only(dest)
    if type(order) is SupportMove:
        if _names_unit(order, unit) and order.target_type is target.type \
                and _same_place(order.target, target.location) and _same_place(order.destination, dest):
            return order, None
        return SupportMove(order.power, unit.type, unit.location, target.type, target.location, dest), None
    return _understood(order, unit, target_type=target.type, target=target.location, destination=dest), None


def _check_convoy_order(board: Board, order: Convoy) -> tuple[Order | None, str | None]:
    units = board.units
    unit, target = units.get(order.location.province), units.get(order.target.province)
    given = _as_given(board, order, unit) if unit is not None and target is not None and type(order) is Convoy \
        and unit.type is FLEET and target.type is ARMY and order.target_type is not FLEET else OTHER
    if given:
        here, src, dst = unit.location.province, target.location.province, order.destination.province
        if here in board.tables.seas and dst != src and src in board.shores and dst in board.shores \
                and board.on_minimal_route(here, src, dst):
            if given == AS_WRITTEN and order.target_type is ARMY and order.target.coast is None \
                    and order.destination.coast is None:
                return order, None
            return Convoy(order.power, FLEET, unit.location, ARMY, target.location, Location(dst)), None
    unit = _ordered_unit(board, order)
    if isinstance(unit, str):
        return None, unit
    return _check_convoy(board, order, unit)


def _check_convoy(board: Board, order: Convoy, unit: Unit) -> tuple[Order | None, str | None]:
    if unit.type is not FLEET:
        return None, "only fleets convoy"
    if unit.province not in board.tables.seas:
        return None, f"only fleets at sea convoy: {unit.short} is on the coast of {board.name(unit.province)}"
    target = board.units.get(order.target.province)
    if target is not None and target.type is not ARMY:
        return None, f"only armies can be convoyed: the unit in {board.name(target.province)} is a fleet"
    target = _target(board, order, "convoy")
    if isinstance(target, str):
        return None, target
    src, dst = target.province, order.destination.province
    if dst == src:
        return None, f"{target.short} cannot be convoyed to {board.name(dst)}, where it stands"
    if src not in board.shores or dst not in board.shores:
        return None, f"an army can be convoyed only between coasts: {board.name(src)} to {board.name(dst)} is not"
    if not board.on_minimal_route(unit.province, src, dst):
        return None, (f"{unit.short} is not needed on any convoy route from {board.name(src)} "
                      f"to {board.name(dst)}")
    return _understood(order, unit, target_type=ARMY, target=target.location,
                       destination=Location(dst)), None


# -- retreats -----------------------------------------------------------------------------------


def retreat_options(board: Board, dislodgement: Dislodgement) -> dict[ProvinceId, tuple[Location, ...]]:
    """Where a dislodged unit may retreat: province -> the locations (coasts) it can reach there."""
    v, unit = board.variant, dislodgement.unit
    if unit.type is ARMY:
        reach = [Location(p) for p in v.army_neighbours(unit.province)]
    else:
        reach = list(v.fleet_neighbours(unit.location))
    options: dict[ProvinceId, list[Location]] = {}
    for loc in reach:
        p = loc.province
        if _retreat_block(board, dislodgement, p) is None:
            options.setdefault(p, []).append(loc)
    found = {p: tuple(sorted(locs)) for p, locs in options.items()}
    if board.hooks is not None:
        found = dict(board.hooks.retreat_options(board.variant, board.position, dislodgement, found))
    return found


def _retreat_block(board: Board, dislodgement: Dislodgement, province: ProvinceId) -> str | None:
    name = board.name(province)
    if province == dislodgement.attacker_from and not dislodgement.by_convoy:
        return f"cannot retreat to {name}, where its attacker came from"
    if province in board.position.standoffs:
        return f"cannot retreat to {name}: it was left empty by a standoff"
    occupant = board.position.unit_at(province)
    if occupant is not None:
        return f"cannot retreat to {name}: {occupant.short} is there"
    return None


def _check_retreat(board: Board, order: Retreat | Move | Disband) -> tuple[Order | None, str | None]:
    dislodgement = board.dislodgement(order.province)
    if dislodgement is None:
        where = board.name(order.province)
        if board.position.unit_at(order.province) is not None:
            return None, f"the unit in {where} was not dislodged: only dislodged units are ordered in a retreat phase"
        return None, f"there is no dislodged unit in {where}"
    unit = dislodgement.unit
    why = _unit(board, order, unit)
    if why:
        return None, why
    if isinstance(order, Disband):
        return Disband(order.power, unit.type, unit.location), None
    if isinstance(order, Move) and order.via_convoy:
        return None, "no convoys in a retreat phase"
    dest = _move_destination(board, unit, order.destination) if unit.type is FLEET \
        else _army_retreat(board, unit, order.destination)
    if isinstance(dest, str):
        return None, dest
    block = _retreat_block(board, dislodgement, dest.province)
    if block:
        return None, block
    if board.hooks is not None and dest.province not in retreat_options(board, dislodgement):
        return None, f"{unit.short} may not retreat to {board.name(dest.province)} under the rules in play"
    return Retreat(order.power, unit.type, unit.location, dest), None


def _army_retreat(board: Board, unit: Unit, dest: Location) -> Location | str:
    if dest.province == unit.province:
        return f"{unit.short} cannot retreat to where it stands"
    if board.variant.provinces.get(dest.province) is None:
        return f"there is no province {dest.province!r}"
    if board.variant.provinces[dest.province].kind is SEA:
        return f"an army cannot go to {board.name(dest.province)}, which is a sea"
    if not board.variant.army_adjacent(unit.province, dest.province):
        return f"not adjacent: {board.name(dest.province)} is not adjacent to {board.name(unit.province)}"
    return Location(dest.province)


# -- adjustments --------------------------------------------------------------------------------


def adjustment_count(position: Position, power: Power) -> tuple[int, int]:
    """``(centres, units)`` of ``power``: builds when the first is larger, removals when smaller."""
    centres = sum(1 for owner in position.supply_centers.values() if owner == power)
    units = sum(1 for u in position.units if u.power == power)
    return centres, units


def _check_adjustment(board: Board, order: Build | Disband | Waive) -> tuple[Order | None, str | None]:
    v, pos = board.variant, board.position
    power = order.power
    centres, units = adjustment_count(pos, power)
    tally = f"{centres} centres, {units} units"
    pname = v.power_name(power)
    if isinstance(order, Waive):
        if centres <= units:
            return None, f"{pname} has no builds to waive ({tally})"
        return order, None
    if isinstance(order, Disband):
        unit = pos.unit_at(order.province)
        why = _unit(board, order, unit, unit.power if unit else None)
        if why:
            return None, why
        if centres >= units:
            return None, f"{pname} has no units to remove ({tally})"
        return Disband(power, unit.type, unit.location), None
    return _check_build(board, order, centres, units)


def _check_build(board: Board, order: Build, centres: int, units: int) -> tuple[Order | None, str | None]:
    v, pos, power, prov = board.variant, board.position, order.power, order.province
    name = board.name(prov)
    if centres <= units:
        return None, f"{v.power_name(power)} has no builds ({centres} centres, {units} units)"
    if prov not in board.home_centers(power):
        return None, f"{name} is not a home centre of {v.power_name(power)}"
    owner = pos.supply_centers.get(prov)
    if owner != power:
        return None, f"{v.power_name(power)} does not own {name} now"
    occupant = pos.unit_at(prov)
    if occupant is not None:
        return None, f"{name} is occupied by {occupant.short}"
    if order.unit_type is None:
        return None, f"say which unit to build: A {prov} build or F {prov} build"
    if order.unit_type is ARMY:
        return Build(power, ARMY, Location(prov)), None
    if not v.can_build_fleet(prov):
        return None, f"a fleet cannot be built in {name}: it has no coast"
    locations = v.fleet_locations(prov)
    if len(locations) > 1:
        if order.location.coast is None:
            coasts = " or ".join(f"F {loc} build" for loc in locations)
            return None, f"name the coast for a fleet in {name}: {coasts}"
        if order.location not in locations:
            return None, f"{name} has no coast {order.location.coast!r}"
        return Build(power, FLEET, order.location), None
    return Build(power, FLEET, locations[0]), None


# Which function checks an order of each type, by the kind of phase (other types: _check_by_kind).
_CHECKS = {
    MOVEMENT: {Hold: _check_hold, Move: _check_move, SupportHold: _check_support_hold,
                         SupportMove: _check_support_move, Convoy: _check_convoy_order},
    RETREAT: {Retreat: _check_retreat, Move: _check_retreat, Disband: _check_retreat},
    ADJUSTMENT: {Build: _check_adjustment, Disband: _check_adjustment, Waive: _check_adjustment},
}
