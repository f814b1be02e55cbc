"""Storage: the migrations build exactly the tables the code declares, on SQLite and PostgreSQL;
times go in and come out timezone-aware UTC; the game row lock is what makes runs exclusive."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

from bot import storage
from bot.storage import Database, GameRow, TimerRow
from tests.service_support import pg_server_url, pg_url, sqlite_db  # noqa: F401


def _game(session, name="g") -> GameRow:
    game = GameRow(name=name, variant="standard", gm="gm", created_at=datetime.now(UTC))
    session.add(game)
    session.flush()
    return game


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path):
    if request.param == "sqlite":
        database = Database.sqlite_file(tmp_path / "s.db")
    else:
        database = Database(request.getfixturevalue("pg_url"))
    database.migrate()
    yield database
    database.dispose()


def test_migrations_match_the_tables_declared(db):
    with db.engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), SQLModel.metadata) == []


def test_migrating_twice_changes_nothing(db):
    from alembic.script import ScriptDirectory

    from bot.migrations import alembic_config

    db.migrate()
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    with db.engine.connect() as c:
        assert [r[0] for r in c.execute(sa.text("SELECT version_num FROM alembic_version"))] == [head]


def test_times_come_back_aware_and_in_utc(db):
    paris = timezone(timedelta(hours=2))
    with db.session() as session:
        game = _game(session)
        session.add(TimerRow(game_id=game.id, version=0, kind="deadline", due_at=datetime(2031, 5, 1, 14, 0, tzinfo=paris)))
    with db.session() as session:
        [timer] = storage.pending_timers(session)
    assert timer.due_at == datetime(2031, 5, 1, 12, 0, tzinfo=UTC)
    assert timer.due_at.utcoffset() == timedelta(0)


def test_a_naive_time_is_refused(db):
    with pytest.raises(sa.exc.StatementError, match="naive datetime"):
        with db.session() as session:
            game = _game(session)
            session.add(TimerRow(game_id=game.id, version=0, kind="deadline", due_at=datetime(2031, 5, 1, 12, 0)))


def test_sqlite_runs_in_wal_mode(sqlite_db):
    with sqlite_db.engine.connect() as c:
        assert c.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_a_locked_game_is_skipped_by_another_transaction(pg_url):
    db = Database(pg_url)
    db.migrate()
    with db.session() as session:
        game_id = _game(session).id
    with db.session() as first:
        assert storage.lock_game(first, game_id) is not None
        with db.session() as second:
            assert storage.lock_game(second, game_id) is None
    with db.session() as third:
        assert storage.lock_game(third, game_id) is not None
    db.dispose()


def test_outbox_claims_are_shared_out_not_duplicated(pg_url):
    from bot.outbox import Announcement, outbox_row

    db = Database(pg_url)
    now = datetime.now(UTC)
    with db.session() as session:
        for i in range(10):
            session.add(outbox_row(Announcement(key=f"k{i}", kind="results", audience="public", subject="s", body="b"), now))
    with db.session() as a:
        mine = storage.claim_outbox(a, "a", now, now + timedelta(seconds=60), limit=4)
        with db.session() as b:
            theirs = storage.claim_outbox(b, "b", now, now + timedelta(seconds=60))
    assert len(mine) == 4 and len(theirs) == 6
    assert not {r.key for r in mine} & {r.key for r in theirs}
    with db.session() as c:  # all claimed and the claims still run: nothing for a third server
        assert storage.claim_outbox(c, "c", now, now + timedelta(seconds=60)) == []
    db.dispose()
