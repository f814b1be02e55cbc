"""The prestige rules through the engine (adjudicator.prestige.rules): decisions 11, 15-18, 24."""

from __future__ import annotations

from adjudicator.events import Annihilation
from adjudicator.prestige.events import Account, Spending
from adjudicator.vocab import Unit

import pytest

from adjudicator.adjudicate import adjudicate
from adjudicator.results import Outcome
from adjudicator.variant import get_variant
from adjudicator.prestige.state import state_of

STANDARD = get_variant("standard")


def _bribe(text: str):
    from tests.conftest import _plain_order

    return _plain_order(text)


@pytest.fixture
def play(orders):
    """``play(position, *texts, retreat=False)``: the phase adjudicated with these orders."""
    return lambda position, *texts, retreat=False: adjudicate(STANDARD, position, orders(*texts, retreat=retreat))


# -- decision 11: annihilation ----------------------------------------------------------------

BOXED_HOL = ["GER: A kie", "FRA: A bel", "GER: A ruh"]   # Holland's army has nowhere to go


def test_annihilation_by_a_vassal_scores_for_its_lord(board, play):
    p = board("S1907M", units=["NEU: A hol", "ENG: A bel", "ENG: F nth", "GER: A kie", "GER: A ruh"],
              centers={"bel": "ENG"}, prestige={"GER": 2})
    adj = play(p, "ENG: A bel - hol", "ENG: F nth S A bel - hol")
    assert adj.events.annihilated == (Annihilation(Unit.parse("NEU: A hol"), "ENG"),)
    assert state_of(adj.position).annihilations == {"ENG": 1}      # a neutral nobody commands loses nothing


def test_annihilation_of_a_vassal_costs_its_lord_and_the_mover_gains_even_via_a_vassal(board, play):
    p = board("S1907M", units=["NEU: A hol", "NEU: A bel", "ENG: F nth", *BOXED_HOL[:1], "GER: A ruh"],
              vassals={"hol": "GER", "bel": "FRA"})
    adj = play(p, "FRA: A bel - hol", "ENG: F nth S A bel - hol")
    assert adj.events.annihilated == (Annihilation(Unit.parse("NEU: A hol"), "FRA"),)
    assert state_of(adj.position).annihilations == {"FRA": 1, "GER": -1}


def test_a_unit_with_a_retreat_is_not_annihilated_even_when_it_disbands(board, play):
    p = board("S1907M", units=["GER: A hol", "ENG: A bel", "ENG: F nth", "GER: A kie"], centers={"bel": "ENG"})
    adj = play(p, "ENG: A bel - hol", "ENG: F nth S A bel - hol")
    assert str(adj.position.phase) == "S1907R"
    adj = play(adj.position, "GER: A hol disband", retreat=True)
    assert not state_of(adj.position).annihilations


def test_annihilation_counts_at_the_next_winter(board, play):
    p = board("F1907M", units=["GER: A hol", "ENG: A bel", "ENG: F nth", "GER: A kie", "GER: A ruh", "RUS: A mos"],
              centers={"bel": "ENG", "hol": "GER"})
    adj = play(p, "ENG: A bel - hol", "ENG: F nth S A bel - hol")
    state = state_of(adj.position)
    assert state.annihilations == {}                      # spent by the recalculation
    assert adj.events.rule_year.annihilations == {"ENG": 1, "GER": -1}
    assert state.prestige["ENG"] == adj.events.rule_year.award["ENG"] + 1


# -- decision 15: the vassal's leash when it retreats, and its captures ------------------------

