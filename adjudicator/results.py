"""What adjudication returns: an outcome per order, and the next position. Data, not exceptions."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import FrozenInstanceError, dataclass
from typing import Any, final

from .events import Events
from .orders import Order
from .position import Position
from .vocab import Location, Unit

Part = str | Unit | Location
"""A part of a :class:`Phrase`: plain words, or a unit or a place as a value."""


@final
class Phrase(str):
    """A reason whose units and places are values: ``Phrase("dislodged by ", unit, " (2 against 1)")``.

    It is the reason's text (a ``str``: ``dislodged by A ico (2 against 1)``, each unit by its
    short notation, each place by its id), so whatever reads the text (the command-line
    contract's documents, the tables, a rule module that adds to a reason) reads exactly what it
    always read; ``parts`` keeps the words and the values apart, so that a front end names each
    unit and place through the variant (``bot.codec.spelled.named``: ``dislodged by A Iconium (2
    against 1)``) without reading the text back. Frozen, like the values it holds. Text made from
    a phrase (``f"{phrase}; ..."``) is plain text again.
    """

    __slots__ = ("parts",)
    parts: tuple[Part, ...]

    def __new__(cls, *parts: Part) -> Phrase:
        words: list[str] = []
        for p in parts:
            if p.__class__ is str:
                words.append(p)
            elif isinstance(p, Phrase):     # a phrase within: its parts, not its text
                return cls(*(q for p in parts for q in parts_of(p)))
            else:
                words.append(_TEXT[p.__class__](p))
        self = _new_text(cls, "".join(words))
        _set_parts(self, parts)
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        return Phrase, self.parts

    def __repr__(self) -> str:
        return f"Phrase{self.parts!r}"


_new_text = str.__new__
_set_parts = Phrase.parts.__set__         # type: ignore[attr-defined]  # the slot's own setter (__setattr__ refuses)
_TEXT: dict[type, Callable[[Any], str]] = {Unit: Unit.short.fget, Location: Location.__str__}  # type: ignore[attr-defined]
"""Each value's text in a reason: a unit's short notation (``A mun``), a location's id (``spa/nc``)."""


def parts_of(text: Part) -> tuple[Part, ...]:
    """The parts of ``text``: a :class:`Phrase`'s own, or the plain text (or value) as one part
    (to make a phrase that says another reason in its words)."""
    return text.parts if isinstance(text, Phrase) else (text,)


def listed(parts: Iterable[Part], sep: str = ", ") -> tuple[Part, ...]:
    """``parts`` one after another with ``sep`` between (``F eng, F wes``)."""
    out: list[Part] = []
    for p in parts:
        if out:
            out.append(sep)
        out.append(p)
    return tuple(out)


@final
@dataclass(frozen=True, slots=True)
class Reason:
    """Why an order cannot be given, or what it needs to succeed: a value, never a string to inspect.

    ``code`` is stable (``not-adjacent``, ``bid-below-minimum``...; docs/rules.md lists them) and
    the only thing a program may branch on; ``text`` is one sentence a player can act on (a
    :class:`Phrase` when it names units or places);
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
    """The outcome of one order, with one sentence a player can act on (``reason``: the engine's
    reasons that name units or places are a :class:`Phrase`)."""

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
