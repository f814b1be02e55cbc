"""Whole games through the service: seeded random players on the ``crusader`` map.

Each player writes text as a player would (the shared random player of ``tests/random_play.py``:
every kind of order, prestige orders included, wrong lines now and then, sometimes no message
at all), the service stores it, the deadlines pass under a frozen clock, and the game goes on
through retreats and builds to a victory or thirty years. After every phase the invariants of
:func:`check_season` are checked; an order the judge must accept that it refuses, a phase that
waits with nobody to decide anything, a game that stops moving are faults too.

The default run plays two short games; ``--slow`` (as ``.ci/run`` runs the suite) sixty long ones.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

import pytest
import time_machine

from adjudicator.prestige.events import PrestigeEvents, PrestigeYear
from adjudicator.orders import Hold, Move
from adjudicator.position import Position
from adjudicator.prestige.neutrals import within_leash
from adjudicator.prestige.state import has_state, lord_of, neutral_home, state_of
from adjudicator.variant import Variant, get_variant
from adjudicator.vocab import NEUTRAL, Location, Phase, PhaseKind, UnitType
from adjudicator.vocab import Season as Season_
from bot.codec.documents import position_from_dict, position_to_dict
from bot.codec.season import Season
from bot.service import DeadlinePolicy
from bot.service import GameService
from tests.random_play import adjustment_orders, movement_orders, retreat_orders

CRUSADER = get_variant("crusader")
POLICY = DeadlinePolicy(movement=timedelta(hours=48), retreat=timedelta(hours=24), adjustment=timedelta(hours=24),
                        reminders=(timedelta(hours=1),), nmr_limit=3)
YEARS = 30


# -- players -------------------------------------------------------------------------------------


def _moves(variant: Variant, unit) -> list[Location]:
    if unit.type is UnitType.ARMY:
        return sorted(Location(p) for p in variant.army_neighbours(unit.province))
    return sorted(variant.fleet_neighbours(unit.location), key=str)


def message(rng: random.Random, variant: Variant, position: Position, power: str) -> list | None:
    """A player's orders for the phase (the shared random player's), or None: no message at all."""
    if rng.random() < 0.08:
        return None
    kind = position.phase.kind
    if kind is PhaseKind.MOVEMENT:
        return movement_orders(rng, variant, position, power)
    if kind is PhaseKind.RETREAT:
        return retreat_orders(rng, variant, position, power)
    return adjustment_orders(rng, variant, position, power)


def beyond_doubt(variant: Variant, position: Position, order) -> bool:
    """Must the judge accept ``order`` whatever else the message says? A hold, or a move next door,
    of a unit its power commands by the position alone: its own, or its vassal on the leash (rule 15)."""
    if not isinstance(order, (Hold, Move)) or position.phase.kind is not PhaseKind.MOVEMENT:
        return False
    unit = position.unit_at(order.location.province)
    if unit is None or unit.location != order.location or unit.type is not order.unit_type:
        return False
    state = state_of(position)
    if unit.power != order.power and (state is None or lord_of(state, unit) != order.power):
        return False
    if isinstance(order, Hold):
        return True
    if order.destination not in _moves(variant, unit):
        return False
    return unit.power != NEUTRAL or within_leash(variant, neutral_home(state, unit), order.destination.province)


# -- the invariants -------------------------------------------------------------------------------


def _all_units(position: Position) -> list:
    return [*position.units, *(d.unit for d in position.dislodged)]


def check_season(variant: Variant, season: Season, faults: list[str]) -> None:
    """The invariants of one adjudicated phase, as the service keeps it."""
    where = f"{season.phase} (version {season.version})"
    before, after, events = season.position, season.after, season.events
    if position_from_dict(position_to_dict(after, variant))[1] != after:
        faults.append(f"{where}: the next position does not read back as written")

    # no unit lost or duplicated
    rule = events.rule if isinstance(events.rule, PrestigeEvents) else PrestigeEvents()
    year = events.rule_year.disbanded if isinstance(events.rule_year, PrestigeYear) else ()
    gone = Counter(str(a.unit) for a in events.annihilated)
    gone.update(str(u) for u in events.disbanded)
    gone.update(str(u) for u in year)     # homeless neutrals, in winter
    gone.update(str(u) for u in events.removed)
    came = Counter(str(u) for u in events.built)
    was = Counter(str(u) for u in _all_units(before))
    now = Counter(str(u) for u in _all_units(after))
    provinces = Counter(u.province for u in after.units)
    if any(n > 1 for n in provinces.values()):
        faults.append(f"{where}: two units in one province: {[p for p, n in provinces.items() if n > 1]}")

    def count(units, power=None) -> int:
        return sum(1 for u in units if power is None or str(u).startswith(power + ":"))

    lost, new = sum(gone.values()), sum(came.values())
    if count(_all_units(after)) != count(_all_units(before)) - lost + new:
        faults.append(f"{where}: {count(_all_units(before))} units, {lost} gone and {new} new by the events, "
                      f"yet {count(_all_units(after))} ({sorted(was - now)} gone, {sorted(now - was)} new)")
    elif not rule.rebellions:   # (a rebellion makes a power's unit neutral)
        for p in (*variant.powers, NEUTRAL):
            if count(_all_units(after), p) != count(_all_units(before), p) - count(gone.elements(), p) \
                    + count(came.elements(), p):
                faults.append(f"{where}: {p}'s units do not add up ({sorted(was - now)} gone, {sorted(now - was)} new)")

    # prestige never negative
    state = state_of(after)
    if state is not None and any(n < 0 for n in (*state.prestige.values(), *state.prestige_start.values())):
        faults.append(f"{where}: negative prestige {state.prestige}")

    # no surplus after winter: every power's units fit its centres when a year begins
    if after.phase.season is Season_.SPRING and before.phase.season is not Season_.SPRING:
        for power in variant.powers:
            if len(after.units_of(power)) > len(after.centers_of(power)):
                faults.append(f"{where}: {power} begins {after.phase} with {len(after.units_of(power))} units "
                              f"and {len(after.centers_of(power))} centres")

    # vassals on their leash: none moves or retreats further than next to its home (one bought
    # where it stood, away from home, may stay there)
    if state is not None:
        for unit in after.units:
            lord = lord_of(state, unit)
            if lord is not None and before.unit_at(unit.province) != unit \
                    and not within_leash(variant, neutral_home(state, unit), unit.province):
                faults.append(f"{where}: {lord}'s vassal {unit} went off its leash (home {neutral_home(state, unit)})")

    # bribed units never move, and capture nothing
    if before.phase.kind is PhaseKind.MOVEMENT:
        for province in rule.bribed:
            unit = before.unit_at(province)
            still = after.unit_at(province)
            dislodged = any(d.unit.province == province for d in after.dislodged)
            annihilated = any(a.unit == unit for a in events.annihilated)
            if unit is not None and still != unit and not dislodged and not annihilated:
                faults.append(f"{where}: the bribed unit {unit} moved (now {still})")
    bribed = dict(state_of(before).bribed if has_state(before) else {}) | dict(rule.bribed)
    for change in events.centres:
        unit = before.unit_at(change.province)
        if change.province in bribed and unit is not None and after.unit_at(change.province) == unit \
                and change.after == unit.power:
            faults.append(f"{where}: the bribed unit {unit} captured {change.province}")


# -- a game ---------------------------------------------------------------------------------------


@dataclass
class Played:
    phases: int = 0
    skipped: int = 0
    refused: int = 0
    conditional: int = 0
    years: int = 0
    winner: str | None = None
    faults: list[str] = field(default_factory=list)


def play(db, seed: int, start: datetime, years: int = YEARS) -> Played:
    """Play one seeded game through the service from ``start`` to a victory or ``years`` years; what happened."""
    rng = random.Random(seed)
    players = {p: f"player-{p.lower()}" for p in CRUSADER.powers}
    played = Played()
    with time_machine.travel(start, tick=False) as clock:
        service = GameService(db, pictures=False)     # no map pictures: the rules and the service are tried here
        reader = GameService(db, pictures=False)      # another server: reads every season from its row
        name = f"soak-{seed}"
        service.create_game(name, "crusader", "gm", policy=POLICY, seed=seed)
        for power, player in players.items():
            service.join(name, player, power)
        service.start(name, "gm")
        last_year = CRUSADER.start_phase.year + years
        while True:
            view = service.status(name)
            if view.status != "active" or Phase.parse(view.phase).year >= last_year:
                break
            variant, position = service.board(name)
            if not view.must_order:
                played.faults.append(f"{view.phase}: nobody has anything to decide, yet the phase waits")
            for power in view.must_order:
                orders = message(rng, variant, position, power)
                if orders is None:
                    continue
                sure = {str(o) for o in orders if beyond_doubt(variant, position, o)}
                report = service.submit_orders(name, players[power], "\n".join(str(o) for o in orders))
                played.faults += [f"{view.phase}: {power}'s {line.written!r} refused: {line.reason}"
                                  for line in report.rejected if line.written in sure]
                played.refused += len(report.rejected)
                played.conditional += sum(1 for line in report.accepted if line.note is not None)
            clock.move_to(view.deadline_at + timedelta(seconds=1))
            service.fire_due()
            after = service.status(name)
            if after.version == view.version:
                played.faults.append(f"{view.phase}: the deadline passed and the game did not move")
                break
            for version in range(view.version, after.version):
                season = service.season(name, version)  # (the season the judge kept as it stored it)
                if reader.season(name, version) != season:
                    played.faults.append(f"{season.phase}: the season the judge kept is not the one its row decodes to")
                played.phases += 1
                played.skipped += season.at_once
                check_season(variant, season, played.faults)
        final = service.status(name)
        played.winner = (final.outcome or {}).get("winner")
        played.years = Phase.parse(final.phase).year - CRUSADER.start_phase.year
    return played


@pytest.mark.parametrize("seed", [11, 12])
def test_seeded_games_through_the_service_keep_every_invariant(sqlite_db, start, seed):
    played = play(sqlite_db, seed, start, years=4)
    assert played.faults == []
    assert played.phases >= 8 and played.years >= 3 and played.refused and played.conditional


def test_the_invariants_catch_a_unit_that_vanished(sqlite_db):
    service = GameService(sqlite_db, pictures=False)
    service.create_game("lost", "crusader", "gm", seed=1)
    service.join("lost", "rum", "RUM")
    service.start("lost", "gm", fill_civil_disorder=True)
    service.force_adjudicate("lost", "gm")
    season = service.season("lost", 0)
    faults: list[str] = []
    check_season(CRUSADER, season, faults)
    assert faults == []
    vanished = replace(season.adjudication, position=season.after.with_changes(units=season.after.units[1:]))
    check_season(CRUSADER, replace(season, adjudication=vanished), faults)
    assert len(faults) == 1 and "units, 0 gone and 0 new by the events" in faults[0]


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 160))
def test_soak(sqlite_db, start, seed):
    played = play(sqlite_db, seed, start)
    assert played.faults == []
    assert played.winner is not None or played.years >= YEARS
