"""The database handle and the queries the service needs.

SQLite (one file, WAL) by default, PostgreSQL by URL. The schema is owned by the Alembic
migrations in ``bot/store/migrations``; :meth:`Database.migrate` applies them. The tables are
in :mod:`bot.store.rows`.

No other module writes SQL: the service asks for rows through the helpers at the bottom.
"""

from __future__ import annotations

import hashlib
import json
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from collections.abc import Callable, Collection, Iterator, Mapping

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from . import faults
from .names import game_key
from .rows import (ActionRow, DeliveryRow, GameRow, OrderRow, OutboxRow, PlayerRow, PlayerStatus, PressRow, SeasonRow,
                   SubmissionRow, TimerRow, table_of)


# -- the database handle --------------------------------------------------------------------


def _sqlite_pragmas(dbapi_connection, _record, *, read_only: bool = False) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    if read_only:
        cursor.execute("PRAGMA query_only=ON")
    cursor.close()
    # let SQLAlchemy's BEGIN below be the only transaction control (pysqlite defers it otherwise)
    dbapi_connection.isolation_level = None


def _sqlite_reader_pragmas(dbapi_connection, record) -> None:
    _sqlite_pragmas(dbapi_connection, record, read_only=True)


def _sqlite_begin(conn) -> None:
    """Begin a transaction on SQLite: ``BEGIN IMMEDIATE``, taking the write lock at once, so that
    writers are serialised from their start and none fails upgrading a read to a write (a
    deferred transaction that reads, then writes after another writer committed, gets
    ``SQLITE_BUSY`` at once, whatever the busy timeout). Sent straight through the driver: a
    statement of transaction control, sent with every session, needs none of what SQLAlchemy's
    execution makes of a statement (a compiled form, a result, events)."""
    conn.connection.dbapi_connection.execute("BEGIN IMMEDIATE")


def _sqlite_begin_reading(conn) -> None:
    """Begin a read-only session's transaction on SQLite: a plain (deferred) ``BEGIN``, which
    never holds the write lock, and in WAL mode neither waits for a writer nor holds one back.
    Its connections are the reader's own, each with ``PRAGMA query_only`` on from its start, so
    that a write there fails at once instead of upgrading the transaction. (The pragma is not
    switched on and off on connections shared with the writer: each switch expires every
    statement prepared on its connection, which SQLite then compiles again at its next use.)"""
    conn.connection.dbapi_connection.execute("BEGIN")


def _is_memory(url: sa.URL) -> bool:
    """Whether ``url`` is an SQLite database in memory (one connection's own: none to share)."""
    return url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:")


class Database:
    """One engine and its sessions. ``url`` is any SQLAlchemy URL (``sqlite:///…``, ``postgresql+psycopg://…``)."""

    def __init__(self, url: str, *, echo: bool = False, pool_size: int = 5) -> None:
        self.url = url
        kwargs: dict[str, Any] = {"echo": echo}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        else:
            kwargs.update(pool_size=pool_size, max_overflow=pool_size, pool_pre_ping=True)
        self.engine: Engine = sa.create_engine(url, **kwargs)
        self._reader: Engine
        """The engine of read-only sessions. PostgreSQL: the same connections, in transactions
        begun ``READ ONLY``. SQLite: connections of its own, each under ``PRAGMA query_only``
        (:func:`_sqlite_begin_reading`); a database in memory, whose connections share nothing,
        reads on the writer's."""
        if self.is_sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
            event.listen(self.engine, "begin", _sqlite_begin)
            if _is_memory(self.engine.url):
                self._reader = self.engine
            else:
                self._reader = sa.create_engine(url, **kwargs)
                event.listen(self._reader, "connect", _sqlite_reader_pragmas)
                event.listen(self._reader, "begin", _sqlite_begin_reading)
        else:
            self._reader = self.engine.execution_options(postgresql_readonly=True)
        faults.watch_writes(self.engine)

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @classmethod
    def sqlite_file(cls, path: Path) -> Database:
        path.parent.mkdir(parents=True, exist_ok=True)
        return cls(f"sqlite:///{path}")

    def migrate(self) -> None:
        """Bring the schema up to date with the migrations shipped in the package."""
        from .migrations import upgrade

        upgrade(self.engine)

    @contextmanager
    def session(self, *, read_only: bool = False) -> Iterator[Session]:
        """A unit of work: committed when the block ends normally, rolled back otherwise.

        ``read_only``: a session that only reads, in a read-only transaction (PostgreSQL ``READ
        ONLY``; SQLite a deferred ``BEGIN`` on a connection under ``PRAGMA query_only``): on SQLite
        it does not take the write lock that every other session takes first (:func:`_sqlite_begin`).
        A write in it fails, a change to a row read in it included (when it is flushed); but on an
        SQLite database in memory, which has no connection to share with a reader of its own, a
        read-only session is an ordinary one (it takes the write lock, and a write in it is not
        refused)."""
        with Session(self._reader if read_only else self.engine, expire_on_commit=False) as session, session.begin():
            yield session
        faults.after_commit()

    def dispose(self) -> None:
        self.engine.dispose()
        if self._reader is not self.engine:
            self._reader.dispose()


# -- queries the service needs (the only place that builds them) ---------------------------


def lock_game(session: Session, game_id: int, *, skip_locked: bool = True) -> GameRow | None:
    """The game row, locked for this transaction (PostgreSQL: ``FOR UPDATE SKIP LOCKED``).

    ``None`` when another process holds it. On SQLite the transaction is ``BEGIN IMMEDIATE``,
    which already serialises writers.
    """
    locks = session.get_bind().dialect.name != "sqlite"
    return session.exec(_game_locked(locks, skip_locked), params={"game_id": game_id}).first()


@cache
def _game_locked(locks: bool, skip_locked: bool):
    """:func:`lock_game`'s statement (built once: only its parameters change)."""
    stmt = select(GameRow).where(GameRow.id == sa.bindparam("game_id"))
    return stmt.with_for_update(skip_locked=skip_locked) if locks else stmt


def game_by_name(session: Session, name: str) -> GameRow | None:
    """The game called ``name``, written in any case and punctuation (its key, :func:`game_key`)."""
    return session.exec(select(GameRow).where(GameRow.key == game_key(name))).first()


def all_games(session: Session, *, status: str | None = None) -> list[GameRow]:
    stmt = select(GameRow).order_by(col(GameRow.id))
    if status:
        stmt = stmt.where(GameRow.status == status)
    return list(session.exec(stmt))


def players_of(session: Session, game_id: int) -> list[PlayerRow]:
    return list(session.exec(_players_of(), params={"game_id": game_id}))


@cache
def _players_of():
    """:func:`players_of`' statement (built once: only its parameters change)."""
    return select(PlayerRow).where(col(PlayerRow.game_id) == sa.bindparam("game_id")).order_by(col(PlayerRow.id))


def players_in_games(session: Session, statuses: Collection[str]) -> set[str]:
    """Everybody with a row among the players of the games in these ``statuses``, in one query."""
    game, seat = table_of(GameRow), table_of(PlayerRow)
    stmt = (sa.select(seat.c.player).distinct().join(game, game.c.id == seat.c.game_id)
            .where(game.c.status.in_(sorted(set(statuses)))))
    return set(session.connection().execute(stmt).scalars())


