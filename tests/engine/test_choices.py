"""What a menu offers a unit (adjudicator.turn.choices): exactly the orders the engine accepts
for it, no fewer and no more, found by the engine's own check; checked on random positions of
whole games, in every kind of phase, on both maps."""

from __future__ import annotations

import random

import pytest

from adjudicator.adjudicate import adjudicate
from adjudicator.notation import read_order
from adjudicator.opening import starting_position
from adjudicator.orders import Build, Convoy, Disband, Hold, Move, Retreat, SupportHold, SupportMove, Waive
from adjudicator.turn import check_order, choices, commands, duty
from adjudicator.variant import get_variant
from adjudicator.vocab import Location, PhaseKind

from tests.random_play import CAREFUL, random_orders

STANDARD = get_variant("standard")
CRUSADER = get_variant("crusader")


def _positions(variant, seed: int, phases: int):
    rng = random.Random(seed)
    position = starting_position(variant, ("prestige",) if variant is CRUSADER else ())
    for _ in range(phases):
        yield position
        position = adjudicate(variant, position, random_orders(rng, variant, position, CAREFUL)).position


def test_london_in_spring_1901():
    position = starting_position(STANDARD)
    offered = {str(o) for o in choices(STANDARD, position, "ENG", "lon")}
    assert offered == {"F lon H", "F lon - eng", "F lon - nth", "F lon - wal", "F lon - yor",
                       "F lon S F edi - nth", "F lon S F edi - yor", "F lon S A lvp - wal", "F lon S A lvp - yor",
                       "F lon S F bre - eng"}
    assert choices(STANDARD, position, "FRA", "lon") == ()        # not France's unit: nothing to offer


def _every_candidate(variant, position, power, province):
    """Every order of the kinds a unit or site may take, to any place on the map: the brute force
    that :func:`choices` must agree with."""
    kind = position.phase.kind
    locations = [loc for p in variant.provinces for loc in
                 ((Location(p),) + tuple(c for c in variant.fleet_locations(p) if c.coast))]
    if kind is PhaseKind.RETREAT:
        gone = next((d for d in position.dislodged if d.unit.province == province), None)
        if gone is None:
            return []
        u = gone.unit
        return [Disband(power, u.type, u.location)] + [Retreat(power, u.type, u.location, loc) for loc in locations]
    unit = position.unit_at(province)
    if kind is PhaseKind.ADJUSTMENT:
        if unit is not None:
            return [Disband(power, unit.type, unit.location)]
        return [Build(power, t, loc) for t in (u for u in {o.type for o in position.units})
                for loc in locations if loc.province == province]
    out = [Hold(power, unit.type, unit.location)]
    out += [Move(power, unit.type, unit.location, loc) for loc in locations]
    for other in position.units:
        out.append(SupportHold(power, unit.type, unit.location, other.type, other.location))
        out += [SupportMove(power, unit.type, unit.location, other.type, other.location, Location(p))
                for p in variant.provinces]
        out += [Convoy(power, unit.type, unit.location, other.type, other.location, Location(p))
                for p in variant.provinces]
    return out


@pytest.mark.parametrize("variant,seed,phases", [(STANDARD, 2, 10), (CRUSADER, 3, 5)], ids=["standard", "crusader"])
def test_choices_are_exactly_the_orders_the_engine_accepts(variant, seed, phases):
    kinds = set()
    for i, position in enumerate(_positions(variant, seed, phases)):
        if position.phase.kind is PhaseKind.MOVEMENT and i not in (0, phases - 3):
            continue  # the first movement phase and a crowded later one; every retreat and winter
        kinds.add(position.phase.kind)
        for power in variant.powers:
            units = [c.unit.province for c in commands(variant, position, power)]
            if position.phase.kind is PhaseKind.ADJUSTMENT:
                units = units if duty(variant, position, power).disbands else []
                units += list(duty(variant, position, power).sites)
            for province in units[:2]:
                offered = set(choices(variant, position, power, province))
                for order in offered:   # a menu writes each in the judge's notation, and reads it back
                    assert read_order(f"{power}: {order}", variant, phase=position.phase) == order
                    assert len(str(order)) <= 100        # a menu option's value
                accepted = set()
                for order in _every_candidate(variant, position, power, province):
                    verdict = check_order(variant, position, order)
                    if verdict.accepted:
                        accepted.add(verdict.understood)
                assert offered == accepted, (position.phase, power, province,
                                             sorted(map(str, offered ^ accepted)))
    assert kinds == {PhaseKind.MOVEMENT, PhaseKind.RETREAT, PhaseKind.ADJUSTMENT}


def test_a_waive_is_no_units_choice():
    """A waive is the power's, not a site's: the panel offers it as a button."""
    position = starting_position(STANDARD)
    assert not any(isinstance(o, Waive) for o in choices(STANDARD, position, "ENG", "lon"))


def test_the_prestige_orders_offered_are_those_the_engine_accepts():
    from adjudicator.prestige.orders import Bribe, Lend, SecureLoyalty, Vassal
    from adjudicator.turn import rule_choices

    position = starting_position(CRUSADER, ("prestige",))
    offered = rule_choices(CRUSADER, position, "EDE")
    assert all(check_order(CRUSADER, position, v.understood).accepted for v in offered)
    neutrals = {u.province for u in position.units if u.power == "NEU"}
    assert {v.understood.location.province for v in offered if isinstance(v.understood, Vassal)} == neutrals
    # every unit of another power stands in its own home centre at the start: none may be bribed (2.8.4)
    assert {v.understood.location.province for v in offered if isinstance(v.understood, Bribe)} == neutrals
    assert {v.understood.to for v in offered if isinstance(v.understood, Lend)} == set(CRUSADER.powers) - {"EDE"}
    assert any(isinstance(v.understood, SecureLoyalty) for v in offered)
    bribe = next(v for v in offered if isinstance(v.understood, Bribe))
    assert bribe.understood.bid == 1 and bribe.note.text.startswith("needs at least 1")
    assert rule_choices(STANDARD, starting_position(STANDARD), "ENG") == ()     # no prestige rules, no prestige orders
    retreat = next(p for p in _positions(CRUSADER, 3, 2) if p.phase.kind is PhaseKind.RETREAT)
    assert rule_choices(CRUSADER, retreat, "EDE") == ()                        # spent only in movement (2.1)
