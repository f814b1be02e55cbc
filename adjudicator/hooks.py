"""The seam between the classic rules and a rule module (such as the Crusader prestige rules).

:func:`adjudicator.adjudicate.adjudicate` asks a :class:`RuleHooks` object at these points,
and :class:`ClassicRules` answers them as the classic game does. A rule module
(:mod:`adjudicator.modules`) brings hooks of its own, which the engine asks instead for a
position whose ``rules`` name the module; the classic rules go through the same calls.

- ``before_movement(variant, position, orders)`` -> :class:`MovementSetup`: before a movement
  phase, with every order given (input order). It settles the rule module's own orders and
  says who commands each unit this season. ``results`` holds the result of every input line it
  decided (by index; those lines go no further). ``unit_orders`` fixes the order of units the
  module decides (province -> (input index, or None for an order the judge supplies; order));
  all other unit orders are judged by the classic pipeline, which also validates these. Orders of
  the module's own types never reach the movement resolver. ``commander`` (province -> power)
  is used for "not your unit" and for the self-dislodgement rules.
- ``units_moved(variant, position, moved, annihilated)`` -> position: right after a movement or
  retreat phase is resolved, before anything else happens to the board. ``moved`` maps each unit's
  old location to its new one; ``annihilated`` lists each unit dislodged with nowhere to go, with
  the commander of its attacker (or None). The rule module's own bookkeeping goes here.
- ``before_retreats(variant, position, orders)`` -> :class:`MovementSetup`: before a retreat
  phase; ``commander`` says who orders each dislodged unit, ``unit_orders`` gives the judge's
  orders for units the module decides (index None; a player's legal order replaces them).
- ``capture_owner(variant, position, unit)`` -> the power that owns a supply centre where
  ``unit`` stands after the fall, or None to leave the owner unchanged.
- ``retreat_options(variant, position, dislodgement, options)`` -> the subset of ``options``
  (province -> reachable locations) the unit may really retreat to (a vassal's leash).
- ``home_centers(variant, position, power)``: where ``power`` may build.
- ``new_year(variant, position)`` -> ``(position, year)``: once a year, after the fall
  (after supply centres changed owner, before the adjustment phase is decided or skipped);
  ``year`` is the module's own value of what the end of the year did (``Events.rule_year``), or None.
- ``after_phase(variant, before, adjudication)`` -> adjudication: last look at every phase's
  result (``events.annihilated`` names the power that ordered each dislodging move).
- ``supplied_by(variant, adjudication, result)`` -> why the judge gave the order of ``result``
  (one of ``adjudication.implicit``) when the rule module gave it: ``bribe`` (the order written
  with a winning BRIBE), ``neutral`` (a neutral unit nobody commands), ``random`` (its retreat
  drawn at random), or None.

The questions asked before a phase is played (:mod:`adjudicator.turn`):

- ``commanders(variant, position)`` -> province -> power: who orders each unit this phase
  (each unit on the board in a movement phase, each dislodged unit in a retreat phase) before
  any bid of the phase is settled; ``NEU`` for a unit nobody orders.
- ``bid_units(variant, position, power, orders)`` -> province -> order types: the units that
  ``power``'s bids among ``orders`` would command if they win, and the orders each may take.
- ``order_check(variant, position, order, standing)`` -> ``(refusal, note)`` or None: the
  module's word on an order, ``standing`` being its power's orders so far: why it is refused
  (its own orders' rules; limits on the units it governs), or what it needs to succeed (a
  :class:`~adjudicator.results.Reason` each); None when the classic checks alone decide. Asked
  at submission, and by adjudication for a module's order in a phase the module does not settle.
- ``notes(variant, position, power, standing)`` -> order -> note: what the module has to say
  of a power's whole set of standing orders (prestige: an order beyond the prestige it holds).
- ``spendable(variant, position, power)`` -> what the power may spend in this phase (prestige).
- ``order_candidates(variant, position, power)`` -> the module's own orders worth offering the
  power in a menu, each with its least amount: :func:`adjudicator.turn.rule_choices` keeps those
  the checks accept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol
from collections.abc import Mapping, Sequence

from .orders import Order, RuleOrder, UnitOrder, any_rule_order, is_rule_order
from .position import Dislodgement, Position
from .results import Adjudication, OrderResult, Outcome, Reason
from .vocab import Location, PhaseKind, Power, ProvinceId, Unit
from .variant import Variant


@dataclass(frozen=True)
class MovementSetup:
    """What a rule module decides before the units of a movement phase move."""

    position: Position
    results: Mapping[int, OrderResult] = field(default_factory=dict)
    unit_orders: Mapping[ProvinceId, tuple[int | None, UnitOrder]] = field(default_factory=dict)
    commander: Mapping[ProvinceId, Power] = field(default_factory=dict)
    events: object | None = None
    """The module's own value of what it settled (``Events.rule``), or None."""


