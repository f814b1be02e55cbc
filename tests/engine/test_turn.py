"""The engine's answers before a phase is played (adjudicator.turn): who commands what, what each
power must decide, whether an order can be given (with the reason as a value), what a later
order replaces, who has won."""

from __future__ import annotations

import random

import pytest

from adjudicator.adjudicate import adjudicate
from adjudicator.errors import CrusaderError, IllegalOrderError
from adjudicator.opening import starting_position
from adjudicator.results import Reason
from adjudicator.turn import (Slot, check_order, commands, duty, game_over, legal, replaced, retreats, slot,
                              still_to_decide, submit, survivors, to_decide, winners)
from adjudicator.variant import get_variant
from adjudicator.vocab import Location

from tests.random_play import random_orders

STANDARD = get_variant("standard")
CRUSADER = get_variant("crusader")


@pytest.fixture(scope="session")
def order(orders):
    """``order(text, retreat=False)``: one order written as in the rules text."""
    return lambda text, retreat=False: orders(text, retreat=retreat)[0]


@pytest.fixture(scope="session")
def refusal(order):
    """``refusal(position, text, standing=(), retreat=False)``: why the engine refuses the order, or None."""
    return lambda position, text, standing=(), retreat=False: check_order(
        STANDARD, position, order(text, retreat), [order(s) for s in standing]).refusal


# -- who commands what ------------------------------------------------------------------------------

def test_a_vassal_bought_in_spring_is_commanded_by_its_lord_in_autumn(board, order, orders, refusal):
    spring = board("S1907M", units=["NEU: A nwy", "FRA: F nth"], prestige={"FRA": 3})
    autumn = adjudicate(STANDARD, spring, orders("FRA: VASSAL A nwy BID 2", "FRA: A nwy - swe")).position
    assert str(autumn.phase) == "F1907M"
    mine = {str(c.unit): c.by for c in commands(STANDARD, autumn, "FRA")}
    assert mine == {"FRA: F nth": "own", "NEU: A swe": "vassal"}
    assert check_order(STANDARD, autumn, order("FRA: A swe - nwy")).accepted
    assert refusal(autumn, "RUS: A swe - fin").code == "not-your-unit"
    assert duty(STANDARD, autumn, "FRA").units == commands(STANDARD, autumn, "FRA")


def test_a_standing_bid_lets_its_power_order_the_unit_a_bribe_never_to_move(board, orders, refusal):
    p = board("S1907M", units=["NEU: A nwy", "NEU: A hol", "FRA: F nth"], prestige={"FRA": 5})
    assert refusal(p, "FRA: A nwy - swe").code == "not-your-unit"
    bids = ["FRA: VASSAL A nwy BID 2", "FRA: BRIBE A hol BID 1"]
    assert refusal(p, "FRA: A nwy - swe", bids) is None
    assert refusal(p, "FRA: A hol H", bids) is None
    assert refusal(p, "FRA: A hol - bel", bids).code == "bribed-unit-moves"
    kinds = {str(c.unit): {k.__name__ for k in c.orders} for c in commands(STANDARD, p, "FRA", orders(*bids))}
    assert kinds["NEU: A nwy"] == {"Hold", "Move", "SupportHold", "SupportMove"}
    assert kinds["NEU: A hol"] == {"Hold", "SupportHold", "SupportMove"}


def test_a_vassal_is_ordered_on_its_leash(board, refusal):
    p = board("F1907M", units=["NEU: A swe", "FRA: F nth"], vassals={"nwy": "FRA"}, neutral_homes={"swe": "nwy"})
    why = refusal(p, "FRA: A swe - den")
    assert why.code == "beyond-leash" and "rule 2.4.4" in why.text and "nwy" in why.accepted
    # only the places on the leash the army itself can reach: not the sea areas, nor StP beyond Sweden
    assert set(why.accepted.split(", ")) == {"nwy", "fin"}, why.accepted
    assert refusal(p, "FRA: A swe - nwy") is None


# -- what must be decided ---------------------------------------------------------------------------

