"""The adjudication pipeline: ``adjudicate(variant, position, orders) -> Adjudication``, pure.

1. Check every order (:mod:`.validate`): an illegal order gets ``INVALID`` with its reason and
   is ignored (its unit holds). Of several legal orders to one unit the last counts; the earlier
   ones fail ("replaced by a later order").
2. Resolve the phase (:mod:`.movement`, :mod:`.retreat`, :mod:`.adjustment`).
3. Make the next position, skipping phases with nothing to do: a retreat phase only when a
   dislodged unit has somewhere to go (one with nowhere is annihilated at once); after the fall
   (movement or retreats) supply centres change owner where a unit stands, then the adjustment
   phase only if some power has a build it can make or a unit to remove. A power with neither
   units nor centres is eliminated.

Rule modules plug in through :mod:`.hooks`. ``events`` is an :class:`~.events.Events` value:
dislodgements, standoffs, annihilations (with the power that ordered the dislodging move),
disbands, changes of owner, builds, removals, eliminations, victory, and the rule module's own.
"""

from __future__ import annotations

from dataclasses import replace
from typing import cast
from collections.abc import Iterable, Mapping, Sequence

from .adjustment import allowance, resolve_adjustments
from .events import Annihilation, CentreChange, Events
from .hooks import MovementSetup, RuleHooks
from .modules import rules_for
from .movement import resolve_movement
from .orders import (Build, Convoy, Disband, Hold, Move, MovementOrder, Order, Retreat, RuleOrder, SupportHold, SupportMove,
                     Waive, is_rule_order)
from .position import Position, units_by_province
from .results import Adjudication, OrderResult, Outcome, Phrase, Reason
from .retreat import resolve_retreats
from .validate import Board, check, retreat_options
from .variant import Variant
from .vocab import NEUTRAL, PhaseKind, Power, ProvinceId, Season, Unit

SUCCEEDS, FAILS, INVALID = Outcome.SUCCEEDS, Outcome.FAILS, Outcome.INVALID
MOVEMENT, RETREAT = PhaseKind.MOVEMENT, PhaseKind.RETREAT
FALL = Season.FALL

_UnitOrder = Hold | Move | SupportHold | SupportMove | Convoy | Retreat | Disband | Build


def adjudicate(variant: Variant, position: Position, orders: Sequence[Order]) -> Adjudication:
    """Adjudicate ``position``'s phase with ``orders`` (in the order given) and make the next position."""
    orders = tuple(orders)
    hooks = rules_for(position)
    kind = position.phase.kind
    if kind is MOVEMENT:
        adjudication = _movement(variant, position, orders, hooks)
    elif kind is RETREAT:
        adjudication = _retreats(variant, position, orders, hooks)
    else:
        adjudication = _adjustments(variant, position, orders, hooks)
    return hooks.after_phase(variant, position, adjudication)


def _board(variant: Variant, position: Position, hooks: RuleHooks,
           commander: Mapping[ProvinceId, Power] | None = None) -> Board:
    return Board(variant, position, commander, hooks)


def _check(board: Board, order: Order) -> tuple[Order | None, Reason | None]:
    """:func:`check`, with a rule module's orders (settled by the module in the phases where it
    does, never here) refused with the module's reason."""
    if is_rule_order(order):
        checked = board.hooks.order_check(board.variant, board.position, order, ())
        assert checked is not None      # a rule order exists only where its module checks it
        return None, checked[0]
    return check(board, order)


def _choose(board: Board, candidates: Iterable[tuple[int | None, Order]], results: list[OrderResult | None]
            ) -> tuple[dict[ProvinceId, int | None], dict[ProvinceId, _UnitOrder]]:
    """Check each (index, order); the last legal order to a unit replaces earlier ones.
    Returns the index of each unit's order (None for the judge's own) and each unit's order."""
    chosen: dict[ProvinceId, int | None] = {}
    orders: dict[ProvinceId, _UnitOrder] = {}
    checks = board.checks     # the phase's own order types (never a rule module's): checked at once
    for i, order in candidates:
        checker = checks.get(type(order))
        understood, why = checker(board, order) if checker is not None else _check(board, order)
        if why is not None:
            if i is not None:
                results[i] = OrderResult(order, INVALID, why.text)
            continue
        assert understood is not None and not isinstance(understood, (Waive, RuleOrder))  # accepted: a unit's order
        key = understood.location.province
        if key in chosen:
            j, earlier = chosen[key], orders[key]
            if j is not None:
                results[j] = OrderResult(earlier, FAILS, Phrase("replaced by a later order for ",
                                                                *_unit_of(board, earlier)))
        chosen[key] = i
        orders[key] = understood
    return chosen, orders


