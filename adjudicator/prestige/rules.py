"""The prestige rules at the engine's seam (:class:`adjudicator.hooks.RuleHooks`).

The engine calls :class:`PrestigeRules` before a movement phase (settle the prestige orders,
say who commands each unit), when centres change hands after the fall (vassals capture for
their lord, bribed units for nobody), when a unit retreats (the vassal's leash), for builds
(seized fiefs are home centres), once a year (the recalculation) and after every phase
(annihilations, where neutral units now stand, the prestige ledger).
"""

from __future__ import annotations

from dataclasses import replace
from typing import cast
from collections.abc import Callable, Mapping, Sequence

from ..hooks import MovementSetup, owners_command
from ..orders import Convoy, Disband, Hold, Move, MovementOrder, Order, Retreat, SupportHold, SupportMove, UnitOrder, format_unit
from .orders import PRESTIGE_ORDER_TYPES, Bribe, Vassal
from ..position import Dislodgement, Position, units_by_province
from ..results import Adjudication, OrderResult, Outcome, Reason
from ..turn import check_order
from ..validate import Board, check, retreat_options
from ..variant import Variant
from ..vocab import NEUTRAL, Location, PhaseKind, Power, ProvinceId, Unit, UnitType
from . import winter
from .bids import UNIT_ORDER_TYPES, Settlement, pool_key, is_spending_phase, settle
from .events import PrestigeEvents, PrestigeYear
from .checks import Checks, affordability_notes
from .neutrals import leash_reason, random_retreats, within_leash
from .state import lord_of, neutral_home, state_of, vassal_homes, with_state


BRIBED_ORDER_TYPES = (Hold, SupportHold, SupportMove, Convoy)
"""What a bribed unit may be ordered to do (2.5.3, 2.8.2)."""


