"""Is an order legal here? One function per order kind, each with a reason a player can act on.

:func:`check` returns the order as the judge understands it (unit type filled in from the
board, a wrongly named coast of the unit's own position ignored (DATC 6.B.10), an army's coast
dropped (6.B.12), the only reachable coast of a split-coast province filled in (6.B.2)), or
the reason it is illegal. Legality depends on the board (a convoy needs fleets at sea), never
on the other orders given: an illegal order is ignored and its unit holds (DATC 4.E.1).

The :class:`Board` caches what every check of one phase shares. A check decides with the
map's tables (:attr:`MapTables.steps`, ``reach``, ``supported``) and the fleets on the board,
and words its reason (a :class:`~adjudicator.results.Reason`: a stable code, a sentence, what
would be accepted) only when the order fails.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from .maptables import map_tables
from .hooks import RuleHooks
from .modules import rules_for
from .orders import (Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold,
                     SupportMove, UnitOrder, Waive, is_rule_order)
from .position import Dislodgement, Position, units_by_province
from .results import Phrase, Reason, parts_of
from .vocab import NEUTRAL, Location, PhaseKind, Power, ProvinceId, ProvinceKind, Unit, UnitType
from .variant import Variant

ARMY, FLEET = UnitType.ARMY, UnitType.FLEET
SEA, LAND = ProvinceKind.SEA, ProvinceKind.LAND
MOVEMENT, RETREAT, ADJUSTMENT = PhaseKind.MOVEMENT, PhaseKind.RETREAT, PhaseKind.ADJUSTMENT


# -- the map questions every check asks (cached per variant) ------------------------------


def province_name(variant: Variant, province: ProvinceId) -> str:
    """``Picardy``, ``the North Sea``: the name as it reads inside a sentence."""
    return map_tables(variant).name(province)


def power_adjective(variant: Variant, power: Power) -> str:
    info = variant.powers.get(power)
    return info.adjective if info else ("neutral" if power == NEUTRAL else power)


# -- the board of one phase -----------------------------------------------------------------


class Board:
    """What the checks of one phase share: the position, who commands each unit (``commander``:
    province -> power, where it is not the unit's owner), the rules in play (``hooks``: the
    position's own by default), fleets at sea."""

    def __init__(self, variant: Variant, position: Position, commander: Mapping[ProvinceId, Power] | None = None,
                 hooks: RuleHooks | None = None):
        self.variant = variant
        self.position = position
        self.commander = commander or {}
        self.hooks = hooks if hooks is not None else rules_for(position)
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
        return tuple(self.hooks.home_centers(self.variant, self.position, power))

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
#
# Each check decides with the map's tables (and, for convoys, the fleets on the board) and words
# its reason only when the order fails.

_U = TypeVar("_U", bound=UnitOrder)
Checked = tuple[Order | None, Reason | None]  # (order as understood, None) or (None, Reason)


def check(board: Board, order: Order) -> tuple[Order | None, Reason | None]:
    """``(order as understood, None)`` when legal in this phase, else ``(None, reason)``."""
    checker = board.checks.get(type(order))
    if checker is None:
        return None, _wrong_phase(board, order)
    return checker(board, order)


_PHASE_ORDERS = {MOVEMENT: ("a movement phase", "hold, move, support or convoy"),
                 RETREAT: ("a retreat phase", "a dislodged unit may only retreat or disband"),
                 ADJUSTMENT: ("an adjustment phase", "build, remove (disband) or waive")}
_VERBS = {Hold: "holds", Move: "moves", SupportHold: "supports", SupportMove: "supports", Convoy: "convoys",
          Retreat: "retreats", Disband: "disbands", Build: "builds", Waive: "waives"}


def _wrong_phase(board: Board, order: Order) -> Reason:
    if is_rule_order(order):
        name = order.rule_module
        return Reason(f"{name}-rules-off", f"{name} orders need the {name} rules",
                      "hold, move, support or convoy" if board.kind is MOVEMENT else "")
    phase, allowed = _PHASE_ORDERS[board.kind]
    return Reason("wrong-phase", f"no {_VERBS.get(type(order), 'orders')} in {phase}: {allowed}", allowed)


def _unit_in(board: Board, province: ProvinceId, unit_type: UnitType | None, codes: tuple[str, str],
             purpose: str = "") -> Unit | Reason:
    """The unit in ``province``, of ``unit_type`` when one is named, or why there is none
    (``codes``: the reason codes for no unit and for a unit of the other type)."""
    unit = board.units.get(province)
    if unit is None:
        return Reason(codes[0], f"there is no unit in {board.name(province)}{purpose}")
    if unit_type is not None and unit_type is not unit.type:
        return Reason(codes[1], f"the unit in {board.name(province)} is {unit.type.a_noun}, not {unit_type.a_noun}",
                      unit.short)
    return unit


def _ordered_unit(board: Board, order: UnitOrder) -> Unit | Reason:
    """The unit ``order`` commands (the one in the province it names, of the type it names, that
    its power orders), or why it commands none."""
    province = order.location.province
    unit = _unit_in(board, province, order.unit_type, ("no-unit", "wrong-unit-type"))
    if isinstance(unit, Reason):
        return unit
    if order.power != board.commander.get(province, unit.power):
        owner = power_adjective(board.variant, unit.power)
        return Reason("not-your-unit", Phrase("not your unit: ", unit, f" is {owner}"))
    return unit


def _understood(order: _U, unit: Unit, **changes: Any) -> _U:
    """``order`` naming ``unit`` as it stands, with ``changes``: the order itself when it does already."""
    if order.unit_type is unit.type and order.location == unit.location and all(
            getattr(order, k) == v for k, v in changes.items()):
        return order
    return dataclasses.replace(order, unit_type=unit.type, location=unit.location, **changes)


def _province_only(location: Location) -> Location:
    """``location`` without its coast."""
    return location if location.coast is None else Location(location.province)


def _step(board: Board, unit: Unit, dest: Location, table: Mapping[tuple[UnitType, ProvinceId, str | None],
                                                                   Mapping[tuple[ProvinceId, str | None], Location]]
          ) -> Location | None:
    """Where ``unit`` goes when ordered (or supported) to ``dest`` by itself, by ``table`` (the
    map's ``steps`` or ``supported``): an army ignores the coast named, a fleet too where the
    province has none."""
    here = unit.location
    province = dest.province
    coast = dest.coast if unit.type is FLEET and board.tables.coasts.get(province) else None
    return table.get((unit.type, here.province, here.coast), _NO_STEPS).get((province, coast))


_NO_STEPS: Mapping[tuple[ProvinceId, str | None], Location] = {}


def _destination(board: Board, unit: Unit, dest: Location, via_convoy: bool = False,
                 without: ProvinceId | None = None) -> Location | Reason:
    """Where ``unit`` goes when ordered to ``dest``: by itself, or an army by convoy through the
    fleets at sea (``without`` one of them); else why it cannot."""
    if not via_convoy:
        to = _step(board, unit, dest, board.tables.steps)
        if to is not None:
            return to
    if unit.type is ARMY and board.convoy_possible(unit.location.province, dest.province, without):
        return _province_only(dest)
    return _no_way(board, unit, dest, via_convoy, without)


def _no_way(board: Board, unit: Unit, dest: Location, via_convoy: bool, without: ProvinceId | None) -> Reason:
    """Why ``unit`` cannot go to ``dest`` (:func:`_destination` found no way)."""
    tables, src, province = board.tables, unit.location.province, dest.province
    kind = tables.kind.get(province)
    if kind is None:
        return Reason("no-such-province", f"there is no province {province!r}")
    if province == src:
        return Reason("same-province", Phrase(unit, f" is in {tables.name(src)} already; a unit cannot move to "
                                               f"where it stands"), _reachable(board, unit))
    if unit.type is FLEET:
        if via_convoy:
            return Reason("fleet-convoyed", "only armies can be convoyed", f"{unit.short} - {province}")
        return _no_fleet_way(board, unit.location, dest)
    if kind is SEA:
        return Reason("army-to-sea", f"an army cannot go to {tables.name(province)}, which is a sea",
                      _reachable(board, unit))
    if province in tables.army_adjacent.get(src, ()):
        return Reason("no-convoy", Phrase("no fleet could convoy ", unit, f" to {tables.name(province)}"),
                      f"{unit.short} - {province}")
    if without and board.convoy_possible(src, province):
        return Reason("convoy-through-supporter", Phrase("the only convoy route for ", unit, f" to {tables.name(province)} "
                                                         "runs through the supporting fleet"))
    return Reason("not-adjacent", Phrase(f"not adjacent: {tables.name(province)} is not adjacent to {tables.name(src)}, "
                                         "and no fleets at sea could convoy ", unit, " there"), _reachable(board, unit))


def _no_fleet_way(board: Board, source: Location, dest: Location) -> Reason:
    """Why a fleet at ``source`` cannot go to ``dest``."""
    tables = board.tables
    province = dest.province
    if tables.kind[province] is LAND:
        return Reason("fleet-inland", f"a fleet cannot go to {tables.name(province)}, which is inland")
    reach = tables.fleet_coasts(source, province)
    if not reach:
        if province in tables.army_adjacent.get(source.province, ()):
            return Reason("no-coast-route", f"no coast leads from {tables.location_name(source)} to "
                                            f"{tables.name(province)}, so a fleet cannot move there")
        return Reason("not-adjacent", f"not adjacent: {tables.name(province)} is not adjacent to "
                                      f"{tables.location_name(source)}")
    coasts = " or ".join(f"{province}/{c}" for c in reach)
    if dest.coast:
        return Reason("unreachable-coast", f"a fleet in {tables.location_name(source)} cannot reach "
                                           f"{tables.location_name(dest)}", coasts)
    return Reason("coast-needed", f"name the coast: {coasts}", coasts)


def _reachable(board: Board, unit: Unit) -> str:
    """Where ``unit`` could move by itself, for "what would be accepted"."""
    here = unit.location
    return ", ".join(sorted(board.tables.reach.get((unit.type, here.province, here.coast), ())))


def _check_hold(board: Board, order: Hold) -> Checked:
    unit = _ordered_unit(board, order)
    if type(unit) is Reason:
        return None, unit
    return _understood(order, unit), None


def _check_move(board: Board, order: Move) -> Checked:
    unit = _ordered_unit(board, order)
    if type(unit) is Reason:
        return None, unit
    dest = _destination(board, unit, order.destination, order.via_convoy)
    if type(dest) is Reason:
        return None, dest
    return _understood(order, unit, destination=dest), None


def _can_reach(board: Board, unit: Unit, province: ProvinceId) -> bool:
    """Could ``unit`` move to ``province`` by itself (any coast)? Only then may it support there."""
    here = unit.location
    return province in board.tables.reach.get((unit.type, here.province, here.coast), ())


def _target(board: Board, order: SupportHold | SupportMove | Convoy, verb: str) -> Unit | Reason:
    return _unit_in(board, order.target.province, order.target_type, ("no-target", "wrong-target-type"), f" to {verb}")


def _supporter_and_target(board: Board, order: SupportHold | SupportMove) -> tuple[Unit, Unit] | Reason:
    unit = _ordered_unit(board, order)
    if type(unit) is Reason:
        return unit
    target = _target(board, order, "support")
    if type(target) is Reason:
        return target
    if target.location.province == unit.location.province:
        return Reason("support-self", "a unit cannot support itself")
    return unit, target


def _check_support_hold(board: Board, order: SupportHold) -> Checked:
    found = _supporter_and_target(board, order)
    if type(found) is Reason:
        return None, found
    unit, target = found
    if not _can_reach(board, unit, target.location.province):
        return None, Reason("support-out-of-reach",
                            Phrase(unit, f" cannot support a unit in {board.name(target.location.province)}: "
                                   "it could not move there itself"), _reachable(board, unit))
    return _understood(order, unit, target_type=target.type, target=target.location), None


def _check_support_move(board: Board, order: SupportMove) -> Checked:
    found = _supporter_and_target(board, order)
    if type(found) is Reason:
        return None, found
    unit, target = found
    dest, here = order.destination, unit.location.province
    if dest.province == here:
        return None, Reason("support-into-itself",
                            Phrase(unit, f" cannot support a move into {board.name(here)}, where it stands itself"))
    if not _can_reach(board, unit, dest.province):
        return None, Reason("support-out-of-reach", Phrase(unit, f" cannot support a move to {board.name(dest.province)}: "
                                                           "it could not move there itself"),
                            _reachable(board, unit))
    # a support need not name the coast of a supported fleet move (DATC 6.B.7, 6.B.8, 6.B.15)
    to = _step(board, target, dest, board.tables.supported)
    if to is None and target.type is ARMY and board.convoy_possible(target.location.province, dest.province, here):
        to = _province_only(dest)
    if to is None:
        why = _no_way(board, target, dest if target.type is FLEET else _province_only(dest), False, here)
        return None, Reason("supported-move-impossible",
                               Phrase("the supported move is impossible (", *parts_of(why.text), ")"))
    return _understood(order, unit, target_type=target.type, target=target.location, destination=to), None


def _check_convoy_order(board: Board, order: Convoy) -> Checked:
    unit = _ordered_unit(board, order)
    if type(unit) is Reason:
        return None, unit
    if unit.type is not FLEET:
        return None, Reason("convoy-by-army", "only fleets convoy")
    if unit.province not in board.tables.seas:
        return None, Reason("convoy-from-coast", Phrase("only fleets at sea convoy: ", unit, " is on the coast of "
                                                        f"{board.name(unit.province)}"))
    standing = board.units.get(order.target.province)
    if standing is not None and standing.type is not ARMY:
        return None, Reason("convoy-of-fleet", f"only armies can be convoyed: the unit in "
                                               f"{board.name(standing.province)} is a fleet")
    target = _target(board, order, "convoy")
    if type(target) is Reason:
        return None, target
    src, dst = target.province, order.destination.province
    if dst == src:
        return None, Reason("convoy-in-place", Phrase(target, f" cannot be convoyed to {board.name(dst)}, "
                                                      "where it stands"))
    if src not in board.shores:
        return None, Reason("convoy-off-coast", f"an army can be convoyed only from a coast, and {board.name(src)} "
                                                f"is not on the coast")
    if dst not in board.shores:
        return None, Reason("convoy-off-coast", f"an army can be convoyed only to a coast, and {board.name(dst)} "
                                                f"is not on the coast")
    if not board.on_minimal_route(unit.province, src, dst):
        return None, Reason("convoy-off-route", Phrase(unit, " is not needed on any convoy route from "
                                                       f"{board.name(src)} to {board.name(dst)}"))
    return _understood(order, unit, target_type=ARMY, target=target.location, destination=Location(dst)), None


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
    return dict(board.hooks.retreat_options(board.variant, board.position, dislodgement, found))


def _retreat_block(board: Board, dislodgement: Dislodgement, province: ProvinceId) -> Reason | None:
    if province == dislodgement.attacker_from and not dislodgement.by_convoy:
        return Reason("retreat-to-attacker", f"cannot retreat to {board.name(province)}, where its attacker came from")
    if province in board.position.standoffs:
        return Reason("retreat-to-standoff", f"cannot retreat to {board.name(province)}: it was left empty by a "
                                             f"standoff")
    occupant = board.position.unit_at(province)
    if occupant is not None:
        return Reason("retreat-occupied", Phrase(f"cannot retreat to {board.name(province)}: ", occupant, " is there"))
    return None


def _check_retreat(board: Board, order: Retreat | Move | Disband) -> Checked:
    province = order.location.province
    dislodgement = board.dislodgement(province)
    if dislodgement is None:
        where = board.name(province)
        if board.position.unit_at(province) is not None:
            return None, Reason("not-dislodged", f"the unit in {where} was not dislodged: only dislodged units "
                                                 f"are ordered in a retreat phase")
        return None, Reason("no-dislodged-unit", f"there is no dislodged unit in {where}")
    unit = dislodgement.unit
    if order.unit_type is not None and order.unit_type is not unit.type:
        return None, Reason("wrong-unit-type", f"the unit in {board.name(province)} is {unit.type.a_noun}, "
                                               f"not {order.unit_type.a_noun}", unit.short)
    if order.power != board.commander.get(province, unit.power):
        return None, Reason("not-your-unit", Phrase("not your unit: ", unit,
                                                    f" is {power_adjective(board.variant, unit.power)}"))
    if type(order) is Disband:
        return Disband(order.power, unit.type, unit.location), None
    if type(order) is Move and order.via_convoy:
        return None, Reason("retreat-by-convoy", "no convoys in a retreat phase")
    options = retreat_options(board, dislodgement)
    dest = order.destination
    reached = options.get(dest.province, ())
    to = next((loc for loc in reached if loc == dest), None) or (reached[0] if _one_way(board, unit, dest, reached)
                                                                 else None)
    if to is None:
        return None, _no_retreat(board, dislodgement, dest, options)
    return Retreat(order.power, unit.type, unit.location, to), None


def _one_way(board: Board, unit: Unit, dest: Location, reached: tuple[Location, ...]) -> bool:
    """Does ``dest`` name the only location of its province ``unit`` may retreat to (an army's
    coast ignored; a fleet's coast left out where one is all it can reach)?"""
    if len(reached) != 1:
        return False
    return unit.type is ARMY or dest.coast is None or not board.tables.coasts.get(dest.province)


def _no_retreat(board: Board, dislodgement: Dislodgement, dest: Location,
                options: Mapping[ProvinceId, tuple[Location, ...]]) -> Reason:
    """Why the dislodged unit cannot retreat to ``dest``."""
    unit = dislodgement.unit
    accepted = ", ".join(str(loc) for p in sorted(options) for loc in options[p]) or "disband"
    if unit.type is FLEET:
        why = _destination(board, unit, dest)
    elif dest.province == unit.province:
        why = Reason("same-province", Phrase(unit, " cannot retreat to where it stands"))
    elif board.variant.provinces.get(dest.province) is None:
        why = Reason("no-such-province", f"there is no province {dest.province!r}")
    elif board.variant.provinces[dest.province].kind is SEA:
        why = Reason("army-to-sea", f"an army cannot go to {board.name(dest.province)}, which is a sea")
    elif not board.variant.army_adjacent(unit.province, dest.province):
        why = Reason("not-adjacent", f"not adjacent: {board.name(dest.province)} is not adjacent to "
                                     f"{board.name(unit.province)}")
    else:
        why = Location(dest.province)
    if type(why) is Reason:
        return dataclasses.replace(why, accepted=accepted)
    block = _retreat_block(board, dislodgement, why.province)
    if block is not None:
        return dataclasses.replace(block, accepted=accepted)
    return Reason("retreat-beyond-rules", Phrase(unit, f" may not retreat to {board.name(why.province)} under the "
                                                 "rules in play"), accepted)


# -- adjustments --------------------------------------------------------------------------------


def adjustment_count(position: Position, power: Power) -> tuple[int, int]:
    """``(centres, units)`` of ``power``: builds when the first is larger, removals when smaller."""
    centres = sum(1 for owner in position.supply_centers.values() if owner == power)
    units = sum(1 for u in position.units if u.power == power)
    return centres, units


def _check_adjustment(board: Board, order: Build | Disband | Waive) -> Checked:
    v, pos = board.variant, board.position
    power = order.power
    centres, units = adjustment_count(pos, power)
    tally = f"{centres} centres, {units} units"
    pname = v.power_name(power)
    if type(order) is Waive:
        if centres <= units:
            return None, Reason("no-builds", f"{pname} has no builds to waive ({tally})")
        return order, None
    if type(order) is Disband:
        unit = _ordered_unit(board, order)
        if type(unit) is Reason:
            return None, unit
        if centres >= units:
            return None, Reason("no-disbands", f"{pname} has no units to remove ({tally})")
        return Disband(power, unit.type, unit.location), None
    return _check_build(board, order, centres, units)


def _check_build(board: Board, order: Build, centres: int, units: int) -> Checked:
    v, pos, power, prov = board.variant, board.position, order.power, order.location.province
    name = board.name(prov)
    if centres <= units:
        return None, Reason("no-builds", f"{v.power_name(power)} has no builds ({centres} centres, {units} units)")
    homes = board.home_centers(power)
    if prov not in homes:
        return None, Reason("not-home-centre", f"{name} is not a home centre of {v.power_name(power)}",
                            _free_sites(pos, power, homes))
    owner = pos.supply_centers.get(prov)
    if owner != power:
        return None, Reason("centre-not-owned", f"{v.power_name(power)} does not own {name} now",
                            _free_sites(pos, power, homes))
    occupant = pos.unit_at(prov)
    if occupant is not None:
        return None, Reason("site-occupied", Phrase(f"{name} is occupied by ", occupant),
                            _free_sites(pos, power, homes))
    if order.unit_type is None:
        return None, Reason("unit-type-needed", f"say which unit to build: A {prov} build or F {prov} build",
                            f"A {prov} build, F {prov} build")
    if order.unit_type is ARMY:
        return Build(power, ARMY, Location(prov)), None
    if not v.can_build_fleet(prov):
        return None, Reason("fleet-inland", f"a fleet cannot be built in {name}: it has no coast", f"A {prov} build")
    locations = v.fleet_locations(prov)
    if len(locations) > 1:
        coasts = " or ".join(f"F {loc} build" for loc in locations)
        if order.location.coast is None:
            return None, Reason("coast-needed", f"name the coast for a fleet in {name}: {coasts}", coasts)
        if order.location not in locations:
            return None, Reason("no-such-coast", f"{name} has no coast {order.location.coast!r}", coasts)
        return Build(power, FLEET, order.location), None
    return Build(power, FLEET, locations[0]), None


def _free_sites(position: Position, power: Power, homes: Iterable[ProvinceId]) -> str:
    """The home centres ``power`` owns where nothing stands, for "what would be accepted"."""
    return ", ".join(h for h in homes if position.supply_centers.get(h) == power and position.unit_at(h) is None)


# Which function checks an order of each type, by the kind of phase (other types: wrong phase).
_CHECKS: dict[PhaseKind, dict[type, Callable[[Board, Any], Checked]]] = {
    MOVEMENT: {Hold: _check_hold, Move: _check_move, SupportHold: _check_support_hold,
               SupportMove: _check_support_move, Convoy: _check_convoy_order},
    RETREAT: {Retreat: _check_retreat, Move: _check_retreat, Disband: _check_retreat},
    ADJUSTMENT: {Build: _check_adjustment, Disband: _check_adjustment, Waive: _check_adjustment},
}