def test_a_vassal_may_retreat_only_within_its_leash_else_it_is_annihilated(board, play):
    # A vassal from Norway standing in Sweden: Finland and the Baltic are beyond its leash.
    p = board("S1907M", units=["NEU: A swe", "RUS: A fin", "RUS: F bot", "ENG: F nth"],
              vassals={"nwy": "FRA"}, neutral_homes={"swe": "nwy"}, centers={"swe": "NEU"})
    # Norway is empty and within the leash: the vassal may go there; Denmark is free but too far.
    adj = play(p, "RUS: A fin - swe", "RUS: F bot S A fin - swe")
    assert str(adj.position.phase) == "S1907R"
    bad = play(adj.position, "FRA: A swe - den", retreat=True)
    assert bad.results[0].outcome is Outcome.INVALID
    good = play(adj.position, "FRA: A swe - nwy", retreat=True)
    assert good.results[0].outcome is Outcome.SUCCEEDS and good.position.unit_at("nwy").power == "NEU"
    assert not state_of(good.position).neutral_homes             # it stands at home again
    # With Norway taken, nothing is left within the leash.
    p2 = p.with_changes(units=p.units + tuple(board(units=["ENG: A nwy"]).units))
    adj = play(p2, "RUS: A fin - swe", "RUS: F bot S A fin - swe")
    assert adj.events.annihilated == (Annihilation(Unit.parse("NEU: A swe"), "RUS"),)
    assert state_of(adj.position).annihilations == {"RUS": 1, "FRA": -1}


def test_vassal_captures_for_its_lord_but_its_home_stays_neutral(board, play):
    p = board("F1907M", units=["NEU: A nwy", "FRA: F nth"], vassals={"nwy": "FRA"})
    adj = play(p, "FRA: A nwy - swe", "FRA: F nth - nwy")
    owners = adj.position.supply_centers
    assert owners["swe"] == "FRA" and owners["nwy"] == "NEU"


def test_another_power_captures_a_vassals_home_as_usual(board, play):
    p = board("F1907M", units=["NEU: A nwy", "ENG: F nth"], vassals={"nwy": "FRA"})
    adj = play(p, "FRA: A nwy - swe", "ENG: F nth - nwy")
    assert adj.position.supply_centers["nwy"] == "ENG"


# -- decision 16: released neutrals --------------------------------------------------------------

def test_a_homeless_neutral_is_disbanded_at_the_winter_adjustment(board, play):
    p = board("F1907M", units=["NEU: A fin", "NEU: A den", "RUS: A stp", "ENG: A swe"],
              neutral_homes={"fin": "swe", "den": "hol"})
    adj = play(p, "ENG: A swe H")
    assert adj.events.rule_year.disbanded == (Unit.parse("NEU: A fin"),)     # bounced off Sweden, not in a centre
    assert adj.position.unit_at("fin") is None and adj.position.unit_at("den").power == "NEU"
    assert adj.position.supply_centers["den"] == "NEU"


# -- decision 17: random neutral retreats ---------------------------------------------------------

@pytest.fixture
def dislodge_norway(board, play):
    """``dislodge_norway(seed)``: the retreat phase after Russia dislodged the neutral army in Norway."""

    def dislodged(seed):
        p = board("S1907M", units=["NEU: A nwy", "RUS: A fin", "RUS: F bar"], seed=seed)
        adj = play(p, "RUS: A fin - nwy", "RUS: F bar S A fin - nwy")
        assert str(adj.position.phase) == "S1907R"
        return adj.position

    return dislodged


def test_neutral_retreat_is_drawn_from_the_seed_and_replays_identically(dislodge_norway, play):
    first = play(dislodge_norway(7))
    again = play(dislodge_norway(7))
    assert [str(u) for u in first.position.units] == [str(u) for u in again.position.units]
    assert first.implicit and first.implicit[0].outcome is Outcome.SUCCEEDS
    landed = {u.province for seed in range(12) for u in play(dislodge_norway(seed)).position.units
              if u.power == "NEU"}
    assert landed == {"stp", "swe"}                               # never Finland, where the attacker came from


