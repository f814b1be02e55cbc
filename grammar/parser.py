"""One order line -> one order value.

The grammar (``orders.lark``) is read once; each variant gets its own LALR parser, built on
first use, with :class:`~grammar.lexer.OrderLexer` and the variant's
:class:`~grammar.transform.OrderBuilder` embedded, so that a line becomes an order as it is
parsed. The powers the line names are then settled against the power the caller says is
writing.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import TypeGuard, cast

from lark import Lark, Token, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from adjudicator.notation import as_phase_order
from adjudicator.orders import Order
from adjudicator.prestige.orders import Bribe
from adjudicator.variant import Variant, get_variant
from adjudicator.vocab import NEUTRAL, Phase, PhaseKind, Power

from .errors import OrderError, OrderSyntaxError
from .explain import examples, explain_name, keyword_suggestions
from .lexer import Line, OrderLexer, name_words
from .names import NameIndex, name_index, resolve_location
from .transform import NO_POWER, OrderBuilder, Reading, Span, UnitRef, Unresolved

GRAMMAR = resources.files(__package__).joinpath("orders.lark").read_text(encoding="utf-8")


@functools.cache
def parser(index: NameIndex) -> Lark:
    """The order parser of ``index``'s variant: its names are matched as each rule is reduced."""
    return Lark(GRAMMAR, parser="lalr", lexer=OrderLexer, transformer=OrderBuilder(index),
                maybe_placeholders=False, keep_all_tokens=True)    # each rule's values as written, unfiltered


# What each terminal is, in a player's words, in the order they are listed.
EXPECTED: dict[str, str] = {
    "UNIT": "a unit type (A or F)",
    "NAME": "a province name",
    "HOLD": "H (hold)",
    "MOVE": "- (move)",
    "SUPPORT": "S (support)",
    "CONVOY": "C (convoy)",
    "RETREAT": "R (retreat)",
    "BUILD": "build",
    "DISBAND": "disband",
    "VIA": "via convoy",
    "SLASH": "/ and a coast",
    "LPAR": "( and a coast",
    "RPAR": "a closing )",
    "COLON": "a colon after a power",
    "WAIVE": "waive",
    "VASSAL": "VASSAL",
    "BRIBE": "BRIBE",
    "SEIZE": "SEIZE FIEF",
    "REBEL": "REBEL",
    "SECURE": "SECURE LOYALTY",
    "LEND": "LEND",
    "BID": "BID and a number",
    "INT": "a number",
    "PRESTIGE": "prestige",
    "TO": "to",
    "$END": "the end of the order",
}

# Common mistakes, named by example (lark's ``match_examples``): the label of an example that
# fails in the same state of the parser, on the same kind of token, explains the error. In
# the examples, {a} {b} {c} stand for provinces of the variant and {p} for one of its powers;
# in the labels, {hold}, {convoy}... for the orders of :func:`~grammar.explain.examples`.
MISTAKES: dict[str, list[str]] = {
    "the order has no verb: after the unit write H, -, S, C, R, build or disband, as in {hold}":
        ["A {a}", "F {a}", "{a}", "{p} A {a}"],
    "the move does not say where to: write it as {move}": ["A {a} -"],
    "the supported move does not say where to: write it as {support_move}":
        ["A {a} S A {b} -", "A {a} S {b} -"],
    "the support does not say which unit it supports: write it as {support}": ["A {a} S", "A {a} S -"],
    "the convoy does not say which army it carries: write it as {convoy}": ["F {a} C", "F {a} C -"],
    "the convoy does not say where the army goes: write it as {convoy}":
        ["F {a} C A {b}", "F {a} C {b}", "F {a} C A {b} -", "F {a} C {b} -"],
    "two orders on one line: write one order per line":
        ["A {a} - {b} A {c} - {a}", "A {a} H F {b} - {c}", "A {a} S A {b} F {c} H",
         "A {a} S A {b} - {c} F {a} H", "F {a} C A {b} - {c} F {a} H", "A {a} - {b} {c} - {a}",
         "A {a} H {b} - {c}"],
    "the bid has no amount: write BID and a number, as in {vassal}":
        ["VASSAL A {a} BID", "REBEL {a} BID", "SECURE LOYALTY BID"],
    "the prestige order has no bid: write BID and a number, as in {vassal}":
        ["VASSAL A {a}", "BRIBE A {a}", "REBEL {a}", "SECURE LOYALTY"],
    "the coast in brackets is not closed: close it with )": ["F {a}(nc", "F {a}(nc - {b}"],
    "nothing follows the power: write the order after it, as in {prefixed}": ["{p}:"],
    "LEND needs a power and an amount, as in {lend}": ["LEND", "LEND {p}", "LEND 3"],
    "SEIZE FIEF needs the centre, as in {seize}": ["SEIZE FIEF"],
}


