"""Seeded random games on the Outremer map with prestige orders of every kind, retreats, builds
and players who send nothing, played to victory or 30 years with every phase checked
(``tests/soak.py``). A few games in the default run; the full soak, enough games that a fault
found once in twenty games is found, is marked ``soak`` and run by ``.ci/run``."""

from __future__ import annotations

import pytest

from tests.soak import play_soak_game

FULL_SOAK_GAMES = 100       # a fault of one game in twenty goes unseen with probability 0.95**100 < 1%


@pytest.mark.parametrize("seed", range(3))
def test_a_few_whole_games_keep_every_invariant(seed):
    record = play_soak_game(seed, years=12)
    assert record.phases > 30 and record.kinds.get("R") and record.kinds.get("B")


def test_a_classic_map_game_with_the_prestige_rules_keeps_every_invariant():
    record = play_soak_game(7, variant_name="standard", years=10)
    assert record.phases > 20


@pytest.mark.soak
@pytest.mark.parametrize("seed", range(1000, 1000 + FULL_SOAK_GAMES))
def test_soak(seed):
    record = play_soak_game(seed)
    assert record.winner or record.last_phase.startswith("S1131"), record


# -- the checks can fail --------------------------------------------------------------------------

@pytest.fixture
def a_phase(board, orders):
    """A phase where Russia annihilates Norway's army, which stood in Sweden."""
    from adjudicator.adjudicate import adjudicate
    from adjudicator.variant import get_variant

    STANDARD = get_variant("standard")
    before = board("S1907M", units=["NEU: A swe", "RUS: A fin", "RUS: F bot", "ENG: A nwy", "GER: A den",
                                    "GER: F bal"], neutral_homes={"swe": "nwy"})
    given = orders("RUS: A fin - swe", "RUS: F bot S A fin - swe")
    return STANDARD, before, given, adjudicate(STANDARD, before, given)


def test_the_checks_find_a_position_the_judge_cannot_read_back(a_phase):
    from dataclasses import replace

    from adjudicator.vocab import Location
    from adjudicator.prestige.state import put_state, state_of
    from tests.soak import check_phase

    variant, before, given, adj = a_phase
    check_phase(variant, before, given, [True, True], set(), adj, {})
    stale = replace(state_of(adj.position), neutral_homes={Location("swe"): "nwy"})     # as the judge once left it
    with pytest.raises(Exception, match="no neutral unit in 'swe'"):
        check_phase(variant, before, given, [True, True], set(), replace(adj, position=put_state(adj.position, stale)), {})


def test_the_checks_find_a_lost_unit_and_an_order_accepted_then_invalid(a_phase):
    from dataclasses import replace

    from adjudicator.results import OrderResult, Outcome
    from tests.soak import check_phase

    variant, before, given, adj = a_phase
    lost = adj.position.with_changes(units=adj.position.units[1:])
    with pytest.raises(AssertionError, match="units lost"):
        check_phase(variant, before, given, [True, True], set(), replace(adj, position=lost), {})
    invalid = (OrderResult(given[0], Outcome.INVALID, "no"),) + adj.results[1:]
    with pytest.raises(AssertionError, match="accepted at submission, invalid at adjudication"):
        check_phase(variant, before, given, [True, True], set(), replace(adj, results=invalid), {})
