"""What the grammar tells a player whose line it could not read, as players met it: each message
says what was wrong, points at it, and says what would be accepted, with examples this judge
itself accepts on that map."""

from __future__ import annotations

import re

import pytest

from adjudicator.errors import CrusaderError
from adjudicator.orders import Hold, Move, canonical
from adjudicator.prestige.orders import Lend
from adjudicator.variant import get_variant
from grammar import (
    AmbiguousNameError, OrderError, OrderSyntaxError, UnknownNameError, parse_message, parse_order,
)
from grammar.parser import MISTAKES

STANDARD = get_variant("standard")
CRUSADER = get_variant("crusader")


def error_of(line: str, variant=CRUSADER, power: str | None = "ANT") -> OrderError:
    with pytest.raises(OrderError) as info:
        parse_order(line, variant, power)
    return info.value


def caret_under(err: OrderError) -> str:
    """The text the caret line points at."""
    line, carets = err.context.split("\n")
    start = carets.index("^")
    return line[start:start + carets.count("^")]


# -- the errors are the project's, by kind ---------------------------------------------------

def test_order_errors_are_the_projects_errors_and_value_errors():
    for line in ("A par mvoe bur", "A par - Burgandy", "A s - bur"):
        err = error_of(line, STANDARD, "FRA")
        assert isinstance(err, CrusaderError) and isinstance(err, ValueError)
    assert isinstance(error_of("A par mvoe bur", STANDARD, "FRA"), OrderSyntaxError)
    assert isinstance(error_of("A par - Burgandy", STANDARD, "FRA"), UnknownNameError)
    assert isinstance(error_of("F Gulf - nth", STANDARD, "FRA"), AmbiguousNameError)


# -- a word that is not an order word --------------------------------------------------------

def test_damietta_will_says_that_will_is_no_order_word():
    err = error_of("Damietta will", power="FAT")
    assert isinstance(err, OrderSyntaxError)
    assert "'will' is not an order word" in err.reason
    assert caret_under(err) == "will"
    assert "Did you mean Damietta" not in str(err)
    assert "H (hold)" in str(err) and "- (move)" in str(err)


def test_a_misspelt_verb_is_pointed_at_and_named():
    err = error_of("A ant suports A tar")
    assert caret_under(err) == "suports"
    assert "'supports' for 'suports'" in str(err)
    err = error_of("A par mvoe bur", STANDARD, "FRA")
    assert caret_under(err) == "mvoe" and "'move' for 'mvoe'" in str(err)
    err = error_of("A STP BUID", STANDARD, "RUS")
    assert caret_under(err) == "BUID" and "'build' for 'BUID'" in str(err)


def test_amry_is_suggested_as_army():
    err = error_of("Amry Antioch - Aleppo")
    assert caret_under(err) == "Amry"
    assert "'army' for 'Amry'" in str(err)


# -- prose -----------------------------------------------------------------------------------

def test_please_hold_the_fleet_is_not_two_orders():
    err = error_of("Please hold the fleet in Lattakieh")
    assert "two orders" not in str(err)
    assert caret_under(err) == "Please"
    assert "starts with the unit" in err.reason
    assert "F lat H" in str(err)


def test_two_orders_on_one_line_are_still_named_so():
    for line in ("A ant - ale A tar - ant", "ANT: A ant - ale A tar - ant", "A ant H F lat - nlc"):
        assert "two orders on one line" in error_of(line).reason


@pytest.mark.parametrize("line", ["The fleet in Smyrna holds", "the Fleet in Smyrna holds",
                                  "BYZ: The fleet in Smyrna holds"])
def test_the_article_before_a_unit_is_no_power(line):
    assert parse_order(line, CRUSADER, "BYZ") == Hold("BYZ", get_type("F"), loc("smy"))


def test_an_owner_after_the_article_is_still_the_owner():
    assert parse_order("The English fleet in London holds", STANDARD, "ENG") == Hold("ENG", get_type("F"), loc("lon"))
    err = error_of("The French fleet in London holds", STANDARD, "ENG")
    assert "France's" in err.reason


# -- powers as players name them --------------------------------------------------------------

