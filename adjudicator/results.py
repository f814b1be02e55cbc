"""What adjudication returns: an outcome per order, and the next position. Data, not exceptions."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import final

from .events import Events
from .orders import Order
from .position import Position


@final
@dataclass(frozen=True, slots=True)
class Reason:
    """Why an order cannot be given, or what it needs to succeed: a value, never a string to inspect.

    ``code`` is stable (``not-adjacent``, ``bid-below-minimum``...; docs/rules.md lists them) and
    the only thing a program may branch on; ``text`` is one sentence a player can act on;
    ``accepted`` says what would be accepted instead, when the judge can say it.
    """

    code: str
    text: str
    accepted: str = ""

    def __str__(self) -> str:
        return self.text


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



@dataclass(frozen=True)
class Adjudication:
    """The results of one phase, in the order the orders were given, and the next position.

    ``orders`` carries the result of every order given; ``implicit`` those the judge supplied
    (units without orders hold; civil-disorder disbands). ``events`` holds what else happened
    (dislodgements, annihilations, ownership changes, the rule module's own), as values.
    """

    results: tuple[OrderResult, ...]
    position: Position
    implicit: tuple[OrderResult, ...]
    events: Events
