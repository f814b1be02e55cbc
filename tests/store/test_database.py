"""Storage: the migrations build exactly the tables the code declares, on SQLite and PostgreSQL;
times go in and come out timezone-aware UTC; the game row lock is what makes runs exclusive."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

from bot.store import database
from bot.store.database import Database
from bot.store.rows import GameRow, GameStatus, PlayerRow, PlayerStatus, TimerRow


def _game(session, name="g") -> GameRow:
    game = GameRow(name=name, variant="standard", gm="gm", created_at=datetime.now(UTC))
    session.add(game)
    session.flush()
    return game


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path):
    if request.param == "sqlite":
        handle = Database.sqlite_file(tmp_path / "s.db")
    else:
        handle = Database(request.getfixturevalue("pg_url"))
    handle.migrate()
    yield handle
    handle.dispose()


def test_migrations_match_the_tables_declared(db):
    with db.engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), SQLModel.metadata) == []


def test_migrating_twice_changes_nothing(db):
    from alembic.script import ScriptDirectory

    from bot.store.migrations import alembic_config

    db.migrate()
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    with db.engine.connect() as c:
        assert [r[0] for r in c.execute(sa.text("SELECT version_num FROM alembic_version"))] == [head]


def test_a_new_database_stands_at_no_revision_and_a_migrated_one_at_the_newest(tmp_path):
    """A start checks the database against them before it takes the lock and runs Alembic's environment."""
    from bot.store.migrations import current, heads

    assert len(heads()) == 1    # one line of migrations: no two revisions left unmerged
    db = Database.sqlite_file(tmp_path / "new.db")
    with db.engine.connect() as c:
        assert current(c) == set()   # a new database: migrated by Alembic
    db.migrate()
    with db.engine.connect() as c:
        assert current(c) == heads()
    db.dispose()


def test_times_come_back_aware_and_in_utc(db):
    paris = timezone(timedelta(hours=2))
    with db.session() as session:
        game = _game(session)
        session.add(TimerRow(game_id=game.id, version=0, kind="deadline", due_at=datetime(2031, 5, 1, 14, 0, tzinfo=paris)))
    with db.session() as session:
        [timer] = database.pending_timers(session)
    assert timer.due_at == datetime(2031, 5, 1, 12, 0, tzinfo=UTC)
    assert timer.due_at.utcoffset() == timedelta(0)


def test_a_naive_time_is_refused(db):
    with pytest.raises(sa.exc.StatementError, match="naive datetime"), db.session() as session:
        game = _game(session)
        session.add(TimerRow(game_id=game.id, version=0, kind="deadline", due_at=datetime(2031, 5, 1, 12, 0)))


def test_statuses_are_stored_as_their_strings_and_read_back_as_members(db):
    with db.session() as session:
        game = _game(session)
        game.status = GameStatus.PAUSED
        session.add(PlayerRow(game_id=game.id, player="anna", status=PlayerStatus.CIVIL_DISORDER,
                              joined_at=datetime.now(UTC)))
        session.add(game)
    with db.engine.connect() as connection:      # the stored values, byte for byte as before the enums
        assert connection.execute(sa.text("SELECT status FROM game")).scalar_one() == "paused"
        assert connection.execute(sa.text("SELECT status FROM player")).scalar_one() == "civil_disorder"
    with db.session() as session:
        [game] = database.all_games(session)
        [player] = database.players_of(session, game.id)
    assert game.status is GameStatus.PAUSED and player.status is PlayerStatus.CIVIL_DISORDER


def test_a_status_that_is_none_of_its_enum_is_refused(db):
    with pytest.raises(sa.exc.StatementError, match="'over' is not a valid GameStatus"), db.session() as session:
        game = _game(session)
        game.status = "over"
        session.add(game)


