"""One order line -> one order value.

The grammar (``orders.lark``) is loaded once; a line is parsed with LALR, the tree is turned
into an order by :class:`~grammar.transform.OrderBuilder`, and the powers the line names
are settled against the power the caller says is writing.
"""

from __future__ import annotations

import functools
from importlib import resources

from lark import Lark, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.exceptions import VisitError
from rapidfuzz import fuzz, process

from adjudicator.orders import Bribe, Move, Order, Retreat
from adjudicator.variant import Variant, get_variant
from adjudicator.vocab import NEUTRAL, Phase, PhaseKind, Power

from .errors import OrderError, OrderSyntaxError
from .names import NameIndex, name_index, normalize, province_candidates
from .shortcut import Pieces, plain_pieces, read_plain, read_prestige, read_short
from .transform import NO_POWER, OrderBuilder, Reading, Span, with_power

GRAMMAR = resources.files(__package__).joinpath("orders.lark").read_text(encoding="utf-8")
PARSER = Lark(GRAMMAR, parser="lalr", lexer="contextual", maybe_placeholders=False)
"""The order parser, built once at import."""

SHORTCUT = True
"""Read the commonest lines with :func:`~grammar.shortcut.read_plain`, the common notations
with :func:`~grammar.shortcut.read_short` (and prestige orders with
:func:`~grammar.shortcut.read_prestige`) before the grammar (same results, much faster).
Tests set it to ``False`` to compare with the grammar."""

# What each terminal is, in a player's words, in the order they are listed.
EXPECTED: dict[str, str] = {
    "UNIT": "a unit type (A or F)",
    "WORD": "a province name",
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

# Common mistakes, named by example (lark's ``match_examples``): the first label whose
# example fails in the same parser state as the player's line explains the error.
MISTAKES: dict[str, list[str]] = {
    "the order has no verb: after the unit write H, -, S, C, R, build or disband":
        ["A par", "F nth", "par", "English A par"],
    "the move does not say where to": ["A par -", "A par - via convoy"],
    "the support does not say which unit it supports": ["A par S", "A par S -"],
    "the convoy does not say which army it carries": ["F nth C", "F nth C -"],
    "the convoy does not say where the army goes: write it as F nth C A lon - nwy":
        ["F nth C A lon", "F nth C lon"],
    "two orders on one line: write one order per line":
        ["A par - bur A mar - spa", "A par H F bre - mao", "A par S A mar F bre H",
         "A par S A mar - bur F bre H", "F nth C A lon - nwy F bre H"],
    "the bid has no amount: write BID and a number, as in BID 2":
        ["VASSAL A nwy BID", "REBEL tun BID", "SECURE LOYALTY BID"],
    "the prestige order has no bid: write BID and a number, as in VASSAL A nwy BID 2":
        ["VASSAL A nwy", "BRIBE A rum", "REBEL tun", "SECURE LOYALTY"],
    "the coast in brackets is not closed: write spa(nc)": ["F spa(nc", "F spa(nc - mao"],
    "nothing follows the power: write the order after it, as in ENG: F lon - nth": ["ENG:"],
    "LEND needs a power and an amount, as in LEND ENG 3": ["LEND", "LEND ENG", "LEND 3"],
}

KEYWORDS = ("hold", "move", "moves", "support", "supports", "convoy", "convoys", "retreat",
            "build", "disband", "remove", "waive", "army", "fleet", "via convoy", "vassal",
            "bribe", "seize fief", "rebel", "secure loyalty", "lend", "bid", "prestige")


def parse_order(text: str, variant: Variant | str, power: Power | None = None, *,
                phase: Phase | PhaseKind | None = None) -> Order:
    """One order line as an order value.

    The power is the line's prefix (``"ENG: ..."``, ``"England: ..."``) or ``power``; when
    both are given they must agree, and when neither is, the error says so (use
    :func:`parse_order_text` to fill the power in later). With ``phase``, a move written in a
    retreat phase comes back as a :class:`Retreat` (see :func:`as_phase_order`).

    Raises :class:`OrderSyntaxError`, :class:`UnknownNameError` or :class:`AmbiguousNameError`.
    """
    order = read_plain(text, _plain_pieces(variant), power or None) if SHORTCUT else None
    if order is None:
        order = _parse(text, _variant(variant), power, require_power=True)
    return as_phase_order(order, phase) if phase is not None else order


def parse_order_text(text: str, variant: Variant | str, *, phase: Phase | PhaseKind | None = None) -> Order:
    """Like :func:`parse_order`, but a line without a power is no error: its order has the
    power ``""`` (:data:`NO_POWER`); give it one with :func:`with_power`."""
    order = read_plain(text, _plain_pieces(variant), NO_POWER) if SHORTCUT else None
    if order is None:
        order = _parse(text, _variant(variant), None, require_power=False)
    return as_phase_order(order, phase) if phase is not None else order


def as_phase_order(order: Order, phase: Phase | PhaseKind) -> Order:
    """The order as meant in ``phase``: in a retreat phase, ``A par - bur`` is a retreat.

    The grammar does not know the phase, so it reads every move as a :class:`Move`; a move
    by convoy stays a move (a retreat can never be convoyed, validation says so).
    """
    if not isinstance(order, Move) or order.via_convoy:  # most orders: no need to look at the phase
        return order
    kind = phase.kind if isinstance(phase, Phase) else phase
    if kind is PhaseKind.RETREAT:
        return Retreat(order.power, order.unit_type, order.location, order.destination)
    return order


def _variant(variant: Variant | str) -> Variant:
    return get_variant(variant) if isinstance(variant, str) else variant


@functools.lru_cache(maxsize=16)    # bounded: a variant may be named in many spellings
def _plain_pieces(variant: Variant | str) -> Pieces:
    """The :func:`~grammar.shortcut.plain_pieces` of ``variant`` (or of the variant so
    named), found in one look-up for the lines :func:`~grammar.shortcut.read_plain` reads."""
    return plain_pieces(name_index(_variant(variant)))


def _parse(text: str, variant: Variant, power: Power | None, *, require_power: bool) -> Order:
    if not isinstance(text, str):
        raise OrderSyntaxError(f"an order is text, not {type(text).__name__}")
    line = text.strip("\r\n")
    if "\n" in line or "\r" in line:
        raise OrderSyntaxError("one order per line: this text has several lines (read it as a message)",
                               text=line.splitlines()[0])
    if not line.strip():
        raise OrderSyntaxError("the line is empty", expected=("an order, such as A par - bur",))
    index = name_index(variant)
    reading = read_line(line, index)
    return settle_power(reading, line, index, power, require_power=require_power)


def read_line(line: str, index: NameIndex) -> Reading:
    """Parse one line (no power settled yet). Raises :class:`OrderError` located on ``line``."""
    spelled = index.respell(line)
    if SHORTCUT:
        reading = read_short(spelled, index) or read_prestige(spelled, index)
        if reading is not None:
            return reading
    try:
        tree = PARSER.parse(spelled)
    except UnexpectedInput as exc:
        raise syntax_error(exc, line, index) from None
    try:
        return OrderBuilder(index).transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, OrderError):
            raise exc.orig_exc.located(line) from None
        raise


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
    if owner and owner != NEUTRAL and not isinstance(reading.order, Bribe):
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
                text=line, expected=("the power first, as in ENG: F lon - nth",))
        who = NO_POWER
    return with_power(reading.order, who)


