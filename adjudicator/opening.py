"""The opening position of a variant, with the opening state of each rule module it plays with."""

from __future__ import annotations

from collections.abc import Iterable

from .modules import rule_modules
from .position import Position
from .variant import Variant


def starting_position(variant: Variant, rules: Iterable[str] = ()) -> Position:
    """The variant's opening position, with each rule module's opening state."""
    all_rules = frozenset(variant.rules) | frozenset(rules)
    position = Position(
        variant=variant.name,
        phase=variant.start_phase,
        units=variant.starting_units,
        supply_centers=variant.starting_owners,
        rules=all_rules,
    )
    for module in rule_modules(all_rules):
        position = position.with_module_state(module.name, module.initial_state(variant, position))
    return position
