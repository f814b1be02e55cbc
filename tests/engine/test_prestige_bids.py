"""Settling prestige orders (adjudicator.prestige.bids): the decisions of docs/rules.md, pinned."""

from __future__ import annotations

from adjudicator.prestige.events import Account, Spending

import pytest

from adjudicator.prestige import settle
from adjudicator.results import Outcome
from adjudicator.variant import get_variant
from adjudicator.vocab import NEUTRAL
from adjudicator.prestige.state import state_of

STANDARD = get_variant("standard")


@pytest.fixture
def run(orders):
    """``run(position, *texts)``: the settlement of the prestige orders, and each order's result."""

    def settled(position, *texts):
        given = orders(*texts)
        s = settle(STANDARD, position, given)
        return s, [s.results.get(i) for i in range(len(given))]

    return settled


def left(s):
    return dict(state_of(s.position).prestige)


# -- decision 12: top down, loans first -----------------------------------------------------

def test_top_down_stops_at_the_first_order_that_cannot_be_afforded(board, run):
    # 2.3.7: "carried out from top down until there is insufficient prestige to complete the next action"
    p = board(units=["NEU: A nwy", "NEU: A swe"], prestige={"FRA": 3})
    s, r = run(p, "FRA: VASSAL A nwy BID 2", "FRA: VASSAL A swe BID 2", "FRA: SECURE LOYALTY BID 1")
    assert [x.outcome for x in r] == [Outcome.SUCCEEDS, Outcome.FAILS, Outcome.FAILS]
    assert r[1].reason == "not enough prestige: 2 needed, 1 left; nothing spent"
    assert r[2].reason == ("not carried out: France's prestige ran out at an earlier order (rule 2.3.7); "
                           "nothing spent")
    assert left(s)["FRA"] == 1


def test_an_invalid_order_costs_nothing_and_does_not_stop_the_orders_after_it(board, run):
    p = board(units=["NEU: A nwy"], prestige={"FRA": 3})
    s, r = run(p, "FRA: VASSAL A nwy BID 1", "FRA: VASSAL A nwy BID 2", "FRA: SECURE LOYALTY BID 1")
    assert [x.outcome for x in r] == [Outcome.INVALID, Outcome.SUCCEEDS, Outcome.SUCCEEDS]
    assert left(s)["FRA"] == 0


def test_loans_are_settled_first_and_stop_at_the_first_one_that_cannot_be_afforded(board, run):
    p = board(units=["NEU: A nwy"], prestige={"RUS": 3, "ENG": 0})
    s, r = run(p, "RUS: VASSAL A nwy BID 2", "RUS: LEND ENG 2", "RUS: LEND FRA 2", "RUS: LEND GER 1")
    # the loans first, whatever their place (decision 12): 2 to England, then France's 2 cannot be paid
    assert [x.outcome for x in r] == [Outcome.FAILS, Outcome.SUCCEEDS, Outcome.FAILS, Outcome.FAILS]
    assert r[0].reason == "not enough prestige: 2 needed, 1 left; nothing spent"
    assert "rule 2.3.7" in r[3].reason
    assert left(s)["RUS"] == 1 and left(s)["ENG"] == 2


def test_a_loan_arrives_before_any_other_order_and_can_be_spent_at_once(board, run):
    p = board(units=["NEU: A nwy"], prestige={"ENG": 1, "RUS": 3})
    s, r = run(p, "ENG: VASSAL A nwy BID 2", "RUS: LEND ENG 3")
    assert r[0].outcome is Outcome.SUCCEEDS and r[1].outcome is Outcome.SUCCEEDS
    assert left(s)["ENG"] == 2 and left(s)["RUS"] == 0
    assert s.ledger["ENG"] == Account(start=1, received=3, spent=(Spending(s.results[0].order, 2),), left=2)


def test_a_loan_received_cannot_be_lent_on_the_same_turn(board, run):
    p = board(prestige={"ENG": 0, "RUS": 3})
    s, r = run(p, "RUS: LEND ENG 3", "ENG: LEND FRA 2")
    assert r[1].outcome is Outcome.FAILS and "2 needed, 0 left" in r[1].reason
    assert left(s)["ENG"] == 3 and left(s)["FRA"] == 2


def test_lend_more_than_you_have_lends_nothing(board, run):
    p = board(prestige={"RUS": 2})
    s, r = run(p, "RUS: LEND ENG 3")
    assert r[0].reason == "not enough prestige: 3 needed, 2 left; nothing lent"
    assert left(s)["RUS"] == 2 and left(s)["ENG"] == 2