Listing = sa.Row[Any]
"""A game as a listing has it (``games_of_players``, ``game_listing``): the game's ``id, name,
variant, status, gm, phase, policy, version, deadline_at`` (and in a player's listing the
player's ``player, power``)."""


def _listed(game: sa.Table) -> tuple[sa.Column, ...]:
    return (game.c.id, game.c.name, game.c.variant, game.c.status, game.c.gm, game.c.phase, game.c.policy,
            game.c.version, game.c.deadline_at)


def game_listing(session: Session, game_id: int) -> Listing | None:
    """The game numbered ``game_id`` as a listing has it: a plain row, its position not read."""
    return session.connection().execute(_game_listing(), {"game_id": game_id}).first()


@cache
def _game_listing() -> sa.Select:
    """:func:`game_listing`'s statement (built once: only its parameters change)."""
    game = table_of(GameRow)
    return sa.select(*_listed(game)).where(game.c.id == sa.bindparam("game_id"))


def games_of_player(session: Session, player: str, statuses: tuple[str, ...] = ()) -> list[Listing]:
    """The games ``player`` plays in (optionally only those in ``statuses``); see ``games_of_players``."""
    return games_of_players(session, [player], statuses)


def games_of_players(session: Session, players: Collection[str], statuses: tuple[str, ...] = ()) -> list[Listing]:
    """The games each of ``players`` plays in, in one query, as plain rows in game order.

    A listing, on the path of every DM: each row has the game's ``id, name, variant, status,
    gm, phase, policy, version, deadline_at`` and the player's ``player, power``; no position, no
    ORM objects.
    """
    game, seat = table_of(GameRow), table_of(PlayerRow)
    stmt = (sa.select(*_listed(game), seat.c.player, seat.c.power)
            .join(seat, seat.c.game_id == game.c.id)
            .where(seat.c.player.in_(sorted(set(players)))).order_by(game.c.id, seat.c.id))
    if statuses:
        stmt = stmt.where(game.c.status.in_(statuses))
    return list(session.connection().execute(stmt))


def lock_games(session: Session, names: Collection[str] = (), ids: Collection[int] = ()) -> list[GameRow]:
    """The games called one of ``names`` or numbered one of ``ids``, locked for this transaction.

    PostgreSQL locks them in id order (``ORDER BY id FOR UPDATE``), so that two transactions
    locking overlapping sets cannot deadlock; on SQLite ``BEGIN IMMEDIATE`` already serialises writers.
    """
    stmt = (select(GameRow)
            .where(sa.or_(col(GameRow.name).in_(sorted(set(names))), col(GameRow.id).in_(sorted(set(ids)))))
            .order_by(col(GameRow.id)))
    if session.get_bind().dialect.name != "sqlite":
        stmt = stmt.with_for_update()
    return list(session.exec(stmt))


def player_rows(session: Session, game_ids: Collection[int]) -> list[sa.Row]:
    """The players of these games as plain rows (read-only: no ORM objects on the orders' hot path)."""
    table = table_of(PlayerRow)
    stmt = sa.select(table).where(table.c.game_id.in_(sorted(set(game_ids)))).order_by(table.c.id)
    return list(session.connection().execute(stmt))


def standing_order_rows(session: Session, phases: Collection[tuple[int, int]]) -> list[sa.Row]:
    """The standing orders of every power in these ``(game id, version)`` phases, as plain rows
    in ``orders_of``'s order (power, then the order they were given in)."""
    table = table_of(OrderRow)
    phases = sorted(set(phases))
    if len(phases) == 1:    # a deadline run's (a plain comparison: no list to expand)
        [(game_id, version)] = phases
        return list(session.connection().execute(_phase_orders(), {"game_id": game_id, "version": version}))
    chosen = sa.tuple_(table.c.game_id, table.c.version).in_(phases)
    stmt = sa.select(table).where(chosen).order_by(table.c.game_id, table.c.power, table.c.seq)
    return list(session.connection().execute(stmt))


@cache
def _phase_orders() -> sa.Select:
    """:func:`standing_order_rows`' statement for one phase (built once: only its parameters change)."""
    table = table_of(OrderRow)
    return (sa.select(table).where(table.c.game_id == sa.bindparam("game_id"), table.c.version == sa.bindparam("version"))
            .order_by(table.c.game_id, table.c.power, table.c.seq))


def add_submissions(session: Session, rows: list[dict[str, Any]]) -> list[int]:
    """Insert audit-log rows in one statement; their ids, in the order given."""
    if not rows:
        return []
    table = table_of(SubmissionRow)
    stmt = sa.insert(table).returning(table.c.id, sort_by_parameter_order=True)
    return list(session.connection().execute(stmt, rows).scalars())


def add_orders(session: Session, rows: list[dict[str, Any]]) -> None:
    """Insert standing-order rows in one statement (``OrderRow``'s columns as keys)."""
    if rows:
        session.connection().execute(sa.insert(table_of(OrderRow)), rows)


def delete_orders_by_id(session: Session, ids: Collection[int]) -> None:
    if ids:
        table = table_of(OrderRow)
        session.connection().execute(sa.delete(table).where(table.c.id.in_(sorted(ids))))


def reactivate_players(session: Session, ids: Collection[int]) -> None:
    """Players back from civil disorder (they sent orders): active, the count of missed phases cleared."""
    if ids:
        table = table_of(PlayerRow)
        session.connection().execute(sa.update(table).where(table.c.id.in_(sorted(ids)))
                                     .values(status=PlayerStatus.ACTIVE, nmr_count=0))


def set_ready(session: Session, ids: Collection[int], version: int | None) -> None:
    """The players ``ids`` ready for the game's ``version`` (its phase), or, ``None``, no longer ready."""
    if ids:
        table = table_of(PlayerRow)
        session.connection().execute(sa.update(table).where(table.c.id.in_(sorted(ids))).values(ready_version=version))


def orders_of(session: Session, game_id: int, version: int, power: str | None = None) -> list[OrderRow]:
    stmt = select(OrderRow).where(OrderRow.game_id == game_id, OrderRow.version == version)
    if power is not None:
        stmt = stmt.where(OrderRow.power == power)
    return list(session.exec(stmt.order_by(col(OrderRow.power), col(OrderRow.seq))))


def powers_with_orders(session: Session, game_id: int, version: int) -> set[str]:
    """The powers with orders standing in the game's ``version`` (its phase), not the orders."""
    return set(session.connection().execute(_powers_with_orders(), {"game_id": game_id, "version": version}).scalars())


@cache
def _powers_with_orders() -> sa.Select:
    """:func:`powers_with_orders`' statement (built once: only its parameters change)."""
    table = table_of(OrderRow)
    return (sa.select(table.c.power).distinct()
            .where(table.c.game_id == sa.bindparam("game_id"), table.c.version == sa.bindparam("version")))


def delete_orders(session: Session, game_id: int, version: int, power: str, keys: list[str] | None = None) -> None:
    stmt = sa.delete(OrderRow).where(col(OrderRow.game_id) == game_id, col(OrderRow.version) == version,
                                     col(OrderRow.power) == power)
    if keys is not None:
        stmt = stmt.where(col(OrderRow.key).in_(keys))
    session.exec(stmt.execution_options(synchronize_session=False))


