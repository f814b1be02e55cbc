"""Fixtures of the service's tests: a service with the outbox and a notifier that records, a clock
that stands still, and :func:`flush` to deliver what the outbox holds."""

from __future__ import annotations

import asyncio

import pytest
import time_machine

from bot.service import GameService
from bot.store.database import Database
from bot.store.outbox import OutboxDispatcher
from tests.notifiers import RecordingNotifier


@pytest.fixture
def make_service():
    """``make_service(db, **kw)``: ``(GameService, OutboxDispatcher, RecordingNotifier)`` on ``db``."""

    def make(db: Database, **kw) -> tuple[GameService, OutboxDispatcher, RecordingNotifier]:
        service = GameService(db, **kw)
        sink = RecordingNotifier()
        return service, OutboxDispatcher(db, [sink]), sink

    return make


@pytest.fixture
def clock(start):
    """The clock, standing at ``start`` until a test moves it (``clock.shift``, ``clock.move_to``)."""
    with time_machine.travel(start, tick=False) as traveller:
        yield traveller


def flush(dispatcher) -> int:
    """Deliver every due announcement of the outbox now; how many were delivered."""
    return asyncio.run(dispatcher.flush())


POWERS = {"AUS": "anna", "ENG": "ed", "FRA": "flo", "GER": "gus", "ITA": "ivo", "RUS": "rita", "TUR": "tom"}
"""The players of the classic game :func:`start_tannenberg` starts, by power."""


def start_tannenberg(service, dispatcher, policy) -> None:
    """Create the classic game 'tannenberg' (game master ``gm``, seed 7) with :data:`POWERS`, start
    it, and deliver its start."""
    service.create_game("tannenberg", "standard", "gm", policy=policy, seed=7)
    for power, player in POWERS.items():
        service.join("tannenberg", player, power)
    service.start("tannenberg", "gm")
    flush(dispatcher)


def to_the_1901_retreat(service, game: str) -> None:
    """Spring and autumn 1901 of classic game ``game``, Germany played by gus and France by flo (as
    in :data:`POWERS`): Germany's army in Burgundy is dislodged, France takes Portugal."""
    service.submit_orders(game, "gus", "A mun - bur")
    service.submit_orders(game, "flo", "A par - gas\nF bre - mao")
    service.force_adjudicate(game, "gm")
    service.submit_orders(game, "flo", "A mar - bur\nA gas S A mar - bur\nF mao - por")
    service.force_adjudicate(game, "gm")
    assert service.status(game).phase == "F1901R"