def test_neutral_retreat_among_several_options_varies_with_the_seed(board, play):
    p = lambda seed: board("S1907M", units=["NEU: F nwy", "RUS: A fin", "RUS: F bar"], seed=seed)  # noqa: E731
    places = set()
    for seed in range(12):
        adj = play(p(seed), "RUS: A fin - nwy", "RUS: F bar S A fin - nwy")
        ret = play(adj.position)
        places |= {u.province for u in ret.position.units if u.power == "NEU"}
    assert len(places) > 1 and places <= {"nth", "nwg", "ska", "swe", "stp"}


def test_nobody_may_order_a_free_neutrals_retreat(dislodge_norway, play):
    adj = play(dislodge_norway(1), "RUS: A nwy - swe", retreat=True)
    assert adj.results[0].outcome is Outcome.INVALID and "rule 3.4" in adj.results[0].reason


@pytest.fixture
def vassal_takes_sweden(board, play):
    """``vassal_takes_sweden(seed, lord=None)``: the retreat phase after Russia's new vassal from
    Norway dislodged the neutral army of Sweden (held by ``lord``, or free), both neutral
    armies now in Sweden, one on the board and one dislodged."""

    def taken(seed, lord=None):
        p = board("S1907M", units=["NEU: A nwy", "NEU: A swe", "RUS: F bot"], seed=seed,
                  vassals={"swe": lord} if lord else None, prestige={"RUS": 2})
        adj = play(p, "RUS: VASSAL A nwy BID 2", "RUS: A nwy - swe", "RUS: F bot S A nwy - swe")
        assert [r.outcome for r in adj.results] == [Outcome.SUCCEEDS] * 3 and str(adj.position.phase) == "S1907R"
        return adj.position

    return taken


def neutrals(position) -> dict:
    """Each neutral unit of the position: where it stands -> (its home, its lord)."""
    from adjudicator.prestige.state import lord_of, neutral_home

    state = state_of(position)
    out = {str(u.location): (neutral_home(state, u), lord_of(state, u)) for u in position.units if u.power == "NEU"}
    out.update({f"{d.unit.location} (dislodged)": (neutral_home(state, d.unit, dislodged=True),
                                                   lord_of(state, d.unit, dislodged=True))
                for d in position.dislodged if d.unit.power == "NEU"})
    return out


def test_a_free_neutral_dislodged_by_a_vassal_retreats_at_random_and_each_keeps_its_home(vassal_takes_sweden, play):
    from bot.codec.documents import position_from_dict, position_to_dict

    retreat = vassal_takes_sweden(3)
    assert neutrals(retreat) == {"swe": ("nwy", "RUS"), "swe (dislodged)": ("swe", None)}
    _, again = position_from_dict(position_to_dict(retreat, STANDARD))     # the document tells the two apart
    assert again == retreat
    landed = set()
    for seed in range(8):
        for texts in ((), ("RUS: A swe - fin",)):    # the lord cannot order the free neutral's retreat
            adj = play(vassal_takes_sweden(seed), *texts, retreat=True)
            if texts:
                assert adj.results[0].outcome is Outcome.INVALID and "rule 3.4" in adj.results[0].reason
            [gone] = [r for r in adj.implicit if r.order.power == "NEU"]
            assert gone.outcome is Outcome.SUCCEEDS and gone.order.destination.province in ("fin", "den")
            where = str(gone.order.destination)
            landed.add(where)
            assert neutrals(adj.position) == {"swe": ("nwy", "RUS"), where: ("swe", None)}
    assert landed == {"fin", "den"}
    # The lord still commands its vassal in the autumn, and only it.
    nxt = play(adj.position, "RUS: A swe - nwy", f"RUS: A {where} - swe")
    assert nxt.results[0].outcome is Outcome.SUCCEEDS
    assert nxt.results[1].outcome is Outcome.INVALID and "does not command" in nxt.results[1].reason