def submissions_of(session: Session, game_id: int, version: int | None = None) -> list[SubmissionRow]:
    stmt = select(SubmissionRow).where(SubmissionRow.game_id == game_id)
    if version is not None:
        stmt = stmt.where(SubmissionRow.version == version)
    return list(session.exec(stmt.order_by(col(SubmissionRow.id))))


def seasons_of(session: Session, game_id: int, *, pictures: bool = False,
               versions: Collection[int] | None = None) -> list[sa.Row[Any]]:
    """Every season of a game (or those stored at ``versions``), oldest first, in one query: the
    columns of its rows (as attributes, like a ``SeasonRow``'s), its picture only with ``pictures``
    (a row without it has no ``picture``)."""
    season = table_of(SeasonRow)
    columns = [c for c in season.c if pictures or c.name != "picture"]
    query = sa.select(*columns).where(season.c.game_id == game_id).order_by(season.c.version)
    if versions is not None:
        query = query.where(season.c.version.in_(sorted(versions)))
    return list(session.connection().execute(query))


def season_at(session: Session, game_id: int, version: int) -> SeasonRow | None:
    """The archive of the phase adjudicated at ``version`` (``None``: not adjudicated, or rolled back)."""
    return session.exec(select(SeasonRow).where(SeasonRow.game_id == game_id, SeasonRow.version == version)).first()


SEASON_JSON = ("position", "orders", "result", "nmr", "players")
"""The columns of a season's row kept as JSON."""
_SEASON_PLAIN = ("version", "seed", "deadline_at", "adjudicated_at", "adjudicated_by")
"""The columns of a season's row :func:`stored_season` reads as they are, after the game's name
and before the JSON ones (:func:`add_season` gives them in that order too)."""


def stored_season(session: Session, game_id: int, version: int) -> sa.Row | None:
    """The season adjudicated at ``version`` as it is stored, its JSON columns (:data:`SEASON_JSON`)
    as their text, with its game's name (``game``); ``None``: not adjudicated, or rolled back.
    The text is what a season read is known by (:class:`bot.service.context.SeasonsRead`)."""
    return session.connection().execute(_stored_season(), {"game_id": game_id, "version": version}).first()


@cache
def _stored_season() -> sa.Select:
    """:func:`stored_season`'s statement (built once: only its parameters change)."""
    season, game = table_of(SeasonRow), table_of(GameRow)
    return (sa.select(game.c.name.label("game"), *(season.c[name] for name in _SEASON_PLAIN),
                      *(sa.cast(season.c[name], sa.Text).label(name) for name in SEASON_JSON), season.c.picture)
            .join(game, game.c.id == season.c.game_id)
            .where(season.c.game_id == sa.bindparam("game_id"), season.c.version == sa.bindparam("version")))


def last_season(session: Session, game_id: int) -> SeasonRow | None:
    stmt = select(SeasonRow).where(col(SeasonRow.game_id) == game_id).order_by(col(SeasonRow.version).desc())
    return session.exec(stmt).first()


def season_before(session: Session, game_id: int, version: int) -> SeasonRow | None:
    """The archive of the last phase adjudicated before ``version``."""
    stmt = (select(SeasonRow).where(SeasonRow.game_id == game_id, SeasonRow.version < version)
            .order_by(col(SeasonRow.version).desc()))
    return session.exec(stmt).first()


def actions_of(session: Session, game_id: int, actions: Collection[str] = ()) -> list[ActionRow]:
    """What the game's masters did (only these ``actions``, by name, when given), in the order they did it."""
    stmt = select(ActionRow).where(ActionRow.game_id == game_id)
    if actions:
        stmt = stmt.where(col(ActionRow.action).in_(sorted(set(actions))))
    return list(session.exec(stmt.order_by(col(ActionRow.id))))


def action_details(session: Session, game_id: int, action: str) -> list[dict[str, Any]]:
    """The details of each ``action`` the game's masters took in the game, oldest first, as
    plain values (on the path of every adjudication: no ORM objects)."""
    return list(session.connection().execute(_action_details(), {"game_id": game_id, "action": action}).scalars())


@cache
def _action_details() -> sa.Select:
    """:func:`action_details`' statement (built once: only its parameters change)."""
    table = table_of(ActionRow)
    return (sa.select(table.c.details)
            .where(table.c.game_id == sa.bindparam("game_id"), table.c.action == sa.bindparam("action"))
            .order_by(table.c.id))


def actions_in_games(session: Session, actions: Collection[str], statuses: Collection[str]) -> list[ActionRow]:
    """The game masters' ``actions`` (by name) in the games of these ``statuses``, oldest first."""
    stmt = (select(ActionRow).join(GameRow, col(GameRow.id) == col(ActionRow.game_id))
            .where(col(ActionRow.action).in_(sorted(actions)), col(GameRow.status).in_(sorted(statuses)))
            .order_by(col(ActionRow.id)))
    return list(session.exec(stmt))


def add_season(session: Session, game: str, game_id: int, columns: Mapping[str, Any]) -> tuple:
    """Insert a season's row (``columns``: :func:`bot.codec.season.season_columns`) of the game
    ``game`` (its name) in one statement; what :func:`stored_season` will read of it but the
    picture (``tuple(row[:-1])``): what the season is known by (:class:`bot.service.context.SeasonsRead`).
    Its JSON columns are written as the text ``json.dumps`` makes of them (as the JSON type would
    write them), made here once for the row and for what it is known by."""
    connection = session.connection()
    texts = [json.dumps(columns[name]) for name in SEASON_JSON]
    connection.execute(_new_season(connection.dialect.name != "sqlite"),
                       {**columns, "game_id": game_id, **dict(zip(SEASON_JSON, texts))})
    return (game, *(columns[name] for name in _SEASON_PLAIN), *texts)


@cache
def _new_season(cast: bool) -> sa.Insert:
    """:func:`add_season`'s statement (built once: only its parameters change): its JSON columns
    given as their text, cast to JSON (PostgreSQL) or kept as they are (SQLite, which keeps JSON
    as text: its cast to JSON would make a number of it)."""
    season = table_of(SeasonRow)
    texts = {name: sa.bindparam(name, type_=sa.Text) for name in SEASON_JSON}
    return sa.insert(season).values(**{name: sa.cast(text, season.c[name].type) if cast else text
                                       for name, text in texts.items()})


@dataclass(slots=True)
class Timer:
    """A timer to write (:func:`add_timers`): a deadline, the end of a grace period or a reminder of
    the game's ``version``, due at ``due_at``; given its ``id`` when written. Values, not an ORM
    object: a timer is written once, then only claimed or cancelled, by :func:`claim_timer` and
    :func:`cancel_timers`."""

    game_id: int
    version: int
    kind: str
    due_at: datetime
    payload: dict[str, Any] = field(default_factory=dict)
    id: int | None = None


def add_timers(session: Session, timers: list[Timer]) -> None:
    """Insert these timers in one statement, each given its id."""
    if not timers:
        return
    rows = [{"game_id": t.game_id, "version": t.version, "kind": t.kind, "due_at": t.due_at, "payload": t.payload,
             "fired_at": None} for t in timers]
    for timer, timer_id in zip(timers, session.connection().execute(_new_timers(), rows).scalars(), strict=True):
        timer.id = timer_id


