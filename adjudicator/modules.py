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
from typing import Any, Protocol
from collections.abc import Callable, Iterable, Mapping

from .errors import CrusaderError
from .hooks import CLASSIC, RuleHooks
from .orders import CLASSIC_ORDER_TYPES
from .position import Position
from .results import Adjudication
from .variant import Variant
from .vocab import Location, Power, ProvinceId, Unit, UnitType

_PACKAGES = {"prestige": "adjudicator.prestige"}
"""Where each known rule module lives: the package that registers it when imported."""


class UnknownRuleError(CrusaderError, ValueError):
    """A rule module no package provides."""


class Names(Protocol):
    """How a front end names things in words (``bot.codec.spelled``), for a rule module's words."""

    def place(self, location: Location) -> str:
        """``Spain (north coast)``."""
        ...

    def power(self, power: Power | None) -> str:
        """``The Principality of Antioch``; ``the neutrals`` for ``NEU``."""
        ...

    def titled(self, power: Power) -> str:
        """``The Principality of Antioch (ANT)``."""
        ...

    def unit(self, unit_type: UnitType | None, location: Location) -> str:
        """``A Nicaea``."""
        ...

    def owned(self, unit: Unit) -> str:
        """``A Tarsus (Antioch)``, ``A Damascus (neutral)``."""
        ...

    def order(self, order: Any) -> str:
        """Any order in words, without its power."""
        ...


@dataclass(frozen=True, slots=True)
class Mark:
    """How a picture draws a rule module's order: ``kind`` (the module's word, which the picture's
    legend names and its glyph shows: prestige's ``vassal``, ``bribe``, ``fief``, ``rebel``,
    ``loyalty``, ``lend``), the ``power`` that gave it, the ``province`` it is about (None: it has
    no place on the map, the legend lists it), ``on_unit`` (it is about the unit there, not the
    centre), the ``amount`` it bids or gives (None: none), ``to`` the power it is for, and
    ``lord``: when it succeeds, its power holds the unit in ``province`` (a won VASSAL bid)."""

    kind: str
    power: Power
    province: ProvinceId | None = None
    on_unit: bool = False
    amount: int | None = None
    to: Power | None = None
    lord: bool = False


@dataclass(frozen=True, slots=True)
class MenuEntry:
    """How a menu of orders (Discord's) offers one of a rule module's orders. ``kind``: the kind
    it belongs to, one line in the menu of kinds (in ``rank`` order), with its ``label``
    (``VASSAL``) and what it does (``about``); ``subject``: what this order is about, in words
    (the unit, the centre, the power; empty when the kind has nothing to choose, as SECURE
    LOYALTY); ``template``: its notation without the amount the player gives, or the whole
    order when it takes none (``amount`` False); ``least``: the least amount it may take;
    ``title`` and ``prompt``: the amount form's title and the name of its field."""

    kind: str
    rank: int
    label: str
    about: str
    subject: str
    template: str
    amount: bool
    least: int | None
    title: str
    prompt: str


@dataclass(frozen=True, slots=True)
class Ledger:
    """A power's account of what a rule module's orders spend in a phase (prestige): what it had
    (``start``), ``received`` (loans), ``spent`` (each order with its amount) and has ``left``."""

    power: Power
    start: int
    received: int
    spent: tuple[tuple[Any, int], ...]
    left: int


@dataclass(frozen=True, slots=True)
class ReportPart:
    """A rule module's part of a phase's results report: ``key`` (for a front end that shows some
    part its own way), ``title``, and its ``lines`` (none: the part is left out)."""

    key: str
    title: str
    lines: tuple[str, ...]


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

    What the front ends show of it, each a question they ask and never work out themselves:
    ``spell(order, names)``: one of its orders in words (:class:`Names` names the places, powers,
    units and orders); ``mark(order)``: how a picture draws one of its orders (:class:`Mark`);
    ``lords(position)``: the units held for another power on ``position``'s board (a vassal's
    lord), by province; ``commanded(rule)``: the units its settled orders (``Events.rule``) gave
    another power to command this season, by province (a briber); ``spent(rule, order)``: what an
    order cost its power; ``ledger(rule)``: each power's account of the phase (:class:`Ledger`);
    ``report(variant, before, adjudication, names)``: its parts of a
    phase's results report (:class:`ReportPart`, after what changed on the board);
    ``menu(order, names)``: how a menu offers one of its orders (:class:`MenuEntry`);
    ``annihilation(unit, by, commander, names)``: what an annihilation means under it, said beside
    the annihilation (or None); ``seed(position)``: the seed its random draws use, as the position
    carries it, and ``with_seed(position, seed)`` the position with its draws seeded by ``seed``.
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
    spell: Callable[[Any, Names], str] | None = None
    mark: Callable[[Any], Mark | None] | None = None
    lords: Callable[[Position], Mapping[ProvinceId, Power]] | None = None
    commanded: Callable[[object | None], Mapping[ProvinceId, Power]] | None = None
    spent: Callable[[object | None, Any], int] | None = None
    ledger: Callable[[object | None], tuple[Ledger, ...]] | None = None
    report: Callable[[Variant, Position, Adjudication, Names], tuple[ReportPart, ...]] | None = None
    menu: Callable[[Any, Names], MenuEntry] | None = None
    annihilation: Callable[[Unit, Power | None, Power | None, Names], str | None] | None = None
    seed: Callable[[Position], int | None] | None = None
    with_seed: Callable[[Position, int], Position] | None = None


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
    module = _owner(order)
    return module.order_kind(order) if module is not None and module.order_kind is not None else "order"