def _unit_of(board: Board, order: _UnitOrder) -> tuple[Unit | str]:
    """The unit ``order`` commands as a reason names it: the unit itself, as it stands (a
    dislodged one in a retreat phase), or the order's words for it."""
    d = board.dislodgement(order.location.province) if board.kind is RETREAT else None
    unit = d.unit if d is not None else board.units.get(order.location.province)
    if unit is not None and unit.type is order.unit_type and unit.location == order.location:
        return (unit,)
    return (order.unit_text,)


def _start(setup: MovementSetup, orders: tuple[Order, ...]
           ) -> tuple[list[OrderResult | None], list[tuple[int | None, Order]]]:
    """The results the rule module decided (by index, ``None`` elsewhere), and the unit orders
    left to check: the module's own orders for its units first, then every other line given."""
    results: list[OrderResult | None] = [None] * len(orders)
    if not setup.results and not setup.unit_orders:
        return results, list[tuple[int | None, Order]](enumerate(orders))
    for i, r in setup.results.items():
        results[i] = r
    if not setup.unit_orders:
        return results, [(i, o) for i, o in enumerate(orders) if results[i] is None]
    # The module's unit orders are the engine's own order values (UnitOrder is their common base).
    module_orders = [(i, cast(_UnitOrder, o)) for i, o in setup.unit_orders.values()]
    fixed = {i: o for i, o in module_orders if i is not None}
    candidates: list[tuple[int | None, Order]] = [(None, o) for i, o in module_orders if i is None]
    candidates += [(i, fixed.get(i, o)) for i, o in enumerate(orders) if results[i] is None]
    return results, candidates


def _all(results: list[OrderResult | None]) -> tuple[OrderResult, ...]:
    """The results once every order has one."""
    return tuple(cast(list[OrderResult], results))


def _collect(results: list[OrderResult | None], implicit: list[OrderResult], chosen: Mapping[ProvinceId, int | None],
             outcomes: Mapping[ProvinceId, OrderResult]) -> None:
    """Each unit's result, at the index of its order (or with the judge's implicit orders)."""
    for p, result in outcomes.items():
        i = chosen.get(p)
        if i is None:
            implicit.append(result)
        else:
            results[i] = result


# -- movement ---------------------------------------------------------------------------------


def _movement(variant: Variant, position: Position, orders: tuple[Order, ...], hooks: RuleHooks) -> Adjudication:
    setup = hooks.before_movement(variant, position, orders)
    pos = setup.position
    results, candidates = _start(setup, orders)
    board = _board(variant, pos, hooks, setup.commander)
    chosen, unit_orders = _choose(board, candidates, results)
    # the movement phase's checks accept movement orders only
    outcome = resolve_movement(variant, units_by_province(pos), cast(Mapping[ProvinceId, MovementOrder], unit_orders),
                               setup.commander)
    implicit: list[OrderResult] = []
    _collect(results, implicit, chosen, outcome.results)

    events = Events(MOVEMENT, dislodged=tuple(outcome.dislodged), standoffs=tuple(sorted(outcome.standoffs)),
                    rule=setup.events)
    after = pos.with_changes(units=outcome.units, dislodged=outcome.dislodged, standoffs=outcome.standoffs,
                             phase=pos.phase.retreat())
    keep, annihilated = [], []
    if outcome.dislodged:
        retreat_board = _board(variant, after, hooks)
        for d in outcome.dislodged:
            if retreat_options(retreat_board, d):
                keep.append(d)
            else:
                annihilated.append((d.unit, outcome.dislodged_by.get(d.unit.province)))
        if annihilated:
            events = replace(events, annihilated=tuple(Annihilation(u, by) for u, by in annihilated))
    index = units_by_province(pos)
    moved = {index[p].location: loc for p, loc in outcome.moved.items()}
    after = hooks.units_moved(variant, after, moved, annihilated)
    if keep:
        nxt = after.with_changes(dislodged=tuple(keep))
    else:
        nxt, events = _season_over(variant, after.with_changes(dislodged=(), standoffs=(), phase=pos.phase), hooks,
                                   events)
    nxt, events = _eliminate(variant, nxt, events)
    return Adjudication(results=_all(results), position=nxt, implicit=tuple(implicit), events=events)


# -- retreats -----------------------------------------------------------------------------------


