"""A whole message of orders (a Discord DM, an e-mail body), read line by line.

Lenient like a PGN reader: every line that is an order becomes one, every line that is not
gets its own error (line number, the line, a caret, what would be accepted), and the rest
go on. What is not meant as orders is passed over: blank lines, quoted reply text
(``> ...`` and the ``On ... wrote:`` line), the signature (``-- `` and all after it, or a
sign-off such as ``Thanks,`` or ``Sent from my phone``), and, when they cannot be read as
orders, greetings (``Hi all,``) and headings (``Spring 1901 orders:``). A line that is
just a power (``England:``) gives the power of the lines after it.

A BRIBE line followed by the bribed unit's order (rules text, example 6) becomes one
:class:`~adjudicator.orders.Bribe` whose ``order`` is that order. A VASSAL line's unit order
stays an order of its own (the adjudicator decides whose orders a vassal obeys).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from adjudicator.orders import Convoy, Hold, Move, Order, SupportHold, SupportMove, UnitOrder, canonical

from adjudicator.prestige.orders import Bribe
from adjudicator.variant import Variant
from adjudicator.notation import as_phase_order
from adjudicator.vocab import Phase, PhaseKind, Power

from .errors import OrderError, OrderSyntaxError
from .names import NameIndex, find_powers, name_index
from .parser import _variant, read_line, settle_power

_SIGNATURE = re.compile(
    r"^(?:--\s*|_{5,}|-{3,}\s*original message\s*-{3,}|sent from my\b.*|"
    r"(?:thanks|thank you|thx|ta|cheers|regards|best|best wishes|best regards|kind regards|"
    r"warm regards|sincerely|yours|yours truly|cordially|love|ciao|good luck|gl hf)[\s,.!]*)$",
    re.IGNORECASE)
_REPLY_HEADER = re.compile(r"^on\b.*\bwrote:\s*$", re.IGNORECASE)
_GREETING = re.compile(r"^(?:hi|hello|hey|dear|greetings|good (?:morning|afternoon|evening))\b.{0,60}$",
                       re.IGNORECASE)
_HEADING = re.compile(r"^(?:.*\borders?\b.*:|(?:spring|fall|autumn|winter|[sfw]\d{3,4}[mrb]?)\b.{0,40})\s*$",
                      re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d{1,3}[.)])\s+")
_MARKUP = re.compile(r"[`*~|]")
_LETTER = re.compile(r"[^\W\d_]").match

BRIBABLE = (Hold, Move, SupportHold, SupportMove, Convoy)
"""The orders that may follow a BRIBE line as the bribed unit's order."""


@dataclass(frozen=True)
class ParsedLine:
    """One line read as an order: its 1-based number, the text, and the order or the error.

    ``joined_to`` is the number of the BRIBE line this line's order was attached to.
    """

    line_no: int
    text: str
    order: Order | None = None
    error: OrderError | None = None
    joined_to: int | None = None


@dataclass(frozen=True)
class MessageParse:
    """What a message said: the orders, in the order written, and one error per bad line."""

    orders: tuple[Order, ...]
    errors: tuple[OrderError, ...]
    lines: tuple[ParsedLine, ...]

    @property
    def ok(self) -> bool:
        return not self.errors

    def report(self) -> str:
        """Every error, in full, one after another."""
        return "\n\n".join(str(e) for e in self.errors)

    def to_dict(self) -> dict[str, Any]:
        """As JSON-ready data: the orders in canonical notation, and the errors."""
        return {
            "orders": [canonical(o) for o in self.orders],
            "errors": [e.to_dict() for e in self.errors],
        }

    def to_text(self) -> str:
        """The orders as understood, one a line, then the errors in full."""
        parts = [canonical(o) for o in self.orders]
        if self.errors:
            parts.append("")
            parts.append(self.report())
        return "\n".join(parts) + "\n" if parts else ""


def parse_message(text: str, variant: Variant | str, power: Power | None = None, *,
                  phase: Phase | PhaseKind | None = None) -> MessageParse:
    """Read every order in ``text``; never raises for what the text says.

    ``power`` is whose message it is (``None``: each line, or a power line before it, must
    say). ``phase``, when given, turns moves into retreats in a retreat phase.
    """
    index = name_index(_variant(variant))
    current = power or None
    lines: list[ParsedLine] = []
    for line_no, raw in enumerate(text.splitlines(), start=1):
        line = _MARKUP.sub(" ", raw)
        stripped = line.strip()
        if not stripped or stripped.startswith(">") or _REPLY_HEADER.match(stripped):
            continue
        if stripped.startswith("```"):
            continue
        if _SIGNATURE.match(stripped):
            break
        line = _BULLET.sub(lambda m: " " * len(m.group(0)), line)
        header = _power_line(line, index)
        if header is not None:
            current = header
            if power and header != power:
                lines.append(ParsedLine(line_no, raw, error=_not_yours(index, power, header, raw, line_no)))
            continue
        try:
            if power and current is not None and current != power:
                raise _not_yours(index, power, current, raw, line_no)
            # A line's own prefix outranks a power line above it, not the message's power.
            reading = read_line(line, index)
            given = power if reading.prefix else current
            order = settle_power(reading, line, index, given, require_power=True)
        except OrderError as err:
            if _GREETING.match(stripped) or _HEADING.match(stripped):
                continue
            err.located(raw, line_no)
            lines.append(ParsedLine(line_no, raw, error=err))
            continue
        if phase is not None:
            order = as_phase_order(order, phase)
        lines.append(ParsedLine(line_no, raw, order=order))
    lines = _join_bribes(lines)
    orders = tuple(p.order for p in lines if p.order is not None and p.joined_to is None)
    errors = tuple(p.error for p in lines if p.error is not None)
    return MessageParse(orders, errors, tuple(lines))


def _not_yours(index: NameIndex, power: Power, other: Power, raw: str, line_no: int) -> OrderError:
    return OrderSyntaxError(
        f"this message gives the orders of {index.power_name(power)} ({power}), "
        f"not of {index.power_name(other)} ({other})",
        expected=(f"{power}'s orders, under no other power's name",)).located(raw, line_no)


def _power_line(line: str, index: NameIndex) -> Power | None:
    """The power a line like ``England:`` or ``ENGLAND`` names, else ``None``.

    The name is the line without its spaces and one colon at the end: a letter, then at most
    40 characters, none of them a colon. (Told apart with string methods: a regular
    expression's lazy group, tried at every length, took as long as reading an order.)"""
    text = line.strip()
    if text[-1:] == ":":
        text = text[:-1].rstrip()
    if not text or len(text) > 41 or ":" in text or not _LETTER(text):
        return None
    found = find_powers(index, text)
    return next(iter(found)) if len(found) == 1 else None


def joined_order(order: object) -> UnitOrder | None:
    """The unit's order a line took from the line below it (a BRIBE's, :func:`_join_bribes`), or None."""
    return order.order if isinstance(order, Bribe) else None


def _join_bribes(lines: list[ParsedLine]) -> list[ParsedLine]:
    out = list(lines)
    for i, bribe_line in enumerate(out[:-1]):
        bribe, nxt = bribe_line.order, out[i + 1]
        if not isinstance(bribe, Bribe) or bribe.order is not None or nxt.order is None:
            continue
        unit_order = nxt.order
        if (isinstance(unit_order, BRIBABLE) and unit_order.power == bribe.power
                and unit_order.province == bribe.location.province):
            out[i] = replace(bribe_line, order=replace(bribe, order=unit_order))
            out[i + 1] = replace(nxt, joined_to=bribe_line.line_no)
    return out
