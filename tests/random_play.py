"""Seeded random play: orders of every kind for every power, legal and not, for whole games.

The generator plays as careless players would: most units get a plausible order (a move, a
support of a neighbour's move or hold, a convoy where a fleet stands at sea), some get none
(no orders at all: an NMR), and a share of the lines are wrong on purpose (another power's
unit, a province out of reach, a bid below its minimum, more builds than allowed). Under the
prestige rules every power bids, bribes, lends, secures loyalty, seizes fiefs and rebels.

Used by the golden corpus, the document round trip, the soak test and the service's own
soak (which submits these orders as players' messages): everything is a pure function of
``random.Random`` and the position.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from adjudicator.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold, SupportMove, Waive
from adjudicator.prestige.orders import Bribe, Lend, Rebel, SecureLoyalty, SeizeFief, Vassal
from adjudicator.position import Position
from adjudicator.vocab import NEUTRAL, Location, PhaseKind, Power, Unit, UnitType
from adjudicator.prestige.state import has_state, state_of


@dataclass(frozen=True)
class Style:
    """How a random player plays: the share of powers sending nothing, of wrong lines, of bids."""

    nmr: float = 0.1            # a power sends no orders at all this phase
    junk: float = 0.08          # a line is wrong on purpose
    bids: float = 0.6           # a power with prestige gives prestige orders this phase
    attack: float = 0.5         # a hold or support turned into a support of a friend's move


CAREFUL = Style(nmr=0.0, junk=0.0)


def _moves(variant, unit: Unit) -> list[Location]:
    if unit.type is UnitType.ARMY:
        return sorted(Location(p) for p in variant.army_neighbours(unit.province))
    return sorted(variant.fleet_neighbours(unit.location), key=str)


def random_orders(rng: random.Random, variant, position: Position, style: Style = Style()) -> list[Order]:
    """Every power's orders for ``position``'s phase, as they would reach the judge (powers in turn)."""
    kind = position.phase.kind
    out: list[Order] = []
    for power in variant.powers:
        if power in position.eliminated or rng.random() < style.nmr:
            continue
        if kind is PhaseKind.MOVEMENT:
            mine = movement_orders(rng, variant, position, power, style)
        elif kind is PhaseKind.RETREAT:
            mine = retreat_orders(rng, variant, position, power, style)
        else:
            mine = adjustment_orders(rng, variant, position, power, style)
        out += mine
    return out


def movement_orders(rng, variant, position: Position, power: Power, style: Style = Style()) -> list[Order]:
    from adjudicator.turn import commands

    units = [c.unit for c in commands(variant, position, power)]
    out: list[Order] = []
    bid_lines = prestige_orders(rng, variant, position, power, style) if has_state(position) else []
    for unit in units:
        out.append(_unit_order(rng, variant, position, power, unit))
    for bid in bid_lines:
        out.append(bid)
        if isinstance(bid, Vassal) and rng.random() < 0.8:     # the vassal's order on a line of its own
            unit = position.unit_at(bid.location.province)
            if unit is not None:
                out.append(_unit_order(rng, variant, position, power, unit))
    _with_supported_attacks(rng, variant, position, out, style)
    if rng.random() < style.junk * 3:
        out.append(junk_order(rng, variant, position, power))
    rng.shuffle(out)
    return out


def _unit_order(rng, variant, position: Position, power: Power, unit: Unit) -> Order:
    roll, moves = rng.random(), _moves(variant, unit)
    if roll < 0.55 and moves:
        return Move(power, unit.type, unit.location, rng.choice(moves))
    if roll < 0.75:
        near = [u for u in position.units if u.province in variant.province_neighbours(unit.province)]
        if near:
            other = rng.choice(near)
            return SupportHold(power, unit.type, unit.location, other.type, other.location)
    if roll < 0.8 and unit.type is UnitType.FLEET and variant.provinces[unit.province].is_sea:
        armies = [u for u in position.units if u.type is UnitType.ARMY
                  and u.province in variant.province_neighbours(unit.province)]
        coasts = sorted(p for p in variant.province_neighbours(unit.province)
                        if variant.provinces[p].kind.value == "coast")
        if armies and coasts:
            army = rng.choice(armies)
            return Convoy(power, unit.type, unit.location, army.type, army.location, Location(rng.choice(coasts)))
    return Hold(power, unit.type, unit.location)


def _with_supported_attacks(rng, variant, position: Position, orders: list[Order], style: Style) -> None:
    """Turn some holds and supports into supports of a move of the same power (dislodgements happen)."""
    moves = [o for o in orders if isinstance(o, Move)]
    for i, order in enumerate(orders):
        if not isinstance(order, (Hold, SupportHold)) or rng.random() > style.attack:
            continue
        unit = position.unit_at(order.location.province)
        for move in moves:
            if move.location.province != order.location.province and \
                    variant.adjacent(unit.type, unit.location, Location(move.destination.province)):
                orders[i] = SupportMove(order.power, unit.type, unit.location, move.unit_type, move.location,
                                        Location(move.destination.province))
                break


def prestige_orders(rng, variant, position: Position, power: Power, style: Style = Style()) -> list[Order]:
    """Prestige orders of every kind, now and then beyond what the power holds or below a minimum."""
    state = state_of(position)
    have = state.prestige.get(power, 0)
    if rng.random() > style.bids or (have <= 0 and rng.random() > style.junk):
        return []
    neutrals = [u for u in position.units if u.power == NEUTRAL]
    others = [u for u in position.units if u.power not in (NEUTRAL, power)]
    out: list[Order] = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        kind = rng.choice(["vassal", "bribe", "bribe-enemy", "loyalty", "lend", "rebel", "fief"])
        bid = rng.choice([1, 2, 2, 3, 4]) if rng.random() > style.junk else rng.choice([0, 1, have + 3])
        if kind == "vassal" and neutrals:
            u = rng.choice(neutrals)
            out.append(Vassal(power, u.type, u.location, max(bid, 2) if rng.random() > style.junk else bid))
        elif kind in ("bribe", "bribe-enemy") and (neutrals if kind == "bribe" else others):
            u = rng.choice(neutrals if kind == "bribe" else others)
            inner = None
            if rng.random() < 0.7:
                inner = Hold(power, u.type, u.location) if rng.random() < 0.7 else _unit_order(
                    rng, variant, position, power, u)
                if rng.random() < style.junk:       # an order for another unit (invalid)
                    other = rng.choice(position.units)
                    inner = Hold(power, other.type, other.location)
            out.append(Bribe(power, u.type, u.location, bid, None, inner))
        elif kind == "loyalty":
            out.append(SecureLoyalty(power, max(bid, 1)))
        elif kind == "lend":
            to = rng.choice([p for p in variant.powers if p != power])
            out.append(Lend(power, to, max(1, min(bid, have or 1))))
        elif kind == "rebel":
            centres = sorted(position.supply_centers)
            targets = [c for c in centres if position.supply_centers[c] not in (NEUTRAL, power)
                       and c not in state.home_centers.get(position.supply_centers[c], ())]
            pool = targets if targets and rng.random() > style.junk else centres
            out.append(Rebel(power, rng.choice(pool), bid))
        elif kind == "fief":
            mine = [c for c in position.centers_of(power) if c not in state.home_centers.get(power, ())]
            pool = mine if mine and rng.random() > style.junk else sorted(position.supply_centers)
            out.append(SeizeFief(power, rng.choice(pool)))
    return out


def retreat_orders(rng, variant, position: Position, power: Power, style: Style = Style()) -> list[Order]:
    from adjudicator.turn import duty

    out: list[Order] = []
    for unit, options in duty(variant, position, power).retreats:
        roll = rng.random()
        if roll < 0.1:
            continue                                    # no order: it disbands
        if roll < 0.2 or not options:
            out.append(Disband(power, unit.type, unit.location))
        else:
            out.append(Retreat(power, unit.type, unit.location, rng.choice(options)))
    if rng.random() < style.junk * 3:
        out.append(junk_order(rng, variant, position, power))
    return out


def adjustment_orders(rng, variant, position: Position, power: Power, style: Style = Style()) -> list[Order]:
    from adjudicator.turn import duty

    todo = duty(variant, position, power)
    out: list[Order] = []
    if todo.builds:
        extra = 1 if rng.random() < style.junk else 0       # more than allowed, now and then
        sites = list(todo.sites)
        rng.shuffle(sites)
        for site in sites[:todo.builds + extra]:
            fleet = variant.can_build_fleet(site) and rng.random() < 0.4
            if fleet:
                out.append(Build(power, UnitType.FLEET, variant.fleet_locations(site)[0]))
            else:
                out.append(Build(power, UnitType.ARMY, Location(site)))
        if rng.random() < 0.2 and out:
            out[-1] = Waive(power)
    elif todo.disbands:
        units = sorted(position.units_of(power), key=lambda u: str(u.location))
        rng.shuffle(units)
        for unit in units[:todo.disbands if rng.random() > 0.3 else max(0, todo.disbands - 1)]:
            out.append(Disband(power, unit.type, unit.location))
    if rng.random() < style.junk * 3:
        out.append(junk_order(rng, variant, position, power))
    return out


def junk_order(rng, variant, position: Position, power: Power) -> Order:
    """A line a player gets wrong: a unit not there or not theirs, a move out of reach, a wrong phase."""
    provinces = sorted(variant.provinces)
    somewhere = Location(rng.choice(provinces))
    unit = rng.choice(position.units) if position.units else None
    roll = rng.random()
    if unit is not None and roll < 0.3:       # someone else's unit, or a move out of reach
        return Move(power, unit.type, unit.location, somewhere)
    if roll < 0.45:
        return Hold(power, UnitType.ARMY, somewhere)
    if roll < 0.6:
        return Build(power, UnitType.FLEET, somewhere)
    if roll < 0.7 and unit is not None:
        return SupportMove(power, unit.type, unit.location, UnitType.ARMY, somewhere, Location(rng.choice(provinces)))
    if roll < 0.8:
        return Disband(power, UnitType.ARMY, somewhere)
    if roll < 0.9 and unit is not None:       # (the notation writes a retreat as a move: one only where it is one)
        cls = Retreat if position.phase.kind is PhaseKind.RETREAT else Move
        return cls(power, unit.type, unit.location, somewhere)
    return Waive(power)
