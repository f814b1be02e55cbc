"""Shared test set-up: each test leaves the process's logging as it found it.

The `crusader` command configures logging for the whole process (a handler on the root logger,
levels, structlog); tests that run it in-process would otherwise change what later tests' log
captures see.
"""

from __future__ import annotations

import logging

import pytest
import structlog

from bot.logging import HANDLER_NAME, QUIET


@pytest.fixture(autouse=True)
def _restore_logging():
    root = logging.getLogger()
    level = root.level
    levels = {name: logging.getLogger(name).level for name in QUIET}
    config = structlog.get_config()
    yield
    for handler in [h for h in root.handlers if h.get_name() == HANDLER_NAME]:
        root.removeHandler(handler)
    root.setLevel(level)
    for name, old in levels.items():
        logging.getLogger(name).setLevel(old)
    structlog.configure(**config)


@pytest.fixture
def world(fake_discord, tmp_path):
    """A Discord server with a game master, seven players and a results channel, the judge's
    service on SQLite and its bot (see ``tests/discord_support.py``); for the Discord tests,
    which load the fake Discord's fixtures."""
    from tests.discord_support import build_world

    w = build_world(fake_discord, tmp_path)
    yield w
    w.db.dispose()
