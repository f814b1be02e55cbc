"""From grammar rules to order values: the transformer embedded in the parser.

Lark calls a method of :class:`OrderBuilder` each time it reduces a rule of ``orders.lark``,
with the rule's values (``None`` where an optional part was not written), so that the line
becomes an order as it is parsed and no tree is built. The builder knows the variant's names
(to turn words into provinces and powers) and nothing else; it keeps no state between calls.
Each order comes out with an empty power and a :class:`Reading` that says which powers the
line named, so that the caller can settle whose order it is.
"""

from __future__ import annotations

from dataclasses import replace
from collections.abc import Callable
from typing import Any, NamedTuple

from lark import Token, Transformer

from adjudicator.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold, SupportMove, Waive

from adjudicator.prestige.orders import Bribe, Lend, Rebel, SecureLoyalty, SeizeFief, Vassal
from adjudicator.vocab import Location, Power, ProvinceId, UnitType

from .errors import OrderError, UnknownNameError
from .explain import explain_name, is_order_word, not_a_unit
from .lexer import name_words
from .names import NameIndex, resolve_location, resolve_place, resolve_power

NO_POWER = Power("")
"""The power of an order whose line did not say whose it is."""

_UNIT_TYPES = {"a": UnitType.ARMY, "army": UnitType.ARMY, "f": UnitType.FLEET, "fleet": UnitType.FLEET}


class Span(NamedTuple):
    """Where some words stood in the line: 0-based start, end exclusive."""

    start: int
    end: int

    @classmethod
    def of(cls, token: Token) -> Span:
        start, end = token.start_pos, token.end_pos
        assert start is not None and end is not None, "the parser's tokens know where they stood"
        return cls(start, end)

    def error(self, error: OrderError) -> OrderError:
        error.column, error.end_column = self.start + 1, self.end + 1
        return error


class Unresolved(NamedTuple):
    """A name that names nothing (or more than one thing), and the error that says so."""

    error: OrderError
    name: Token


def _named(value: Location | Unresolved) -> Location:
    if isinstance(value, Unresolved):
        raise value.error
    return value


def _unit(unit: UnitRef) -> Unit:
    """``unit``, once its place and its owner are known to name something."""
    location, owner = unit.location, unit.owner
    if isinstance(location, Unresolved):
        raise location.error
    if isinstance(owner, Unresolved):
        raise owner.error
    return Unit(owner, unit.owner_span, unit.unit_type, location)


class UnitRef(NamedTuple):
    """A unit as the line names it: its owner (if named), type (if written) and place, each
    perhaps a name that names nothing (:class:`Unresolved`, reported when its order is reduced)."""

    owner: Power | Unresolved | None
    owner_span: Span | None
    unit_type: UnitType | None
    location: Location | Unresolved


class Unit(NamedTuple):
    """A :class:`UnitRef` whose owner and place name something."""

    owner: Power | None
    owner_span: Span | None
    unit_type: UnitType | None
    location: Location


class Reading(NamedTuple):
    """One parsed line: the order without its power (its class and the other fields), and the
    powers the line named. :meth:`order` makes the order once its power is known."""

    kind: Callable[..., Order]
    fields: tuple[Any, ...]
    inner: Reading | None = None
    """A BRIBE's unit order, written on the same line."""
    prefix: Power | None = None
    prefix_span: Span | None = None
    owner: Power | None = None
    owner_span: Span | None = None

    def order(self, power: Power) -> Order:
        if self.inner is None:
            return self.kind(power, *self.fields)
        return self.kind(power, *self.fields, self.inner.order(power))


def with_power(order: Order, power: Power) -> Order:
    """``order`` given by ``power`` (a one-line BRIBE's unit order too)."""
    if isinstance(order, Bribe) and order.order is not None:
        return replace(order, power=power, order=replace(order.order, power=power))
    return replace(order, power=power)


