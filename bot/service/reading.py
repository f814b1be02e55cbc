"""A message of orders read once, and judged by the engine: what each line became.

The grammar reads the player's text, as far as the bounds of a message go (:mod:`bot.codec.limits`;
it passes over what is not meant as orders: greetings, quoted replies, the signature); the engine (:func:`adjudicator.turn.submit`) judges the orders
with the power's standing orders of the phase: each is accepted, with a note when only the
adjudication can tell whether it happens ("needs 3 prestige..."), or refused with the reason.
The service decides none of it.
"""

from __future__ import annotations

from collections.abc import Sequence

from adjudicator.orders import Order
from adjudicator.position import Position
from adjudicator.turn import Submission, Verdict, slot, submit
from adjudicator.variant import Variant
from adjudicator.vocab import Power

from bot.codec import limits
from bot.codec.spelled import named
from .views import OrderLine


def read_message(text: str, variant: Variant, position: Position, power: Power,
                 standing: Sequence[Order]) -> tuple[list[OrderLine], Submission]:
    """Each order line of ``text`` as ``power``'s, judged with its ``standing`` orders: the answer
    for each line (in the order written), and the engine's verdicts with the standing orders after."""
    from grammar import parse_message

    bounded = limits.bounded_message(text)  # a line too long, or past the last one read: not read
    parsed = parse_message(bounded.text, variant, power, phase=position.phase)
    lines = [line for line in parsed.lines if line.joined_to is None]  # a bribed unit's order is its BRIBE's
    submission = submit(variant, position, power, [line.order for line in lines if line.order is not None],
                        standing)
    verdicts = iter(submission.verdicts)
    out: list[tuple[int, OrderLine]] = []
    for line in lines:
        written = line.text.strip()
        if line.order is None:
            out.append((line.line_no, OrderLine(written, reason=str(line.error), line_no=line.line_no)))
            continue
        out.append((line.line_no, _judged(written, next(verdicts), variant, line.line_no)))
    out += [(n.line_no, OrderLine(n.written, reason=n.reason, line_no=n.line_no)) for n in bounded.not_read]
    return [line for _, line in sorted(out, key=lambda pair: pair[0])], submission


def read_values(orders: Sequence[Order], variant: Variant, position: Position, power: Power,
                standing: Sequence[Order]) -> tuple[list[OrderLine], Submission]:
    """Orders given as values (chosen from a menu, not written) as ``power``'s, judged with its
    ``standing`` orders exactly as :func:`read_message` judges the orders of a message: each is
    written in the judge's notation (``A ede - har``), as a player could have typed it."""
    submission = submit(variant, position, power, orders, standing)
    return [_judged(str(order), verdict, variant) for order, verdict in zip(orders, submission.verdicts, strict=True)], submission


def _judged(written: str, verdict: Verdict, variant: Variant, line_no: int | None = None) -> OrderLine:
    """The answer for a line ``written`` (on line ``line_no`` of its message): the order the engine
    understood, or why it refused it (the units and places of the reason named as the results
    name them)."""
    if verdict.refusal is None:  # (accepted)
        return OrderLine(written, verdict.understood, note=verdict.note, replaces=verdict.replaces, line_no=line_no)
    return OrderLine(written, reason=named(verdict.refusal.text, variant), refusal=verdict.refusal, line_no=line_no)


def order_key(order: Order, seq: int) -> str:
    """The key a standing order is stored under: its slot (what a later order replaces,
    :func:`adjudicator.turn.slot`); a waive, which replaces nothing, by its sequence number."""
    place = slot(order)
    return str(place) if place is not None else f"waive:{seq}"
