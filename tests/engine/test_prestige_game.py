"""A whole game on the Outremer map with prestige orders, from a seeded generator of legal
orders, played twice: both games must be identical phase by phase (decision 17: the only
randomness of the rules, neutral retreats, comes from the position's seed)."""

from __future__ import annotations

import pytest

from adjudicator.orders import canonical
from adjudicator.prestige.orders import PRESTIGE_ORDER_TYPES
from adjudicator.results import Outcome
from adjudicator.prestige.state import state_of


@pytest.fixture
def play_game(outremer_phases):
    """``play_game(seed, years=4)``: what each phase of the seeded game came to."""
    return lambda seed, years=4: [_record(position, adj) for position, _, adj in outremer_phases(seed, years)]


def _record(position, adj) -> dict:
    return {
        "phase": str(position.phase),
        "results": [(canonical(r.order), r.outcome.value, r.reason) for r in adj.results],
        "implicit": [(canonical(r.order), r.outcome.value, r.reason) for r in adj.implicit],
        "units": sorted(str(u) for u in adj.position.units),
        "centers": sorted(adj.position.supply_centers.items()),
        "prestige": repr(state_of(adj.position)),
        "events": repr(adj.events),
    }


def test_a_seeded_outremer_game_replays_identically(play_game):
    first, second = play_game(1101), play_game(1101)
    assert first == second
    phases = [r["phase"] for r in first]
    assert phases[0] == "S1101M" and len(phases) >= 12
    assert any(p.endswith("R") for p in phases), "the game should see units dislodged and retreating"
    prestige_results = [res for r in first for res in r["results"] if any(
        w in res[0] for w in ("VASSAL", "BRIBE", "REBEL", "SEIZE", "LEND", "SECURE"))]
    assert any(res[1] == "succeeds" for res in prestige_results)
    assert any(res[1] == "fails" for res in prestige_results)


def test_another_seed_plays_another_game(play_game):
    assert play_game(7, years=2) != play_game(8, years=2)


def test_every_prestige_order_gets_a_result(play_game):
    for r in play_game(3, years=2):
        assert all(res[1] in {o.value for o in Outcome} and res[2] for res in r["results"])
    assert PRESTIGE_ORDER_TYPES
