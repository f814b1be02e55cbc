"""Every position the judge writes reads back as the same position, and the reader never refuses
the judge's own output: a property over random play on both maps (the classic map with and
without the prestige rules, the Outremer map), with orders of every kind, prestige orders, wrong
lines, retreats, builds and powers that send nothing. The same phase adjudicated from the
document, with the orders as text, gives the same result. The service stores positions as
documents, so nothing may be lost on the way."""

from __future__ import annotations

import json
import random
from dataclasses import replace

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from adjudicator.adjudicate import adjudicate
from adjudicator.opening import starting_position
from adjudicator.orders import canonical
from adjudicator.variant import get_variant
from adjudicator.vocab import PhaseKind
from adjudicator.prestige.state import has_state, put_state, state_of
from bot.codec.documents import adjudicate_document, position_from_dict, position_to_dict
from tests.random_play import Style, random_orders

GAMES = [("crusader", ()), ("standard", ("prestige",)), ("standard", ())]
STANDARD = get_variant("standard")


def phases(variant_name: str, rules, seed: int, count: int, style: Style):
    """The first ``count`` phases of a seeded random game: (position, orders, adjudication)."""
    variant = get_variant(variant_name)
    rng = random.Random(seed)
    position = starting_position(variant, rules)
    if has_state(position):
        position = put_state(position, replace(state_of(position), seed=seed))
    for _ in range(count):
        orders = random_orders(rng, variant, position, style)
        adjudication = adjudicate(variant, position, orders)
        yield position, orders, adjudication
        position = adjudication.position


SEEN_KINDS: set[PhaseKind] = set()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(game=("crusader", ()), seed=0, count=2, junk=0.25, nmr=0.0, bids=0.0)     # a retreat in a movement phase
@example(game=("crusader", ()), seed=0, count=7, junk=0.25, nmr=0.0, bids=0.0)     # a move for a random retreat
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**32 - 1), count=st.integers(1, 40),
       junk=st.floats(0, 0.3), nmr=st.floats(0, 0.3), bids=st.floats(0, 1))
def test_every_position_the_judge_writes_reads_back(game, seed, count, junk, nmr, bids):
    variant_name, rules = game
    for position, orders, adjudication in phases(variant_name, rules, seed, count, Style(nmr=nmr, junk=junk, bids=bids)):
        SEEN_KINDS.add(position.phase.kind)
        for written in (position, adjudication.position):
            doc = json.loads(json.dumps(position_to_dict(written)))
            _, back = position_from_dict(doc)
            assert back == written, f"{written.phase}: the document lost something"

        doc = json.loads(json.dumps(position_to_dict(position)))
        doc["orders"] = [canonical(o) for o in orders]
        result = adjudicate_document(doc)
        assert [r["canonical"] for r in result["results"]] == [canonical(r.order) for r in adjudication.results]
        assert [(r["result"], r["reason"]) for r in result["results"]] == \
            [(r.outcome.value, r.reason) for r in adjudication.results]
        assert result["position"] == json.loads(json.dumps(position_to_dict(adjudication.position)))


def test_the_games_above_reached_every_kind_of_phase():
    if len(SEEN_KINDS) < 3:
        for game in GAMES:
            SEEN_KINDS.update(p.phase.kind for p, _, _ in phases(*game, seed=1, count=20, style=Style()))
    assert SEEN_KINDS == {PhaseKind.MOVEMENT, PhaseKind.RETREAT, PhaseKind.ADJUSTMENT}


def test_vassals_of_a_shared_home_are_written_by_where_they_stand_and_read_back(board, orders):
    p = board("S1907M", units=["NEU: A hol", "NEU: A bel", "FRA: A pic"], centers={"bel": "NEU"},
              neutral_homes={"bel": "hol"}, prestige={"FRA": 3})
    after = adjudicate(STANDARD, p, orders("FRA: VASSAL A hol BID 2", "FRA: A hol - kie")).position
    doc = position_to_dict(after, STANDARD)
    assert doc["vassals"] == {} and doc["vassal_units"] == {"kie": "FRA"}
    assert position_from_dict(json.loads(json.dumps(doc)))[1] == after
    # the one vassal of a home is written by its home, as the contract says
    single = adjudicate(STANDARD, board("S1907M", units=["NEU: A hol"], prestige={"FRA": 3}),
                        orders("FRA: VASSAL A hol BID 2", "FRA: A hol - kie")).position
    doc = position_to_dict(single, STANDARD)
    assert doc["vassals"] == {"hol": "FRA"} and "vassal_units" not in doc
    assert position_from_dict(doc)[1] == single


def test_a_rule_module_that_keeps_no_state_reads_and_writes_its_positions(monkeypatch):
    """A rule module need not keep state in the position (its reader and writer are optional):
    a game under it is read and written without them."""
    from adjudicator import modules

    quiet = modules.RuleModule(name="quiet", hooks=modules.rule_module("prestige").hooks,
                               initial_state=lambda variant, position: None)
    monkeypatch.setitem(modules._REGISTERED, "quiet", quiet)
    try:
        doc = position_to_dict(starting_position(STANDARD).with_changes(rules=frozenset({"quiet"})))
        assert doc["rules"] == ["quiet"]
        _variant, position = position_from_dict(doc)
        assert position.rules == frozenset({"quiet"}) and position_to_dict(position) == doc
    finally:
        modules._modules_of.cache_clear()  # (the module is known to this test only)