@cache
def _new_timers() -> sa.Insert:
    """:func:`add_timers`' statement (built once: only its parameters change)."""
    table = table_of(TimerRow)
    return sa.insert(table).returning(table.c.id, sort_by_parameter_order=True)


def timer(session: Session, timer_id: int) -> sa.Row | None:
    """The timer numbered ``timer_id`` as a plain row (its columns as attributes, like a
    ``TimerRow``'s; read on the path of every deadline: no ORM object), ``None`` if there is none."""
    return session.connection().execute(_timer(), {"timer_id": timer_id}).first()


@cache
def _timer() -> sa.Select:
    """:func:`timer`'s statement (built once: only its parameters change)."""
    table = table_of(TimerRow)
    return sa.select(table).where(table.c.id == sa.bindparam("timer_id"))


def pending_timers(session: Session, *, due_before: datetime | None = None, limit: int | None = None) -> list[TimerRow]:
    stmt = select(TimerRow).where(col(TimerRow.fired_at).is_(None))
    if due_before is not None:
        stmt = stmt.where(TimerRow.due_at <= due_before)
    stmt = stmt.order_by(col(TimerRow.due_at), col(TimerRow.id))
    if limit:
        stmt = stmt.limit(limit)
    return list(session.exec(stmt))


def claim_timer(session: Session, timer_id: int, when: datetime) -> bool:
    """Mark the timer as fired at ``when`` if it has not fired yet: whether this call did (of two
    servers that reach the same timer, one claims it)."""
    result = session.connection().execute(_claim_timer(), {"timer_id": timer_id, "when": when})
    return result.rowcount == 1


@cache
def _claim_timer() -> sa.Update:
    """:func:`claim_timer`'s statement (built once: only its parameters change)."""
    table = table_of(TimerRow)
    return (sa.update(table).where(table.c.id == sa.bindparam("timer_id"), table.c.fired_at.is_(None))
            .values(fired_at=sa.bindparam("when", type_=table.c.fired_at.type)))


def cancel_timers(session: Session, game_id: int, when: datetime, kinds: Collection[str] = ()) -> None:
    """Mark every pending timer of the game (only those of ``kinds``, when given) as spent (a new
    phase, pause or end; new reminders). The timers written in this transaction are among them:
    whatever adds timers writes them at once (:func:`add_timers`, or the ORM and a flush)."""
    table = table_of(TimerRow)
    if not kinds:
        session.connection().execute(_cancel_timers(), {"of_game": game_id, "when": when})
        return
    stmt = sa.update(table).where(table.c.game_id == game_id, table.c.fired_at.is_(None),
                                  table.c.kind.in_(sorted(set(kinds))))
    session.connection().execute(stmt.values(fired_at=when))


@cache
def _cancel_timers() -> sa.Update:
    """:func:`cancel_timers`' statement for every kind (built once: only its parameters change)."""
    table = table_of(TimerRow)
    return (sa.update(table).where(table.c.game_id == sa.bindparam("of_game"), table.c.fired_at.is_(None))
            .values(fired_at=sa.bindparam("when", type_=table.c.fired_at.type)))


# -- the outbox and its deliveries -------------------------------------------------------------

# The predicates of the partial indexes the outbox's claims read (bot/store/rows.py), written out
# as literals: a bound parameter in their place could not be matched to the index by the planner.
_PENDING = "delivery.state = 'pending'"
_HEADS = "delivery.state = 'pending' AND delivery.queue_head"
_UNEXPANDED = "outbox.expanded_at IS NULL"


def add_announcement(session: Session, values: dict[str, Any]) -> int | None:
    """Write an announcement (``values``: its row's columns but the id, made with no ORM object:
    :func:`bot.store.outbox.outbox_values`) unless one with its key is there already (one
    statement: ``INSERT … ON CONFLICT DO NOTHING``); its id, ``None`` when it was not written."""
    connection = session.connection()
    return connection.execute(_new_announcement(connection.dialect.name == "sqlite"), values).scalar()


@cache
def _new_announcement(sqlite: bool) -> sa.Insert:
    """:func:`add_announcement`'s statement (built once: only its parameters change)."""
    table = table_of(OutboxRow)
    insert = sqlite_insert(table) if sqlite else postgresql_insert(table)
    return insert.on_conflict_do_nothing(index_elements=[table.c.key]).returning(table.c.id)


def supersede_announcements(session: Session, game_id: int, kinds: Collection[str], *, before: int, by: str,
                            now: datetime) -> int:
    """Drop what is left undelivered of the game's announcements of these ``kinds`` written before
    the outbox row ``before`` (superseded by the announcement keyed ``by``); how many were touched.

    A delivery being made at this moment (claimed, its claim not lapsed) is left to finish; every
    other pending one is recorded ``superseded`` (and the queue it headed handed on to its next
    delivery). An announcement not yet fanned out is marked
    fanned out and done, so that no server fans it out; the others are done when their last
    delivery is (:func:`close_announcements`, here for those with none left)."""
    o, d = table_of(OutboxRow), table_of(DeliveryRow)
    connection = session.connection()
    ids = list(connection.execute(_stale_announcements(connection.dialect.name != "sqlite"),
                                  {"game": game_id, "kinds": sorted(set(kinds)), "before": before}).scalars())
    if not ids:
        return 0
    idle = sa.or_(d.c.claimed_until.is_(None), d.c.claimed_until < now)
    dropped = session.connection().execute(
        sa.update(d).where(d.c.outbox_id.in_(ids), d.c.state == "pending", idle)
        .values(state="superseded", done_at=now, claimed_by=None, claimed_until=None, queue_head=False,
                reason=f"superseded by {by}")
        .returning(d.c.notifier, d.c.recipient, d.c.game_id))
    advance_queues(session, [tuple(row) for row in dropped])   # a dropped head hands its queue on
    session.connection().execute(sa.update(o).where(o.c.id.in_(ids)).values(superseded_by=by))
    session.connection().execute(sa.update(o).where(o.c.id.in_(ids), o.c.expanded_at.is_(None))
                                 .values(expanded_at=now, delivered_at=now, claimed_until=None))
    close_announcements(session, set(ids), now)
    return len(ids)


@cache
def _stale_announcements(lock: bool) -> sa.Select:
    """:func:`supersede_announcements`' look for what is superseded (built once)."""
    o = table_of(OutboxRow)
    stale = (sa.select(o.c.id).where(o.c.game_id == sa.bindparam("game"), o.c.kind.in_(sa.bindparam("kinds", expanding=True)),
                                     o.c.delivered_at.is_(None), o.c.id < sa.bindparam("before")).order_by(o.c.id))
    return stale.with_for_update() if lock else stale


