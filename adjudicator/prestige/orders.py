"""The prestige rule module's own orders (rules 2.4-2.9), as the rules text writes them.

Each is a frozen value whose ``str`` is the judge's notation (``VASSAL A nwy BID 3``,
``BRIBE TUR A rum BID 1 A rum H``, ``SEIZE FIEF gre``, ``REBEL tun BID 4``,
``SECURE LOYALTY BID 2``, ``LEND ENG 3``), and whose :meth:`slot` says what a later order of
its power replaces.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..orders import RuleOrder, UnitOrder, format_unit
from ..vocab import Location, Power, ProvinceId, UnitType


@dataclass(frozen=True)
class Vassal(RuleOrder):
    """Bid to take a neutral unit into vassaldom for the rest of the year (rule 2.4)."""

    rule_module = "prestige"
    power: Power
    unit_type: UnitType | None
    location: Location
    bid: int

    def __str__(self) -> str:
        return f"VASSAL {format_unit(self.unit_type, self.location)} BID {self.bid}"

    def slot(self) -> tuple[str, str]:
        return "vassal", self.location.province


@dataclass(frozen=True)
class Bribe(RuleOrder):
    """Bid to command a neutral or enemy unit for this season (rules 2.5, 2.8).

    ``order`` is the order the briber gives the unit, when written on the same line.
    ``owner`` is the power the player named ("BRIBE English F eng ..."), if any.
    """

    rule_module = "prestige"
    power: Power
    unit_type: UnitType | None
    location: Location
    bid: int
    owner: Power | None = None
    order: UnitOrder | None = None

    def __str__(self) -> str:
        owner = f"{self.owner} " if self.owner else ""
        text = f"BRIBE {owner}{format_unit(self.unit_type, self.location)} BID {self.bid}"
        return f"{text} {self.order}" if self.order else text

    def slot(self) -> tuple[str, str]:
        return "bribe", self.location.province

    def also_replaces(self) -> tuple[tuple[str, str], ...]:
        """A BRIBE written with the unit's order replaces the power's own line for the unit."""
        return (("unit", self.location.province),) if self.order is not None else ()


@dataclass(frozen=True)
class SeizeFief(RuleOrder):
    """Make a conquered centre a home centre (rule 2.6)."""

    rule_module = "prestige"
    power: Power
    province: ProvinceId

    def __str__(self) -> str:
        return f"SEIZE FIEF {self.province}"

    def slot(self) -> tuple[str, str]:
        return "fief", self.province


@dataclass(frozen=True)
class Rebel(RuleOrder):
    """Bid to turn another power's conquered centre neutral (rule 2.7)."""

    rule_module = "prestige"
    power: Power
    province: ProvinceId
    bid: int

    def __str__(self) -> str:
        return f"REBEL {self.province} BID {self.bid}"

    def slot(self) -> tuple[str, str]:
        return "rebel", self.province


@dataclass(frozen=True)
class SecureLoyalty(RuleOrder):
    """Raise the price of rebellion and bribes against this power, this turn (rule 2.7.3)."""

    rule_module = "prestige"
    power: Power
    bid: int

    def __str__(self) -> str:
        return f"SECURE LOYALTY BID {self.bid}"

    def slot(self) -> tuple[str, str]:
        return "loyalty", ""


@dataclass(frozen=True)
class Lend(RuleOrder):
    """Give prestige to another power (rule 2.9.1)."""

    rule_module = "prestige"
    power: Power
    to: Power
    amount: int

    def __str__(self) -> str:
        return f"LEND {self.to} {self.amount}"

    def slot(self) -> tuple[str, str]:
        return "lend", self.to


PRESTIGE_ORDER_TYPES = (Vassal, Bribe, SeizeFief, Rebel, SecureLoyalty, Lend)
PrestigeOrder = Vassal | Bribe | SeizeFief | Rebel | SecureLoyalty | Lend


def order_kind(order: object) -> str:
    """What a prestige order is, for the words of its outcome: VASSAL, BRIBE, SEIZE FIEF and REBEL
    are ``bid``s (won or lost, rule 2.4.2), LEND a ``loan``, SECURE LOYALTY a ``pledge``."""
    if isinstance(order, Lend):
        return "loan"
    if isinstance(order, SecureLoyalty):
        return "pledge"
    return "bid" if isinstance(order, PRESTIGE_ORDER_TYPES) else "order"