def test_sqlite_runs_in_wal_mode(sqlite_db):
    with sqlite_db.engine.connect() as c:
        assert c.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_a_read_only_session_reads_and_any_write_in_it_fails_leaving_the_next_session_free_to_write(db):
    with db.session() as session:
        game_id = _game(session).id
    with db.session(read_only=True) as session:
        assert database.game_listing(session, game_id).name == "g"
    for write in ("row", "statement"):
        with pytest.raises(sa.exc.DBAPIError), db.session(read_only=True) as session:
            game = session.get(GameRow, game_id)
            if write == "row":
                game.gm = "someone else"
                session.add(game)
            else:
                database.cancel_timers(session, game_id, datetime.now(UTC))
    with db.session() as session:
        session.get(GameRow, game_id).gm = "new gm"
    with db.session(read_only=True) as session:
        assert session.get(GameRow, game_id).gm == "new gm"


def test_sessions_of_both_kinds_in_turn_on_sqlite_switch_no_pragma_on_a_connection(tmp_path):
    # each switch of PRAGMA query_only expires every statement prepared on its connection, and
    # the next use of each compiles it again: the read-only sessions have connections of their own
    db = Database.sqlite_file(tmp_path / "s.db")
    db.migrate()
    db.dispose()    # (every connection made from here on traced)
    pragmas: list[tuple[int, str]] = []

    def trace(dbapi_connection, _record) -> None:
        dbapi_connection.set_trace_callback(
            lambda sql: pragmas.append((id(dbapi_connection), sql)) if "query_only" in sql else None)

    for engine in {db.engine, db._reader}:
        sa.event.listen(engine, "connect", trace)
    with db.session() as session:
        game_id = _game(session).id
    for i in range(20):
        with db.session(read_only=i % 2 == 0) as session:
            assert database.game_listing(session, game_id).name == "g"
    assert pragmas == []        # (set when a reader's connection is made, before the trace)
    with db.session(read_only=True) as session, db._reader.connect() as other:
        assert other.exec_driver_sql("PRAGMA query_only").scalar() == 1
    with db.engine.connect() as writer:
        assert writer.exec_driver_sql("PRAGMA query_only").scalar() == 0
    db.dispose()


def test_a_read_only_session_on_sqlite_holds_no_writer_back_as_every_other_session_does(tmp_path):
    import sqlite3

    db = Database.sqlite_file(tmp_path / "s.db")
    db.migrate()
    with db.session() as session:
        game_id = _game(session).id
    writer = sqlite3.connect(tmp_path / "s.db", timeout=0, isolation_level=None)   # (no waiting for a lock)

    def write(gm: str) -> None:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("UPDATE game SET gm = ? WHERE id = ?", (gm, game_id))
        writer.execute("COMMIT")

    with db.session(read_only=True) as session:
        assert database.game_listing(session, game_id).gm == "gm"  # its transaction under way
        write("anna")
        assert database.game_listing(session, game_id).gm == "gm"  # (what it read, as it was)
    with db.session() as session:
        assert database.game_listing(session, game_id).gm == "anna"
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            write("bruno")
    writer.close()
    db.dispose()


def test_a_locked_game_is_skipped_by_another_transaction(pg_url):
    db = Database(pg_url)
    db.migrate()
    with db.session() as session:
        game_id = _game(session).id
    with db.session() as first:
        assert database.lock_game(first, game_id) is not None
        with db.session() as second:
            assert database.lock_game(second, game_id) is None
    with db.session() as third:
        assert database.lock_game(third, game_id) is not None
    db.dispose()


def test_outbox_claims_are_shared_out_not_duplicated(pg_url):
    from bot.store.outbox import Announcement, outbox_row

    db = Database(pg_url)
    now = datetime.now(UTC)
    with db.session() as session:
        games = [_game(session, f"g{i}").id for i in range(10)]
        for i, game_id in enumerate(games):
            session.add(outbox_row(Announcement(key=f"k{i}", kind="results", audience="public", subject="s", body="b",
                                                game_id=game_id), now))
    with db.session() as a:
        mine = database.claim_outbox(a, "a", now, now + timedelta(seconds=60), limit=4)
        with db.session() as b:
            theirs = database.claim_outbox(b, "b", now, now + timedelta(seconds=60))
    assert len(mine) == 4 and len(theirs) == 6
    assert not {r.key for r in mine} & {r.key for r in theirs}
    with db.session() as c:  # all claimed and the claims still run: nothing for a third server
        assert database.claim_outbox(c, "c", now, now + timedelta(seconds=60)) == []
    db.dispose()