def claim_outbox(session: Session, node: str, now: datetime, until: datetime, limit: int = 200) -> list[sa.Row]:
    """Claim announcements not yet fanned out to their recipients whose previous claim (if any) has
    lapsed: plain rows of the outbox (its columns as attributes), as they were before the claim.

    An announcement is claimed only when every earlier one of its game (or, one of no game, every
    earlier one of no game) is fanned out, or is claimed with it: an announcement fanned out
    before an earlier one of its queues would be the head of each and reach its recipients first
    (two servers, one holding a game's first announcement while the other takes its second)."""
    connection = session.connection()
    rows = list(connection.execute(_unexpanded(connection.dialect.name != "sqlite"), {"now": now, "limit": limit}))
    if rows:
        rows = _in_turn(connection, rows)
    if rows:
        connection.execute(_outbox_claimed(), {"ids": [row.id for row in rows], "node": node, "until": until})
    return rows


@cache
def _unexpanded(lock: bool) -> sa.Select:
    """:func:`claim_outbox`'s statements (built once: only their parameters change)."""
    o = table_of(OutboxRow)
    stmt = (sa.select(o).where(sa.text(_UNEXPANDED), sa.or_(o.c.claimed_until.is_(None),
                                                             o.c.claimed_until < sa.bindparam("now", type_=o.c.claimed_until.type)))
            .order_by(o.c.id).limit(sa.bindparam("limit", type_=sa.Integer)))
    return stmt.with_for_update(skip_locked=True) if lock else stmt


def _in_turn(connection: sa.Connection, rows: list[sa.Row]) -> list[sa.Row]:
    """Of announcements about to be claimed (``rows``, in their order), those every earlier
    announcement of whose game (of no game: every earlier one of no game) is fanned out or among
    ``rows`` before them. The others are left for a later claim: one fanned out before an earlier
    one of its game, which another server holds (or, on PostgreSQL, is claiming as this is read:
    its row is locked, and was skipped), would reach each recipient first."""
    ids = [row.id for row in rows]
    games = {row.game_id for row in rows}
    first_left: dict[int | None, int] = dict(connection.execute(_left_behind(), {
        "last": ids[-1], "ids": ids, "games": sorted(g for g in games if g is not None), "no_game": None in games}).all())
    out, stopped = [], set()
    for row in rows:
        left = first_left.get(row.game_id)
        if row.game_id in stopped or (left is not None and left < row.id):
            stopped.add(row.game_id)
        else:
            out.append(row)
    return out


@cache
def _left_behind() -> sa.Select:
    """:func:`_in_turn`'s read: the first announcement of each game not fanned out, earlier than the
    last of a claim and not among its rows (built once)."""
    o = table_of(OutboxRow)
    of_games = sa.or_(o.c.game_id.in_(sa.bindparam("games", expanding=True)),
                      sa.and_(o.c.game_id.is_(None), sa.bindparam("no_game", type_=sa.Boolean)))
    return (sa.select(o.c.game_id, sa.func.min(o.c.id))
            .where(sa.text(_UNEXPANDED), o.c.id < sa.bindparam("last"), o.c.id.not_in(sa.bindparam("ids", expanding=True)),
                   of_games)
            .group_by(o.c.game_id))


@cache
def _outbox_claimed() -> sa.Update:
    o = table_of(OutboxRow)
    return (sa.update(o).where(o.c.id.in_(sa.bindparam("ids", expanding=True)))
            .values(claimed_by=sa.bindparam("node"), claimed_until=sa.bindparam("until", type_=o.c.claimed_until.type),
                    attempts=o.c.attempts + 1))


def expand_announcement(session: Session, outbox_id: int, node: str, recipients: Collection[tuple[str, str]],
                        now: datetime) -> bool:
    """Write the deliveries of an announcement claimed by ``node``: one per ``(notifier, recipient)``,
    each the head of its queue when nothing else waits in it, and mark it fanned out. False
    (nothing written) when it was fanned out already, or the claim was lost to another server."""
    connection = session.connection()
    wanted = sorted(set(recipients))
    # marked fanned out first, in the statement that checks the claim (and, on PostgreSQL, locks
    # the row): an announcement has no deliveries before it is fanned out, since they are written
    # in the transaction that marks it so (and there is one per recipient: uq_delivery_recipient)
    marked = connection.execute(_expanded(), {"outbox_id": outbox_id, "node": node, "now": now,
                                              "told": None if wanted else now}).first()
    if marked is None:
        return False
    game_id = marked.game_id
    if wanted:
        _lock_queues(session, [(notifier, recipient, game_id) for notifier, recipient in wanted])
        rows = [{"outbox_id": outbox_id, "game_id": game_id, "notifier": notifier, "recipient": recipient,
                 "state": "pending", "attempts": 0, "due_at": now} | _queue_params(notifier, recipient, game_id)
                for notifier, recipient in wanted]
        connection.execute(_new_delivery(game_id is not None), rows[0] if len(rows) == 1 else rows)
    return True


@cache
def _new_delivery(of_game: bool) -> sa.Insert:
    """:func:`expand_announcement`'s insert of a delivery into the queue of a game or of none (built
    once): the head of its queue when nothing waits in it (read from the index of pending
    deliveries, ``ix_delivery_queue_pending``; the queues of one announcement are distinct, so
    that no row of the insert is in another's queue)."""
    d = table_of(DeliveryRow)
    waiting = sa.exists().where(*_in_queue(d, of_game), sa.text(_PENDING))
    return sa.insert(d).values(queue_head=~waiting)


@cache
def _expanded() -> sa.Update:
    """:func:`expand_announcement`'s mark of an announcement fanned out (and delivered, ``told``,
    when nobody is to be told) if it is not yet and ``node`` still holds its claim; its game's id
    (built once: only its parameters change)."""
    o = table_of(OutboxRow)
    return (sa.update(o).where(o.c.id == sa.bindparam("outbox_id"), o.c.expanded_at.is_(None),
                               o.c.claimed_by == sa.bindparam("node"))
            .values(expanded_at=sa.bindparam("now", type_=o.c.expanded_at.type),
                    delivered_at=sa.func.coalesce(sa.bindparam("told", type_=o.c.delivered_at.type), o.c.delivered_at))
            .returning(o.c.game_id))


@dataclass(frozen=True, slots=True)
class ClaimedDelivery:
    """A delivery as a claim left it (its attempts counted, its first attempt's time set)."""

    id: int
    outbox_id: int
    game_id: int | None
    notifier: str
    recipient: str
    attempts: int
    first_tried_at: datetime


def deliveries_waiting(session: Session, notifiers: Collection[str], now: datetime) -> int:
    """How far the announcements are behind for ``notifiers``: the heads of their queues due at
    ``now`` and not yet made (claimed or not), and the announcements not yet fanned out to their
    recipients (each of which brings more). Read from the indexes the claims read."""
    if not notifiers:
        return 0
    d, o = table_of(DeliveryRow), table_of(OutboxRow)
    heads = (sa.select(sa.func.count()).select_from(d)
             .where(sa.text(_HEADS), d.c.notifier.in_(sorted(notifiers)), d.c.due_at <= now)
             .scalar_subquery())
    new = sa.select(sa.func.count()).select_from(o).where(sa.text(_UNEXPANDED)).scalar_subquery()
    return int(session.connection().execute(sa.select(heads + new)).scalar_one())