def _retreats(variant: Variant, position: Position, orders: tuple[Order, ...], hooks: RuleHooks) -> Adjudication:
    setup = hooks.before_retreats(variant, position, orders)
    position = setup.position
    results, candidates = _start(setup, orders)
    chosen, unit_orders = _choose(_board(variant, position, hooks, setup.commander), candidates, results)
    # the retreat phase's checks accept retreats and disbands only
    outcome = resolve_retreats(variant, position, cast(Mapping[ProvinceId, Retreat | Disband], unit_orders))
    implicit: list[OrderResult] = []
    _collect(results, implicit, chosen, outcome.results)
    events = Events(RETREAT, disbanded=tuple(outcome.disbanded), rule=setup.events)
    after = position.with_changes(units=outcome.units, dislodged=(), standoffs=())
    moved = {r.order.location: r.order.destination for r in outcome.results.values()
             if isinstance(r.order, Retreat) and r.outcome is SUCCEEDS}
    after = hooks.units_moved(variant, after, moved, ())
    nxt, events = _eliminate(variant, *_season_over(variant, after, hooks, events))
    return Adjudication(results=_all(results), position=nxt, implicit=tuple(implicit), events=events)


# -- the turn of the season and the year --------------------------------------------------------


def _season_over(variant: Variant, position: Position, hooks: RuleHooks, events: Events) -> tuple[Position, Events]:
    """The position after a season's movement (and retreats): spring -> fall, fall -> winter."""
    if position.phase.season is not FALL:
        return position.with_changes(phase=position.phase.next_movement()), events
    owners = dict(position.supply_centers)
    centres = variant.supply_centers
    capture_owner = hooks.capture_owner
    changes = []
    for unit in position.units:
        p = unit.location.province
        if p not in centres:
            continue
        new = capture_owner(variant, position, unit)
        if new is not None and owners.get(p) != new:
            changes.append(CentreChange(p, owners.get(p, NEUTRAL), new))
            owners[p] = new
    position, year = hooks.new_year(variant, position.with_changes(supply_centers=owners))
    events = replace(events, centres=tuple(changes), rule_year=year, victory=winners(variant, position))
    due = any(allowance(position, power, hooks.home_centers(variant, position, power)) for power in variant.powers)
    return position.with_changes(phase=position.phase.adjustment() if due else position.phase.next_movement()), events


def winners(variant: Variant, position: Position) -> tuple[Power, ...]:
    """The powers that own enough supply centres to win (rule 1.2: centres owned directly; a
    vassal's home stays neutral), in the order of their codes."""
    return winners_among(variant, position.supply_centers)


def winners_among(variant: Variant, owners: Mapping[ProvinceId, Power]) -> tuple[Power, ...]:
    """:func:`winners` of the supply centres' ``owners`` (province -> power, ``NEU`` for neutral)."""
    counts: dict[Power, int] = {}
    for owner in owners.values():
        counts[owner] = counts.get(owner, 0) + 1
    return tuple(sorted(p for p, n in counts.items() if p != NEUTRAL and n >= variant.victory_centers))


def _eliminate(variant: Variant, position: Position, events: Events) -> tuple[Position, Events]:
    """The position with every power that has neither units nor centres now eliminated."""
    owners = set(position.supply_centers.values())
    if owners.issuperset(variant.powers):       # every power owns a centre: none is out
        return position, events
    alive = set(position.powers_in_game(variant.powers))
    out = [p for p in variant.powers if p not in position.eliminated and p not in alive]
    if not out:
        return position, events
    return (position.with_changes(eliminated=position.eliminated | set(out)),
            replace(events, eliminated=tuple(sorted(out))))


# -- adjustments --------------------------------------------------------------------------------


def _adjustments(variant: Variant, position: Position, orders: tuple[Order, ...], hooks: RuleHooks) -> Adjudication:
    results: list[OrderResult | None] = [None] * len(orders)
    board = _board(variant, position, hooks)
    legal: list[tuple[int, Build | Disband | Waive]] = []      # every legal order counts, in the order given (a repeated one fails, DATC 6.I.7, 6.J.2)
    for i, order in enumerate(orders):
        understood, why = _check(board, order)
        if why is not None:
            results[i] = OrderResult(order, INVALID, why.text)
        else:
            legal.append((i, cast(Build | Disband | Waive, understood)))  # the adjustment checks accept no other
    outcome = resolve_adjustments(variant, position, legal)
    for i, (order, result, reason) in outcome.results.items():
        results[i] = OrderResult(order, result, reason)
    implicit = [OrderResult(order, result, reason) for order, result, reason in outcome.implicit]
    events = Events(PhaseKind.ADJUSTMENT, built=tuple(outcome.built), removed=tuple(outcome.removed))
    nxt, events = _eliminate(variant, position.with_changes(units=outcome.units, phase=position.phase.next_movement()),
                             events)
    return Adjudication(results=_all(results), position=nxt, implicit=tuple(implicit), events=events)