def test_migration_0003_turns_standing_orders_written_as_text_into_values(db):
    """A database from before 0003 keeps each standing order as its text: the upgrade reads it once."""
    from alembic import command

    from bot.store.migrations import alembic_config, upgrade

    with db.engine.connect() as connection:
        command.downgrade(alembic_config(connection), "0002")
        connection.commit()
    orders = sa.table("orders", sa.column("game_id"), sa.column("version"), sa.column("phase"), sa.column("power"),
                      sa.column("key"), sa.column("seq"), sa.column("text"), sa.column("canonical"),
                      sa.column("submitted_at", sa.DateTime(timezone=True)))
    now = datetime.now(UTC)
    games = sa.table("game", sa.column("id"), sa.column("name"), sa.column("variant"), sa.column("rules", sa.JSON),
                     sa.column("gm"), sa.column("status"), sa.column("policy", sa.JSON), sa.column("version"),
                     sa.column("seed"), sa.column("created_at", sa.DateTime(timezone=True)))
    with db.session() as session:  # the game table as it was at 0002
        game_id = session.connection().execute(games.insert().returning(games.c.id), dict(
            name="old", variant="crusader", rules=[], gm="gm", status="forming", policy={}, version=0, seed=0,
            created_at=now)).scalar()
        game = type("Game", (), {"id": game_id})
        session.connection().execute(orders.insert(), [
            dict(game_id=game.id, version=0, phase="S1101M", power="RUM", key="unit:ico", seq=1,
                 text="army iconium to phrygia", canonical="RUM: A ico - phr", submitted_at=now),
            dict(game_id=game.id, version=0, phase="S1101M", power="RUM", key="bribe:phr", seq=2,
                 text="bribe phr 1 hold", canonical="RUM: BRIBE A phr BID 1 A phr H", submitted_at=now),
            dict(game_id=game.id, version=3, phase="F1101R", power="SEL", key="unit:mel", seq=1,
                 text="mel - dia", canonical="SEL: A mel - dia", submitted_at=now)])
    upgrade(db.engine)
    with db.session() as session:
        stored = {row.key: row for row in database.orders_of(session, game.id, 0) + database.orders_of(session, game.id, 3)}
    assert stored["unit:ico"].order == {"type": "Move", "power": "RUM", "unit_type": "A", "location": "ico",
                                        "destination": "phr", "via_convoy": False}
    assert stored["bribe:phr"].order["order"] == {"type": "Hold", "power": "RUM", "unit_type": "A", "location": "phr"}
    assert stored["unit:mel"].order["type"] == "Retreat"      # read as meant in its retreat phase
    assert stored["unit:ico"].text == "army iconium to phrygia"


def test_games_whose_names_share_a_key_are_told_apart_by_the_upgrade(db):
    """Before keys, "x y" and "X_Y" could both exist: the upgrade keeps the first as it is and adds
    ``#<id>`` to the other's name, so that every game has a key of its own."""
    from alembic import command

    from bot.store.migrations import alembic_config, upgrade

    with db.engine.connect() as connection:
        command.downgrade(alembic_config(connection), "delivery_0001")
        connection.commit()
    games = sa.table("game", sa.column("id"), sa.column("name"), sa.column("variant"), sa.column("rules", sa.JSON),
                     sa.column("gm"), sa.column("status"), sa.column("policy", sa.JSON), sa.column("version"),
                     sa.column("seed"), sa.column("created_at", sa.DateTime(timezone=True)))
    with db.engine.begin() as connection:
        for name in ("x y", "X_Y", "other"):
            connection.execute(games.insert(), dict(name=name, variant="standard", rules=[], gm="gm", status="forming",
                                                   policy={}, version=0, seed=0, created_at=datetime.now(UTC)))
    upgrade(db.engine)
    with db.engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT name, key FROM game ORDER BY id")).all()
    assert [tuple(r) for r in rows] == [("x y", "x-y"), ("X_Y #2", "x-y-2"), ("other", "other")]
    with db.session() as session:
        assert database.game_by_name(session, "X y").name == "x y"
        assert database.game_by_name(session, "x_y #2").name == "X_Y #2"