def claim_deliveries(session: Session, notifiers: Collection[str], token: str, now: datetime,
                     until: datetime | Callable[[], datetime], limit: int = 50,
                     exclude: Collection[int] = (), background: Collection[str] = (),
                     patience: timedelta = timedelta(0)) -> list[tuple[ClaimedDelivery, sa.Row, bool]]:
    """Claim due deliveries of these notifiers until ``until`` (or the time a function gives,
    asked once they are chosen: time spent choosing them is then no time of the claim's):
    ``(delivery, announcement, in doubt)``, due first; the announcement is a plain row of the
    outbox (its columns as attributes).

    Only the head of each queue (one notifier, one recipient, one game) is taken, so that a
    recipient reads a game's announcements in the order they were made. The claim reads the
    index of the queues' heads that are due (``ix_delivery_heads``), one notifier after another:
    it costs the same whatever the number of deliveries waiting behind them. A delivery still
    claimed by a server whose claim lapsed is *in doubt*: that server may have delivered it
    before it died. The rows taken are claimed in one statement, their announcements read in one;
    each notifier's look after the first reads only the heads that would be among the first
    ``limit`` of those read before it.

    The deliveries of the ``background`` notifiers (among ``notifiers``) wait for the others:
    they are taken only where the others due leave room in the claim, unless they have been due
    for ``patience`` already (then they are taken in due order with the others, so that a server
    that always has others to deliver still makes them).
    """
    connection = session.connection()
    lock = connection.dialect.name != "sqlite"
    chosen = sorted(set(notifiers))
    waiting = [n for n in chosen if n in background]
    waited = now - patience
    rows = _due_heads_of(connection, lock, [(n, now) for n in chosen if n not in background], now, limit, exclude)
    if waiting and len(rows) >= limit:  # a full claim: only those due for ``patience`` could be among it
        rows = _due_heads_of(connection, lock, [(n, waited) for n in waiting], now, limit, exclude, rows)
    elif waiting:  # room left: those due for ``patience`` in due order with the others, then the rest
        late = _due_heads_of(connection, lock, [(n, now) for n in waiting], now, limit, exclude)
        rows = sorted([*rows, *(r for r in late if r.due_at <= waited)], key=_due_first)[:limit]
        rows += [r for r in late if r.due_at > waited][:limit - len(rows)]
    if not rows:
        return []
    if callable(until):
        until = until()
    claimed = [(ClaimedDelivery(r.id, r.outbox_id, r.game_id, r.notifier, r.recipient, r.attempts + 1,
                                r.first_tried_at or now), r.claimed_by is not None) for r in rows]
    connection.execute(_deliveries_claimed(), {"ids": [c.id for c, _ in claimed], "token": token, "until": until,
                                               "now": now})
    announcements = {a.id: a for a in connection.execute(_announcements_of(),
                                                         {"ids": sorted({c.outbox_id for c, _ in claimed})})}
    return [(c, announcements[c.outbox_id], in_doubt) for c, in_doubt in claimed]


def _due_heads_of(connection: sa.Connection, lock: bool, notifiers: list[tuple[str, datetime]], now: datetime,
                  limit: int, exclude: Collection[int], rows: list[sa.Row] | None = None) -> list[sa.Row]:
    """The first ``limit`` heads of the notifiers' queues, due first: for each notifier, ``(its
    name, the time its heads must be due by)``; not claimed at ``now``, none of ``exclude``;
    among them, ``rows`` (those read before, due first)."""
    rows = list(rows or [])
    for notifier, due_by in notifiers:
        params = {"notifier": notifier, "now": now, "due_by": due_by, "limit": limit} | (
            {"exclude": sorted(exclude)} if exclude else {})
        if len(rows) >= limit:  # only those that would be among the first ``limit`` of those read so far
            last = rows[limit - 1]
            params |= {"before_due": last.due_at, "before_id": last.id}
        rows = sorted([*rows, *connection.execute(_due_heads(lock, bool(exclude), len(rows) >= limit), params)],
                      key=_due_first)[:limit]     # the others are left as they were
    return rows


def _due_first(row: sa.Row) -> tuple:
    return row.due_at, row.id


@cache
def _due_heads(lock: bool, excluding: bool, bounded: bool = False) -> sa.Select:
    """:func:`claim_deliveries`' look for the heads of one notifier's queues due by ``due_by`` and
    not claimed at ``now`` (built once); ``bounded``: only those due before the delivery
    ``before_id`` (due at ``before_due``)."""
    d = table_of(DeliveryRow)
    now = sa.bindparam("now", type_=d.c.due_at.type)
    stmt = (sa.select(d.c.id, d.c.outbox_id, d.c.game_id, d.c.notifier, d.c.recipient, d.c.attempts,
                      d.c.due_at, d.c.claimed_by, d.c.first_tried_at)
            .where(d.c.notifier == sa.bindparam("notifier"), sa.text(_HEADS),
                   d.c.due_at <= sa.bindparam("due_by", type_=d.c.due_at.type),
                   sa.or_(d.c.claimed_until.is_(None), d.c.claimed_until < now))
            .order_by(d.c.due_at, d.c.id).limit(sa.bindparam("limit", type_=sa.Integer)))
    if excluding:
        stmt = stmt.where(d.c.id.not_in(sa.bindparam("exclude", expanding=True)))
    if bounded:
        due = sa.bindparam("before_due", type_=d.c.due_at.type)
        stmt = stmt.where(sa.or_(d.c.due_at < due, sa.and_(d.c.due_at == due, d.c.id < sa.bindparam("before_id"))))
    return stmt.with_for_update(skip_locked=True) if lock else stmt


@cache
def _deliveries_claimed() -> sa.Update:
    """:func:`claim_deliveries`' claim of the rows it took (``ids``), in one statement: an attempt
    more, and the first attempt's time where there was none (built once)."""
    d = table_of(DeliveryRow)
    return (sa.update(d).where(d.c.id.in_(sa.bindparam("ids", expanding=True)))
            .values(claimed_by=sa.bindparam("token"), claimed_until=sa.bindparam("until", type_=d.c.claimed_until.type),
                    attempts=d.c.attempts + 1,
                    first_tried_at=sa.func.coalesce(d.c.first_tried_at,
                                                    sa.bindparam("now", type_=d.c.first_tried_at.type))))


@cache
def _announcements_of() -> sa.Select:
    """The outbox rows numbered ``ids`` (built once)."""
    o = table_of(OutboxRow)
    return sa.select(o).where(o.c.id.in_(sa.bindparam("ids", expanding=True)))


def renew_deliveries(session: Session, token: str, until: datetime, ids: Collection[int] | None = None) -> set[int]:
    """Extend the claim ``token`` holds on the deliveries it is still making (``ids``: those it
    believes it holds, read by their keys; ``None``: found by the token); the ids of those it
    still holds (not those another server took over after the claim lapsed)."""
    table = table_of(DeliveryRow)
    stmt = sa.update(table).where(table.c.claimed_by == token, table.c.state == "pending")
    if ids is not None:
        if not ids:
            return set()
        stmt = stmt.where(table.c.id.in_(sorted(ids)))
    return set(session.connection().execute(stmt.values(claimed_until=until).returning(table.c.id)).scalars())