# -- decision 13: sealed bids ----------------------------------------------------------------

def test_a_three_way_contest_the_highest_wins_everyone_pays(lords, board, run):
    p = board(units=["NEU: A nwy"], prestige={"FRA": 3, "RUS": 4, "ENG": 2})
    s, r = run(p, "FRA: VASSAL A nwy BID 3", "RUS: VASSAL A nwy BID 4", "ENG: VASSAL A nwy BID 2")
    assert [x.outcome for x in r] == [Outcome.FAILS, Outcome.SUCCEEDS, Outcome.FAILS]
    assert r[0].reason == "outbid by Russia (4 against 3); 3 prestige spent"
    assert lords(s.position) == {"nwy": "RUS"}
    assert left(s) | {} == left(s) and (left(s)["FRA"], left(s)["RUS"], left(s)["ENG"]) == (0, 0, 0)


def test_a_bid_below_the_minimum_is_not_spent_and_does_not_count(board, run):
    p = board(units=["ENG: F eng"], prestige={"FRA": 3}, start={"ENG": 2})
    s, r = run(p, "FRA: BRIBE F eng BID 2 F eng H")
    assert r[0].outcome is Outcome.FAILS
    assert r[0].reason == ("A English Channel not bribed: 2 bid against a minimum of 3 (1 + England's 2 at the start "
                           "of the year); nothing spent").replace("A English", "F English")
    assert left(s)["FRA"] == 3 and "eng" not in s.bribed


def test_a_vassal_bid_of_one_is_invalid(board, run):
    p = board(units=["NEU: A nwy"])
    _s, r = run(p, "FRA: VASSAL A nwy BID 1")
    assert r[0].outcome is Outcome.INVALID and "minimum bid for VASSAL is 2" in r[0].reason


def test_a_bid_returned_below_minimum_still_blocked_later_orders_that_turn(board, run):
    # England's loyalty raises France's minimum: the 2 comes back, but only after the turn.
    p = board(units=["ENG: F eng", "NEU: A nwy"], prestige={"FRA": 3, "ENG": 1}, start={"ENG": 1})
    s, r = run(p, "FRA: BRIBE F eng BID 2 F eng H", "FRA: VASSAL A nwy BID 2", "ENG: SECURE LOYALTY BID 1")
    assert r[0].outcome is Outcome.FAILS and "nothing spent" in r[0].reason
    assert r[1].reason == "not enough prestige: 2 needed, 1 left; nothing spent"
    assert left(s)["FRA"] == 3


def test_mutual_bribes_and_loyalty_settle_one_way_only(board, run):
    # Each power bribes the other's unit, then secures loyalty it can no longer afford.
    p = board(units=["ENG: F eng", "FRA: F mao"], prestige={"FRA": 2, "ENG": 2}, start={"FRA": 1, "ENG": 1})
    s, r = run(p, "FRA: BRIBE F eng BID 2 F eng H", "FRA: SECURE LOYALTY BID 1",
               "ENG: BRIBE F mao BID 2 F mao H", "ENG: SECURE LOYALTY BID 1")
    assert [x.outcome for x in r] == [Outcome.SUCCEEDS, Outcome.FAILS, Outcome.SUCCEEDS, Outcome.FAILS]
    assert s.bribed == {"eng": "FRA", "mao": "ENG"}


def test_a_second_bid_by_the_same_power_on_the_same_unit_does_not_count(board, run):
    p = board(units=["NEU: A nwy"], prestige={"FRA": 5})
    s, r = run(p, "FRA: VASSAL A nwy BID 2", "FRA: VASSAL A nwy BID 3")
    assert r[1].outcome is Outcome.INVALID and left(s)["FRA"] == 3


# -- decision 14: pooling -------------------------------------------------------------------

def test_bribes_giving_the_same_order_pool(board, run):
    p = board(units=["RUS: A ukr", "AUS: A gal", "GER: A sil"], prestige={"AUS": 1, "GER": 1}, start={"RUS": 1})
    s, r = run(p, "AUS: BRIBE A ukr BID 1 A ukr S A gal - war", "GER: BRIBE A ukr BID 1 A ukr S A gal - war")
    assert [x.outcome for x in r] == [Outcome.SUCCEEDS, Outcome.SUCCEEDS]
    assert "Austria 1 and Germany 1 pooled 2" in r[0].reason
    assert s.bribed == {"ukr": "AUS"}