def test_a_retreat_phase_where_only_free_neutrals_were_dislodged_has_nothing_to_decide(board, orders):
    p = board("S1907M", units=["NEU: A nwy", "RUS: A fin", "RUS: F bar"])
    after = adjudicate(STANDARD, p, orders("RUS: A fin - nwy", "RUS: F bar S A fin - nwy")).position
    assert str(after.phase) == "S1907R"
    assert to_decide(STANDARD, after) == frozenset()


def test_the_lord_decides_its_dislodged_vassals_retreat_with_the_legal_retreats(board, orders, refusal):
    p = board("S1907M", units=["NEU: A nwy", "RUS: A fin", "RUS: F bar"], vassals={"nwy": "ENG"})
    after = adjudicate(STANDARD, p, orders("RUS: A fin - nwy", "RUS: F bar S A fin - nwy")).position
    assert to_decide(STANDARD, after) == {"ENG"}
    (unit, options), = duty(STANDARD, after, "ENG").retreats
    assert str(unit) == "NEU: A nwy" and options == (Location("stp"), Location("swe"))
    assert refusal(after, "ENG: A nwy - fin", retreat=True).code == "retreat-to-attacker"


def test_every_dislodged_unit_with_who_orders_it_and_where_it_may_go(board, orders):
    """The free neutral's places, where the judge draws its retreat, and the vassal's, which its lord
    chooses among: as the lord's duty gives them."""
    p = board("S1907M", units=["NEU: A nwy", "NEU: A hol", "RUS: A fin", "RUS: F bar", "FRA: A bel", "FRA: A ruh"],
              vassals={"nwy": "ENG"})
    after = adjudicate(STANDARD, p, orders("RUS: A fin - nwy", "RUS: F bar S A fin - nwy", "FRA: A bel - hol",
                                           "FRA: A ruh S A bel - hol")).position
    found = {str(d.unit): (who, places) for d, who, places in retreats(STANDARD, after)}
    assert found == {"NEU: A nwy": ("ENG", (Location("stp"), Location("swe"))),
                     "NEU: A hol": ("NEU", (Location("kie"),))}
    assert duty(STANDARD, after, "ENG").retreats == ((after.dislodged[0].unit, found["NEU: A nwy"][1]),)
    assert retreats(STANDARD, p) == ()      # a movement phase: nobody retreats


def test_who_is_still_playing_is_one_answer(board):
    p = board("W1907B", units=["GER: A ber", "NEU: A hol"], centers={"par": "FRA"}, eliminated=["ITA"])
    assert survivors(STANDARD, p) == tuple(sorted(p.powers_in_game(STANDARD.powers)))
    assert "ITA" not in survivors(STANDARD, p) and {"GER", "FRA"} <= set(survivors(STANDARD, p))
    bare = p.with_changes(units=(), supply_centers={k: "NEU" for k in p.supply_centers})
    assert survivors(STANDARD, bare) == () and game_over(STANDARD, bare)


def test_builds_with_their_sites_and_disbands(board):
    p = board("W1907B", units=["GER: A ber", "FRA: A par", "FRA: A bur", "FRA: A pic", "FRA: A gas"],
              centers={"den": "GER", "hol": "GER"})
    germany, france = duty(STANDARD, p, "GER"), duty(STANDARD, p, "FRA")
    assert (germany.builds, germany.sites, germany.disbands) == (2, ("kie", "mun"), 0)
    assert (france.builds, france.disbands) == (0, 1)
    assert {"GER", "FRA"} <= to_decide(STANDARD, p)
    # no free home centre: nothing to decide, however many centres
    full = board("W1907B", units=["GER: A ber", "GER: A kie", "GER: A mun"], centers={"den": "GER"})
    assert not duty(STANDARD, full, "GER").must_decide and "GER" not in to_decide(STANDARD, full)