def module_of(position: Position) -> RuleModule | None:
    """The rule module ``position`` plays with, or None (the classic game)."""
    modules = _modules_of(position.rules)
    return modules[0] if modules else None


def _owner(order: Any) -> RuleModule | None:
    """The registered module whose order ``order`` is (None for the classic game's)."""
    return _REGISTERED.get(getattr(order, "rule_module", ""))


def spell(order: Any, names: Names) -> str | None:
    """A rule module's order in words (:attr:`RuleModule.spell`); None for any other order."""
    module = _owner(order)
    return module.spell(order, names) if module is not None and module.spell is not None else None


def mark(order: Any) -> Mark | None:
    """How a picture draws a rule module's order (:class:`Mark`); None for any other order."""
    module = _owner(order)
    return module.mark(order) if module is not None and module.mark is not None else None


def lords(position: Position) -> Mapping[ProvinceId, Power]:
    """The units on ``position``'s board held for a power other than their owner (a vassal's lord),
    by province: empty in the classic game."""
    module = module_of(position)
    return module.lords(position) if module is not None and module.lords is not None else {}


def commanded(position: Position, rule: object | None) -> Mapping[ProvinceId, Power]:
    """The units the rule module's orders settled in a phase played from ``position`` (``rule``:
    its ``Events.rule``) gave another power to command that season (a briber), by province."""
    module = module_of(position)
    return module.commanded(rule) if module is not None and module.commanded is not None else {}


def spent(position: Position, rule: object | None, order: Any) -> int:
    """What ``order``'s power spent on it in a phase played from ``position`` (``rule``: its
    module's ``Events.rule``): 0 for an order that cost nothing."""
    module = module_of(position)
    return module.spent(rule, order) if module is not None and module.spent is not None else 0


def ledger(position: Position, rule: object | None) -> tuple[Ledger, ...]:
    """Each power's account (:class:`Ledger`) of a phase played from ``position`` (``rule``: its
    module's ``Events.rule``), by power; none in the classic game."""
    module = module_of(position)
    return module.ledger(rule) if module is not None and module.ledger is not None else ()


def menu_entry(order: Any, names: Names) -> MenuEntry | None:
    """How a menu offers a rule module's order (:class:`MenuEntry`); None for any other order."""
    module = _owner(order)
    return module.menu(order, names) if module is not None and module.menu is not None else None


def report_parts(variant: Variant, before: Position, adjudication: Adjudication, names: Names
                 ) -> tuple[ReportPart, ...]:
    """The rule module's parts of the results report of the phase ``before`` was adjudicated into
    ``adjudication`` (:class:`ReportPart`); none in the classic game."""
    module = module_of(before)
    if module is None or module.report is None:
        return ()
    return module.report(variant, before, adjudication, names)


def annihilation_note(position: Position, unit: Unit, by: Power | None, commander: Power | None,
                      names: Names) -> str | None:
    """What the annihilation of ``unit`` (``by`` the power that ordered the dislodging move,
    ``commander`` the power that commanded the unit) means under ``position``'s rule module."""
    module = module_of(position)
    if module is None or module.annihilation is None:
        return None
    return module.annihilation(unit, by, commander, names)


def module_seed(position: Position) -> int | None:
    """The seed ``position``'s rule module draws its random choices from (prestige: the neutrals'
    random retreats), as the position carries it; None when it draws none."""
    module = module_of(position)
    return module.seed(position) if module is not None and module.seed is not None else None


def seeded(position: Position, seed: int) -> Position:
    """``position`` with its rule module's random draws seeded by ``seed`` (a new game's); the
    position itself when its module draws nothing at random."""
    module = module_of(position)
    return module.with_seed(position, seed) if module is not None and module.with_seed is not None else position


def standing_column(position: Position) -> tuple[str, Mapping[Power, int]] | None:
    """The standings column ``position``'s rule module adds (its name, and each power's number:
    prestige), or None."""
    module = module_of(position)
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