class RuleHooks(Protocol):
    def before_movement(self, variant: Variant, position: Position, orders: Sequence[Order]) -> MovementSetup: ...

    def units_moved(self, variant: Variant, position: Position, moved: Mapping[Location, Location],
                    annihilated: Sequence[tuple[Unit, Power | None]]) -> Position: ...

    def before_retreats(self, variant: Variant, position: Position, orders: Sequence[Order]) -> MovementSetup: ...

    def capture_owner(self, variant: Variant, position: Position, unit: Unit) -> Power | None: ...

    def retreat_options(self, variant: Variant, position: Position, dislodgement: Dislodgement,
                        options: Mapping[ProvinceId, tuple[Location, ...]]
                        ) -> Mapping[ProvinceId, tuple[Location, ...]]: ...

    def home_centers(self, variant: Variant, position: Position, power: Power) -> Sequence[ProvinceId]: ...

    def new_year(self, variant: Variant, position: Position) -> tuple[Position, object | None]: ...

    def after_phase(self, variant: Variant, before: Position, adjudication: Adjudication) -> Adjudication: ...

    def commanders(self, variant: Variant, position: Position) -> Mapping[ProvinceId, Power]: ...

    def bid_units(self, variant: Variant, position: Position, power: Power,
                  orders: Sequence[Order]) -> Mapping[ProvinceId, frozenset[type]]: ...

    def order_check(self, variant: Variant, position: Position, order: Order,
                    standing: Sequence[Order]) -> tuple[Reason | None, Reason | None] | None: ...

    def notes(self, variant: Variant, position: Position, power: Power, standing: Sequence[Order]) -> Mapping[Order, Reason]: ...

    def spendable(self, variant: Variant, position: Position, power: Power) -> int: ...

    def order_candidates(self, variant: Variant, position: Position, power: Power) -> Sequence[Order]: ...

    def supplied_by(self, variant: Variant, adjudication: Adjudication, result: OrderResult) -> str | None: ...


def owners_command(position: Position) -> dict[ProvinceId, Power]:
    """Each unit ordered by its owner (the classic rules): the board's units, or in a retreat
    phase the dislodged ones."""
    if position.phase.kind is PhaseKind.RETREAT:
        return {d.unit.province: d.unit.power for d in position.dislodged}
    return {u.location.province: u.power for u in position.units}


class ClassicRules:
    """The classic game: nothing beyond the rulebook."""

    def before_movement(self, variant: Variant, position: Position, orders: Sequence[Order]) -> MovementSetup:
        if not any_rule_order(orders):
            return MovementSetup(position=position)
        results = {i: OrderResult(o, Outcome.INVALID, _rules_off(o).text)
                   for i, o in enumerate(orders) if is_rule_order(o)}
        return MovementSetup(position=position, results=results)

    def units_moved(self, variant: Variant, position: Position, moved: Mapping[Location, Location],
                    annihilated: Sequence[tuple[Unit, Power | None]]) -> Position:
        return position

    def before_retreats(self, variant: Variant, position: Position, orders: Sequence[Order]) -> MovementSetup:
        return MovementSetup(position=position)

    def capture_owner(self, variant: Variant, position: Position, unit: Unit) -> Power | None:
        return unit.power

    def retreat_options(self, variant: Variant, position: Position, dislodgement: Dislodgement,
                        options: Mapping[ProvinceId, tuple[Location, ...]]) -> Mapping[ProvinceId, tuple[Location, ...]]:
        return options

    def home_centers(self, variant: Variant, position: Position, power: Power) -> Sequence[ProvinceId]:
        return variant.home_centers(power)

    def new_year(self, variant: Variant, position: Position) -> tuple[Position, object | None]:
        return position, None

    def after_phase(self, variant: Variant, before: Position, adjudication: Adjudication) -> Adjudication:
        return adjudication

    def commanders(self, variant: Variant, position: Position) -> Mapping[ProvinceId, Power]:
        return owners_command(position)

    def bid_units(self, variant: Variant, position: Position, power: Power,
                  orders: Sequence[Order]) -> Mapping[ProvinceId, frozenset[type]]:
        return {}

    def order_check(self, variant: Variant, position: Position, order: Order,
                    standing: Sequence[Order]) -> tuple[Reason | None, Reason | None] | None:
        return (_rules_off(order), None) if is_rule_order(order) else None

    def notes(self, variant: Variant, position: Position, power: Power, standing: Sequence[Order]) -> Mapping[Order, Reason]:
        return {}

    def spendable(self, variant: Variant, position: Position, power: Power) -> int:
        return 0

    def order_candidates(self, variant: Variant, position: Position, power: Power) -> Sequence[Order]:
        return ()

    def supplied_by(self, variant: Variant, adjudication: Adjudication, result: OrderResult) -> str | None:
        return None


def _rules_off(order: RuleOrder) -> Reason:
    """Why a rule module's order is refused where its module is not in play."""
    name = order.rule_module
    return Reason(f"{name}-rules-off", f"{name} orders need the {name} rules")


CLASSIC = ClassicRules()
