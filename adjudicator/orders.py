"""Orders as frozen values. The grammar builds them from text; the resolver never sees text.

Every order names the power that gives it. A unit's type may be left out by the player
(``None``); validation fills it in from the board. ``str(order)`` is the canonical short
notation of the command-line contract (``A par - bur``, ``F nth C A lon - nwy``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Union

from .vocab import Location, Power, ProvinceId, UnitType, fill_slots


def _unit(unit_type: UnitType | None, location: Location) -> str:
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
        return _unit(self.unit_type, self.location)


@dataclass(frozen=True, slots=True)
class Hold(UnitOrder):
    def __str__(self) -> str:
        return f"{self.unit_text} H"


@dataclass(frozen=True, slots=True)
class Move(UnitOrder):
    destination: Location
    via_convoy: bool = False

    def __str__(self) -> str:
        via = " via convoy" if self.via_convoy else ""
        return f"{self.unit_text} - {self.destination}{via}"


@dataclass(frozen=True, slots=True)
class SupportHold(UnitOrder):
    target_type: UnitType | None
    target: Location

    def __str__(self) -> str:
        return f"{self.unit_text} S {_unit(self.target_type, self.target)}"


@dataclass(frozen=True, slots=True)
class SupportMove(UnitOrder):
    target_type: UnitType | None
    target: Location
    destination: Location

    def __str__(self) -> str:
        return f"{self.unit_text} S {_unit(self.target_type, self.target)} - {self.destination}"


@dataclass(frozen=True, slots=True)
class Convoy(UnitOrder):
    target_type: UnitType | None
    target: Location
    destination: Location

    def __str__(self) -> str:
        return f"{self.unit_text} C {_unit(self.target_type, self.target)} - {self.destination}"


@dataclass(frozen=True, slots=True)
class Retreat(UnitOrder):
    destination: Location

    def __str__(self) -> str:
        return f"{self.unit_text} - {self.destination}"


@dataclass(frozen=True, slots=True)
class Disband(UnitOrder):
    """Disband in a retreat phase, or remove in an adjustment phase."""

    def __str__(self) -> str:
        return f"{self.unit_text} disband"


@dataclass(frozen=True, slots=True)
class Build(UnitOrder):
    def __str__(self) -> str:
        return f"{self.unit_text} build"


@dataclass(frozen=True)
class Waive:
    """Give up one build."""

    power: Power

    def __str__(self) -> str:
        return "waive"


# -- prestige orders (the ``prestige`` rule module) --------------------------------------


@dataclass(frozen=True)
class Vassal:
    """Bid to take a neutral unit into vassaldom for the rest of the year (rule 2.4)."""

    power: Power
    unit_type: UnitType | None
    location: Location
    bid: int

    def __str__(self) -> str:
        return f"VASSAL {_unit(self.unit_type, self.location)} BID {self.bid}"


@dataclass(frozen=True)
class Bribe:
    """Bid to command a neutral or enemy unit for this season (rules 2.5, 2.8).

    ``order`` is the order the briber gives the unit, when written on the same line.
    ``owner`` is the power the player named ("BRIBE English F eng ..."), if any.
    """

    power: Power
    unit_type: UnitType | None
    location: Location
    bid: int
    owner: Power | None = None
    order: UnitOrder | None = None

    def __str__(self) -> str:
        owner = f"{self.owner} " if self.owner else ""
        text = f"BRIBE {owner}{_unit(self.unit_type, self.location)} BID {self.bid}"
        return f"{text} {self.order}" if self.order else text


@dataclass(frozen=True)
class SeizeFief:
    """Make a conquered centre a home centre (rule 2.6)."""

    power: Power
    province: ProvinceId

    def __str__(self) -> str:
        return f"SEIZE FIEF {self.province}"


@dataclass(frozen=True)
class Rebel:
    """Bid to turn another power's conquered centre neutral (rule 2.7)."""

    power: Power
    province: ProvinceId
    bid: int

    def __str__(self) -> str:
        return f"REBEL {self.province} BID {self.bid}"


@dataclass(frozen=True)
class SecureLoyalty:
    """Raise the price of rebellion and bribes against this power, this turn (rule 2.7.3)."""

    power: Power
    bid: int

    def __str__(self) -> str:
        return f"SECURE LOYALTY BID {self.bid}"


@dataclass(frozen=True)
class Lend:
    """Give prestige to another power (rule 2.9.1)."""

    power: Power
    to: Power
    amount: int

    def __str__(self) -> str:
        return f"LEND {self.to} {self.amount}"


for _cls in (Hold, Move, SupportHold, SupportMove, Convoy, Retreat, Disband, Build):
    fill_slots(_cls)    # the grammar and the checks make an order for nearly every line


MovementOrder = Union[Hold, Move, SupportHold, SupportMove, Convoy]
PrestigeOrder = Union[Vassal, Bribe, SeizeFief, Rebel, SecureLoyalty, Lend]
Order = Union[Hold, Move, SupportHold, SupportMove, Convoy, Retreat, Disband, Build, Waive,
              Vassal, Bribe, SeizeFief, Rebel, SecureLoyalty, Lend]
PRESTIGE_ORDER_TYPES = (Vassal, Bribe, SeizeFief, Rebel, SecureLoyalty, Lend)
_CLASSIC_ORDER_TYPES = frozenset({Hold, Move, SupportHold, SupportMove, Convoy, Retreat, Disband, Build, Waive})


def is_prestige(order: Order) -> bool:
    """Is ``order`` one of the prestige rule module's own orders? (Most orders of a phase are
    not: they are told apart by their type alone, before the slower ``isinstance``.)"""
    return type(order) not in _CLASSIC_ORDER_TYPES and isinstance(order, PRESTIGE_ORDER_TYPES)


def any_prestige(orders: Sequence[Order]) -> bool:
    """Is any of ``orders`` a prestige order? (Their types are compared as a set first: a
    phase's orders are mostly of the unit order types.)"""
    return not _CLASSIC_ORDER_TYPES.issuperset(map(type, orders)) and any(map(is_prestige, orders))


def canonical(order: Order) -> str:
    """``ENG: F nth - pic``: the order with its power, in the short notation."""
    return f"{order.power}: {order}"
