"""What the front ends ask a rule module (``adjudicator.modules``), answered by the prestige
module for a position that plays with it and by nobody for the classic game."""

from __future__ import annotations

from adjudicator.modules import Mark, commanded, lords, mark, menu_entry, module_seed, seeded, spent, standing_column
from adjudicator.opening import starting_position
from adjudicator.prestige.state import state_of
from adjudicator.variant import get_variant

STANDARD, CRUSADER = get_variant("standard"), get_variant("crusader")


def test_the_module_supplies_its_seed_and_a_new_game_sets_it():
    classic = starting_position(STANDARD)
    assert module_seed(classic) is None and seeded(classic, 5) == classic
    outremer = starting_position(CRUSADER)
    assert module_seed(outremer) == 0
    assert module_seed(seeded(outremer, 11)) == 11 == state_of(seeded(outremer, 11)).seed


def test_each_prestige_order_is_marked_for_the_picture(orders):
    vassal, bribe, rebel, loyalty, lend = orders("FRA: VASSAL A hol BID 2", "FRA: BRIBE A bel BID 1",
                                                 "FRA: REBEL mun BID 3", "FRA: SECURE LOYALTY BID 1", "FRA: LEND ENG 2")
    assert mark(vassal) == Mark("vassal", "FRA", "hol", on_unit=True, amount=2, lord=True)
    assert mark(bribe) == Mark("bribe", "FRA", "bel", on_unit=True, amount=1)
    assert mark(rebel) == Mark("rebel", "FRA", "mun", amount=3)
    assert mark(loyalty) == Mark("loyalty", "FRA", amount=1)
    assert mark(lend) == Mark("lend", "FRA", amount=2, to="ENG")
    assert mark(orders("FRA: A par H")[0]) is None


def test_the_lords_the_bribes_and_what_was_spent(board, orders):
    from adjudicator.adjudicate import adjudicate

    p = board("S1907M", units=["NEU: A hol", "NEU: A bel", "FRA: A pic"], vassals={"hol": "GER"}, prestige={"FRA": 3})
    assert lords(p) == {"hol": "GER"}
    given = orders("FRA: BRIBE A bel BID 2", "FRA: A bel S A pic")
    adjudication = adjudicate(STANDARD, p, given)
    assert commanded(p, adjudication.events.rule) == {"bel": "FRA"}
    assert spent(p, adjudication.events.rule, adjudication.results[0].order) == 2
    assert standing_column(adjudication.position) == ("prestige", state_of(adjudication.position).prestige)
    classic = starting_position(STANDARD)
    assert lords(classic) == {} and standing_column(classic) is None
    assert commanded(classic, None) == {} and spent(classic, None, given[0]) == 0


class _Names:
    def place(self, location):
        return f"<{location}>"

    def power(self, power):
        return f"<{power}>"

    def titled(self, power):
        return f"<{power}>"

    def unit(self, unit_type, location):
        return f"<{unit_type.value} {location}>"

    def owned(self, unit):
        return f"<{unit}>"

    def order(self, order):
        return str(order)


def test_how_a_menu_offers_each_prestige_order(orders):
    vassal, fief, loyalty, lend = orders("FRA: VASSAL A hol BID 2", "FRA: SEIZE FIEF mun", "FRA: SECURE LOYALTY BID 1",
                                         "FRA: LEND ENG 2")
    entries = [menu_entry(o, _Names()) for o in (vassal, fief, loyalty, lend)]
    assert [(e.label, e.subject, e.template, e.amount, e.least) for e in entries] == [
        ("VASSAL", "<A hol>", "VASSAL A hol BID", True, 2), ("SEIZE FIEF", "<mun>", "SEIZE FIEF mun", False, None),
        ("SECURE LOYALTY", "", "SECURE LOYALTY BID", True, 1), ("LEND", "<ENG>", "LEND ENG", True, 2)]
    assert [e.rank for e in entries] == sorted(e.rank for e in entries)
    assert (entries[3].title, entries[3].prompt) == ("LEND to <ENG>", "Prestige to lend")
    assert menu_entry(orders("FRA: A par H")[0], _Names()) is None
