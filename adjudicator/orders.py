"""Orders as frozen values. The grammar builds them from text; the resolver never sees text.

Every order names the power that gives it. A unit's type may be left out by the player
(``None``); validation fills it in from the board. ``str(order)`` is the canonical short
notation of the command-line contract (``A par - bur``, ``F nth C A lon - nwy``).
"""

from __future__ import annotations

from dataclasses import Field, dataclass
from typing import TYPE_CHECKING, Any, ClassVar, final
from collections.abc import Sequence

from .vocab import Location, Power, ProvinceId, UnitType

if TYPE_CHECKING:   # (a type only: typing has it from Python 3.13)
    from typing_extensions import TypeIs


def format_unit(unit_type: UnitType | None, location: Location) -> str:
    """``A par``, ``F stp/nc``, or ``par`` for a unit whose type is left out."""
    return f"{unit_type.value} {location}" if unit_type else str(location)


@dataclass(frozen=True, slots=True)
class UnitOrder:
    """An order to one unit: the common part."""

    power: Power
    unit_type: UnitType | None
    location: Location

    @property
    def province(self) -> ProvinceId:
        return self.location.province

    @property
    def unit_text(self) -> str:
        return format_unit(self.unit_type, self.location)


@final
@dataclass(frozen=True, slots=True)
class Hold(UnitOrder):
    def __str__(self) -> str:
        return f"{self.unit_text} H"


@final
@dataclass(frozen=True, slots=True)
class Move(UnitOrder):
    destination: Location
    via_convoy: bool = False

    def __str__(self) -> str:
        via = " via convoy" if self.via_convoy else ""
        return f"{self.unit_text} - {self.destination}{via}"


@final
@dataclass(frozen=True, slots=True)
class SupportHold(UnitOrder):
    target_type: UnitType | None
    target: Location

    def __str__(self) -> str:
        return f"{self.unit_text} S {format_unit(self.target_type, self.target)}"


@final
@dataclass(frozen=True, slots=True)
class SupportMove(UnitOrder):
    target_type: UnitType | None
    target: Location
    destination: Location

    def __str__(self) -> str:
        return f"{self.unit_text} S {format_unit(self.target_type, self.target)} - {self.destination}"


@final
@dataclass(frozen=True, slots=True)
class Convoy(UnitOrder):
    target_type: UnitType | None
    target: Location
    destination: Location

    def __str__(self) -> str:
        return f"{self.unit_text} C {format_unit(self.target_type, self.target)} - {self.destination}"


@final
@dataclass(frozen=True, slots=True)
class Retreat(UnitOrder):
    destination: Location

    def __str__(self) -> str:
        return f"{self.unit_text} - {self.destination}"


@final
@dataclass(frozen=True, slots=True)
class Disband(UnitOrder):
    """Disband in a retreat phase, or remove in an adjustment phase."""

    def __str__(self) -> str:
        return f"{self.unit_text} disband"


@final
@dataclass(frozen=True, slots=True)
class Build(UnitOrder):
    def __str__(self) -> str:
        return f"{self.unit_text} build"


@final
@dataclass(frozen=True)
class Waive:
    """Give up one build."""

    power: Power

    def __str__(self) -> str:
        return "waive"


class RuleOrder:
    """An order of a rule module (:mod:`adjudicator.modules`), not of the classic game: the
    module's own order classes derive from it. ``rule_module`` names the module;
    :meth:`slot` says what a later order of its power replaces (see :func:`adjudicator.turn.slot`)."""

    __slots__ = ()
    rule_module: ClassVar[str] = ""
    power: Power
    """The power that gives the order, as every order names it (each module's class declares it)."""
    if TYPE_CHECKING:   # each module's order class is a dataclass (the codec reads its fields)
        __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    def slot(self) -> tuple[str, str]:
        raise NotImplementedError

    def also_replaces(self) -> tuple[tuple[str, str], ...]:
        """Other slots whose standing order of its power this order takes the place of."""
        return ()


MovementOrder = Hold | Move | SupportHold | SupportMove | Convoy
Order = Hold | Move | SupportHold | SupportMove | Convoy | Retreat | Disband | Build | Waive | RuleOrder
CLASSIC_ORDER_TYPES = (Hold, Move, SupportHold, SupportMove, Convoy, Retreat, Disband, Build, Waive)
"""The orders of the classic game; every other order is a :class:`RuleOrder`."""
_CLASSIC = frozenset(CLASSIC_ORDER_TYPES)


def is_rule_order(order: Order) -> TypeIs[RuleOrder]:
    """Is ``order`` a rule module's own order (told apart by its type, a set look-up)?"""
    return type(order) not in _CLASSIC


def any_rule_order(orders: Sequence[Order]) -> bool:
    """Is any of ``orders`` a rule module's own order?"""
    return not _CLASSIC.issuperset(map(type, orders))


def canonical(order: Order) -> str:
    """``ENG: F nth - pic``: the order with its power, in the short notation."""
    return f"{order.power}: {order}"