def finish_delivery(session: Session, delivery_id: int, token: str, now: datetime, *, state: str,
                    due_at: datetime | None = None, reason: str | None = None) -> bool:
    """Record how an attempt under the claim ``token`` went: ``delivered``, ``refused``, or
    ``pending`` again from ``due_at``. False when the claim was lost (another server took it).
    A delivery done makes the next one of its queue the head."""
    table = table_of(DeliveryRow)
    values: dict[str, Any] = {"state": state, "reason": reason}
    if state == "pending":
        values.update(due_at=due_at, claimed_by=None, claimed_until=None)
    else:
        values.update(done_at=now, claimed_until=None, queue_head=False)
    stmt = (sa.update(table).where(table.c.id == delivery_id, table.c.claimed_by == token, table.c.state == "pending")
            .values(**values).returning(table.c.notifier, table.c.recipient, table.c.game_id))
    done = session.connection().execute(stmt).first()
    if done is None:
        return False
    if state != "pending":
        advance_queues(session, [tuple(done)])
    return True


def finish_deliveries(session: Session, made: Collection[tuple[int, str]], now: datetime) -> set[int]:
    """Record these deliveries ``(id, claim token)`` delivered, in one statement per token, and
    hand each of their queues on to its next delivery; the ids of those whose claim still held
    (of the others nothing is written: another server took them over)."""
    by_token: dict[str, list[int]] = {}
    for delivery_id, token in made:
        by_token.setdefault(token, []).append(delivery_id)
    kept: set[int] = set()
    queues = []
    for token, ids in sorted(by_token.items()):
        for row in session.connection().execute(_delivered(), {"ids": sorted(ids), "token": token, "now": now}):
            kept.add(row.id)
            queues.append((row.notifier, row.recipient, row.game_id))
    advance_queues(session, queues)
    return kept


@cache
def _delivered() -> sa.Update:
    """:func:`finish_deliveries`' statement (built once: only its parameters change)."""
    d = table_of(DeliveryRow)
    return (sa.update(d).where(d.c.id.in_(sa.bindparam("ids", expanding=True)), d.c.claimed_by == sa.bindparam("token"),
                               d.c.state == "pending")
            .values(state="delivered", reason=None, done_at=sa.bindparam("now", type_=d.c.done_at.type), claimed_until=None,
                    queue_head=False)
            .returning(d.c.id, d.c.notifier, d.c.recipient, d.c.game_id))


def advance_queues(session: Session, queues: Collection[tuple[str, str, int | None]]) -> int:
    """Make the first pending delivery of each of these queues (``(notifier, recipient, game id)``)
    its head, where it has none; how many heads were made. Whatever ends a queue's head (a
    delivery done, refused, dropped) calls this in the same transaction, or the queue stalls.
    One statement for the queues of games and one for those of no game, each run once per queue
    (an ``executemany``: each reads only its queue's first entry in ``ix_delivery_queue_pending``)."""
    queues = sorted(set(queues), key=_queue_sort)
    if not queues:
        return 0
    _lock_queues(session, queues)
    made = 0
    for of_game in (True, False):
        params = [_queue_params(n, r, g) for n, r, g in queues if (g is not None) == of_game]
        if params:
            result = session.connection().execute(_next_head(of_game), params[0] if len(params) == 1 else params)
            made += max(result.rowcount, 0)
    return made


@cache
def _next_head(of_game: bool) -> sa.Update:
    """:func:`advance_queues`' statement for a queue of a game or of none (built once): its first
    pending delivery made its head, unless the queue has a pending head already."""
    d = table_of(DeliveryRow)
    head = d.alias("head")
    first = (sa.select(d.c.id).where(*_in_queue(d, of_game), sa.text(_PENDING))
             .order_by(d.c.outbox_id, d.c.id).limit(1).scalar_subquery())
    headed = sa.exists().where(*_in_queue(head, of_game),
                               sa.text("head.state = 'pending' AND head.queue_head"))  # (a literal, as _HEADS)
    return sa.update(d).where(d.c.id == first, d.c.queue_head.is_(False), ~headed).values(queue_head=True)


def _in_queue(table: sa.FromClause, of_game: bool) -> list:
    """The rows of ``table`` (the deliveries, or an alias of them) in the queue named by the
    parameters :func:`_queue_params` gives: of a game (``of_game``) or of none."""
    game = table.c.game_id == sa.bindparam("q_game") if of_game else table.c.game_id.is_(None)
    return [table.c.notifier == sa.bindparam("q_notifier"), table.c.recipient == sa.bindparam("q_recipient"), game]


def _queue_params(notifier: str, recipient: str, game_id: int | None) -> dict[str, Any]:
    """The parameters naming a queue in a statement that reads it (:func:`_in_queue`)."""
    return {"q_notifier": notifier, "q_recipient": recipient} | ({"q_game": game_id} if game_id is not None else {})


def _queue_sort(queue: tuple[str, str, int | None]) -> tuple:
    notifier, recipient, game_id = queue
    return notifier, recipient, -1 if game_id is None else game_id


def _lock_queues(session: Session, queues: Collection[tuple[str, str, int | None]]) -> None:
    """Hold these queues for the rest of the transaction (PostgreSQL: one advisory lock each, taken
    in one order), so that of two transactions writing a queue's deliveries or moving its head
    on, the second sees what the first did. On SQLite ``BEGIN IMMEDIATE`` serialises writers."""
    if session.get_bind().dialect.name == "sqlite":
        return
    keys = sorted({_queue_key(*q) for q in queues})
    if keys:    # in one statement, in the order of the array
        session.connection().execute(sa.text("SELECT pg_advisory_xact_lock(k) FROM unnest(CAST(:keys AS bigint[])) AS k"),
                                     {"keys": keys})


