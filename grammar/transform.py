"""From parse tree to order values: a stateless :class:`lark.Transformer`.

The transformer knows the variant's names (to turn words into provinces and powers) and
nothing else; it keeps no state between calls. Each order comes out with an empty power and
a :class:`Reading` that says which powers the line named, so that the caller can settle
whose order it is.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass, replace
from operator import attrgetter
from typing import NamedTuple

from lark import Token, Transformer

from adjudicator.orders import (
    Bribe, Build, Convoy, Disband, Hold, Lend, Move, Order, Rebel, Retreat, SecureLoyalty,
    SeizeFief, SupportHold, SupportMove, Vassal, Waive,
)
from adjudicator.vocab import Location, Power, UnitType

from .errors import OrderError
from .names import NameIndex, resolve_location, resolve_power

NO_POWER = Power("")
"""The power of an order whose line did not say whose it is."""


class Span(NamedTuple):
    """Where some words stood in the line: 0-based start, end exclusive."""

    start: int
    end: int

    def error(self, error: OrderError) -> OrderError:
        error.column, error.end_column = self.start + 1, self.end + 1
        return error


@dataclass(frozen=True)
class Phrase:
    words: tuple[str, ...]
    span: Span

    @property
    def text(self) -> str:
        return " ".join(self.words)


@dataclass(frozen=True)
class UnitRef:
    owner: Power | None
    owner_span: Span | None
    unit_type: UnitType | None
    location: Location


class Reading(NamedTuple):
    """One parsed line: the order (power still empty) and the powers the line named."""

    order: Order
    prefix: Power | None = None
    prefix_span: Span | None = None
    owner: Power | None = None
    owner_span: Span | None = None


def with_power(order: Order, power: Power) -> Order:
    """``order`` given by ``power`` (a one-line BRIBE's unit order too)."""
    if isinstance(order, Bribe) and order.order is not None:
        return replace(order, power=power, order=_with_field(order.order, power))
    return _with_field(order, power)


def _with_field(order: Order, power: Power) -> Order:
    """``dataclasses.replace(order, power=power)`` in a fraction of the time, for the order
    classes whose ``__init__`` only stores the fields (frozen dataclasses without a
    ``__post_init__``, the power their first field): the unit orders, which have slots, are
    made again with the other fields read at once; the others, which have a ``__dict__``, are
    copied with the power changed. Either way the same value."""
    cls = type(order)
    copy = _COPIES.get(cls)
    if copy is None:
        copy = _COPIES[cls] = _copy_of(cls, order)
    if copy is _REPLACE:
        return replace(order, power=power)
    if copy is _DICT:
        new = object.__new__(cls)
        fields = new.__dict__
        fields.update(order.__dict__)
        fields["power"] = power
        return new
    return cls(power, *copy(order))


_REPLACE, _DICT = "replace", "dict"


def _copy_of(cls: type, order: Order):
    """How :func:`_with_field` copies an order of ``cls``: ``_DICT``, ``_REPLACE``, or a getter of
    the fields after the power."""
    names = [f.name for f in fields(cls)] if is_dataclass(cls) else []
    if hasattr(cls, "__post_init__") or names[:1] != ["power"]:
        return _REPLACE
    if hasattr(order, "__dict__") and not hasattr(cls, "__slots__"):
        return _DICT
    return attrgetter(*names[1:]) if len(names) > 2 else _REPLACE


_COPIES: dict[type, object] = {}


def _tokens(children, kind: str) -> list[Token]:
    return [c for c in children if isinstance(c, Token) and c.type == kind]


def _of(children, cls):
    return [c for c in children if isinstance(c, cls)]


def _located(span: Span, resolve, *args):
    """``resolve(*args)``, a name error located at ``span``."""
    try:
        return resolve(*args)
    except OrderError as err:
        raise span.error(err) from None


class OrderBuilder(Transformer):
    """Tree -> :class:`Reading`. Raises :class:`OrderError` (wrapped by lark in a VisitError)."""

    def __init__(self, index: NameIndex) -> None:
        super().__init__(visit_tokens=False)
        self.index = index

    # -- names ----------------------------------------------------------------------

    def name(self, children) -> Phrase:
        return Phrase(tuple(str(t) for t in children), Span(children[0].start_pos, children[-1].end_pos))

    def place(self, children) -> Location:
        name, *coast = _of(children, Phrase)
        span = Span(name.span.start, (coast[0] if coast else name).span.end)
        return _located(span, resolve_location, self.index, name.words, coast[0].words if coast else None)

    def _power(self, phrase: Phrase) -> Power:
        return _located(phrase.span, resolve_power, self.index, phrase.text)

    def _unit_type(self, children) -> UnitType | None:
        tokens = _tokens(children, "UNIT")
        return UnitType.parse(tokens[0]) if tokens else None

    def owned_unit(self, children) -> UnitRef:
        owner = children[0]
        return UnitRef(self._power(owner), owner.span, self._unit_type(children), _of(children, Location)[0])

    def typed_unit(self, children) -> UnitRef:
        return UnitRef(None, None, self._unit_type(children), _of(children, Location)[0])

    def bare_unit(self, children) -> UnitRef:
        return UnitRef(None, None, None, children[0])

    # -- unit orders ----------------------------------------------------------------

    @staticmethod
    def _reading(order: Order, unit: UnitRef) -> Reading:
        return Reading(order, owner=unit.owner, owner_span=unit.owner_span)

    def hold(self, children) -> Reading:
        u = children[0]
        return self._reading(Hold(NO_POWER, u.unit_type, u.location), u)

    def move(self, children) -> Reading:
        u, dest = children[0], _of(children, Location)[0]
        via = bool(_tokens(children, "VIA"))
        return self._reading(Move(NO_POWER, u.unit_type, u.location, dest, via), u)

    def support_hold(self, children) -> Reading:
        u, target = _of(children, UnitRef)
        return self._reading(SupportHold(NO_POWER, u.unit_type, u.location, target.unit_type, target.location), u)

    def support_move(self, children) -> Reading:
        u, target = _of(children, UnitRef)
        dest = _of(children, Location)[0]
        order = SupportMove(NO_POWER, u.unit_type, u.location, target.unit_type, target.location, dest)
        return self._reading(order, u)

    def convoy(self, children) -> Reading:
        u, target = _of(children, UnitRef)
        dest = _of(children, Location)[0]
        return self._reading(Convoy(NO_POWER, u.unit_type, u.location, target.unit_type, target.location, dest), u)

    def retreat(self, children) -> Reading:
        u, dest = children[0], _of(children, Location)[0]
        return self._reading(Retreat(NO_POWER, u.unit_type, u.location, dest), u)

    def build(self, children) -> Reading:
        u = _of(children, UnitRef)[0]
        return self._reading(Build(NO_POWER, u.unit_type, u.location), u)

    def disband(self, children) -> Reading:
        u = _of(children, UnitRef)[0]
        return self._reading(Disband(NO_POWER, u.unit_type, u.location), u)

    def waive(self, children) -> Reading:
        return Reading(Waive(NO_POWER))

    # -- prestige orders ------------------------------------------------------------

    def bid(self, children) -> int:
        return int(_tokens(children, "INT")[0])

    def vassal(self, children) -> Reading:
        u, amount = _of(children, UnitRef)[0], _of(children, int)[0]
        return Reading(Vassal(NO_POWER, u.unit_type, u.location, amount))

    def bribe(self, children) -> Reading:
        u, amount = _of(children, UnitRef)[0], _of(children, int)[0]
        inner = _of(children, Reading)
        order = Bribe(NO_POWER, u.unit_type, u.location, amount, owner=u.owner,
                      order=inner[0].order if inner else None)
        return Reading(order)

    def seize_fief(self, children) -> Reading:
        return Reading(SeizeFief(NO_POWER, self._province(children[-1])))

    def rebel(self, children) -> Reading:
        return Reading(Rebel(NO_POWER, self._province(_of(children, Phrase)[0]), _of(children, int)[0]))

    def secure_loyalty(self, children) -> Reading:
        return Reading(SecureLoyalty(NO_POWER, _of(children, int)[0]))

    def lend(self, children) -> Reading:
        to = self._power(_of(children, Phrase)[0])
        return Reading(Lend(NO_POWER, to, int(_tokens(children, "INT")[0])))

    lend_to = lend

    def _province(self, phrase: Phrase):
        return _located(phrase.span, resolve_location, self.index, phrase.words).province

    # -- the line ---------------------------------------------------------------------

    def start(self, children) -> Reading:
        return children[0]

    def prefixed(self, children) -> Reading:
        phrase, reading = children
        return reading._replace(prefix=self._power(phrase), prefix_span=phrase.span)