def test_a_vassal_dislodged_by_another_lords_vassal_retreats_as_its_own_lord_orders(vassal_takes_sweden, play):
    retreat = vassal_takes_sweden(0, lord="ENG")
    assert neutrals(retreat) == {"swe": ("nwy", "RUS"), "swe (dislodged)": ("swe", "ENG")}
    refused = play(retreat, "RUS: A swe - fin", retreat=True)
    assert refused.results[0].outcome is Outcome.INVALID
    adj = play(retreat, "ENG: A swe - den", retreat=True)
    assert adj.results[0].outcome is Outcome.SUCCEEDS
    assert neutrals(adj.position) == {"swe": ("nwy", "RUS"), "den": ("swe", "ENG")}


# -- decision 18: a bribed unit never captures ------------------------------------------------

def test_an_order_written_with_a_winning_bribe_that_cannot_be_carried_out_says_so_and_the_unit_holds(board, play):
    p = board("S1907M", units=["NEU: A swe", "ENG: F lon", "RUS: A fin"], prestige={"RUS": 2})
    adj = adjudicate(STANDARD, p, [_bribe("RUS: BRIBE A swe BID 1 A swe S F lon - nth")])
    result = adj.results[0]
    assert result.outcome is Outcome.SUCCEEDS
    assert result.reason.endswith("; the order given with it cannot be carried out (A swe cannot support a move to "
                                  "the North Sea: it could not move there itself), so it holds")
    [held] = [r for r in adj.implicit if r.order.location.province == "swe"]
    assert str(held.order) == "A swe H" and held.order.power == "RUS"     # the briber's hold

def test_a_bribed_unit_standing_in_a_centre_in_autumn_captures_for_nobody(board, play):
    p = board("F1907M", units=["ENG: A bel"], centers={"bel": "FRA"}, prestige={"GER": 3}, start={"ENG": 1})
    adj = play(p, "GER: BRIBE A bel BID 2 A bel H")
    assert adj.results[0].outcome is Outcome.SUCCEEDS
    assert adj.position.supply_centers["bel"] == "FRA"
    assert state_of(adj.position).bribed == {}
    plain = play(p)
    assert plain.position.supply_centers["bel"] == "ENG"


def test_a_bribed_unit_supports_an_attack_on_its_owner(board, play):
    p = board("S1907M", units=["ENG: F eng", "ENG: F lon", "FRA: F nth"], prestige={"FRA": 2}, start={"ENG": 1})
    adj = play(p, "FRA: BRIBE F eng BID 2 F eng S F nth - lon", "FRA: F nth - lon")
    assert adj.results[1].outcome is Outcome.SUCCEEDS and adj.position.unit_at("lon").power == "FRA"


# -- the ledger --------------------------------------------------------------------------------

def test_the_prestige_ledger_is_in_the_events(board, play):
    p = board(units=["NEU: A nwy"], prestige={"FRA": 3, "RUS": 2})
    adj = play(p, "RUS: LEND FRA 1", "FRA: VASSAL A nwy BID 4")
    [lend, vassal] = [r.order for r in adj.results]
    assert adj.events.rule.ledger["FRA"] == Account(start=3, received=1, spent=(Spending(vassal, 4),), left=0)
    assert adj.events.rule.ledger["RUS"].spent == (Spending(lend, 1),)
    assert adj.events.rule.spent_on(vassal) == 4 and adj.events.rule.spent_on(lend) == 1


# -- decision 24: victory counts only centres owned directly ---------------------------------------

def test_victory_counts_only_directly_owned_centres(board, play):
    seventeen = {c: "FRA" for c in ["bre", "mar", "par", "spa", "por", "bel", "hol", "lvp", "lon", "edi", "mun",
                                    "kie", "ber", "den", "swe", "tun", "nap"]}
    p = board("F1907M", units=["NEU: A nwy", "FRA: F nth", "FRA: A par"], centers=seventeen,
              vassals={"nwy": "FRA"})
    adj = play(p, "FRA: F nth - nwy")
    assert adj.events.victory == () and adj.position.supply_centers["nwy"] == "NEU"
    p = board("F1907M", units=["FRA: F nth", "FRA: A par"], centers=seventeen)
    adj = play(p, "FRA: F nth - nwy")
    assert adj.events.victory == ("FRA",)