@pytest.mark.parametrize("line, to", [
    ("LEND Byzantium 1", "BYZ"), ("LEND BYZ 1", "BYZ"), ("LEND Byzantine 1", "BYZ"),
    ("LEND The Byzantine Empire 1", "BYZ"), ("LEND 1 to Byzantium", "BYZ"), ("LEND Fatimids 1", "FAT"),
    ("LEND the Fatimids 1 prestige", "FAT"), ("LEND 1 prestige to Jerusalem", "JER"),
    ("LEND 1 to Jerusalem prestige", "JER"), ("LEND Antioch 1", "ANT"), ("LEND Edessa 1", "EDE"),
])
def test_lend_names_the_power_as_players_do(line, to):
    assert parse_order(line, CRUSADER, "RUM") == Lend("RUM", to, 1)


def test_lend_england_3_as_the_rules_text_writes_it():
    assert parse_order("LEND England 3 prestige", STANDARD, "FRA") == Lend("FRA", "ENG", 3)


def test_a_power_line_with_a_plural_name():
    parsed = parse_message("Fatimids:\nA cai H", CRUSADER)
    assert [canonical(o) for o in parsed.orders] == ["FAT: A cai H"]


@pytest.mark.parametrize("line, variant, power", [("Eastern Seldjuks: A bag H", CRUSADER, "SEL"),
                                                  ("The Fatimids: A cai H", CRUSADER, "FAT"),
                                                  ("Turks: A con H", STANDARD, "TUR")])
def test_a_power_named_in_the_plural_or_with_its_article(line, variant, power):
    assert parse_order(line, variant).power == power


def test_lend_with_a_word_for_its_amount_asks_for_a_number():
    err = error_of("LEND Edessa two")
    assert "LEND needs a power and an amount" in err.reason and "a number" in str(err)


def test_seldjuks_alone_is_still_ambiguous():
    err = error_of("LEND Seldjuks 1")
    assert isinstance(err, AmbiguousNameError)
    assert "RUM" in str(err) and "SEL" in str(err)


# -- the examples in messages are this map's ----------------------------------------------------

EXAMPLE = re.compile(r"(?:as in|write it as|write) ((?:[A-Z]{3}: )?(?:VASSAL |LEND |SEIZE FIEF |[AF] )[^.,;?\n]*?)"
                     r"(?=$|[.,;?](?:\s|$))", re.MULTILINE)


@pytest.mark.parametrize("variant", [STANDARD, CRUSADER], ids=lambda v: v.name)
def test_every_example_in_a_message_is_an_order_of_that_map(variant):
    lines = ["", "A", "ENG:", "F x C", "F x C A y", "VASSAL A x", "VASSAL A x BID", "LEND", "F spa(nc",
             "waive H", "A par -", "A par S", "Damietta will", "Please hold the fleet"]
    power = next(iter(variant.powers))
    found = 0
    for line in lines:
        for p in (power, None):
            try:
                parse_order(line, variant, p)
            except OrderError as err:
                for example in EXAMPLE.findall(str(err)):
                    found += 1
                    parse_order(example, variant, power)     # raises if the judge refuses its own example
    assert found >= 5


def test_the_mistakes_are_told_without_another_maps_names():
    for label in MISTAKES:
        assert not re.search(r"\b(nth|lon|nwy|spa|ENG)\b", label), label


def get_type(letter):
    from adjudicator.vocab import UnitType

    return UnitType.parse(letter)


def loc(text):
    from adjudicator.vocab import Location

    return Location.parse(text)


def test_move_is_unchanged():
    assert parse_order("A par - bur", STANDARD, "FRA") == Move("FRA", get_type("A"), loc("par"), loc("bur"))


# -- the reasons a player reads for an order that cannot be given --------------------------------

@pytest.mark.parametrize("order, where", [("ENG: F eng C A par - bre", "Paris"), ("ENG: F eng C A bre - par", "Paris")])
def test_a_convoy_between_no_coasts_is_told_in_a_whole_sentence(order, where):
    from adjudicator.position import Position
    from adjudicator.turn import check_order
    from adjudicator.vocab import Phase, Unit

    units = [Unit.parse("ENG: F eng"), Unit.parse("FRA: A par"), Unit.parse("FRA: A bre")]
    position = Position("standard", Phase.parse("S1901M"), units, STANDARD.starting_owners)
    reason = check_order(STANDARD, position, parse_order(order, STANDARD)).refusal.text
    assert reason.endswith(f"{where} is not on the coast")
    assert "convoyed only" in reason