def test_the_units_that_may_go_are_named_in_the_order_civil_disorder_would_remove_them(board, orders):
    p = board("W1907B", units=["FRA: A par", "FRA: A bur", "FRA: A pic", "FRA: A gas"])
    france = duty(STANDARD, p, "FRA")
    assert france.disbands == 1
    assert [u.province for u in france.removable] == ["bur", "gas", "pic", "par"]
    nobody = adjudicate(STANDARD, p, ())
    assert [str(r.order) for r in nobody.implicit] == ["A bur disband"]      # the first named goes
    left = still_to_decide(STANDARD, p, "FRA", orders("FRA: A pic disband"))
    assert left.disbands == 0 and not left.must_decide and duty(STANDARD, p, "FRA").must_decide


def test_what_is_still_to_decide_leaves_out_what_the_standing_orders_settle(board, orders):
    p = board("W1907B", units=["GER: A ber"], centers={"den": "GER", "hol": "GER"})
    left = still_to_decide(STANDARD, p, "GER", orders("GER: A kie build"))
    assert (left.builds, left.sites) == (1, ("mun",))
    assert not still_to_decide(STANDARD, p, "GER", orders("GER: A kie build", "GER: waive")).must_decide
    spring = board("S1907M", units=["FRA: A par", "FRA: F bre", "NEU: A hol"], prestige={"FRA": 3})
    left = still_to_decide(STANDARD, spring, "FRA", orders("FRA: A par - bur", "FRA: BRIBE A hol BID 1 A hol H"))
    assert [str(c.unit) for c in left.units] == ["FRA: F bre"]
    left = still_to_decide(STANDARD, spring, "FRA", orders("FRA: VASSAL A hol BID 2"))
    assert {str(c.unit): c.by for c in left.units} == {"FRA: A par": "own", "FRA: F bre": "own", "NEU: A hol": "bid"}


def test_the_engine_skips_the_adjustment_phase_exactly_when_nobody_has_anything_to_decide():
    for seed in range(6):
        rng = random.Random(seed)
        position = starting_position(CRUSADER)
        while position.phase.year < 1104:
            nxt = adjudicate(CRUSADER, position, random_orders(rng, CRUSADER, position)).position
            if position.phase.season.value == "F" and nxt.phase.kind.value != "R":
                winter = nxt.with_changes(phase=nxt.phase.adjustment())
                assert (nxt.phase.kind.value == "B") == bool(to_decide(CRUSADER, winter))
            position = nxt


# -- orders, one by one and as a set ------------------------------------------------------------------

def test_a_refusal_is_a_value_with_a_stable_code_and_what_would_be_accepted(board, order):
    p = starting_position(STANDARD)
    assert check_order(STANDARD, p, order("ENG: F lon - wal")).refusal is None
    why = check_order(STANDARD, p, order("FRA: A par - mun")).refusal
    assert isinstance(why, Reason) and why.code == "not-adjacent"
    assert "bur" in why.accepted.split(", ") and str(why) == why.text
    why = check_order(STANDARD, starting_position(STANDARD).with_changes(
        units=[u for u in p.units if u.province != "spa"] + list(board(units=["FRA: F mao"]).units)),
        order("FRA: F mao - spa")).refusal
    assert why.code == "coast-needed" and why.accepted == "spa/nc or spa/sc"


def test_legal_raises_the_projects_error_with_the_reason(order):
    with pytest.raises(IllegalOrderError) as caught:
        legal(STANDARD, starting_position(STANDARD), order("ENG: F lon - bel"))
    assert caught.value.reason.code == "not-adjacent"
    assert isinstance(caught.value, CrusaderError) and isinstance(caught.value, ValueError)
    assert str(legal(STANDARD, starting_position(STANDARD), order("ENG: lon - nth"))) == "F lon - nth"


@pytest.mark.parametrize("text, code", [
    ("FRA: VASSAL A nwy BID 1", "bid-below-minimum"),
    ("FRA: BRIBE A nwy BID 0", "bid-below-minimum"),
    ("FRA: REBEL tun BID 0", "bid-below-minimum"),
    ("FRA: REBEL bre BID 2", "rebel-own-centre"),
    ("FRA: REBEL lon BID 5", "rebel-home-centre"),
    ("FRA: SEIZE FIEF bel", "fief-not-owned"),
    ("FRA: BRIBE A nwy BID 1 F nth H", "bribe-order-for-another-unit"),
    ("FRA: VASSAL F nth BID 2", "vassal-not-neutral"),
])
def test_prestige_orders_the_rules_make_invalid_are_refused_at_submission(board, refusal, text, code):
    p = board("S1907M", units=["NEU: A nwy", "FRA: F nth", "ENG: F lon"], centers={"tun": "ITA"}, prestige={"FRA": 5})
    assert refusal(p, text).code == code