class PrestigeRules:
    """The Crusader prestige rules (sections 2 and 3 of the rules text; docs/rules.md)."""

    def before_movement(self, variant: Variant, position: Position, orders: Sequence[Order]) -> MovementSetup:
        s = settle(variant, position, orders)
        before, after = state_of(position), state_of(s.position)
        on_board = units_by_province(s.position)
        new = {neutral_home(after, on_board[loc.province]): p for loc, p in after.vassals.items()
               if before.vassals.get(loc) != p}
        events = PrestigeEvents(ledger=s.ledger, rebellions=tuple(s.rebellions), bribed=dict(sorted(s.bribed.items())),
                                vassals=dict(sorted(new.items())))
        results, unit_orders = self._bribed_orders_checked(variant, s, orders)
        return MovementSetup(position=s.position, results=results, unit_orders=unit_orders,
                             commander=s.commanders, events=events)

    def _bribed_orders_checked(self, variant: Variant, s: Settlement, orders: Sequence[Order]
                               ) -> tuple[dict[int, OrderResult], dict[ProvinceId, tuple[int | None, UnitOrder]]]:
        """The orders written with the winning BRIBEs that cannot be carried out (a support out of
        reach, a convoy of nobody): the bribed unit holds, and the BRIBE's result says why."""
        results, unit_orders = dict(s.results), dict(s.unit_orders)
        board: Board | None = None
        for prov, briber in s.bribed.items():
            index, order = unit_orders.get(prov, (0, None))
            if index is not None or order is None or isinstance(order, Hold):
                continue    # a line of the briber's own (the engine judges it), or a hold
            board = board or Board(variant, s.position, s.commanders, self)
            _, why = check(board, cast(Order, order))   # UnitOrder: the common base of the unit orders
            if why is None:
                continue
            unit_orders[prov] = (None, Hold(briber, order.unit_type, order.location))
            for i, r in results.items():
                given = orders[i]
                if isinstance(given, Bribe) and given.location.province == prov \
                        and r.outcome is Outcome.SUCCEEDS:
                    results[i] = replace(r, reason=f"{r.reason}; the order given with it cannot be carried out "
                                                   f"({why.text}), so it holds")
        return results, unit_orders

    def units_moved(self, variant: Variant, position: Position, moved: Mapping[Location, Location],
                    annihilated: Sequence[tuple[Unit, Power | None]]) -> Position:
        """Where the neutrals now stand (their homes and lords go with them) and the annihilations (11).

        After a movement phase, the dislodged neutral units that may retreat keep their home and
        lord apart from the units on the board (the unit that dislodged one stands where it
        stands); after the retreats, each neutral that retreated takes its own with it."""
        state = state_of(position)
        neutral_moves = {src: dst for src, dst in moved.items()
                         if (u := position.unit_at(dst.province)) is not None and u.power == NEUTRAL}
        gone = {unit.location for unit, _ in annihilated}
        waiting = [d.unit for d in position.dislodged if d.unit.power == NEUTRAL and d.unit.location not in gone]
        dislodged_homes = {u.location: neutral_home(state, u, dislodged=True) for u in waiting}
        dislodged_vassals = {u.location: lord for u in waiting if (lord := lord_of(state, u, dislodged=True))}
        # what leaves its place on the board: the units that moved from it, and the dislodged
        # (a unit retreating leaves nothing there: the unit that dislodged it stays)
        retreating = {src for src in neutral_moves if src in state.dislodged_homes}
        left = (set(neutral_moves) - retreating) | gone | {u.location for u in waiting}
        homes = {loc: h for loc, h in state.neutral_homes.items() if loc not in left}
        vassals = {loc: p for loc, p in state.vassals.items() if loc not in left}
        for src, dst in neutral_moves.items():
            unit = Unit(NEUTRAL, units_by_province(position)[dst.province].type, src)
            home, lord = neutral_home(state, unit, dislodged=src in retreating), \
                lord_of(state, unit, dislodged=src in retreating)
            homes.pop(dst, None)
            vassals.pop(dst, None)
            if dst.province != home:
                homes[dst] = home
            if lord is not None:
                vassals[dst] = lord
        on_board = {u.location for u in position.units if u.power == NEUTRAL}
        homes = {loc: h for loc, h in homes.items() if loc in on_board}
        vassals = {loc: p for loc, p in vassals.items() if loc in on_board}
        score = dict(state.annihilations)
        for unit, by in annihilated:
            if by is not None and by != NEUTRAL:
                score[by] = score.get(by, 0) + 1          # the power that ordered the move (2.3.2, 2.3.3)
            loser = unit.power
            if loser == NEUTRAL:                          # a bought neutral costs its buyer (2.3.4)
                loser = state.bribed.get(unit.province) or lord_of(state, unit) or NEUTRAL
            if loser != NEUTRAL:
                score[loser] = score.get(loser, 0) - 1
        # A bribe commands a unit where it stands: one dislodged is its owner's again (decision 18).
        dislodged = {d.unit.province for d in position.dislodged}
        bribed = {p: b for p, b in state.bribed.items() if p not in dislodged}
        return with_state(position, neutral_homes=homes, vassals=vassals, annihilations=score, bribed=bribed,
                          dislodged_homes=dislodged_homes, dislodged_vassals=dislodged_vassals)

    def before_retreats(self, variant: Variant, position: Position, orders: Sequence[Order]) -> MovementSetup:
        """Vassals retreat as their lord orders; neutrals nobody commands, at random (3.4)."""
        state = state_of(position)
        commander: dict[ProvinceId, Power] = {}
        for d in position.dislodged:
            if d.unit.power == NEUTRAL:
                commander[d.unit.province] = lord_of(state, d.unit, dislodged=True) or NEUTRAL
        board = Board(variant, position, None, self)
        drawn = neutral_retreats(variant, position, lambda d: retreat_options(board, d))
        unit_orders: dict[ProvinceId, tuple[int | None, UnitOrder]] = {}
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
                   if isinstance(o, (Retreat, Move, Disband)) and o.location.province in drawn and o.power != NEUTRAL}
        return MovementSetup(position=position, results=results, unit_orders=unit_orders, commander=commander)

    def capture_owner(self, variant: Variant, position: Position, unit: Unit) -> Power | None:
        """Who takes the centre ``unit`` stands in after the fall (2.4.5, 2.4.6, 2.5.6, 2.8.5)."""
        state = state_of(position)
        if unit.province in state.bribed:
            return None                                 # a bribed unit captures for nobody
        if unit.power == NEUTRAL:
            lord = lord_of(state, unit)
            if lord is None or unit.province == neutral_home(state, unit):
                return NEUTRAL                          # its own lands stay neutral (2.4.1)
            return lord                                 # 2.4.6, 3.3
        if state.vassals and unit.province in vassal_homes(state, unit.power):
            return None                                 # the lord cannot take its vassal's home (2.4.5)
        return unit.power

    def retreat_options(self, variant: Variant, position: Position, dislodgement: Dislodgement,
                        options: Mapping[ProvinceId, tuple[Location, ...]]) -> Mapping[ProvinceId, tuple[Location, ...]]:
        """A vassal may retreat only to its home centre or next to it (2.4.4)."""
        state = state_of(position)
        unit = dislodgement.unit
        if unit.power != NEUTRAL or lord_of(state, unit, dislodged=True) is None:
            return options
        home = neutral_home(state, unit, dislodged=True)
        return {p: locs for p, locs in options.items() if within_leash(variant, home, p)}

    def home_centers(self, variant: Variant, position: Position, power: Power) -> Sequence[ProvinceId]:
        """Starting home centres plus seized fiefs (2.6)."""
        state = state_of(position)
        return state.home_centers.get(power, variant.home_centers(power))

    def new_year(self, variant: Variant, position: Position) -> tuple[Position, PrestigeYear]:
        """Lost fiefs, homeless neutrals, the recalculation (decisions 10, 11, 16, 19, 22)."""
        position, lost = drop_lost_fiefs(variant, position)
        position, year = winter.new_year(variant, position)
        return position, replace(year, fiefs_lost=lost) if lost else year

    def after_phase(self, variant: Variant, before: Position, adjudication: Adjudication) -> Adjudication:
        """Bribes last one movement phase (and its retreats): forget them after."""
        position = adjudication.position
        state = state_of(position)
        if state.bribed and position.phase.kind is not PhaseKind.RETREAT:
            return replace(adjudication, position=with_state(position, bribed={}))
        return adjudication


    def commanders(self, variant: Variant, position: Position) -> Mapping[ProvinceId, Power]:
        """Owners order their units, lords their vassals; a neutral nobody holds, nobody (2.4)."""
        state = state_of(position)
        out = owners_command(position)
        for p, power in out.items():
            if power == NEUTRAL:
                if position.phase.kind is PhaseKind.RETREAT:
                    unit = next(d.unit for d in position.dislodged if d.unit.province == p)
                    out[p] = lord_of(state, unit, dislodged=True) or NEUTRAL
                else:
                    out[p] = lord_of(state, units_by_province(position)[p]) or NEUTRAL
        return out

    def bid_units(self, variant: Variant, position: Position, power: Power,
                  orders: Sequence[Order]) -> Mapping[ProvinceId, frozenset[type]]:
        """A VASSAL bid would command its unit (2.4.1); a BRIBE, for holds, supports and convoys (2.5.3)."""
        if not is_spending_phase(position):
            return {}
        out: dict[ProvinceId, frozenset[type]] = {}
        for o in orders:
            if isinstance(o, (Vassal, Bribe)) and o.power == power and position.unit_at(o.location.province):
                kinds = UNIT_ORDER_TYPES if isinstance(o, Vassal) else BRIBED_ORDER_TYPES
                out[o.location.province] = out.get(o.location.province, frozenset()) | frozenset(kinds)
        return out


    def order_check(self, variant: Variant, position: Position, order: Order,
                    standing: Sequence[Order]) -> tuple[Reason | None, Reason | None] | None:
        """Prestige orders: spent only in spring and autumn movement (2.1), invalid outright or
        what they need (:class:`.checks.Checks`); a BRIBE's own order checked as the briber's.
        Neutral units a power orders: the vassal's leash (2.4.4); a unit it bribes may not move
        (2.5.3, 2.8.2)."""
        if isinstance(order, PRESTIGE_ORDER_TYPES):
            if not is_spending_phase(position):
                return Reason("prestige-wrong-phase", "prestige is spent only in spring and autumn movement phases "
                                                      "(rule 2.1)"), None
            checks = Checks(variant, position)
            why = checks.reason(order)
            if why is None and isinstance(order, Bribe) and order.order is not None:
                why = self.bribe_order_reason(variant, position, order, standing)
            return (why, None) if why is not None else (None, checks.needs(order))
        if position.phase.kind is not PhaseKind.MOVEMENT or not isinstance(order, UNIT_ORDER_TYPES):
            return None
        given = _bribe_order(order, standing)
        if given is not None:
            return given, None
        if not isinstance(order, Move):
            return None
        unit = position.unit_at(order.location.province)
        if unit is None or unit.power == order.power:
            return None
        vassal = lord_of(state_of(position), unit) == order.power or any(
            isinstance(o, Vassal) and o.power == order.power and o.location.province == unit.province
            for o in standing)
        if vassal and unit.power == NEUTRAL:
            home = neutral_home(state_of(position), unit)
            if not within_leash(variant, home, order.destination.province):
                near = sorted(p for p in {home} | set(variant.province_neighbours(home)) - {unit.province}
                              if _reaches(variant, unit, p))  # only where the unit itself can go
                return Reason("beyond-leash", leash_reason(variant, home), ", ".join(near)), None
            return None
        if any(isinstance(o, Bribe) and o.power == order.power and o.location.province == unit.province
               for o in standing):
            return Reason("bribed-unit-moves", "a bribed unit may only hold, support or convoy (rules 2.5.3, "
                                               "2.8.2)", f"{unit.short} H"), None
        return None


    @staticmethod
    def bribe_order_reason(variant: Variant, position: Position, order: Bribe, standing: Sequence[Order]) -> Reason | None:
        """Why the order given with a BRIBE cannot be the bribed unit's, or None."""
        unit = units_by_province(position)[order.location.province]     # checked: the BRIBE's unit is there
        if isinstance(order.order, Move):
            return Reason("bribed-unit-moves", "a bribed unit may only hold, support or convoy (rules 2.5.3, 2.8.2)",
                          f"BRIBE {unit.short} BID {order.bid} {unit.short} H")
        inner = check_order(variant, position, cast(Order, order.order), [*standing, order]).refusal
        return None if inner is None else replace(inner, text=f"the order given with the BRIBE: {inner.text}")

    def spendable(self, variant: Variant, position: Position, power: Power) -> int:
        """What ``power`` may spend now: its prestige, in spring and autumn movement (2.1)."""
        return state_of(position).prestige.get(power, 0) if is_spending_phase(position) else 0

    def order_candidates(self, variant: Variant, position: Position, power: Power) -> Sequence[Order]:
        """The prestige orders worth offering in a menu, at their least amounts (:mod:`.choices`)."""
        from .choices import candidates

        return candidates(variant, position, power)

    def supplied_by(self, variant: Variant, adjudication: Adjudication, result: OrderResult) -> str | None:
        """A neutral nobody commands holds, goes home or retreats at random (3.1, 3.4); a bribed
        unit carries out the order written with the winning BRIBE (2.5.3)."""
        order = result.order
        if order.power == NEUTRAL:
            return "random" if isinstance(order, (Retreat, Disband)) else "neutral"
        rule = adjudication.events.rule
        if isinstance(rule, PrestigeEvents) and isinstance(order, UnitOrder) \
                and rule.bribed.get(order.location.province) == order.power:
            return "bribe"
        return None

    def notes(self, variant: Variant, position: Position, power: Power, standing: Sequence[Order]) -> Mapping[Order, Reason]:
        """The orders ``power`` cannot pay for from what it holds (2.3.7; decision 12), and a BRIBE
        for a unit its own VASSAL bid is for: void if that bid wins (decision 23)."""
        out = dict(affordability_notes(variant, position, power, standing))
        vassal = {o.location.province for o in standing if isinstance(o, Vassal) and o.power == power}
        for o in standing:
            if isinstance(o, Bribe) and o.power == power and o.location.province in vassal:
                text = (f"if the VASSAL bid for {format_unit(o.unit_type, o.location)} wins, the unit is already {variant.power_name(power)}'s "
                        f"this season and this BRIBE is void (nothing spent)")
                out[o] = Reason("bribe-after-vassal", text if o not in out else f"{out[o].text}; {text}")
        return out


