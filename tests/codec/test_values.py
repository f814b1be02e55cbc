"""The JSON the tables keep for orders: every order type, read back field for field."""

from __future__ import annotations

import json

import pytest

from adjudicator.orders import Build, Convoy, Disband, Hold, Move, Retreat, SupportHold, SupportMove, Waive
from adjudicator.prestige.orders import Bribe, Lend, Rebel, SecureLoyalty, SeizeFief, Vassal
from adjudicator.vocab import Location, UnitType
from bot.codec.values import ORDER_TYPES, order_from_json, order_to_json

A, F = UnitType.ARMY, UnitType.FLEET
EXAMPLES = [
    Hold("ENG", F, Location("lon")),
    Hold("ENG", None, Location("lon")),
    Move("RUS", F, Location("stp", "sc"), Location("bot")),
    Move("ENG", A, Location("lon"), Location("nwy"), via_convoy=True),
    SupportHold("FRA", A, Location("par"), None, Location("bur")),
    SupportMove("FRA", F, Location("mao"), F, Location("por"), Location("spa", "nc")),
    Convoy("ENG", F, Location("nth"), A, Location("lon"), Location("nwy")),
    Retreat("SEL", A, Location("mel"), Location("dia")),
    Disband("SEL", A, Location("mel")),
    Build("RUS", F, Location("stp", "nc")),
    Waive("RUS"),
    Vassal("FRA", A, Location("nwy"), 3),
    Bribe("RUS", A, Location("rum"), 2, "TUR", Hold("RUS", A, Location("rum"))),
    Bribe("RUS", None, Location("phr"), 1),
    SeizeFief("ANT", "ale"),
    Rebel("BYZ", "ale", 4),
    SecureLoyalty("FAT", 2),
    Lend("JER", "ANT", 1),
]


@pytest.mark.parametrize("order", EXAMPLES, ids=lambda o: f"{type(o).__name__}: {o}")
def test_an_order_comes_back_as_it_went_in(order):
    assert order_from_json(json.loads(json.dumps(order_to_json(order)))) == order


def test_every_order_type_has_an_example():
    assert {type(o).__name__ for o in EXAMPLES} == set(ORDER_TYPES)


def test_the_json_names_the_fields():
    assert order_to_json(Move("RUS", F, Location("stp", "sc"), Location("bot"))) == {
        "type": "Move", "power": "RUS", "unit_type": "F", "location": "stp/sc", "destination": "bot",
        "via_convoy": False}
