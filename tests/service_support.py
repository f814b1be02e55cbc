"""Fixtures and helpers for the service, storage and crash tests.

PostgreSQL: the tests that need it use a throw-away database created once per test session
on the server at ``CRUSADER_TEST_PG`` (default ``postgresql+psycopg://postgres@127.0.0.1:5432/test``)
and dropped at the end; they skip, saying why, when no server answers.
"""

from __future__ import annotations

import os
import secrets
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from bot.outbox import OutboxDispatcher, RecordingNotifier
from bot.service import GameService
from bot.storage import Database

PG_ADMIN_URL = os.environ.get("CRUSADER_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
START = datetime(2031, 3, 1, 12, 0, tzinfo=UTC)


def _pg_reachable() -> str | None:
    try:
        engine = sa.create_engine(PG_ADMIN_URL, connect_args={"connect_timeout": 3})
        with engine.connect() as c:
            c.execute(sa.text("SELECT 1"))
        engine.dispose()
        return None
    except Exception as exc:  # the reason goes into the skip message
        return f"PostgreSQL not reachable at {PG_ADMIN_URL}: {type(exc).__name__}: {str(exc).splitlines()[0]}"


@pytest.fixture(scope="session")
def pg_server_url():
    """The URL of a fresh database on the PostgreSQL server, dropped after the session."""
    reason = _pg_reachable()
    if reason:
        pytest.skip(reason)
    name = f"crusader_test_{secrets.token_hex(6)}"
    admin = sa.create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = sa.engine.make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    yield url
    with admin.connect() as c:
        c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def pg_url(pg_server_url):
    """The session's PostgreSQL database, emptied for this test."""
    db = Database(pg_server_url)
    db.migrate()
    with db.engine.begin() as c:
        c.execute(sa.text("TRUNCATE game, player, orders, submission, season, timer, outbox RESTART IDENTITY CASCADE"))
    db.dispose()
    return pg_server_url


@pytest.fixture
def sqlite_db(tmp_path):
    db = Database.sqlite_file(tmp_path / "judge.db")
    db.migrate()
    yield db
    db.dispose()


def make_service(db: Database, **kw) -> tuple[GameService, OutboxDispatcher, RecordingNotifier]:
    service = GameService(db, **kw)
    sink = RecordingNotifier()
    return service, OutboxDispatcher(db, [sink]), sink
