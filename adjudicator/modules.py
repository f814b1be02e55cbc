"""Rule modules: rules a variant or a position turns on by name, on top of the classic game.

A rule module is a package of its own that imports the core and registers itself with
:func:`register` when it is imported: its hooks (:mod:`.hooks`), its part of a position (the
:class:`~adjudicator.position.Position` field of its name) and how that part is read from and
written to a position document, and its own order types. The core finds a module by the name
``position.rules`` or a variant's ``rules`` give it (:func:`rule_module`), importing its package
the first time it is asked for; it never imports a module's package otherwise. The classic rules
are the :data:`~adjudicator.hooks.CLASSIC` hooks every position without a module plays by.

``prestige`` (``adjudicator.prestige``, the Crusader prestige rules) is the one module there is.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Iterable, Mapping

from .errors import CrusaderError
from .hooks import CLASSIC, RuleHooks
from .orders import CLASSIC_ORDER_TYPES
from .position import Position
from .vocab import Power

_PACKAGES = {"prestige": "adjudicator.prestige"}
"""Where each known rule module lives: the package that registers it when imported."""


class UnknownRuleError(CrusaderError, ValueError):
    """A rule module no package provides."""


@dataclass(frozen=True)
class RuleModule:
    """A rule module as the core sees it.

    ``name``: as ``rules`` names it, and the position field that carries its state.
    ``hooks``: its answers at the engine's seam. ``initial_state(variant, position)``: its part
    of an opening position. ``keys``: the position document keys it reads and writes;
    ``read_state(variant, position, doc)`` builds its part of a position from a document (a
    :class:`~adjudicator.errors.DocumentError` for a bad one), ``write_state(position)`` gives
    its keys of the position's document. ``order_types``: its own orders; ``notation``: a
    reader for each of them, by its first word, in the judge's notation
    (:data:`adjudicator.notation.Reader`). ``write_events(rule)`` and ``write_year(year)``: the
    result document's ``events`` keys of its values in :class:`~adjudicator.events.Events`
    (``rule``, ``rule_year``); ``read_events(variant, doc)`` reads both back. ``order_kind(order)``:
    what one of its orders is, for the words of its outcome: ``bid`` (won or lost), ``loan`` (lent
    or not), ``pledge`` (a promise that holds for the season), else ``order``.
    ``standing(position)``: the module's own column of the standings, per power (prestige), named
    ``standing_name``.
    """

    name: str
    hooks: RuleHooks
    initial_state: Callable[[Any, Any], Any]
    keys: frozenset[str] = frozenset()
    read_state: Callable[[Any, Any, Mapping[str, Any]], Any] | None = None
    write_state: Callable[[Any], dict[str, Any]] | None = None
    order_types: tuple[type, ...] = ()
    notation: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    write_events: Callable[[object | None], dict[str, Any]] | None = None
    write_year: Callable[[object | None], dict[str, Any]] | None = None
    read_events: Callable[[Any, Mapping[str, Any]], tuple[object | None, object | None]] | None = None
    order_kind: Callable[[Any], str] | None = None
    standing: Callable[[Any], Mapping[Power, int]] | None = None
    standing_name: str = ""


_REGISTERED: dict[str, RuleModule] = {}


def register(module: RuleModule) -> RuleModule:
    """Make ``module`` known by its name (a module's package calls this when imported)."""
    _REGISTERED[module.name] = module
    _modules_of.cache_clear()
    return module


def known_rules() -> frozenset[str]:
    """The names of every rule module there is."""
    return frozenset(_PACKAGES) | frozenset(_REGISTERED)


def rule_module(name: str) -> RuleModule:
    """The rule module called ``name``, its package imported the first time it is asked for."""
    if name not in _REGISTERED:
        if name not in _PACKAGES:
            raise UnknownRuleError(f"unknown rule module {name!r}; known: {', '.join(sorted(known_rules()))}")
        importlib.import_module(_PACKAGES[name])
    return _REGISTERED[name]


def rule_modules(rules: Iterable[str]) -> tuple[RuleModule, ...]:
    """The modules ``rules`` turns on, by name."""
    return _modules_of(frozenset(rules))


@functools.lru_cache(maxsize=16)
def _modules_of(rules: frozenset[str]) -> tuple[RuleModule, ...]:
    return tuple(rule_module(name) for name in sorted(rules))


def all_rule_modules() -> tuple[RuleModule, ...]:
    """Every rule module there is (each package imported)."""
    return rule_modules(known_rules())


def all_order_types() -> tuple[type, ...]:
    """The classic game's order types and every rule module's."""
    return CLASSIC_ORDER_TYPES + tuple(t for module in all_rule_modules() for t in module.order_types)


def order_kind(order: Any) -> str:
    """What ``order`` is: ``unit`` for the classic game's orders, else its rule module's word
    (:attr:`RuleModule.order_kind`: ``bid``, ``loan``, ``pledge``), ``order`` when it has none."""
    if type(order) in CLASSIC_ORDER_TYPES:
        return "unit"
    module = _REGISTERED.get(getattr(order, "rule_module", ""))
    return module.order_kind(order) if module is not None and module.order_kind is not None else "order"


def standing_column(position: Position) -> tuple[str, Mapping[Power, int]] | None:
    """The standings column ``position``'s rule module adds (its name, and each power's number:
    prestige), or None."""
    modules = _modules_of(position.rules)
    module = modules[0] if modules else None
    if module is None or module.standing is None:
        return None
    return module.standing_name, module.standing(position)


def rules_for(position: Position) -> RuleHooks:
    """The hooks ``position`` is adjudicated with: its rule module's, else the classic rules'."""
    modules = _modules_of(position.rules)
    if not modules:
        return CLASSIC
    if len(modules) > 1:
        raise UnknownRuleError(f"one rule module at a time: {', '.join(m.name for m in modules)}")
    return modules[0].hooks
