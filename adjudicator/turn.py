"""What each power may and must do in a phase: the rules questions asked before adjudication.

The service and the front ends ask these, and decide none of them themselves:

- :func:`commands`: the units a power orders this phase (its own, its vassals for the year,
  the units its standing VASSAL and BRIBE bids would command) and the orders each may take;
- :func:`duty`: what it must decide (orders for its units; each dislodged unit with its legal
  retreats; builds with their sites, or disbands with the units that may go);
  :func:`still_to_decide`: what its orders so far leave open; :func:`to_decide`: the powers that have
  anything to decide (a retreat or adjustment phase where none has is adjudicated at once);
  :func:`retreats`: every dislodged unit with who orders it and where it may go (a neutral's
  random retreat is drawn among these);
- :func:`choices`: every order a power may give a unit now (what a menu offers), found by
  :func:`check_order` itself; :func:`rule_choices`, the rule module's own orders it may give;
- :func:`check_order` and :func:`submit`: whether an order, and a power's whole set of orders,
  can be given, with the reason as a value (:class:`~adjudicator.results.Reason`); what a
  later order replaces (:func:`slot`);
- :func:`winners`, :func:`game_over`, :func:`survivors`: who has won, who is still playing (the
  one answer: the front ends ask it);
- after a phase, :func:`supplied_by`: why the judge gave a unit the order it carried out.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple
from collections.abc import Collection, Iterator, Mapping, Sequence

from .adjudicate import winners, winners_among
from .adjustment import allowance, civil_disorder
from .errors import IllegalOrderError
from .hooks import RuleHooks
from .modules import rules_for
from .orders import (Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold, SupportMove, Waive,
                     is_rule_order)
from .position import Dislodgement, Position
from .results import Adjudication, OrderResult, Phrase, Reason, parts_of
from .validate import Board, check, retreat_options
from .vocab import NEUTRAL, Location, PhaseKind, Power, ProvinceId, ProvinceKind, Unit, UnitType
from .variant import Variant

MOVEMENT, RETREAT, ADJUSTMENT = PhaseKind.MOVEMENT, PhaseKind.RETREAT, PhaseKind.ADJUSTMENT
UNIT_ORDERS = (Hold, Move, SupportHold, SupportMove, Convoy)
RETREAT_ORDERS = (Retreat, Disband)


@dataclass(frozen=True)
class Command:
    """A unit a power orders this phase, and the kinds of order it may be given.

    ``by`` says why the power orders it: ``own``, ``vassal`` (held in vassaldom this year),
    ``bid`` (a standing VASSAL or BRIBE bid would command it: its order is carried out if the
    bid wins) or ``dislodged`` (a retreat phase's unit: retreat or disband).
    """

    unit: Unit
    orders: tuple[type, ...]
    by: str = "own"


@dataclass(frozen=True)
class Duty:
    """What one power has to decide in this phase.

    ``units``: in a movement phase, the units it orders (it must give each an order, or it holds);
    ``spendable``: what it may spend there (a rule module's prestige; 0 in the classic game).
    ``retreats``: in a retreat phase, each dislodged unit it orders with where it may go (it may
    also disband). ``builds`` (at ``sites``) or ``disbands``: in an adjustment phase; with
    disbands, ``removable`` lists the units it may remove in the order civil disorder would
    remove them (the first ``disbands`` go when it gives no order).
    """

    power: Power
    units: tuple[Command, ...] = ()
    spendable: int = 0
    retreats: tuple[tuple[Unit, tuple[Location, ...]], ...] = ()
    builds: int = 0
    sites: tuple[ProvinceId, ...] = ()
    disbands: int = 0
    removable: tuple[Unit, ...] = ()

    @property
    def must_decide(self) -> bool:
        """Is there anything this power must decide (orders, retreats, builds or disbands)?"""
        return bool(self.units or self.retreats or self.builds or self.disbands)


def _unit_orders(variant: Variant, unit: Unit, kinds: Collection[type] = UNIT_ORDERS) -> tuple[type, ...]:
    """The movement orders ``unit`` may take: convoys only for a fleet at sea."""
    at_sea = unit.type is UnitType.FLEET and variant.provinces[unit.province].kind is ProvinceKind.SEA
    return tuple(k for k in UNIT_ORDERS if k in kinds and (k is not Convoy or at_sea))


def commands(variant: Variant, position: Position, power: Power, standing: Sequence[Order] = (), *,
             who: Mapping[ProvinceId, Power] | None = None) -> tuple[Command, ...]:
    """The units ``power`` orders in ``position``'s phase, ``standing`` being its orders so far.

    Movement: its own units, its vassals, and the units its bids in ``standing`` would command.
    Retreat: the dislodged units it orders. Adjustment: its units (any may be disbanded when it
    has disbands to make). ``who``: the rule module's commanders of the position, when the caller
    has them already (asking of every power in turn).
    """
    hooks = rules_for(position)
    kind = position.phase.kind
    if kind is RETREAT:
        who = who if who is not None else hooks.commanders(variant, position)
        return tuple(Command(d.unit, RETREAT_ORDERS, "dislodged") for d in position.dislodged
                     if who.get(d.unit.province) == power)
    if kind is not MOVEMENT:
        return tuple(Command(u, (Disband,)) for u in position.units_of(power))
    who = who if who is not None else hooks.commanders(variant, position)
    out = []
    for unit in position.units:
        if who.get(unit.location.province) == power:
            out.append(Command(unit, _unit_orders(variant, unit), "own" if unit.power == power else "vassal"))
    bids = hooks.bid_units(variant, position, power, standing)
    for province, kinds in bids.items():
        bidden = position.unit_at(province)
        if bidden is not None and who.get(province) != power:
            out.append(Command(bidden, _unit_orders(variant, bidden, kinds), "bid"))
    return tuple(out)


def duty(variant: Variant, position: Position, power: Power, *,
         who: Mapping[ProvinceId, Power] | None = None) -> Duty:
    """What ``power`` has to decide in ``position``'s phase (see :class:`Duty`); ``who``, as
    :func:`commands` takes it."""
    if power in position.eliminated or power == NEUTRAL:
        return Duty(power)
    hooks = rules_for(position)
    kind = position.phase.kind
    if kind is MOVEMENT:
        return Duty(power, units=commands(variant, position, power, who=who),
                    spendable=hooks.spendable(variant, position, power))
    if kind is RETREAT:
        who = who if who is not None else hooks.commanders(variant, position)
        ordered = [d for d in position.dislodged if who.get(d.unit.province) == power]
        return Duty(power, retreats=tuple(zip((d.unit for d in ordered), _retreats(variant, position, hooks, ordered))))
    allowed = allowance(position, power, hooks.home_centers(variant, position, power))
    removable: tuple[Unit, ...] = ()
    if allowed.disbands:
        mine = position.units_of(power)
        removable = tuple(u for u, _ in civil_disorder(variant, position, power, len(mine)))
    return Duty(power, builds=allowed.builds, sites=allowed.sites, disbands=allowed.disbands, removable=removable)


def retreats(variant: Variant, position: Position) -> tuple[tuple[Dislodgement, Power, tuple[Location, ...]], ...]:
    """In a retreat phase, every dislodged unit with who orders it (``NEU`` for a neutral unit
    nobody commands, whose retreat the judge draws at random among its places) and the places it
    may retreat to (the provinces in order, each coast of one); empty in any other phase."""
    if position.phase.kind is not RETREAT:
        return ()
    hooks = rules_for(position)
    who = hooks.commanders(variant, position)
    places = _retreats(variant, position, hooks, position.dislodged)
    return tuple((d, who.get(d.unit.province, NEUTRAL), p) for d, p in zip(position.dislodged, places))


def _retreats(variant: Variant, position: Position, hooks: RuleHooks,
              dislodged: Sequence[Dislodgement]) -> list[tuple[Location, ...]]:
    """Where each of the ``dislodged`` units may retreat to, as the engine allows it."""
    if not dislodged:
        return []
    board = Board(variant, position, hooks=hooks)
    out = []
    for d in dislodged:
        options = retreat_options(board, d)
        out.append(tuple(loc for p in sorted(options) for loc in options[p]))
    return out


def still_to_decide(variant: Variant, position: Position, power: Power, standing: Sequence[Order]) -> Duty:
    """What ``power`` has still to decide in ``position``'s phase, ``standing`` being its orders
    so far: its :func:`duty` less what they settle (the units they order, the retreats, the
    builds and waives, the removals). :func:`duty` says whether it must decide at all."""
    todo = duty(variant, position, power)
    ordered: set[str] = {o.location.province for o in standing if not isinstance(o, Waive) and not is_rule_order(o)}
    ordered |= {subject for o in standing if is_rule_order(o) for kind, subject in o.also_replaces() if kind == "unit"}
    kind = position.phase.kind
    if kind is MOVEMENT:
        return replace(todo, units=tuple(c for c in commands(variant, position, power, standing)
                                         if c.unit.province not in ordered))
    if kind is RETREAT:
        return replace(todo, retreats=tuple(r for r in todo.retreats if r[0].province not in ordered))
    made = sum(isinstance(o, (Build, Waive)) for o in standing)
    removed = [o for o in standing if isinstance(o, Disband)]
    return replace(todo, builds=max(0, todo.builds - made), sites=tuple(p for p in todo.sites if p not in ordered),
                   disbands=max(0, todo.disbands - len(removed)),
                   removable=tuple(u for u in todo.removable if u.province not in ordered))


def to_decide(variant: Variant, position: Position) -> frozenset[Power]:
    """The powers that must decide something in ``position``'s phase.

    Empty for a retreat phase where only neutral units nobody commands were dislodged (they
    retreat at random) and for an adjustment phase where nobody can build or must disband:
    such a phase is adjudicated at once. (A movement phase is never skipped: it moves the
    neutrals; a power that only holds prestige may bid there, but need not.)
    """
    who = rules_for(position).commanders(variant, position) if position.phase.kind is not ADJUSTMENT else None
    return frozenset(p for p in variant.powers if duty(variant, position, p, who=who).must_decide)


def survivors(variant: Variant, position: Position) -> tuple[Power, ...]:
    """The powers still in the game, by code: not eliminated, owning a centre or a unit
    (:meth:`~adjudicator.position.Position.powers_in_game`, in the variant's order there)."""
    return tuple(sorted(position.powers_in_game(variant.powers)))


def game_over(variant: Variant, position: Position) -> bool:
    """Has some power won (:func:`winners`), or is no more than one power left?"""
    return bool(winners(variant, position)) or len(survivors(variant, position)) <= 1


# -- checking orders ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """What the judge makes of one order given at submission.

    ``understood``: the order as the judge reads it (unit types filled in from the board), None
    when it is refused; ``refusal``: why it is refused; ``note``: for an accepted order that only
    the adjudication can settle (a bid that may lose), what it needs; ``replaces``: the standing
    order it takes the place of (:func:`slot`).
    """

    order: Order
    understood: Order | None = None
    refusal: Reason | None = None
    note: Reason | None = None
    replaces: Order | None = None

    @property
    def accepted(self) -> bool:
        return self.refusal is None


@dataclass(frozen=True)
class Submission:
    """A power's orders checked together: a :class:`Verdict` for each order given, in order, and
    the power's standing orders after them (the accepted ones, each in the place of the earlier
    order of its :func:`slot`)."""

    verdicts: tuple[Verdict, ...]
    standing: tuple[Order, ...]


class Slot(NamedTuple):
    """What a later order replaces: ``unit``/province (a unit's order, a build or disband there),
    ``vassal``/``bribe``/``rebel``/``fief``/province, ``lend``/power, ``loyalty``."""

    kind: str
    subject: str = ""

    def __str__(self) -> str:
        return f"{self.kind}:{self.subject}" if self.subject else self.kind


def slot(order: Order) -> Slot | None:
    """The place ``order`` holds among a power's orders: a later order with the same slot
    replaces it. None for a waive: every waive gives up one more build."""
    if isinstance(order, Waive):
        return None
    if is_rule_order(order):
        return Slot(*order.slot())
    return Slot("unit", order.location.province)     # a unit's order, a build or a disband


def replaced(order: Order, standing: Sequence[Order], variant: Variant | None = None,
             position: Position | None = None) -> list[Order]:
    """The standing orders ``order`` takes the place of: the one of its :func:`slot` first, then
    those of the slots a rule order also replaces (a BRIBE written with its unit's order: the
    power's own line for that unit).

    Given the board (``variant``, ``position``), in an adjustment phase a build, waive or removal
    that would be one more than the power's allowance takes the place of the oldest standing one
    (:func:`over_allowance`): the power changes its mind without withdrawing anything first."""
    place = slot(order)
    covered = {Slot(*s) for s in order.also_replaces()} if is_rule_order(order) else set()
    first = [o for o in standing if place is not None and slot(o) == place][:1]
    gone = first + [o for o in standing if slot(o) in covered]
    if not gone and variant is not None and position is not None and position.phase.kind is PhaseKind.ADJUSTMENT:
        gone = over_allowance(variant, position, order, standing)
    return gone


def over_allowance(variant: Variant, position: Position, order: Order, standing: Sequence[Order]) -> list[Order]:
    """In an adjustment phase, the standing order that ``order`` (a build, waive or removal) takes
    the place of when the power's allowance (:func:`duty`) is used already: a build replaces the
    oldest standing build or waive, a waive the oldest standing build (the oldest waive when there
    is none), a removal the oldest standing removal. Empty while the allowance is not used, and
    when nothing of the kind stands (a build where none is allowed is refused, not replaced)."""
    if not isinstance(order, (Build, Waive, Disband)):
        return []
    todo = duty(variant, position, order.power)
    if isinstance(order, Disband):
        removals: list[Order] = [o for o in standing if isinstance(o, Disband)]
        return removals[:1] if removals and len(removals) >= todo.disbands else []
    made: list[Order] = [o for o in standing if isinstance(o, (Build, Waive))]
    if not made or len(made) < todo.builds:
        return []
    builds: list[Order] = [o for o in made if isinstance(o, Build)]
    return (builds or made)[:1] if isinstance(order, Waive) else made[:1]


def _board(variant: Variant, position: Position, power: Power, bids: Sequence[Order], hooks: RuleHooks) -> Board:
    """The board on which ``power``'s orders are checked: each unit ordered by its commander this
    phase, and the units ``power``'s bids would command by ``power``."""
    commander = dict(hooks.commanders(variant, position))
    for province in hooks.bid_units(variant, position, power, bids):
        commander[province] = power
    return Board(variant, position, commander, hooks)


def check_order(variant: Variant, position: Position, order: Order, standing: Sequence[Order] = ()) -> Verdict:
    """Can ``order`` be given in ``position``'s phase, ``standing`` being its power's orders so far
    (its bids there let it order the units they bid for)? One order alone: what a power's whole
    set allows (builds, prestige) is :func:`submit`'s."""
    hooks = rules_for(position)
    board = None if is_rule_order(order) else _board(variant, position, order.power, standing, hooks)
    return _verdict(variant, position, order, standing, hooks, board)


def _verdict(variant: Variant, position: Position, order: Order, standing: Sequence[Order], hooks: RuleHooks,
             board: Board | None) -> Verdict:
    """:func:`check_order`'s verdict on ``order``, on a ``board`` built for its power already (one
    board for many orders of one power: :func:`choices`)."""
    own = hooks.order_check(variant, position, order, standing)
    refusal, note = own if own is not None else (None, None)
    if is_rule_order(order):
        return Verdict(order, None if refusal else order, refusal, note)
    if board is None:
        board = _board(variant, position, order.power, standing, hooks)
    understood, why = check(board, order)
    if why is not None or refusal is not None:
        return Verdict(order, refusal=why or refusal)
    return Verdict(order, understood, note=note)


def choices(variant: Variant, position: Position, power: Power, province: ProvinceId,
            standing: Sequence[Order] = ()) -> tuple[Order, ...]:
    """Every order ``power`` may give now for the unit in ``province`` (or, in an adjustment
    phase, for the build site ``province``), ``standing`` being its orders so far: each as
    :func:`check_order` understands it, and only those it accepts.

    Movement: hold; a move to every place the unit reaches by itself or, an army on the coast,
    by convoy through the fleets at sea; a support to hold of each unit in reach; a support of
    each move the unit could support; a fleet at sea, the convoy of each army it is needed for.
    Retreat: each legal retreat, and disband. Adjustment: a build of each unit type (and coast)
    at a site, a removal of a unit. Nothing for a unit ``power`` does not order.
    """
    hooks = rules_for(position)
    board = _board(variant, position, power, standing, hooks)
    out: list[Order] = []
    for order in _candidates(board, power, province):
        verdict = _verdict(variant, position, order, standing, hooks, board)
        if verdict.accepted and verdict.understood is not None and verdict.understood not in out:
            out.append(verdict.understood)
    return tuple(out)


def rule_choices(variant: Variant, position: Position, power: Power, standing: Sequence[Order] = ()
                 ) -> tuple[Verdict, ...]:
    """The rule module's own orders ``power`` may give now (prestige: VASSAL, BRIBE, SEIZE FIEF,
    REBEL, SECURE LOYALTY, LEND), ``standing`` being its orders so far: each at its least amount
    (the player sets the amount), as :func:`check_order` accepts it, with what it needs to succeed
    (``note``: the least bid that can win against the unit's controller, for instance)."""
    hooks = rules_for(position)
    out: list[Verdict] = []
    for order in hooks.order_candidates(variant, position, power):
        verdict = _verdict(variant, position, order, standing, hooks, None)
        if verdict.accepted:
            out.append(verdict)
    return tuple(out)


def _candidates(board: Board, power: Power, province: ProvinceId) -> Iterator[Order]:
    """The orders worth asking :func:`check_order` about for ``province`` (a superset of the legal ones)."""
    variant, position, tables = board.variant, board.position, board.tables
    kind = position.phase.kind
    if kind is RETREAT:
        gone = board.dislodgement(province)
        if gone is None:
            return
        retreating = gone.unit
        yield Disband(power, retreating.type, retreating.location)
        around = (variant.army_neighbours(province) if retreating.type is UnitType.ARMY
                  else {loc.province for loc in variant.fleet_neighbours(retreating.location)})
        for p in sorted(around):
            for loc in _locations(variant, retreating.type, p):
                yield Retreat(power, retreating.type, retreating.location, loc)
        return
    unit = position.unit_at(province)
    if kind is not MOVEMENT:
        if unit is not None:
            yield Disband(power, unit.type, unit.location)
            return
        for unit_type in UnitType:
            for loc in _locations(variant, unit_type, province):
                yield Build(power, unit_type, loc)
        return
    if unit is None:
        return
    here = unit.location
    reach = sorted(tables.reach.get((unit.type, here.province, here.coast), ()))
    yield Hold(power, unit.type, here)
    places = list(reach)
    if unit.type is UnitType.ARMY and province in tables.shores:
        places += sorted(p for p in tables.shores if p not in reach and p != province)
    for p in places:
        for loc in _locations(variant, unit.type, p):
            yield Move(power, unit.type, here, loc)
    for other in position.units:
        there = other.location
        if there.province == province:
            continue
        if there.province in reach:
            yield SupportHold(power, unit.type, here, other.type, there)
        for p in reach:
            if p != there.province:
                yield SupportMove(power, unit.type, here, other.type, there, Location(p))
        if unit.type is UnitType.FLEET and province in tables.seas and other.type is UnitType.ARMY \
                and there.province in tables.shores:
            for p in sorted(tables.shores):
                if p != there.province and board.on_minimal_route(province, there.province, p):
                    yield Convoy(power, unit.type, here, other.type, there, Location(p))


def _locations(variant: Variant, unit_type: UnitType, province: ProvinceId) -> tuple[Location, ...]:
    """Where a unit of ``unit_type`` may stand in ``province``: each coast of it for a fleet."""
    if unit_type is UnitType.ARMY:
        return (Location(province),) if variant.can_hold(UnitType.ARMY, Location(province)) else ()
    return tuple(variant.fleet_locations(province))


def legal(variant: Variant, position: Position, order: Order, standing: Sequence[Order] = ()) -> Order:
    """``order`` as the judge understands it, or :class:`~adjudicator.errors.IllegalOrderError`
    with the reason."""
    verdict = check_order(variant, position, order, standing)
    if verdict.refusal is not None:
        raise IllegalOrderError(verdict.refusal, order)
    assert verdict.understood is not None, "an order not refused is understood"
    return verdict.understood


def submit(variant: Variant, position: Position, power: Power, given: Sequence[Order],
           standing: Sequence[Order] = ()) -> Submission:
    """``power``'s orders ``given`` (in the order written), checked one by one and as a set
    against its ``standing`` orders of the phase.

    Each accepted order takes the place of the standing order of the same :func:`slot` (and of
    the slots a rule order says it also replaces: a BRIBE with its unit's order, the power's
    own line for that unit). In an adjustment phase, a build or waive beyond the builds allowed,
    or a removal beyond those due, takes the place of the oldest standing one of its kind
    (:func:`over_allowance`); one where none is allowed is refused. A rule module may add notes on
    the whole set (prestige: an order beyond the prestige the power holds after its orders above
    it, accepted since a loan may arrive).
    """
    now = list(standing)
    verdicts = []
    # a unit a bid of this submission is for may be ordered on any line of it, above the bid too
    hooks = rules_for(position)
    bids = [o for o in given if hooks.bid_units(variant, position, power, [o])
            and check_order(variant, position, o, now).accepted]
    for order in given:
        verdict = check_order(variant, position, order, now + [b for b in bids if b not in now])
        if verdict.accepted:
            gone = replaced(order, now, variant, position)
            for o in gone:
                now.remove(o)
            now.append(order)
            verdict = replace(verdict, replaces=next(iter(gone), None))
        verdicts.append(verdict)
    notes = hooks.notes(variant, position, power, now)
    if notes:
        verdicts = [replace(v, note=_both(v.note, notes[v.order])) if v.accepted and v.order in notes else v
                    for v in verdicts]
    return Submission(tuple(verdicts), tuple(now))


def supplied_by(variant: Variant, adjudication: Adjudication, result: OrderResult) -> str:
    """Why the judge gave the order of ``result``, one of ``adjudication.implicit``: ``no-order``
    (its commander gave the unit none: it holds), ``disorder`` (a removal in civil disorder),
    ``neutral`` (a neutral unit nobody commands), ``random`` (such a unit's retreat, drawn at
    random) or ``bribe`` (the order written with a winning BRIBE)."""
    why = rules_for(adjudication.position).supplied_by(variant, adjudication, result)
    if why is not None:
        return why
    return "disorder" if isinstance(result.order, Disband) else "no-order"


def _both(needs: Reason | None, note: Reason) -> Reason:
    """An order's note on the whole set (``note``), after what the order itself needs, if anything."""
    return note if needs is None else Reason(note.code, Phrase(*parts_of(needs.text), "; ", *parts_of(note.text)))


__all__ = ["Command", "Duty", "Slot", "Submission", "Verdict", "check_order", "choices", "commands", "duty",
           "game_over", "legal", "over_allowance", "replaced", "retreats", "rule_choices", "slot", "still_to_decide", "submit",
           "supplied_by", "survivors", "to_decide", "winners", "winners_among"]
