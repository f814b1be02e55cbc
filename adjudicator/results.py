"""What adjudication returns: an outcome per order, and the next position. Data, not exceptions."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from .orders import Order
from .position import Position


class Outcome(enum.Enum):
    SUCCEEDS = "succeeds"
    FAILS = "fails"
    INVALID = "invalid"


@dataclass(frozen=True, slots=True)
class OrderResult:
    """The outcome of one order, with one sentence a player can act on."""

    order: Order
    outcome: Outcome
    reason: str = ""

    @property
    def succeeded(self) -> bool:
        return self.outcome is Outcome.SUCCEEDS


def order_result(order: Order, outcome: Outcome, reason: str) -> OrderResult:
    """``OrderResult(order, outcome, reason)``, made faster: the slots are filled directly.

    For the engine's loops, which make one result per order of every phase.
    """
    result = _new(OrderResult)
    _set_order(result, order)
    _set_outcome(result, outcome)
    _set_reason(result, reason)
    return result


_new = object.__new__
_set_order, _set_outcome, _set_reason = OrderResult.order.__set__, OrderResult.outcome.__set__, OrderResult.reason.__set__


@dataclass(frozen=True)
class Adjudication:
    """The results of one phase, in the order the orders were given, and the next position.

    ``orders`` carries the result of every order given; ``implicit`` those the judge supplied
    (units without orders hold; civil-disorder disbands). ``events`` holds anything else worth
    reporting (dislodgements, annihilations, ownership changes, prestige ledger), as plain data.
    """

    results: tuple[OrderResult, ...]
    position: Position
    implicit: tuple[OrderResult, ...] = ()
    events: dict[str, Any] = field(default_factory=dict)