def test_a_move_written_with_a_bribe_is_refused_and_the_unit_holds():
    from bot.codec.documents import adjudicate_document

    result = adjudicate_document({"variant": "crusader", "phase": "S1101M", "units": ["NEU: A phr", "BYZ: A nic"],
                                  "orders": ["BYZ: BRIBE A phr BID 1 A phr - myr"]})
    entry = result["results"][0]
    assert entry["result"] == "succeeds"
    assert "may only hold, support or convoy" in entry["reason"] and "so it holds" in entry["reason"]
    assert "NEU: A phr" in result["position"]["units"]


# -- the judge reads back every position it writes -------------------------------------------------

def test_an_annihilated_neutral_away_from_home_leaves_no_home_behind(board, play):
    # Norway's army stands in Sweden and has nowhere to go when Russia takes Sweden.
    from bot.codec.documents import position_from_dict, position_to_dict

    p = board("S1907M", units=["NEU: A swe", "RUS: A fin", "RUS: F bot", "ENG: A nwy", "GER: A den", "GER: F bal"],
              neutral_homes={"swe": "nwy"})
    adj = play(p, "RUS: A fin - swe", "RUS: F bot S A fin - swe")
    assert adj.events.annihilated == (Annihilation(Unit.parse("NEU: A swe"), "RUS"),)
    assert dict(state_of(adj.position).neutral_homes) == {}
    _, again = position_from_dict(position_to_dict(adj.position, STANDARD))
    assert again == adj.position


# -- decision 18: a bribed unit captures nothing, the unit that dislodges it does --------------------

def test_the_unit_that_dislodges_a_bribed_unit_in_autumn_takes_the_centre(board, play):
    p = board("F1907M", units=["ENG: A bel", "FRA: A bur", "FRA: A pic", "GER: A ruh"],
              centers={"bel": "ENG"}, prestige={"GER": 3}, start={"ENG": 1})
    adj = play(p, "GER: BRIBE A bel BID 2 A bel H", "FRA: A bur - bel", "FRA: A pic S A bur - bel")
    assert [r.outcome for r in adj.results] == [Outcome.SUCCEEDS] * 3
    assert str(adj.position.phase) == "F1907R"
    assert dict(state_of(adj.position).bribed) == {}     # the bribed unit is off the board
    done = play(adj.position, "ENG: A bel - hol", retreat=True)
    owners = done.position.supply_centers
    assert owners["bel"] == "FRA"
    assert owners["hol"] == "ENG"       # the bribe ended with the movement: its owner's again where it retreats


# -- decision 15: vassaldom belongs to a unit, not to its home ---------------------------------------

def test_buying_one_of_two_neutrals_that_share_a_home_commands_only_that_one(board, play):
    # Holland's army wandered to Belgium; Holland itself rebelled (its new neutral army shares the home).
    p = board("S1907M", units=["NEU: A hol", "NEU: A bel", "FRA: A pic"], centers={"bel": "NEU"},
              neutral_homes={"bel": "hol"}, prestige={"FRA": 3})
    adj = play(p, "FRA: VASSAL A hol BID 2", "FRA: A hol - kie", "FRA: A bel - ruh")
    assert [r.outcome for r in adj.results[:2]] == [Outcome.SUCCEEDS, Outcome.SUCCEEDS]
    assert adj.results[2].outcome is Outcome.INVALID and "does not command" in adj.results[2].reason
    assert adj.position.unit_at("hol").power == "NEU"       # Holland's other army, nobody's, went home
    nxt = play(adj.position, "FRA: A kie - ruh", "FRA: A hol - ruh")
    assert nxt.results[0].outcome is Outcome.SUCCEEDS       # the lord still commands its vassal in autumn
    assert nxt.results[1].outcome is Outcome.INVALID and "does not command" in nxt.results[1].reason
