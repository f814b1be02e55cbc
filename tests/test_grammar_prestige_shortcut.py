"""The quick reader of prestige orders agrees with the grammar, or stands aside.

For every generated prestige line (and lines with a token changed),
:func:`grammar.shortcut.read_prestige` either answers ``None`` or the very
:class:`~grammar.transform.Reading` the Lark grammar reads, and :func:`parse_order` gives the
same order or the same error with the shortcuts on and off.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.orders import Bribe, Rebel, SecureLoyalty, SeizeFief, SupportMove, Vassal
from adjudicator.vocab import Location, UnitType
from grammar.names import name_index
from grammar.shortcut import read_prestige, read_short, read_words
from grammar.transform import NO_POWER

from .test_grammar_shortcut import (
    SETTINGS, TOKENS, VARIANTS, assert_agrees, canonical_lines, change_one_token, grammar_reading, places, prefixes,
    units,
)

BIDS = [" BID 2", " bid 1", " BIDS 3 prestige", " BID  0 PRESTIGE", " BID", " BID two", " 2", " BID 2x", " BID 02."]


def assert_prestige_agrees(line: str, variant_name: str = "standard", power: str | None = None):
    variant = VARIANTS[variant_name]
    index = name_index(variant)
    spelled = index.respell(line)
    quick = read_prestige(spelled, index)
    if quick is not None:
        assert quick == grammar_reading(line, variant), line
    assert_agrees(line, variant_name, power)  # parse_order, shortcuts on and off
    return quick


@st.composite
def prestige_lines(draw, variant_name: str) -> str:
    unit, place = units(variant_name), places(variant_name)
    kind = draw(st.sampled_from(["vassal", "bribe", "bribe_order", "seize", "rebel", "secure"]))
    bid = draw(st.sampled_from(BIDS))
    if kind == "vassal":
        body = draw(st.sampled_from(["VASSAL ", "vassal ", "Vassal. "])) + draw(unit) + bid
    elif kind in ("bribe", "bribe_order"):
        owner = draw(st.sampled_from(["", "", "English ", "Russian ", "England ", "The ", "Nobody ", "Neutral "]))
        body = draw(st.sampled_from(["BRIBE ", "bribe "])) + owner + draw(unit) + bid
        if kind == "bribe_order":
            body += " " + draw(canonical_lines(variant_name)).lstrip()
    elif kind == "seize":
        body = draw(st.sampled_from(["SEIZE FIEF ", "seize ", "Seize  fief ", "SEIZE. "])) + draw(place)
    elif kind == "rebel":
        body = draw(st.sampled_from(["REBEL ", "rebel "])) + draw(place) + bid
    else:
        body = draw(st.sampled_from(["SECURE LOYALTY", "secure loyalty", "SECURE", "secure. loyalty"])) + bid
    return draw(prefixes(variant_name)) + body + draw(st.sampled_from(["", "", " ", ".", " !"]))


@SETTINGS
@given(prestige_lines("standard"), st.sampled_from([None, "ENG", "RUS"]))
def test_prestige_reader_agrees_on_standard_lines(line, power):
    assert_prestige_agrees(line, "standard", power)


@SETTINGS
@given(prestige_lines("crusader"), st.sampled_from([None, "ANT"]))
def test_prestige_reader_agrees_on_crusader_lines(line, power):
    assert_prestige_agrees(line, "crusader", power)


@st.composite
def mutated_prestige_lines(draw) -> str:
    words = change_one_token(draw, draw(prestige_lines("standard")).split(" "),
                             TOKENS + ["BID", "2", "prestige", "SEIZE", "FIEF", "REBEL", "LEND", "secure"])
    return " ".join(words)


@SETTINGS
@given(mutated_prestige_lines(), st.sampled_from([None, "ENG"]))
def test_prestige_reader_agrees_on_lines_with_a_token_changed(line, power):
    assert_prestige_agrees(line, "standard", power)


A, F = UnitType.ARMY, UnitType.FLEET

COMMON = [
    ("VASSAL A nwy BID 2", Vassal(NO_POWER, A, Location("nwy"), 2)),
    ("BRIBE English F English Channel BID 2 F English Channel S F North Sea – London",
     Bribe(NO_POWER, F, Location("eng"), 2, owner="ENG",
           order=SupportMove(NO_POWER, F, Location("eng"), F, Location("nth"), Location("lon")))),
    ("SEIZE FIEF tun", SeizeFief(NO_POWER, "tun")),
    ("REBEL Tunis BID 1 prestige", Rebel(NO_POWER, "tun", 1)),
    ("SECURE LOYALTY BID 3", SecureLoyalty(NO_POWER, 3)),
]


@pytest.mark.parametrize("line,order", COMMON, ids=[c[0] for c in COMMON])
def test_prestige_reader_reads_the_common_prestige_orders(line, order):
    quick = assert_prestige_agrees(line)
    assert quick is not None and quick.order == order


@pytest.mark.parametrize("line", ["LEND ENG 3", "BRIBE A rum BID 1 Russian A rum H", "VASSAL English A nwy BID 2",
                                  "BRIBE A rum BID 1 A rum build", "SECURE BID 1", "A par - bur"])
def test_prestige_reader_stands_aside_for_other_lines(line):
    assert assert_prestige_agrees(line, "standard", "ENG") is None


@pytest.mark.parametrize("line", ["AUS: A BUD S A VIE - GAL", "Army Vienna holds", "RUS: F STP/SC - LVN",
                                  "Fleet in the North Sea convoys army London to Norway", "A lon - bel via convoy",
                                  "waive", "F spa(sc) - wes", "Army in the Ruhr supports Army Munich - Burgundy"])
def test_lines_of_whole_words_are_read_in_one_pass(line):
    index = name_index(VARIANTS["standard"])
    assert read_words(line, index) == read_short(line, index) is not None
