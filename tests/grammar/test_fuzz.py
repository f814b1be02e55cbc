"""Whatever a player sends, the grammar answers with orders and errors, never a crash."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.orders import canonical
from adjudicator.variant import get_variant
from grammar import MessageParse, OrderError, parse_message, parse_order, parse_order_text
from tests.budgets import examples

STANDARD = get_variant("standard")

TOKENS = [
    "A", "F", "a", "f", "army", "Fleet", "par", "Paris", "bur", "Burgundy", "spa", "nc", "(nc)", "/sc", "/",
    "(", ")", "stp", "St", "Petersburg", "north", "coast", "n.c.", "North", "Sea", "Mid-Atlantic", "Ocean",
    "-", "->", "–", "—", "=>", "to", "m", "moves", "into", "H", "hold", "stands", "S", "supports", "supp",
    "C", "convoys", "transports", "via", "convoy", "by", "R", "retreats", "b", "build", "place", "d",
    "disband", "remove", "waive", "VASSAL", "BRIBE", "BID", "SEIZE", "FIEF", "REBEL", "SECURE", "LOYALTY",
    "LEND", "prestige", "ENG", "ENG:", "England", "English", ":", "0", "2", "99999999999999999999", ".",
    ",", ";", "!", "?", "Burgandy", "Gulf", "the", "in", "at", "@", "'", "’", "ü", "Zürich", "\t", "  ",
]
orderish = st.lists(st.sampled_from(TOKENS), max_size=14).map(" ".join)
message_lines = st.lists(st.one_of(orderish, st.text(max_size=30), st.sampled_from(
    ["", "-- ", "> A par - bur", "On Monday, GM wrote:", "Thanks,", "England:", "```"])), max_size=12)

FAST = settings(max_examples=examples(100, 300), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _check_order(text: str) -> None:
    try:
        order = parse_order(text, STANDARD, "ENG")
    except OrderError as err:
        assert str(err)
        assert err.reason
        if err.column is not None:
            assert 1 <= err.column <= len(text) + 1
        return
    assert canonical(order).startswith("ENG: ")


@FAST
@given(st.one_of(st.text(max_size=60), orderish))
def test_parse_order_raises_only_order_errors_for_any_text(text):
    _check_order(text)


@FAST
@given(orderish)
def test_a_parsed_order_reads_back_as_itself(text):
    try:
        order = parse_order_text(text, STANDARD)
    except OrderError:
        return
    again = parse_order_text(str(order), STANDARD)
    assert str(again) == str(order)


@FAST
@given(st.one_of(st.text(max_size=200), message_lines.map("\n".join)), st.booleans())
def test_parse_message_never_raises(text, with_power):
    result = parse_message(text, STANDARD, "ENG") if with_power else parse_message(text, STANDARD)
    assert isinstance(result, MessageParse)
    for err in result.errors:
        assert isinstance(err, OrderError)
        assert err.line_no is not None and 1 <= err.line_no <= max(len(text.splitlines()), 1)
        assert str(err).startswith(f"line {err.line_no}: ")
    for order in result.orders:
        assert order.power == "ENG" if with_power else order.power