def _bribe_order(order: MovementOrder, standing: Sequence[Order]) -> Reason | None:
    """Why a line for a unit cannot be given when the power's BRIBE for that unit already gives it
    another order (the BRIBE's order is the one carried out, the line would be void: decision 18)."""
    bribe = next((o for o in reversed(standing) if isinstance(o, Bribe) and o.power == order.power
                  and o.location.province == order.location.province), None)
    if bribe is None or bribe.order is None or pool_key(bribe.order) == pool_key(order):
        return None
    return Reason("bribe-order-given", f"the BRIBE for {order.unit_text} already gives it its order "
                                       f"({bribe.order}), the one carried out if the bribe wins; a second "
                                       f"order for it would be void",
                  str(replace(bribe, order=order)))


def drop_lost_fiefs(variant: Variant, position: Position) -> tuple[Position, dict[Power, tuple[ProvinceId, ...]]]:
    """A seized fief another power now owns is no home centre any more (2.6.3; decision 19)."""
    state = state_of(position)
    homes: dict[Power, tuple[ProvinceId, ...]] = {}
    lost: dict[Power, tuple[ProvinceId, ...]] = {}
    for power, centres in state.home_centers.items():
        starting = set(variant.home_centers(power))
        keep = tuple(c for c in centres if c in starting or position.supply_centers.get(c) == power)
        if len(keep) != len(centres):
            lost[power] = tuple(c for c in centres if c not in keep)
        homes[power] = keep
    if not lost:
        return position, {}
    return with_state(position, home_centers=homes), lost


def neutral_retreats(variant: Variant, position: Position,
                     options: Callable[[Dislodgement], Mapping[ProvinceId, tuple[Location, ...]]]) -> dict[ProvinceId, Location | None]:
    """Random retreats of the dislodged neutrals nobody commands (3.4; decision 17)."""
    state = state_of(position)
    choices = [(d.unit, [loc for locs in options(d).values() for loc in locs])
               for d in position.dislodged if d.unit.power == NEUTRAL and lord_of(state, d.unit, dislodged=True) is None]
    drawn = random_retreats(state.seed, position.phase, choices)
    return {loc.province: dest for loc, dest in drawn.items()}


def _reaches(variant: Variant, unit: Unit, province: ProvinceId) -> bool:
    """Can ``unit`` move to ``province`` in one step (a fleet: to one of its coasts)?"""
    if unit.type is UnitType.ARMY:
        return variant.army_adjacent(unit.province, province)
    return bool(variant.fleet_can_reach(unit.location, province))