def test_bribes_giving_different_orders_compete(board, run):
    p = board(units=["RUS: A ukr"], prestige={"AUS": 3, "GER": 3, "TUR": 3}, start={"RUS": 1})
    s, r = run(p, "AUS: BRIBE A ukr BID 2 A ukr S A gal - war", "GER: BRIBE A ukr BID 2 A ukr H",
               "TUR: BRIBE A ukr BID 1 A ukr S A gal - war")
    assert [x.outcome for x in r] == [Outcome.SUCCEEDS, Outcome.FAILS, Outcome.SUCCEEDS]
    assert r[1].reason == "outbid by Austria and Turkey (3 against 2); 2 prestige spent"
    assert left(s) | {} and (left(s)["AUS"], left(s)["GER"], left(s)["TUR"]) == (1, 1, 2)


def test_equal_largest_pools_cancel(board, run):
    p = board(units=["RUS: A ukr"], prestige={"AUS": 3, "GER": 3}, start={"RUS": 1})
    s, r = run(p, "AUS: BRIBE A ukr BID 2 A ukr S A gal - war", "GER: BRIBE A ukr BID 2 A ukr H")
    assert all(x.outcome is Outcome.FAILS and "tied at 2" in x.reason for x in r)
    assert s.bribed == {} and left(s)["AUS"] == 1


def test_vassal_bids_never_pool(board, run):
    p = board(units=["NEU: A nwy"], prestige={"FRA": 2, "ENG": 2})
    s, r = run(p, "FRA: VASSAL A nwy BID 2", "ENG: VASSAL A nwy BID 2")
    assert all("tied at 2" in x.reason for x in r) and state_of(s.position).vassals == {}


# -- decisions 15 and 18: who may be bought, who commands ---------------------------------

def test_only_an_armed_neutral_can_be_taken_as_vassal(board, run):
    p = board(units=["ENG: F eng"])
    _s, r = run(p, "FRA: VASSAL F eng BID 2")
    assert r[0].outcome is Outcome.INVALID and "only an armed neutral" in r[0].reason


@pytest.mark.parametrize("written, there, reason", [
    ("F", "NEU: A nwy", "there is no fleet in Norway (an army is there); nothing spent"),
    ("A", "NEU: F nwy", "there is no army in Norway (a fleet is there); nothing spent"),
])
def test_a_bid_naming_the_wrong_unit_type_says_which_unit_is_there(board, run, written, there, reason):
    _s, r = run(board(units=[there]), f"FRA: VASSAL {written} nwy BID 2")
    assert r[0].outcome is Outcome.INVALID and r[0].reason == reason


def test_a_vassal_cannot_be_taken_again_the_same_year(board, run):
    p = board("F1907M", units=["NEU: A nwy"], vassals={"nwy": "FRA"})
    _s, r = run(p, "RUS: VASSAL A nwy BID 2")
    assert r[0].outcome is Outcome.INVALID and "already the vassal of France" in r[0].reason


def test_a_neutral_away_from_home_cannot_be_bribed(board, run):
    p = board(units=["NEU: A swe"], neutral_homes={"swe": "nwy"})
    _s, r = run(p, "RUS: BRIBE A swe BID 1 A swe H")
    assert r[0].outcome is Outcome.INVALID and "rule 2.5.4" in r[0].reason


def test_a_vassal_is_bribed_as_an_enemy_unit(lords, board, run):
    p = board("F1907M", units=["NEU: A nwy"], vassals={"nwy": "FRA"}, prestige={"RUS": 4}, start={"FRA": 2})
    s, r = run(p, "RUS: BRIBE A nwy BID 2 A nwy H")
    assert "minimum of 3 (1 + France's 2" in r[0].reason and r[0].outcome is Outcome.FAILS
    s, r = run(p, "RUS: BRIBE A nwy BID 3 A nwy H", "FRA: A nwy - swe")
    assert r[0].outcome is Outcome.SUCCEEDS and s.commanders["nwy"] == "RUS"
    assert r[1].outcome is Outcome.FAILS and "bribed by Russia" in r[1].reason
    assert s.unit_orders["nwy"][1].__class__.__name__ == "Hold"
    assert lords(s.position) == {"nwy": "FRA"}          # vassaldom goes on


def test_a_unit_in_its_owners_home_centre_cannot_be_bribed(board, run):
    p = board(units=["ENG: F lon"])
    _s, r = run(p, "FRA: BRIBE F lon BID 3 F lon H")
    assert r[0].outcome is Outcome.INVALID and "rule 2.8.4" in r[0].reason


