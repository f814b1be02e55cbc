"""The winter recalculation (adjudicator.prestige.winter): decisions 10, 11 (floor), 16, 22."""

from __future__ import annotations

import pytest

from adjudicator.prestige import new_year, ranking_award
from adjudicator.prestige.winter import homeless_neutrals
from adjudicator.variant import get_variant
from adjudicator.prestige.state import put_state, state_of

STANDARD = get_variant("standard")


@pytest.mark.parametrize("counts, expected", [
    pytest.param({"A": 5, "B": 5, "C": 5}, {"A": 3, "B": 3, "C": 3}, id="all-tied-largest"),
    pytest.param({"A": 9, "B": 6, "C": 6, "D": 6, "E": 6, "F": 2}, {"A": 3, "B": 2, "C": 2, "D": 2, "E": 2, "F": 1},
                 id="four-tied-at-the-edge-of-the-next-three-all-get-2"),
    pytest.param({"A": 9, "B": 8, "C": 7, "D": 6, "E": 5}, {"A": 3, "B": 2, "C": 2, "D": 2, "E": 1},
                 id="plain-ranking"),
    pytest.param({"A": 4, "B": 2, "C": 2, "D": 1, "E": 1}, {"A": 3, "B": 2, "C": 2, "D": 2, "E": 2},
                 id="two-tied-then-two-tied"),
    pytest.param({"A": 0}, {"A": 3}, id="the-last-power-standing"),
])
def test_ranking_ties(counts, expected):
    assert ranking_award(counts) == expected


def test_eliminated_powers_get_nothing(board):
    p = board("W1907B", units=[], eliminated=("TUR",),
              centers={"ank": "RUS", "con": "RUS", "smy": "RUS"})
    q, event = new_year(STANDARD, p)
    assert "TUR" not in state_of(q).prestige and "TUR" not in event.award
    assert state_of(q).prestige["RUS"] == 3


def test_a_power_with_neither_centres_nor_units_gets_nothing(board):
    p = board("W1907B", units=["RUS: A mos"], centers={"ank": "RUS", "con": "RUS", "smy": "RUS"})
    q, _ = new_year(STANDARD, p)
    assert "TUR" not in state_of(q).prestige


def test_annihilations_are_added_with_a_floor_of_zero(board):
    p = board("W1907B", units=["RUS: A mos", "ENG: F lon", "GER: A ber"],
              centers={"ank": "RUS", "con": "RUS", "smy": "RUS"})
    from dataclasses import replace
    p = put_state(p, replace(state_of(p), annihilations={"RUS": 2, "ENG": -5, "GER": -1}))
    q, event = new_year(STANDARD, p)
    assert state_of(q).prestige["RUS"] == 5          # 3 + 2
    assert state_of(q).prestige["ENG"] == 0          # 2 - 5, floor 0 (2.3.6)
    assert state_of(q).prestige["GER"] == 1
    assert state_of(q).annihilations == {}
    assert event.annihilations == {"ENG": -5, "GER": -1, "RUS": 2}


def test_unspent_prestige_loans_and_vassals_vanish_in_winter(board):
    p = board("W1907B", units=["NEU: A nwy"], prestige={"ENG": 9}, start={"ENG": 1}, vassals={"nwy": "FRA"})
    q, _ = new_year(STANDARD, p)
    assert state_of(q).prestige["ENG"] == 2 == state_of(q).prestige_start["ENG"]
    assert state_of(q).vassals == {}


def test_a_vassals_home_centre_does_not_count_for_its_lord(board):
    # Norway stays neutral in supply_centers while France holds it in vassaldom.
    p = board("W1907B", units=["NEU: A nwy"], vassals={"nwy": "FRA"},
              centers={"bel": "FRA", "spa": "FRA", "por": "FRA"})
    q, event = new_year(STANDARD, p)
    assert event.centres["FRA"] == 6 and state_of(q).prestige["FRA"] == 3


def test_homeless_neutrals_are_disbanded_unless_in_a_supply_centre_or_released_from_vassaldom(board):
    p = board("W1907B", units=["NEU: A fin", "NEU: A den", "NEU: A nwy", "NEU: A ska".replace("A", "F")],
              neutral_homes={"fin": "swe", "den": "hol", "ska": "nwy"}, vassals={"nwy": "FRA"})
    assert [str(u) for u in homeless_neutrals(STANDARD, p)] == ["NEU: A fin"]
    q, event = new_year(STANDARD, p)
    assert [str(u) for u in event.disbanded] == ["NEU: A fin"]
    assert q.unit_at("fin") is None
    assert {str(k): v for k, v in state_of(q).neutral_homes.items()} == {"den": "hol", "ska": "nwy"}
