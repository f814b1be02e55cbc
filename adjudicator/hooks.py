"""The seam between the classic rules and a rule module (the Crusader prestige rules).

:func:`adjudicator.adjudicate.adjudicate` asks a :class:`RuleHooks` object at these points,
and :class:`ClassicRules` answers them as the classic game does. With ``"prestige"`` in
``position.rules`` the engine uses ``adjudicator.prestige.rules.PrestigeRules()`` instead.

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
- ``new_year(variant, position)`` -> ``(position, events)``: once a year, after the fall
  (after supply centres changed owner, before the adjustment phase is decided or skipped).
- ``after_phase(variant, before, adjudication)`` -> adjudication: last look at every phase's
  result (events carry ``annihilated`` with the power that ordered the dislodging move).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence

from .orders import Order, UnitOrder, any_prestige, is_prestige
from .position import Dislodgement, Position
from .results import Adjudication, OrderResult, Outcome
from .vocab import Location, Power, ProvinceId, Unit


@dataclass(frozen=True)
class MovementSetup:
    """What a rule module decides before the units of a movement phase move."""

    position: Position
    results: Mapping[int, OrderResult] = field(default_factory=dict)
    unit_orders: Mapping[ProvinceId, tuple[int | None, UnitOrder]] = field(default_factory=dict)
    commander: Mapping[ProvinceId, Power] = field(default_factory=dict)
    events: dict[str, Any] = field(default_factory=dict)


class RuleHooks(Protocol):
    def before_movement(self, variant, position: Position, orders: Sequence[Order]) -> MovementSetup: ...

    def units_moved(self, variant, position: Position, moved: Mapping[Location, Location],
                    annihilated: Sequence[tuple[Unit, Power | None]]) -> Position: ...

    def before_retreats(self, variant, position: Position, orders: Sequence[Order]) -> MovementSetup: ...

    def capture_owner(self, variant, position: Position, unit: Unit) -> Power | None: ...

    def retreat_options(self, variant, position: Position, dislodgement: Dislodgement,
                        options: Mapping[ProvinceId, tuple[Location, ...]]
                        ) -> Mapping[ProvinceId, tuple[Location, ...]]: ...

    def home_centers(self, variant, position: Position, power: Power) -> Sequence[ProvinceId]: ...

    def new_year(self, variant, position: Position) -> tuple[Position, dict[str, Any]]: ...

    def after_phase(self, variant, before: Position, adjudication: Adjudication) -> Adjudication: ...


class ClassicRules:
    """The classic game: nothing beyond the rulebook."""

    def before_movement(self, variant, position: Position, orders: Sequence[Order]) -> MovementSetup:
        if not any_prestige(orders):
            return MovementSetup(position=position)
        results = {i: OrderResult(o, Outcome.INVALID, "prestige orders need the prestige rules")
                   for i, o in enumerate(orders) if is_prestige(o)}
        return MovementSetup(position=position, results=results)

    def units_moved(self, variant, position, moved, annihilated) -> Position:
        return position

    def before_retreats(self, variant, position: Position, orders: Sequence[Order]) -> MovementSetup:
        return MovementSetup(position=position)

    def capture_owner(self, variant, position: Position, unit: Unit) -> Power | None:
        return unit.power

    def retreat_options(self, variant, position, dislodgement, options):
        return options

    def home_centers(self, variant, position: Position, power: Power) -> Sequence[ProvinceId]:
        return variant.home_centers(power)

    def new_year(self, variant, position: Position) -> tuple[Position, dict[str, Any]]:
        return position, {}

    def after_phase(self, variant, before: Position, adjudication: Adjudication) -> Adjudication:
        return adjudication


CLASSIC = ClassicRules()


def rules_for(position: Position) -> RuleHooks:
    """The hooks for ``position``'s rules: the prestige module's when it is on."""
    if "prestige" in position.rules:
        from .prestige.rules import PrestigeRules

        return PrestigeRules()
    return CLASSIC