def test_migration_0004_turns_seasons_kept_as_documents_into_values(db):
    """Seasons from before 0004 keep the contract's result document; the upgrade reads each once,
    and the game exports exactly as before (the downgrade writes the documents back)."""
    from alembic import command

    from bot.archive.games import export_game
    from bot.codec.season import season_document, season_from_row
    from bot.service import GameService
    from bot.store.migrations import alembic_config, upgrade

    service = GameService(db)
    service.create_game("old", "crusader", "gm", seed=3)
    service.join("old", "rum", "RUM")
    service.start("old", "gm", fill_civil_disorder=True)
    service.submit_orders("old", "rum", "A ico - phr\nA anc S A ico - phr\nVASSAL A phr BID 2")
    service.force_adjudicate("old", "gm")
    before = export_game(db, "old")
    with db.engine.connect() as connection:
        command.downgrade(alembic_config(connection), "game_key_0001")
        connection.commit()
    with db.session() as session:
        [first, *_] = database.seasons_of(session, database.game_by_name(session, "old").id)
        assert first.result == before["seasons"][0]["result"]       # the result document, as ``crusader adjudicate`` writes it
        assert [o["canonical"] for o in first.orders] == ["RUM: A ico - phr", "RUM: A anc S A ico - phr",
                                                          "RUM: VASSAL A phr BID 2"]
    upgrade(db.engine)
    after = export_game(db, "old")
    assert after.pop("actions") == [] and before.pop("actions")  # (the downgrade dropped the record of actions)
    assert after == before
    with db.session() as session:
        [first, *_] = database.seasons_of(session, database.game_by_name(session, "old").id)
        assert first.orders[0]["order"]["type"] == "Move" and "canonical" not in first.orders[0]
        assert season_document(season_from_row(first, "old")) == before["seasons"][0]


def test_migration_reliability_0001_makes_the_first_pending_delivery_of_each_queue_its_head(db):
    """Deliveries written before queue heads: the upgrade marks the first pending one of each queue
    (one notifier, one recipient, one game or none) and no other."""
    from alembic import command

    from bot.store.migrations import alembic_config, upgrade

    with db.engine.connect() as connection:
        command.downgrade(alembic_config(connection), "pace_0001")
        connection.commit()
    now = datetime.now(UTC)
    outbox = sa.table("outbox", sa.column("id"), sa.column("key"), sa.column("game_id"), sa.column("kind"),
                      sa.column("audience"), sa.column("powers", sa.JSON), sa.column("recipients", sa.JSON),
                      sa.column("subject"), sa.column("body"), sa.column("data", sa.JSON), sa.column("attempts"),
                      sa.column("created_at", sa.DateTime(timezone=True)))
    delivery = sa.table("delivery", sa.column("outbox_id"), sa.column("game_id"), sa.column("notifier"),
                        sa.column("recipient"), sa.column("state"), sa.column("attempts"),
                        sa.column("due_at", sa.DateTime(timezone=True)))
    with db.session() as session:
        game = _game(session)
        c = session.connection()
        ids = [c.execute(outbox.insert().returning(outbox.c.id), dict(
            key=f"k{i}", game_id=game_id, kind="results", audience="public", powers=[], recipients=[], subject="s",
            body="b", data={}, attempts=0, created_at=now)).scalar() for i, game_id in enumerate([game.id] * 3 + [None] * 2)]
        rows = [(ids[0], game.id, "ann", "delivered"), (ids[1], game.id, "ann", "pending"),
                (ids[2], game.id, "ann", "pending"), (ids[1], game.id, "bob", "pending"),
                (ids[3], None, "ann", "pending"), (ids[4], None, "ann", "pending")]
        c.execute(delivery.insert(), [dict(outbox_id=o, game_id=g, notifier="mail", recipient=r, state=s, attempts=0,
                                           due_at=now) for o, g, r, s in rows])
    upgrade(db.engine)
    with db.engine.connect() as connection:
        heads = connection.execute(sa.text("SELECT outbox_id, recipient FROM delivery WHERE queue_head "
                                           "ORDER BY outbox_id, recipient")).all()
    assert [tuple(h) for h in heads] == [(ids[1], "ann"), (ids[1], "bob"), (ids[3], "ann")]
