"""A position written as a document and read back is the same position, in every phase of a
seeded Outremer game with prestige orders; and the same phase adjudicated from the document,
with the orders as text, gives the same result. The service stores positions as documents, so
nothing may be lost on the way."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from adjudicator.adjudicate import adjudicate
from adjudicator.orders import canonical
from adjudicator.position import starting_position
from adjudicator.variant import get_variant
from adjudicator.vocab import PhaseKind
from bot.documents import adjudicate_document, position_from_dict, position_to_dict
from tests.test_prestige_game import build_orders, movement_orders, retreat_orders, with_supported_attacks

CRUSADER = get_variant("crusader")


def phases(seed: int, years: int):
    rng = random.Random(seed)
    position = starting_position(CRUSADER)
    position = position.with_changes(prestige=replace(position.prestige, seed=seed))
    while position.phase.year < CRUSADER.start_phase.year + years:
        kind = position.phase.kind
        make = {PhaseKind.MOVEMENT: movement_orders, PhaseKind.RETREAT: retreat_orders,
                PhaseKind.ADJUSTMENT: build_orders}[kind]
        orders = make(rng, CRUSADER, position)
        if kind is PhaseKind.MOVEMENT:
            orders = with_supported_attacks(rng, CRUSADER, position, orders)
        adjudication = adjudicate(CRUSADER, position, orders)
        yield position, orders, adjudication
        position = adjudication.position


SEEN_KINDS: set[PhaseKind] = set()


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_positions_survive_the_document_round_trip(seed):
    for position, orders, adjudication in phases(seed, years=3):
        SEEN_KINDS.add(position.phase.kind)
        doc = json.loads(json.dumps(position_to_dict(position)))
        _, back = position_from_dict(doc)
        assert back == position, f"{position.phase}: the document lost something"

        doc["orders"] = [canonical(o) for o in orders]
        result = adjudicate_document(doc)
        assert [r["canonical"] for r in result["results"]] == [canonical(r.order) for r in adjudication.results]
        assert [(r["result"], r["reason"]) for r in result["results"]] == \
            [(r.outcome.value, r.reason) for r in adjudication.results]
        assert result["position"] == json.loads(json.dumps(position_to_dict(adjudication.position)))


def test_the_games_above_reached_every_kind_of_phase():
    if len(SEEN_KINDS) == 0:
        for seed in (1, 2, 3, 4, 5):
            SEEN_KINDS.update(p.phase.kind for p, _, _ in phases(seed, years=3))
    assert SEEN_KINDS == {PhaseKind.MOVEMENT, PhaseKind.RETREAT, PhaseKind.ADJUSTMENT}


def test_a_results_canonical_text_is_the_orders_canonical_notation():
    """Result documents write each order's canonical text with their own formatting (faster than
    ``str``): it must be the contract's notation for every order kind, with coasts and without,
    with the unit type named or left out, by convoy or not."""
    from adjudicator.orders import Build, Convoy, Disband, Hold, Move, Retreat, SupportHold, SupportMove
    from adjudicator.vocab import Location, UnitType
    from bot.documents import order_text

    rng = random.Random(3)
    places = [Location("lon"), Location("spa", "nc"), Location("stp", "sc"), Location("bur")]
    kinds = [None, UnitType.ARMY, UnitType.FLEET]
    for _ in range(500):
        a, b, c = (rng.choice(places) for _ in range(3))
        t1, t2 = rng.choice(kinds), rng.choice(kinds)
        for order in (Hold("ENG", t1, a), Move("ENG", t1, a, b, rng.random() < 0.3), SupportHold("ENG", t1, a, t2, b),
                      SupportMove("ENG", t1, a, t2, b, c), Convoy("ENG", t1, a, t2, b, c), Retreat("ENG", t1, a, b),
                      Disband("ENG", t1, a), Build("ENG", t1, a)):
            assert order_text(order) == canonical(order)