def _at(error: OrderError, span: Span | None, line: str) -> OrderError:
    if span is not None:
        span.error(error)
    return error.located(line)


def syntax_error(exc: UnexpectedInput, line: str, index: NameIndex) -> OrderSyntaxError:
    """The project's error for a lark error: reason, caret, what would be accepted."""
    at_end = isinstance(exc, UnexpectedToken) and exc.token.type == "$END"
    if isinstance(exc, UnexpectedCharacters):
        parser = getattr(exc, "interactive_parser", None)
        expected = parser.accepts() if parser is not None else exc.allowed
        reason = f"{line[exc.pos_in_stream]!r} has no place in an order"
    elif isinstance(exc, UnexpectedToken):
        # ``accepts`` asks the parser itself, so it is exact where LALR merged states.
        expected = exc.accepts or exc.expected
        reason = "the order stops too soon" if at_end else f"{str(exc.token)!r} is not expected here"
    else:
        expected = getattr(exc, "expected", ()) or ()
        reason = "the order stops too soon"
    label = _mistake(exc)
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
                            suggestions=_keyword_suggestions(line, index), context=context)


def _mistake(exc: UnexpectedInput) -> str | None:
    """The label of :data:`MISTAKES` that explains ``exc``: lark's ``match_examples`` (with
    ``use_accepts=False``: with it, lark 1.3.1 formats a debug message with "%d" on a
    ParserState and raises TypeError whenever two examples share a state), run over the
    examples' errors parsed once rather than at every error."""
    if exc.state is None:
        return None
    candidate = None
    for label, example in _example_errors():
        if example.state == exc.state:
            if (isinstance(exc, (UnexpectedToken, UnexpectedEOF))
                    and isinstance(example, (UnexpectedToken, UnexpectedEOF))
                    and example.token == exc.token):
                return label
            if candidate is None:
                candidate = label
    return candidate


@functools.cache
def _example_errors() -> tuple[tuple[str, UnexpectedInput], ...]:
    """Each example of :data:`MISTAKES` with the error the parser raises for it."""
    out = []
    for label, examples in MISTAKES.items():
        for example in examples:
            try:
                PARSER.parse(example)
            except UnexpectedInput as exc:
                out.append((label, exc))
    return tuple(out)


def _keyword_suggestions(line: str, index: NameIndex) -> tuple[str, ...]:
    """Misspelt keywords: a word that is neither a name nor a keyword but is close to one."""
    out: list[str] = []
    for word in line.replace("-", " ").split():
        key = normalize(word)
        if len(key) < 3 or key in index.powers or province_candidates(index, word)[0]:
            continue
        if any(normalize(k) == key for k in KEYWORDS):
            continue
        match = process.extractOne(key, KEYWORDS, scorer=fuzz.ratio, score_cutoff=72)
        if match:
            out.append(f"{match[0]!r} for {word!r}")
    return tuple(out[:3])