def test_a_bid_that_may_lose_says_what_it_needs(board, order):
    p = board("S1907M", units=["RUS: A ukr", "NEU: A nwy"], centers={"rum": "RUS"}, prestige={"FRA": 5},
              start={"RUS": 2})
    note = check_order(STANDARD, p, order("FRA: BRIBE A ukr BID 1 A ukr H")).note
    assert note.code == "bid-needs" and note.text.startswith("needs at least 3: 1 + Russia's 2 at the start of the year")
    note = check_order(STANDARD, p, order("FRA: REBEL rum BID 4")).note
    assert note.text.startswith("needs at least 4: 2 + Russia's 2") and "rule 2.7.5" in note.text
    assert check_order(STANDARD, p, order("FRA: VASSAL A nwy BID 2")).note.code == "bid-contest"


def test_prestige_is_spent_only_in_spring_and_autumn_movement(board, refusal):
    assert refusal(board("W1907B", prestige={"FRA": 3}), "FRA: SECURE LOYALTY BID 1").code == "prestige-wrong-phase"
    assert refusal(starting_position(STANDARD), "FRA: SECURE LOYALTY BID 1").code == "prestige-rules-off"


def test_a_later_order_replaces_the_one_of_the_same_slot(board, order, orders):
    p = board("S1907M", units=["FRA: A par", "NEU: A bel"], prestige={"FRA": 5})
    first = submit(STANDARD, p, "FRA", orders("FRA: A par - bur", "FRA: VASSAL A bel BID 2"))
    later = submit(STANDARD, p, "FRA", orders("FRA: A par - pic", "FRA: VASSAL A bel BID 3", "FRA: LEND ENG 1"),
                   first.standing)
    assert [str(o) for o in later.standing] == ["A par - pic", "VASSAL A bel BID 3", "LEND ENG 1"]
    assert [str(v.replaces) for v in later.verdicts] == ["A par - bur", "VASSAL A bel BID 2", "None"]
    assert slot(order("FRA: A par - bur")) == Slot("unit", "par") and str(Slot("loyalty")) == "loyalty"


def test_a_build_at_the_same_site_replaces_and_one_beyond_the_allowance_replaces_the_oldest(board, order, orders):
    """Decision 29: a build or waive beyond the builds allowed takes the place of the oldest standing
    one (a waive: of the oldest build), a removal beyond those due of the oldest removal."""
    p = board("W1907B", units=["GER: A ber"], centers={"den": "GER"})   # 4 centres, 1 unit: 2 free sites
    s = submit(STANDARD, p, "GER", orders("GER: A kie build", "GER: F kie build", "GER: A mun build",
                                          "GER: waive"))
    assert all(v.accepted for v in s.verdicts)
    assert s.verdicts[1].replaces == order("GER: A kie build")          # the same site
    assert s.verdicts[3].replaces == order("GER: F kie build")          # the oldest build
    assert [str(o) for o in s.standing] == ["A mun build", "waive"]
    again = submit(STANDARD, p, "GER", orders("GER: waive", "GER: F kie build"), s.standing)
    assert [str(v.replaces) for v in again.verdicts] == ["A mun build", "waive"]  # a waive takes a build first
    assert [str(o) for o in again.standing] == ["waive", "F kie build"]
    assert replaced(order("GER: A kie build"), [order("GER: A mun build")], STANDARD, p) == []  # allowance left
    disband = board("W1907B", units=["GER: A ber", "GER: A kie", "GER: A mun"], centers={"ber": "RUS"})
    s = submit(STANDARD, disband, "GER", orders("GER: A ber disband", "GER: A kie disband"))
    assert [v.accepted for v in s.verdicts] == [True, True]
    assert s.verdicts[1].replaces == order("GER: A ber disband")
    assert [str(o) for o in s.standing] == ["A kie disband"]
    none = board("W1907B", units=["GER: A ber", "GER: A kie", "GER: A mun"])  # 3 centres, 3 units
    assert not submit(STANDARD, none, "GER", orders("GER: waive")).verdicts[0].accepted  # nothing to replace