def _queue_key(notifier: str, recipient: str, game_id: int | None) -> int:
    """A queue's advisory lock key: 64 bits of a digest of what names it (in its own key space)."""
    digest = hashlib.blake2b(f"delivery queue\x1f{notifier}\x1f{recipient}\x1f{game_id}".encode(),
                             digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def open_announcements(session: Session, after: int = 0, limit: int = 500) -> list[int]:
    """The ids of announcements fanned out but not marked delivered, after ``after``, at most
    ``limit`` of them, in id order (for :func:`close_announcements` to look at a batch at a time)."""
    o = table_of(OutboxRow)
    stmt = (sa.select(o.c.id).where(o.c.delivered_at.is_(None), o.c.expanded_at.is_not(None), o.c.id > after)
            .order_by(o.c.id).limit(limit))
    return list(session.connection().execute(stmt).scalars())


def close_announcements(session: Session, outbox_ids: Collection[int] | None, now: datetime) -> int:
    """Mark delivered those of these announcements (``None``: of all) whose every delivery is done;
    how many. Each one named is locked first, so that of two servers recording its last two
    deliveries at once, the second sees the first's and closes it."""
    if outbox_ids is not None and not outbox_ids:
        return 0
    connection = session.connection()
    if outbox_ids is None:
        return connection.execute(_close_announcements(False), {"now": now}).rowcount
    ids = sorted(set(outbox_ids))
    if connection.dialect.name != "sqlite":
        connection.execute(_open_announcements_locked(), {"ids": ids})
    return connection.execute(_close_announcements(True), {"ids": ids, "now": now}).rowcount


def _open(chosen: bool) -> list:
    o = table_of(OutboxRow)
    return [o.c.delivered_at.is_(None), o.c.expanded_at.is_not(None)] + (
        [o.c.id.in_(sa.bindparam("ids", expanding=True))] if chosen else [])


@cache
def _close_announcements(chosen: bool) -> sa.Update:
    """:func:`close_announcements`' statement, for the announcements named (``ids``) or for all
    (built once: only its parameters change)."""
    o, d = table_of(OutboxRow), table_of(DeliveryRow)
    pending = sa.exists().where(d.c.outbox_id == o.c.id, d.c.state == "pending")
    return (sa.update(o).where(*_open(chosen), ~pending)
            .values(delivered_at=sa.bindparam("now", type_=o.c.delivered_at.type)))


@cache
def _open_announcements_locked() -> sa.Select:
    """The open announcements named (``ids``), locked in id order (PostgreSQL)."""
    o = table_of(OutboxRow)
    return sa.select(o.c.id).where(*_open(True)).order_by(o.c.id).with_for_update()


def delivery_state(session: Session, key: str, notifier: str, recipient: str) -> str | None:
    """How the announcement keyed ``key`` went to ``recipient`` through ``notifier``: ``pending``,
    ``delivered``, ``refused`` or ``superseded``; ``None`` while it is not fanned out (or not there)."""
    o, d = table_of(OutboxRow), table_of(DeliveryRow)
    return session.connection().execute(
        sa.select(d.c.state).join(o, o.c.id == d.c.outbox_id)
        .where(o.c.key == key, d.c.notifier == notifier, d.c.recipient == recipient)).scalar()


def refused_to(session: Session, game_id: int, notifier: str, recipient: str, *,
               since: datetime | None = None, unread: bool = False) -> list[tuple[int, str]]:
    """The ``(delivery id, subject)`` of the game's announcements refused for good to ``recipient``
    through ``notifier``: done since ``since``; with ``unread``, only those after the last one
    delivered to it (what the recipient has missed and not been told of)."""
    o, d = table_of(OutboxRow), table_of(DeliveryRow)
    mine = sa.and_(d.c.game_id == game_id, d.c.notifier == notifier, d.c.recipient == recipient)
    stmt = (sa.select(d.c.id, o.c.subject).join(o, o.c.id == d.c.outbox_id)
            .where(mine, d.c.state == "refused").order_by(d.c.id))
    if since is not None:
        stmt = stmt.where(d.c.done_at >= since)
    if unread:
        last = session.connection().execute(
            sa.select(sa.func.max(d.c.id)).where(mine, d.c.state == "delivered")).scalar()
        if last is not None:
            stmt = stmt.where(d.c.id > last)
    return [(row.id, row.subject) for row in session.connection().execute(stmt)]


def refused_recipients(session: Session, game_id: int, notifier: str) -> set[str]:
    """The recipients to whom an announcement of the game was refused for good through ``notifier``:
    the only ones :func:`refused_to` has anything to name for."""
    d = table_of(DeliveryRow)
    stmt = (sa.select(d.c.recipient).distinct()
            .where(d.c.game_id == game_id, d.c.notifier == notifier, d.c.state == "refused"))
    return set(session.connection().execute(stmt).scalars())


def deliveries_of(session: Session, *, game_id: int | None = None, outbox_id: int | None = None) -> list[DeliveryRow]:
    stmt = select(DeliveryRow).order_by(col(DeliveryRow.id))
    if game_id is not None:
        stmt = stmt.where(DeliveryRow.game_id == game_id)
    if outbox_id is not None:
        stmt = stmt.where(DeliveryRow.outbox_id == outbox_id)
    return list(session.exec(stmt))


def outbox_of(session: Session, game_id: int | None = None) -> list[OutboxRow]:
    stmt = select(OutboxRow).order_by(col(OutboxRow.id))
    if game_id is not None:
        stmt = stmt.where(OutboxRow.game_id == game_id)
    return list(session.exec(stmt))


# -- turns at an outside service, shared by every server ---------------------------------------


def take_turn(session: Session, name: str, interval: float, burst: float) -> float:
    """Take the next turn of ``name`` (PostgreSQL): turns are ``interval`` seconds apart, and up to
    ``burst`` seconds' worth may be taken ahead when the turns were idle (a generic cell rate
    algorithm, its one number kept in the ``pace`` row and moved on in one statement, by the
    database's clock). The seconds to wait before using it (zero or less: at once)."""
    now = "extract(epoch FROM clock_timestamp())::float8"
    return float(session.connection().execute(sa.text(
        f"INSERT INTO pace (name, next_turn) VALUES (:name, {now} + :interval) "
        f"ON CONFLICT (name) DO UPDATE SET next_turn = greatest(pace.next_turn, {now}) + :interval "
        f"RETURNING next_turn - :interval - :burst - {now}"),
        {"name": name, "interval": interval, "burst": burst}).scalar_one())


def delete_game(session: Session, game_id: int) -> None:
    for table in (DeliveryRow, OrderRow, SubmissionRow, SeasonRow, TimerRow, OutboxRow, PlayerRow, ActionRow, PressRow):
        session.exec(sa.delete(table).where(table_of(table).c.game_id == game_id))
    session.exec(sa.delete(GameRow).where(col(GameRow.id) == game_id))


def site_columns(session: Session, game_id: int | None = None) -> tuple[
        list[dict[str, Any]], dict[int, list[dict[str, Any]]], dict[int, list[int]]]:
    """What the archive site's pages of each game (or of game ``game_id``) show, in three queries
    whatever the number of games: each game's id, name, status, phase, outcome and position; its
    players' power, status and missed deadlines (by game, in the order they joined); the versions
    of its seasons (by game)."""
    game, player, season = table_of(GameRow), table_of(PlayerRow), table_of(SeasonRow)
    connection = session.connection()
    games = [dict(row._mapping) for row in connection.execute(
        sa.select(game.c.id, game.c.name, game.c.status, game.c.phase, game.c.outcome, game.c.position)
        .where(sa.true() if game_id is None else game.c.id == game_id).order_by(game.c.id))]
    players: dict[int, list[dict[str, Any]]] = {}
    query = sa.select(player.c.game_id, player.c.power, player.c.status, player.c.nmr_count).order_by(player.c.id)
    for row in connection.execute(query if game_id is None else query.where(player.c.game_id == game_id)):
        players.setdefault(row.game_id, []).append({"power": row.power, "status": row.status,
                                                    "nmr_count": row.nmr_count})
    versions: dict[int, list[int]] = {}
    of_seasons = sa.select(season.c.game_id, season.c.version)
    for one in connection.execute(of_seasons if game_id is None else of_seasons.where(season.c.game_id == game_id)):
        versions.setdefault(one.game_id, []).append(one.version)
    return games, players, versions


def press_count_since(session: Session, game_id: int, power: str, since: datetime) -> int:
    """How many messages of press ``power`` sent in the game since ``since`` (its hourly bound)."""
    stmt = select(sa.func.count()).select_from(PressRow).where(
        PressRow.game_id == game_id, PressRow.power == power, PressRow.at >= since)
    return int(session.exec(stmt).one())


def press_of(session: Session, game_id: int) -> list[PressRow]:
    """A game's press, oldest first."""
    return list(session.exec(select(PressRow).where(PressRow.game_id == game_id).order_by(col(PressRow.id))))
