"""Fixtures of the service's tests: a service with the outbox and a notifier that records."""

from __future__ import annotations

import pytest

from bot.service import GameService
from bot.store.database import Database
from bot.store.outbox import OutboxDispatcher, RecordingNotifier


@pytest.fixture
def make_service():
    """``make_service(db, **kw)``: ``(GameService, OutboxDispatcher, RecordingNotifier)`` on ``db``."""

    def make(db: Database, **kw) -> tuple[GameService, OutboxDispatcher, RecordingNotifier]:
        service = GameService(db, **kw)
        sink = RecordingNotifier()
        return service, OutboxDispatcher(db, [sink]), sink

    return make