def parse_order(text: str, variant: Variant | str, power: Power | None = None, *,
                phase: Phase | PhaseKind | None = None) -> Order:
    """One order line as an order value.

    The power is the line's prefix (``"ENG: ..."``, ``"England: ..."``) or ``power``; when
    both are given they must agree, and when neither is, the error says so (use
    :func:`parse_order_text` to fill the power in later). With ``phase``, a move written in a
    retreat phase comes back as a :class:`Retreat` (see :func:`as_phase_order`).

    Raises :class:`OrderSyntaxError`, :class:`UnknownNameError` or :class:`AmbiguousNameError`.
    """
    order = _parse(text, _variant(variant), power, require_power=True)
    return as_phase_order(order, phase) if phase is not None else order


def parse_order_text(text: str, variant: Variant | str, *, phase: Phase | PhaseKind | None = None) -> Order:
    """Like :func:`parse_order`, but a line without a power is no error: its order has the
    power ``""`` (:data:`NO_POWER`); give it one with :func:`with_power`."""
    order = _parse(text, _variant(variant), None, require_power=False)
    return as_phase_order(order, phase) if phase is not None else order


def _variant(variant: Variant | str) -> Variant:
    return get_variant(variant) if isinstance(variant, str) else variant


def _parse(text: str, variant: Variant, power: Power | None, *, require_power: bool) -> Order:
    if not isinstance(text, str):
        raise OrderSyntaxError(f"an order is text, not {type(text).__name__}")
    line = text.strip("\r\n")
    if "\n" in line or "\r" in line:
        raise OrderSyntaxError("one order per line: this text has several lines (read it as a message)",
                               text=line.splitlines()[0])
    index = name_index(variant)
    if not line.strip():
        raise OrderSyntaxError("the line is empty", expected=(f"an order, such as {examples(index).move}",))
    reading = read_line(line, index)
    return settle_power(reading, line, index, power, require_power=require_power)


def read_line(line: str, index: NameIndex) -> Reading:
    """Parse one line (no power settled yet). Raises :class:`OrderError` located on ``line``."""
    try:
        # the transformer builds the Reading as the line is parsed (lark types parse() as a tree's)
        return cast(Reading, parser(index).parse(Line(index.respell(line))))
    except UnexpectedInput as exc:
        raise syntax_error(exc, line, index) from None
    except OrderError as err:
        raise err.located(line) from None


def settle_power(reading: Reading, line: str, index: NameIndex, power: Power | None, *,
                 require_power: bool) -> Order:
    """Whose order this is: the prefix, else ``power``, else the unit's named owner."""
    who = power or None
    if reading.prefix and who and reading.prefix != who:
        raise _at(OrderSyntaxError(
            f"the line is written for {index.power_name(reading.prefix)} ({reading.prefix}), "
            f"but these are the orders of {index.power_name(who)} ({who})",
            expected=(f"no prefix, or {who}:",)), reading.prefix_span, line)
    who = reading.prefix or who
    owner = reading.owner
    if owner and owner != NEUTRAL and reading.kind is not Bribe:
        if who and owner != who:
            raise _at(OrderSyntaxError(
                f"the unit is named as {index.power_name(owner)}'s ({owner}), "
                f"but the order is given by {index.power_name(who)} ({who})",
                expected=("the unit without its owner's name",)), reading.owner_span, line)
        who = who or owner
    if not who:
        if require_power:
            raise OrderSyntaxError(
                "the order does not say which power gives it",
                text=line, expected=(f"the power first, as in {next(iter(index.variant.powers))}: {line.strip()}",))
        who = NO_POWER
    return reading.order(who)


def _at(error: OrderError, span: Span | None, line: str) -> OrderError:
    if span is not None:
        span.error(error)
    return error.located(line)