def test_a_bribed_unit_cannot_move_and_its_owners_order_is_void(orders, board, run):
    p = board(units=["ENG: F eng"], prestige={"FRA": 3}, start={"ENG": 1})
    s, r = run(p, "FRA: BRIBE F eng BID 2 F eng - bre", "ENG: F eng - lon")
    assert r[0].outcome is Outcome.SUCCEEDS
    assert s.unit_orders["eng"] == (None, orders("FRA: F eng H")[0])
    assert r[1].reason == "F English Channel is bribed by France this season; this order is void"


def test_the_winning_bidders_separate_line_is_the_vassals_order(board, run):
    p = board(units=["NEU: A nwy"], prestige={"FRA": 3})
    s, _r = run(p, "FRA: VASSAL A nwy BID 2", "FRA: A nwy - swe")
    assert "nwy" not in s.unit_orders and 1 not in s.results       # the movement rules judge that line
    assert s.commanders["nwy"] == "FRA"


def test_a_vassal_may_not_move_beyond_one_province_from_home(orders, board, run):
    p = board("F1907M", units=["NEU: A swe"], vassals={"nwy": "FRA"}, neutral_homes={"swe": "nwy"})
    s, r = run(p, "FRA: A swe - den")
    assert r[0].outcome is Outcome.INVALID and "home centre Norway or a province next to it" in r[0].reason
    assert s.unit_orders["swe"] == (None, orders("FRA: A swe H")[0])
    s, r = run(p, "FRA: A swe S F nth - den")
    assert r[0] is None and "swe" not in s.unit_orders


def test_a_neutral_nobody_commands_holds_at_home_and_marches_home_from_next_door(orders, board, run):
    p = board(units=["NEU: A nwy", "NEU: A fin", "NEU: A sil"],
              neutral_homes={"fin": "swe", "sil": "bel"})
    s, _ = run(p)
    assert s.unit_orders["nwy"][1] == orders("NEU: A nwy H")[0]
    assert s.unit_orders["fin"][1] == orders("NEU: A fin - swe")[0]
    assert s.unit_orders["sil"][1] == orders("NEU: A sil H")[0]


# -- decision 19: fiefs -------------------------------------------------------------------

def test_seize_fief_costs_two_and_makes_a_home_centre(board, run):
    p = board(centers={"gre": "TUR"}, prestige={"TUR": 2})
    s, r = run(p, "TUR: SEIZE FIEF gre")
    assert r[0].outcome is Outcome.SUCCEEDS and "gre" in state_of(s.position).home_centers["TUR"]
    assert left(s)["TUR"] == 0


@pytest.mark.parametrize("centers, eliminated, why", [
    ({}, (), "Turkey does not own Greece"),
    ({"gre": "TUR", "ank": "TUR"}, (), "not"),
    ({"con": "ITA"}, (), "starting home centre of Turkey, which is still in the game"),
])
def test_seize_fief_refused(board, run, centers, eliminated, why):
    who, where = ("ITA", "con") if "con" in centers else ("TUR", "gre" if not centers.get("ank") else "ank")
    p = board(centers=centers, eliminated=eliminated)
    s, r = run(p, f"{who}: SEIZE FIEF {where}")
    assert r[0].outcome is Outcome.INVALID and why in r[0].reason and left(s)[who] == 2


def test_a_starting_home_centre_may_be_seized_once_its_owner_is_eliminated(board, run):
    p = board(centers={"con": "ITA"}, eliminated=("TUR",))
    s, r = run(p, "ITA: SEIZE FIEF con")
    assert r[0].outcome is Outcome.SUCCEEDS and "con" in state_of(s.position).home_centers["ITA"]


# -- decisions 20, 21: rebellion and loyalty ------------------------------------------------

def test_a_home_centre_cannot_rebel(board, run):
    p = board(units=["ITA: F nap"], prestige={"RUS": 5})
    _s, r = run(p, "RUS: REBEL nap BID 5")
    assert r[0].outcome is Outcome.INVALID and "home centre of Italy" in r[0].reason


def test_a_seized_fief_cannot_rebel(board, run):
    p = board(centers={"tun": "ITA"}, homes={"ITA": ["nap", "rom", "ven", "tun"]}, prestige={"RUS": 5})
    _s, r = run(p, "RUS: REBEL tun BID 5")
    assert r[0].outcome is Outcome.INVALID