def test_orders_beyond_the_prestige_held_are_accepted_with_a_note(board, orders):
    p = board("S1907M", units=["NEU: A nwy", "NEU: A hol"], prestige={"FRA": 3})
    s = submit(STANDARD, p, "FRA", orders("FRA: VASSAL A nwy BID 2", "FRA: VASSAL A hol BID 2",
                                          "FRA: SECURE LOYALTY BID 1"))
    assert all(v.accepted for v in s.verdicts)
    assert s.verdicts[0].note.code == "bid-contest"
    assert s.verdicts[1].note.code == "beyond-prestige" and "holds 1" in s.verdicts[1].note.text
    assert s.verdicts[1].note.text.startswith("needs at least 2; the highest bid takes")   # what it needs, too
    assert s.verdicts[2].note.code == "beyond-prestige"


def test_a_bid_short_because_of_a_loan_written_below_it_says_the_loan_took_the_prestige(board, orders):
    p = board("S1907M", units=["NEU: A nwy"], prestige={"FRA": 2})
    s = submit(STANDARD, p, "FRA", orders("FRA: VASSAL A nwy BID 2", "FRA: LEND ENG 1"))
    note = s.verdicts[0].note
    assert note.code == "beyond-prestige"
    assert "holds 1 after lending 1 (loans are settled first, wherever they are written)" in note.text
    assert "orders above it" not in note.text
    both = submit(STANDARD, p, "FRA", orders("FRA: SECURE LOYALTY BID 1", "FRA: VASSAL A nwy BID 2",
                                             "FRA: LEND ENG 1"))
    assert "holds 0 after lending 1 (loans are settled first, wherever they are written) and the orders " \
           "above it" in both.verdicts[1].note.text
    alone = submit(STANDARD, p, "FRA", orders("FRA: VASSAL A nwy BID 3"))
    assert "and France holds 2:" in alone.verdicts[0].note.text


def test_a_line_for_a_unit_whose_bribe_already_orders_it_is_refused_since_it_would_be_void(board, orders):
    """Decision 18: the order written with a BRIBE is the one carried out, so another line for the
    unit is refused at submission (the adjudication would void it); a BRIBE written with its order
    replaces the power's own standing line for the unit, and a BRIBE without one takes that line."""
    p = board("S1907M", units=["NEU: A hol", "FRA: A bel", "FRA: F nth"], prestige={"FRA": 3})
    s = submit(STANDARD, p, "FRA", orders("FRA: BRIBE A hol BID 1 A hol H", "FRA: A hol S A bel"))
    assert s.verdicts[0].accepted
    why = s.verdicts[1].refusal
    assert why.code == "bribe-order-given" and "(A hol H)" in why.text
    assert why.accepted == "BRIBE A hol BID 1 A hol S A bel"
    assert submit(STANDARD, p, "FRA", orders("FRA: A hol S A bel", "FRA: BRIBE A hol BID 1 A hol H")
                  ).verdicts[0].refusal.code == "bribe-order-given"      # the bid below it counts too
    assert submit(STANDARD, p, "FRA", orders("FRA: BRIBE A hol BID 1 A hol H", "FRA: A hol H")).verdicts[1].accepted
    # a line given first, then the BRIBE with an order: the BRIBE takes the line's place
    first = submit(STANDARD, p, "FRA", orders("FRA: BRIBE A hol BID 1", "FRA: A hol S A bel"))
    assert all(v.accepted for v in first.verdicts)
    again = submit(STANDARD, p, "FRA", orders("FRA: BRIBE A hol BID 1 A hol S A bel - ruh"), first.standing)
    assert [str(o) for o in again.standing] == ["BRIBE A hol BID 1 A hol S A bel - ruh"]
    # and adjudicated, the refused line was indeed void
    both = adjudicate(STANDARD, p, orders("FRA: BRIBE A hol BID 1 A hol H", "FRA: A hol S A bel"))
    assert both.results[1].outcome.value == "fails" and "void" in both.results[1].reason