def syntax_error(exc: UnexpectedInput, line: str, index: NameIndex) -> OrderError:
    """The project's error for a lark error: reason, caret, what would be accepted.

    A name that names nothing before the point where the parser stopped is the fault to tell
    first (:func:`~grammar.explain.explain_name`): the words the player meant as an order word
    were read as part of it."""
    at_end = isinstance(exc, UnexpectedToken) and exc.token.type == "$END"
    if isinstance(exc, UnexpectedCharacters):
        parser = getattr(exc, "interactive_parser", None)
        expected = parser.accepts() if parser is not None else exc.allowed
        reason = f"{line[exc.pos_in_stream or 0]!r} has no place in an order"
    elif isinstance(exc, UnexpectedToken):
        # ``accepts`` asks the parser itself, so it is exact where LALR merged states.
        expected = exc.accepts or exc.expected
        reason = "the order stops too soon" if at_end else f"{str(exc.token)!r} is not expected here"
    else:
        expected = getattr(exc, "expected", ()) or ()
        reason = "the order stops too soon"
    fault = _name_fault(exc, line, index, set(expected))
    if fault is not None:
        return fault.located(line)
    label = _mistake(exc, index)
    token = getattr(exc, "token", None)
    if _is(token, "NAME") and "$END" in expected and not _names_a_place(index, token):
        label = f"{str(token)!r} is not part of an order: the order ends before it"     # "A ant H thanks"
    if label:
        reason = label
    if at_end:
        column = len(line.rstrip()) + 1
        context = f"{line.rstrip()}\n{' ' * (column - 1)}^"
    else:
        column = (exc.pos_in_stream or 0) + 1
        context = exc.get_context(line).rstrip("\n")
    words = tuple(EXPECTED[t] for t in EXPECTED if t in set(expected))
    return OrderSyntaxError(reason, text=line, column=column, expected=words,
                            suggestions=tuple(keyword_suggestions(index, line.replace("-", " ").split())),
                            context=context)


_AFTER_A_UNIT = ("HOLD", "MOVE", "SUPPORT", "CONVOY", "RETREAT", "BUILD", "DISBAND", "VIA", "$END")
"""What may follow a unit's place, of what the parser would take after a name."""


def _name_fault(exc: UnexpectedInput, line: str, index: NameIndex, expected: set[str]) -> OrderError | None:
    """The first name before the point where the parser stopped that names nothing, explained."""
    stack = exc.state.value_stack if exc.state is not None else []
    order_start = 2 if len(stack) > 1 and _is(stack[1], "COLON") else 0
    for i, value in enumerate(stack):
        after = tuple(EXPECTED[t] for t in _AFTER_A_UNIT if t in expected) if i == len(stack) - 1 else ()
        if type(value) is UnitRef and type(value.location) is Unresolved:
            name = value.location.name
            return (explain_name(index, name, Span.of(name).start, line=line, subject=i == order_start, after=after)
                    or value.location.error)
        if not _is(value, "NAME") or (i + 1 < len(stack) and _is(stack[i + 1], "COLON", "UNIT")):
            continue    # not a name, or a power's name ("ENG:", "English F ...")
        if i > 0 and _is(stack[i - 1], "LEND", "TO", "SEIZE", "REBEL"):
            continue    # a power or a centre, not a unit's place: the parser's own words say it
        if _names_a_place(index, value):
            continue
        fault = explain_name(index, value, Span.of(value).start, line=line, subject=i == order_start, after=after)
        if fault is not None:
            return fault
    return None


def _is(value: object, *kinds: str) -> TypeGuard[Token]:
    return isinstance(value, Token) and value.type in kinds


def _names_a_place(index: NameIndex, name: Token) -> bool:
    try:
        resolve_location(index, name_words(name))
    except OrderError:
        return False
    return True


def _mistake(exc: UnexpectedInput, index: NameIndex) -> str | None:
    """The label of :data:`MISTAKES` that explains ``exc``, with the map's examples: that of an
    example that fails in the same state of the parser (with or without a power before it) on
    the same kind of token. (Lark's ``match_examples`` matches the state alone, which told
    "two orders on one line" for any word after a whole order.)"""
    if not isinstance(exc, (UnexpectedToken, UnexpectedEOF)) or exc.state is None:
        return None     # a character no order has: saying which is clearer than any label
    for label, example in _example_errors(index):
        if (isinstance(example, (UnexpectedToken, UnexpectedEOF)) and example.state is not None
                and example.state.position == exc.state.position and example.token.type == exc.token.type):
            return label.format(**examples(index)._asdict())
    return None


@functools.cache
def _example_errors(index: NameIndex) -> tuple[tuple[str, UnexpectedInput], ...]:
    """Each example of :data:`MISTAKES`, written with the variant's names, with the error the
    parser raises for it."""
    a, b, c = sorted(index.variant.provinces)[:3]
    names = {"a": a, "b": b, "c": c, "p": next(iter(index.variant.powers))}
    out = []
    for label, cases in MISTAKES.items():
        for example in cases:
            try:
                parser(index).parse(example.format(**names))
            except UnexpectedInput as exc:
                out.append((label, exc))
    assert len(out) == sum(map(len, MISTAKES.values())), "each example of MISTAKES is a syntax error"
    return tuple(out)
