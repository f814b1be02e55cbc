"""The prestige rules' part of a phase's events (:attr:`adjudicator.events.Events.rule` and
``rule_year``), as values: the ledger of a movement phase keyed by the orders themselves, the
bribes, the new vassals and the rebellions; the end of the year's awards."""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Mapping

from ..orders import Order
from ..vocab import Power, ProvinceId, Unit


@dataclass(frozen=True, slots=True)
class Spending:
    """Prestige a power spent (or lent) on one of its orders."""

    order: Order
    amount: int


@dataclass(frozen=True, slots=True)
class Account:
    """One power's prestige in a movement phase: what it had, received (loans), spent, has left."""

    start: int
    received: int
    spent: tuple[Spending, ...]
    left: int


@dataclass(frozen=True, slots=True)
class PrestigeEvents:
    """What the prestige orders of a movement phase did. ``ledger``: each power's account;
    ``bribed``: province -> briber of each unit bribed this season; ``vassals``: the home of each
    neutral unit that became a vassal -> its lord; ``rebellions``: the centres that rebelled."""

    ledger: Mapping[Power, Account] = field(default_factory=dict)
    rebellions: tuple[ProvinceId, ...] = ()
    bribed: Mapping[ProvinceId, Power] = field(default_factory=dict)
    vassals: Mapping[ProvinceId, Power] = field(default_factory=dict)

    def spent_on(self, order: Order) -> int:
        """What ``order``'s power spent on it (0 for an order that cost nothing)."""
        account = self.ledger.get(order.power)
        return sum(s.amount for s in account.spent if s.order == order) if account is not None else 0


@dataclass(frozen=True, slots=True)
class PrestigeYear:
    """The end of the year (rules 2.3, 3.5; decisions 10, 11, 16, 19, 22): the centres each power
    in the game owns directly, the award by rank, the annihilations' plus and minus, the prestige
    for the year ahead, the neutral units disbanded away from home, the seized fiefs lost."""

    centres: Mapping[Power, int]
    award: Mapping[Power, int]
    annihilations: Mapping[Power, int]
    prestige: Mapping[Power, int]
    disbanded: tuple[Unit, ...] = ()
    fiefs_lost: Mapping[Power, tuple[ProvinceId, ...]] = field(default_factory=dict)