def test_the_judge_says_why_it_gave_each_unit_the_order_it_carried_out(board, orders):
    from adjudicator.turn import supplied_by

    p = board("S1907M", units=["NEU: A hol", "NEU: A nwy", "FRA: A bel", "FRA: F nth", "GER: A mun"],
              prestige={"FRA": 3})
    adj = adjudicate(STANDARD, p, orders("FRA: BRIBE A hol BID 1 A hol S A bel", "FRA: F nth H"))
    why = {str(r.order): supplied_by(STANDARD, adj, r) for r in adj.implicit}
    assert why == {"A hol S A bel": "bribe", "A nwy H": "neutral", "A bel H": "no-order", "A mun H": "no-order"}
    disorder = board("W1907B", units=["FRA: A par", "FRA: A bur", "FRA: A pic", "FRA: A gas"])
    [removed] = adjudicate(STANDARD, disorder, ()).implicit
    assert supplied_by(STANDARD, adjudicate(STANDARD, disorder, ()), removed) == "disorder"
    retreat = adjudicate(STANDARD, board("S1907M", units=["NEU: A hol", "FRA: A bel", "FRA: A ruh"]),
                         orders("FRA: A bel - hol", "FRA: A ruh S A bel - hol"))
    nxt = adjudicate(STANDARD, retreat.position, ())
    assert [supplied_by(STANDARD, nxt, r) for r in nxt.implicit] == ["random"]


def test_a_bribe_for_the_unit_of_the_powers_own_vassal_bid_is_told_it_is_void_if_the_bid_wins(board, orders):
    p = board("S1907M", units=["NEU: A hol", "FRA: A bel"], prestige={"FRA": 4})
    s = submit(STANDARD, p, "FRA", orders("FRA: VASSAL A hol BID 2", "FRA: BRIBE A hol BID 1 A hol S A bel"))
    assert s.verdicts[1].accepted and s.verdicts[1].note.code == "bribe-after-vassal"
    assert "this BRIBE is void (nothing spent)" in s.verdicts[1].note.text
    adj = adjudicate(STANDARD, p, orders("FRA: VASSAL A hol BID 2", "FRA: BRIBE A hol BID 1 A hol S A bel"))
    assert adj.results[1].outcome.value == "fails" and "already yours" in adj.results[1].reason
    assert "nothing spent" in adj.results[1].reason


# -- who has won -------------------------------------------------------------------------------------

def test_victory_is_one_rule_for_the_adjudication_and_for_the_service(board, orders):
    seventeen = {c: "FRA" for c in ["bre", "mar", "par", "spa", "por", "bel", "hol", "lvp", "lon", "edi", "mun",
                                    "kie", "ber", "den", "swe", "tun", "nap"]}
    p = board("F1907M", units=["FRA: F nth", "FRA: A par"], centers=seventeen)
    assert winners(STANDARD, p) == () and not game_over(STANDARD, p)
    adj = adjudicate(STANDARD, p, orders("FRA: F nth - nwy"))
    assert adj.events.victory == winners(STANDARD, adj.position) == ("FRA",)
    assert game_over(STANDARD, adj.position)
    assert "FRA" in survivors(STANDARD, adj.position)


def test_every_reason_code_the_engine_gives_is_listed_in_the_rules_page():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    source = "".join(p.read_text() for p in (root / "adjudicator").rglob("*.py"))
    used = set(re.findall(r'Reason\(\s*"([a-z-]+)"', source))
    listed = set(re.findall(r"`([a-z]+(?:-[a-z]+)+|[a-z]+)`", (root / "docs" / "rules.md").read_text()
                            .split("Reason codes:")[1]))
    assert used and used <= listed, sorted(used - listed)