class OrderBuilder(Transformer[Token, Reading]):
    """Rules -> :class:`Reading`, for one variant. Raises :class:`OrderError` for a name that
    names nothing (or more than one thing), located at the name's columns."""

    def __init__(self, index: NameIndex) -> None:
        super().__init__(visit_tokens=False)
        self.index = index

    # -- names ----------------------------------------------------------------------
    # A unit's place and owner are matched when the unit is reduced, but a name that names
    # nothing is reported only when its order is reduced, at the end of the line: a line
    # whose shape is wrong is told so first (its "name" may be a misspelt keyword).

    def _place(self, name: Token, coast: Token | None) -> Location | Unresolved:
        try:
            return resolve_place(self.index, name.value, None if coast is None else coast.value)
        except UnknownNameError as unknown:
            err: OrderError = unknown
            if coast is None:       # "Damietta will", "Amry Antioch": a place, and a word that is none
                err = explain_name(self.index, name, Span.of(name).start) or err
            return Unresolved(Span(Span.of(name).start, Span.of(coast or name).end).error(err)
                              if err.column is None else err, name)
        except OrderError as wrong:
            return Unresolved(Span(Span.of(name).start, Span.of(coast or name).end).error(wrong), name)

    def coast(self, children: list[Token]) -> Token:
        return children[1]      # "/" NAME, or "(" NAME ")"

    def _power(self, name: Token) -> Power:
        try:
            return resolve_power(self.index, " ".join(name_words(name)))
        except OrderError as err:
            raise Span.of(name).error(err) from None

    def _province(self, name: Token) -> ProvinceId:
        try:
            return resolve_location(self.index, name_words(name)).province
        except OrderError as err:
            raise Span.of(name).error(err) from None

    def typed_unit(self, children: list[Any]) -> UnitRef:
        # [owner] UNIT [AT] NAME [coast]: the place is the first NAME after the unit type
        owner = children[0] if children[0].type == "NAME" else None
        at = 1 if owner is not None else 0
        unit_type = children[at]
        at += 2 if children[at + 1].type == "AT" else 1
        location = self._place(children[at], children[at + 1] if len(children) > at + 1 else None)
        if owner is None:
            return UnitRef(None, None, _UNIT_TYPES[unit_type.lower()], location)
        words = name_words(owner)
        if words[0].casefold() == "the":        # "The fleet in Smyrna", "the English fleet"
            if len(words) == 1:
                return UnitRef(None, None, _UNIT_TYPES[unit_type.lower()], location)
            words = words[1:]
        power: Power | Unresolved
        try:
            power = resolve_power(self.index, " ".join(words))
        except OrderError as unknown:
            err = unknown
            if is_order_word(words[0]):     # "move A ant to ale": a verb before the unit
                unit = f"{unit_type.upper()[0]} {location}" if type(location) is Location else None
                start = Span.of(owner).start
                err = not_a_unit(self.index, words[0], start, start + len(words[0]),
                                 example=unit and f"{unit} H")
            power = Unresolved(Span.of(owner).error(err) if err.column is None else err, owner)
        return UnitRef(power, Span.of(owner), _UNIT_TYPES[unit_type.lower()], location)

    def bare_unit(self, children: list[Any]) -> UnitRef:
        return UnitRef(None, None, None, self._place(children[0], children[1] if len(children) > 1 else None))

    # -- unit orders ----------------------------------------------------------------

    def _destination(self, children: list[Any], at: int) -> tuple[Location, bool]:
        """The place at ``children[at]`` (with its coast after it, if written), and whether the
        order ends with VIA."""
        coast = children[at + 1] if len(children) > at + 1 and type(children[at + 1]) is Token \
            and children[at + 1].type == "NAME" else None
        return _named(self._place(children[at], coast)), children[-1].type == "VIA"

    def hold(self, children: list[Any]) -> Reading:
        u = _unit(children[0])
        return Reading(Hold, (u.unit_type, u.location), owner=u.owner, owner_span=u.owner_span)

    def move(self, children: list[Any]) -> Reading:
        u = _unit(children[0])
        destination, via = self._destination(children, 2)
        return Reading(Move, (u.unit_type, u.location, destination, via),
                       owner=u.owner, owner_span=u.owner_span)

    def support_hold(self, children: list[Any]) -> Reading:
        u, target = _unit(children[0]), _unit(children[2])
        return Reading(SupportHold, (u.unit_type, u.location, target.unit_type, target.location),
                       owner=u.owner, owner_span=u.owner_span)

    def support_move(self, children: list[Any]) -> Reading:
        u, target = _unit(children[0]), _unit(children[2])
        destination, _ = self._destination(children, 4)
        return Reading(SupportMove, (u.unit_type, u.location, target.unit_type, target.location, destination),
                       owner=u.owner, owner_span=u.owner_span)

    def convoy(self, children: list[Any]) -> Reading:
        u, target = _unit(children[0]), _unit(children[2])
        destination, _ = self._destination(children, 4)
        return Reading(Convoy, (u.unit_type, u.location, target.unit_type, target.location, destination),
                       owner=u.owner, owner_span=u.owner_span)

    def retreat(self, children: list[Any]) -> Reading:
        u = _unit(children[0])
        destination, _ = self._destination(children, 2)
        return Reading(Retreat, (u.unit_type, u.location, destination), owner=u.owner,
                       owner_span=u.owner_span)

    def build(self, children: list[Any]) -> Reading:
        u = _unit(children[1] if isinstance(children[0], Token) else children[0])
        return Reading(Build, (u.unit_type, u.location), owner=u.owner, owner_span=u.owner_span)

    def disband(self, children: list[Any]) -> Reading:
        u = _unit(children[1] if isinstance(children[0], Token) else children[0])
        return Reading(Disband, (u.unit_type, u.location), owner=u.owner, owner_span=u.owner_span)

    def waive(self, children: list[Any]) -> Reading:
        return Reading(Waive, ())

    # -- prestige orders ------------------------------------------------------------

    def bid(self, children: list[Any]) -> int:
        return int(children[1])     # BID INT [PRESTIGE]

    def vassal(self, children: list[Any]) -> Reading:
        _, u, amount = children
        u = _unit(u)
        return Reading(Vassal, (u.unit_type, u.location, amount))

    def bribe(self, children: list[Any]) -> Reading:
        u, amount = _unit(children[1]), children[2]
        inner = children[3] if len(children) > 3 else None
        if inner is None:
            return Reading(Bribe, (u.unit_type, u.location, amount, u.owner))
        return Reading(Bribe, (u.unit_type, u.location, amount, u.owner), inner)

    def seize_fief(self, children: list[Any]) -> Reading:
        return Reading(SeizeFief, (self._province(children[1]),))

    def rebel(self, children: list[Any]) -> Reading:
        _, name, amount = children
        return Reading(Rebel, (self._province(name), amount))

    def secure_loyalty(self, children: list[Any]) -> Reading:
        return Reading(SecureLoyalty, (children[1],))

    def lend(self, children: list[Any]) -> Reading:
        _, name, amount = children[:3]     # LEND NAME INT [PRESTIGE]
        return Reading(Lend, (self._power(name), int(amount)))

    def lend_to(self, children: list[Any]) -> Reading:
        amount, name = children[1], children[-1] if children[-1].type == "NAME" else children[-2]
        return Reading(Lend, (self._power(name), int(amount)))

    # -- the line ---------------------------------------------------------------------

    def start(self, children: list[Any]) -> Reading:
        if len(children) == 1:
            reading: Reading = children[0]
            return reading
        prefix, _, reading = children      # NAME ":" order
        return reading._replace(prefix=self._power(prefix), prefix_span=Span.of(prefix))
