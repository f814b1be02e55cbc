"""The prestige rules at the engine's seam (:class:`adjudicator.hooks.RuleHooks`).

The engine calls :class:`PrestigeRules` before a movement phase (settle the prestige orders,
say who commands each unit), when centres change hands after the fall (vassals capture for
their lord, bribed units for nobody), when a unit retreats (the vassal's leash), for builds
(seized fiefs are home centres), once a year (the recalculation) and after every phase
(annihilations, where neutral units now stand, the prestige ledger).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

from ..hooks import MovementSetup
from ..orders import Disband, Order, Retreat
from ..position import Dislodgement, Position
from ..results import Adjudication, OrderResult, Outcome
from ..validate import Board, retreat_options
from ..vocab import NEUTRAL, Location, PhaseKind, Power, ProvinceId, Unit
from . import winter
from .bids import settle
from .neutrals import random_retreats, within_leash
from .state import lord_of, moved_homes, neutral_home, state_of, with_state


class PrestigeRules:
    """The Crusader prestige rules (sections 2 and 3 of the rules text; docs/rules.md)."""

    def before_movement(self, variant, position: Position, orders: Sequence[Order]) -> MovementSetup:
        s = settle(variant, position, orders)
        events: dict[str, Any] = {"prestige": s.ledger}
        if s.rebellions:
            events["rebellions"] = list(s.rebellions)
        if s.bribed:
            events["bribed"] = dict(sorted(s.bribed.items()))
        vassals_now = dict(state_of(s.position).vassals)
        new = {h: p for h, p in vassals_now.items() if state_of(position).vassals.get(h) != p}
        if new:
            events["vassals"] = dict(sorted(new.items()))
        return MovementSetup(position=s.position, results=s.results, unit_orders=s.unit_orders,
                             commander=s.commanders, events=events)

    def units_moved(self, variant, position: Position, moved: Mapping[Location, Location],
                    annihilated: Sequence[tuple[Unit, Power | None]]) -> Position:
        """Where the neutrals now stand (their homes go with them) and the annihilations (11)."""
        state = state_of(position)
        neutral_moves = {src: dst for src, dst in moved.items()
                         if (u := position.unit_at(dst.province)) is not None and u.power == NEUTRAL}
        on_board = {u.location for u in position.units if u.power == NEUTRAL}
        on_board |= {d.unit.location for d in position.dislodged if d.unit.power == NEUTRAL}
        homes = moved_homes(state, neutral_moves)
        homes = {loc: h for loc, h in homes.items() if loc in on_board or loc in neutral_moves.values()}
        score = dict(state.annihilations)
        for unit, by in annihilated:
            if by is not None and by != NEUTRAL:
                score[by] = score.get(by, 0) + 1          # the power that ordered the move (2.3.2, 2.3.3)
            loser = unit.power
            if loser == NEUTRAL:                          # a bought neutral costs its buyer (2.3.4)
                loser = state.bribed.get(unit.province) or lord_of(state, unit) or NEUTRAL
            if loser != NEUTRAL:
                score[loser] = score.get(loser, 0) - 1
        return with_state(position, neutral_homes=homes, annihilations=score)

    def before_retreats(self, variant, position: Position, orders: Sequence[Order]) -> MovementSetup:
        """Vassals retreat as their lord orders; neutrals nobody commands, at random (3.4)."""
        state = state_of(position)
        commander = {}
        for d in position.dislodged:
            if d.unit.power == NEUTRAL:
                commander[d.unit.province] = lord_of(state, d.unit) or NEUTRAL
        board = Board(variant, position, None, self)
        drawn = neutral_retreats(variant, position, lambda d: retreat_options(board, d))
        unit_orders = {}
        for d in position.dislodged:
            p = d.unit.province
            if p in drawn:
                dest = drawn[p]
                order = (Retreat(NEUTRAL, d.unit.type, d.unit.location, dest) if dest is not None
                         else Disband(NEUTRAL, d.unit.type, d.unit.location))
                unit_orders[p] = (None, order)
        results = {i: OrderResult(o, Outcome.INVALID, "nobody commands this neutral unit: it retreats at random "
                                                      "(rule 3.4)")
                   for i, o in enumerate(orders)
                   if isinstance(o, (Retreat, Disband)) and o.province in drawn and o.power != NEUTRAL}
        return MovementSetup(position=position, results=results, unit_orders=unit_orders, commander=commander)

    def capture_owner(self, variant, position: Position, unit: Unit) -> Power | None:
        """Who takes the centre ``unit`` stands in after the fall (2.4.5, 2.4.6, 2.5.6, 2.8.5)."""
        state = state_of(position)
        if unit.province in state.bribed:
            return None                                 # a bribed unit captures for nobody
        if unit.power == NEUTRAL:
            lord = lord_of(state, unit)
            if lord is None or unit.province == neutral_home(state, unit):
                return NEUTRAL                          # its own lands stay neutral (2.4.1)
            return lord                                 # 2.4.6, 3.3
        if state.vassals.get(unit.province) == unit.power:
            return None                                 # the lord cannot take its vassal's home (2.4.5)
        return unit.power

    def retreat_options(self, variant, position: Position, dislodgement: Dislodgement,
                        options: Mapping[ProvinceId, tuple[Location, ...]]) -> Mapping[ProvinceId, tuple[Location, ...]]:
        """A vassal may retreat only to its home centre or next to it (2.4.4)."""
        state = state_of(position)
        unit = dislodgement.unit
        if unit.power != NEUTRAL or lord_of(state, unit) is None:
            return options
        home = neutral_home(state, unit)
        return {p: locs for p, locs in options.items() if within_leash(variant, home, p)}

    def home_centers(self, variant, position: Position, power: Power) -> Sequence[ProvinceId]:
        """Starting home centres plus seized fiefs (2.6)."""
        state = state_of(position)
        return state.home_centers.get(power, variant.home_centers(power))

    def new_year(self, variant, position: Position) -> tuple[Position, dict[str, Any]]:
        """Lost fiefs, homeless neutrals, the recalculation (decisions 10, 11, 16, 19, 22)."""
        position, lost = drop_lost_fiefs(variant, position)
        position, event = winter.new_year(variant, position)
        if lost:
            event["fiefs_lost"] = lost
        return position, {"prestige_year": event}

    def after_phase(self, variant, before: Position, adjudication: Adjudication) -> Adjudication:
        """Bribes last one movement phase (and its retreats): forget them after."""
        position = adjudication.position
        state = state_of(position)
        if state.bribed and position.phase.kind is not PhaseKind.RETREAT:
            return replace(adjudication, position=with_state(position, bribed={}))
        return adjudication


def drop_lost_fiefs(variant, position: Position) -> tuple[Position, dict[str, list[str]]]:
    """A seized fief another power now owns is no home centre any more (2.6.3; decision 19)."""
    state = state_of(position)
    homes, lost = {}, {}
    for power, centres in state.home_centers.items():
        starting = set(variant.home_centers(power))
        keep = tuple(c for c in centres if c in starting or position.supply_centers.get(c) == power)
        if len(keep) != len(centres):
            lost[power] = [c for c in centres if c not in keep]
        homes[power] = keep
    if not lost:
        return position, {}
    return with_state(position, home_centers=homes), lost


def neutral_retreats(variant, position: Position, options) -> dict[ProvinceId, Location | None]:
    """Random retreats of the dislodged neutrals nobody commands (3.4; decision 17)."""
    state = state_of(position)
    choices = [(d.unit, [loc for locs in options(d).values() for loc in locs])
               for d in position.dislodged if d.unit.power == NEUTRAL and lord_of(state, d.unit) is None]
    drawn = random_retreats(state.seed, position.phase, choices)
    return {loc.province: dest for loc, dest in drawn.items()}