def test_rebellion_turns_the_owners_unit_neutral_before_movement_and_voids_its_order(orders, board, run):
    p = board(units=["ITA: F tun"], centers={"tun": "ITA"}, prestige={"RUS": 4}, start={"ITA": 2})
    s, r = run(p, "RUS: REBEL tun BID 4", "ITA: F tun - ion")
    assert s.position.unit_at("tun").power == NEUTRAL and s.position.supply_centers["tun"] == NEUTRAL
    assert r[1].outcome is Outcome.FAILS and "rebelled" in r[1].reason
    assert s.unit_orders["tun"] == (None, orders("NEU: F tun H")[0])


def test_another_powers_unit_in_a_rebel_centre_stays_its_own(board, run):
    p = board(units=["TUR: F tun"], centers={"tun": "ITA"}, prestige={"RUS": 4}, start={"ITA": 2})
    s, r = run(p, "RUS: REBEL tun BID 4")
    assert r[0].outcome is Outcome.SUCCEEDS and s.position.unit_at("tun").power == "TUR"


def test_secure_loyalty_is_spent_even_when_nobody_bids(board, run):
    p = board(prestige={"ITA": 2})
    s, r = run(p, "ITA: SECURE LOYALTY BID 2")
    assert r[0].outcome is Outcome.SUCCEEDS and left(s)["ITA"] == 0


def test_loyalty_bids_add_up(board, run):
    p = board(units=["ITA: F tun"], centers={"tun": "ITA"}, prestige={"RUS": 6, "ITA": 2}, start={"ITA": 2})
    _s, r = run(p, "ITA: SECURE LOYALTY BID 1", "ITA: SECURE LOYALTY BID 1", "RUS: REBEL tun BID 5")
    assert r[2].outcome is Outcome.FAILS and "minimum of 6" in r[2].reason


def test_bribing_a_unit_the_same_turn_it_rebels_wastes_the_prestige(board, run):
    p = board(units=["ITA: F tun"], centers={"tun": "ITA"}, prestige={"RUS": 4, "TUR": 4}, start={"ITA": 0})
    s, r = run(p, "RUS: REBEL tun BID 2", "TUR: BRIBE F tun BID 1 F tun H")
    assert r[1].outcome is Outcome.FAILS and "rule 2.7.4" in r[1].reason and left(s)["TUR"] == 3


def test_a_vassal_bid_on_a_unit_whose_rebellion_fails_comes_back_the_rebellion_is_spent(board, run):
    p = board(units=["ITA: F tun"], centers={"tun": "ITA"}, prestige={"RUS": 4, "TUR": 4}, start={"ITA": 3})
    s, r = run(p, "RUS: REBEL tun BID 4", "TUR: VASSAL F tun BID 2")
    assert r[0].outcome is Outcome.FAILS and r[1].outcome is Outcome.FAILS
    assert r[0].reason.endswith("; 4 prestige spent")
    assert left(s)["TUR"] == 4 and left(s)["RUS"] == 0        # 2.7.5: a failed rebellion is spent


def test_a_rebellion_that_fails_against_secured_loyalty_is_spent_and_so_is_the_loyalty(board, run):
    p = board(units=["ITA: F tun"], centers={"tun": "ITA"}, prestige={"RUS": 4, "ITA": 2}, start={"ITA": 2})
    s, r = run(p, "RUS: REBEL tun BID 4", "ITA: SECURE LOYALTY BID 1")
    assert r[0].outcome is Outcome.FAILS and "minimum of 5" in r[0].reason
    assert left(s)["RUS"] == 0 and left(s)["ITA"] == 1      # 2.7.5, Example 11


# -- decision 22: only spring and autumn movement -------------------------------------------

@pytest.mark.parametrize("phase", ["F1907R", "W1907B"])
def test_prestige_orders_outside_movement_are_invalid(board, run, phase):
    p = board(phase, prestige={"RUS": 3})
    s, r = run(p, "RUS: LEND ENG 3", "RUS: SECURE LOYALTY BID 1")
    assert all(x.outcome is Outcome.INVALID and "only in spring and autumn movement" in x.reason for x in r)
    assert left(s)["RUS"] == 3


# -- a BRIBE's own order must be for the bribed unit ------------------------------------------------

def test_a_bribe_whose_order_is_for_another_unit_is_invalid_and_costs_nothing(board, run):
    p = board(units=["NEU: A rum", "RUS: F sev", "AUS: A bud"], prestige={"AUS": 2})
    s, r = run(p, "AUS: BRIBE A rum BID 1 F sev H")
    assert r[0].outcome is Outcome.INVALID and "A rum" in r[0].reason
    assert left(s)["AUS"] == 2 and not s.bribed
