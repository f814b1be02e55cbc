"""Storage: every table of the judge, the database handle, and the mappers to domain values.

SQLite (one file, WAL) by default, PostgreSQL by URL. The schema is owned by the Alembic
migrations in ``bot/migrations``; :meth:`Database.migrate` applies them. Positions are kept
as the command-line contract's position documents (JSON), so that an export, an import and
``crusader verify`` all read the same thing. Every timestamp is timezone-aware UTC.

No other module writes SQL: the service asks for rows through the helpers at the bottom.
"""

from __future__ import annotations

from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Collection, Iterator

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Field, Session, SQLModel, select


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(sa.types.TypeDecorator):
    """A timestamp stored in UTC and always read back timezone-aware."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime given to storage: {value!r}; pass a timezone-aware UTC time")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _json(**kw) -> Any:
    return Field(sa_column=sa.Column(sa.JSON, nullable=kw.pop("nullable", False)), **kw)


def _when(nullable: bool = False, index: bool = False) -> Any:
    return Field(default=None,
                 sa_column=sa.Column(UTCDateTime(), nullable=nullable, index=index))


# -- tables ---------------------------------------------------------------------------------


class GameRow(SQLModel, table=True):
    __tablename__ = "game"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, max_length=100)
    variant: str = Field(max_length=40)
    rules: list = _json(default_factory=list)
    gm: str = Field(max_length=200)
    status: str = Field(default="forming", max_length=20, index=True)
    policy: dict = _json(default_factory=dict)
    position: dict | None = _json(nullable=True, default=None)
    phase: str | None = Field(default=None, max_length=10)
    version: int = Field(default=0)
    deadline_at: datetime | None = _when(nullable=True)
    paused_remaining: float | None = None
    seed: int = Field(default=0, sa_type=sa.BigInteger)
    outcome: dict | None = _json(nullable=True, default=None)
    created_at: datetime = _when()
    ended_at: datetime | None = _when(nullable=True)


class PlayerRow(SQLModel, table=True):
    __tablename__ = "player"
    __table_args__ = (sa.UniqueConstraint("game_id", "player", name="uq_player_game_player"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    player: str = Field(max_length=200)
    power: str | None = Field(default=None, max_length=10)
    status: str = Field(default="active", max_length=20)
    nmr_count: int = 0
    draw_vote: bool = False
    joined_at: datetime = _when()


class OrderRow(SQLModel, table=True):
    """The orders standing for a power in one phase: one row per unit (or per bid)."""

    __tablename__ = "orders"
    __table_args__ = (
        sa.UniqueConstraint("game_id", "version", "power", "key", name="uq_orders_unit"),
        sa.Index("ix_orders_game_version", "game_id", "version"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")
    version: int
    phase: str = Field(max_length=10)
    power: str = Field(max_length=10)
    key: str = Field(max_length=60)
    seq: int
    text: str = Field(sa_type=sa.Text)
    canonical: str = Field(sa_type=sa.Text)
    submission_id: int | None = Field(default=None, foreign_key="submission.id")
    submitted_at: datetime = _when()


class SubmissionRow(SQLModel, table=True):
    """The audit log: every message of orders, as written, and what the judge made of it."""

    __tablename__ = "submission"

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    version: int
    phase: str = Field(max_length=10)
    power: str = Field(max_length=10)
    player: str = Field(max_length=200)
    text: str = Field(sa_type=sa.Text)
    accepted: list = _json(default_factory=list)
    rejected: list = _json(default_factory=list)
    at: datetime = _when()


class SeasonRow(SQLModel, table=True):
    """The archive of one adjudicated phase."""

    __tablename__ = "season"
    __table_args__ = (sa.UniqueConstraint("game_id", "version", name="uq_season_game_version"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    version: int
    phase: str = Field(max_length=10)
    position: dict = _json()
    orders: list = _json(default_factory=list)
    result: dict = _json()
    seed: int = Field(default=0, sa_type=sa.BigInteger)
    nmr: list = _json(default_factory=list)
    players: list = _json(default_factory=list)
    deadline_at: datetime | None = _when(nullable=True)
    adjudicated_at: datetime = _when()
    adjudicated_by: str = Field(default="", max_length=100)


class TimerRow(SQLModel, table=True):
    """A deadline or reminder: a row, re-armed at start-up, consumed by whoever handles its kind."""

    __tablename__ = "timer"
    __table_args__ = (sa.Index("ix_timer_pending", "fired_at", "due_at"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    version: int
    kind: str = Field(max_length=20)
    due_at: datetime = _when()
    payload: dict = _json(default_factory=dict)
    fired_at: datetime | None = _when(nullable=True)


class OutboxRow(SQLModel, table=True):
    """An announcement to deliver: written in the same transaction as what it announces."""

    __tablename__ = "outbox"
    __table_args__ = (sa.Index("ix_outbox_pending", "delivered_at", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True, max_length=200)
    game_id: int | None = Field(default=None, foreign_key="game.id")
    kind: str = Field(max_length=40)
    audience: str = Field(max_length=20)
    powers: list = _json(default_factory=list)
    recipients: list = _json(default_factory=list)
    subject: str = Field(sa_type=sa.Text)
    body: str = Field(sa_type=sa.Text)
    data: dict = _json(default_factory=dict)
    created_at: datetime = _when()
    claimed_by: str | None = Field(default=None, max_length=100)
    claimed_until: datetime | None = _when(nullable=True)
    attempts: int = 0
    delivered_at: datetime | None = _when(nullable=True)


# -- the database handle --------------------------------------------------------------------


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()
    # let SQLAlchemy's BEGIN below be the only transaction control (pysqlite defers it otherwise)
    dbapi_connection.isolation_level = None


def _sqlite_begin_immediate(conn) -> None:
    conn.exec_driver_sql("BEGIN IMMEDIATE")


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
        if self.is_sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
            event.listen(self.engine, "begin", _sqlite_begin_immediate)

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
    def session(self) -> Iterator[Session]:
        """A unit of work: committed when the block ends normally, rolled back otherwise."""
        with Session(self.engine, expire_on_commit=False) as session:
            with session.begin():
                yield session

    def dispose(self) -> None:
        self.engine.dispose()


# -- queries the service needs (the only place that builds them) ---------------------------


def lock_game(session: Session, game_id: int, *, skip_locked: bool = True) -> GameRow | None:
    """The game row, locked for this transaction (PostgreSQL: ``FOR UPDATE SKIP LOCKED``).

    ``None`` when another process holds it. On SQLite the transaction is ``BEGIN IMMEDIATE``,
    which already serialises writers.
    """
    stmt = select(GameRow).where(GameRow.id == game_id)
    if session.get_bind().dialect.name != "sqlite":
        stmt = stmt.with_for_update(skip_locked=skip_locked)
    return session.exec(stmt).first()


def game_by_name(session: Session, name: str) -> GameRow | None:
    return session.exec(select(GameRow).where(GameRow.name == name)).first()


def all_games(session: Session, *, status: str | None = None) -> list[GameRow]:
    stmt = select(GameRow).order_by(GameRow.id)
    if status:
        stmt = stmt.where(GameRow.status == status)
    return list(session.exec(stmt))


def players_of(session: Session, game_id: int) -> list[PlayerRow]:
    return list(session.exec(select(PlayerRow).where(PlayerRow.game_id == game_id).order_by(PlayerRow.id)))


def games_of_player(session: Session, player: str, statuses: tuple[str, ...] = ()) -> list[sa.Row]:
    """The games ``player`` plays in (optionally only those in ``statuses``); see ``games_of_players``."""
    return games_of_players(session, [player], statuses)


def games_of_players(session: Session, players: Collection[str], statuses: tuple[str, ...] = ()) -> list[sa.Row]:
    """The games each of ``players`` plays in, in one query, as plain rows in game order.

    A listing, on the path of every DM: each row has the game's ``id, name, variant, status,
    gm, phase, policy`` and the player's ``player, power``; no position, no ORM objects.
    """
    game, seat = GameRow.__table__, PlayerRow.__table__
    stmt = (sa.select(game.c.id, game.c.name, game.c.variant, game.c.status, game.c.gm, game.c.phase,
                      game.c.policy, seat.c.player, seat.c.power)
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
    stmt = (select(GameRow).where(sa.or_(GameRow.name.in_(sorted(set(names))), GameRow.id.in_(sorted(set(ids)))))
            .order_by(GameRow.id))
    if session.get_bind().dialect.name != "sqlite":
        stmt = stmt.with_for_update()
    return list(session.exec(stmt))


def player_rows(session: Session, game_ids: Collection[int]) -> list[sa.Row]:
    """The players of these games as plain rows (read-only: no ORM objects on the orders' hot path)."""
    table = PlayerRow.__table__
    stmt = sa.select(table).where(table.c.game_id.in_(sorted(set(game_ids)))).order_by(table.c.id)
    return list(session.connection().execute(stmt))


def standing_order_rows(session: Session, phases: Collection[tuple[int, int]]) -> list[sa.Row]:
    """The standing orders of every power in these ``(game id, version)`` phases, as plain rows
    in ``orders_of``'s order (power, then the order they were given in)."""
    table = OrderRow.__table__
    stmt = (sa.select(table).where(sa.tuple_(table.c.game_id, table.c.version).in_(sorted(set(phases))))
            .order_by(table.c.game_id, table.c.power, table.c.seq))
    return list(session.connection().execute(stmt))


def add_submissions(session: Session, rows: list[dict[str, Any]]) -> list[int]:
    """Insert audit-log rows in one statement; their ids, in the order given."""
    if not rows:
        return []
    table = SubmissionRow.__table__
    stmt = sa.insert(table).returning(table.c.id, sort_by_parameter_order=True)
    return list(session.connection().execute(stmt, rows).scalars())


def add_orders(session: Session, rows: list[dict[str, Any]]) -> None:
    """Insert standing-order rows in one statement (``OrderRow``'s columns as keys)."""
    if rows:
        session.connection().execute(sa.insert(OrderRow.__table__), rows)


def delete_orders_by_id(session: Session, ids: Collection[int]) -> None:
    if ids:
        session.connection().execute(sa.delete(OrderRow.__table__).where(OrderRow.__table__.c.id.in_(sorted(ids))))


def reactivate_players(session: Session, ids: Collection[int]) -> None:
    """Players back from civil disorder (they sent orders): active, the count of missed phases cleared."""
    if ids:
        table = PlayerRow.__table__
        session.connection().execute(sa.update(table).where(table.c.id.in_(sorted(ids)))
                                     .values(status="active", nmr_count=0))


def orders_of(session: Session, game_id: int, version: int, power: str | None = None) -> list[OrderRow]:
    stmt = select(OrderRow).where(OrderRow.game_id == game_id, OrderRow.version == version)
    if power is not None:
        stmt = stmt.where(OrderRow.power == power)
    return list(session.exec(stmt.order_by(OrderRow.power, OrderRow.seq)))


def delete_orders(session: Session, game_id: int, version: int, power: str, keys: list[str] | None = None) -> None:
    stmt = sa.delete(OrderRow).where(OrderRow.game_id == game_id, OrderRow.version == version,
                                     OrderRow.power == power)
    if keys is not None:
        stmt = stmt.where(OrderRow.key.in_(keys))
    session.exec(stmt.execution_options(synchronize_session=False))


def submissions_of(session: Session, game_id: int, version: int | None = None) -> list[SubmissionRow]:
    stmt = select(SubmissionRow).where(SubmissionRow.game_id == game_id)
    if version is not None:
        stmt = stmt.where(SubmissionRow.version == version)
    return list(session.exec(stmt.order_by(SubmissionRow.id)))


def seasons_of(session: Session, game_id: int) -> list[SeasonRow]:
    return list(session.exec(select(SeasonRow).where(SeasonRow.game_id == game_id).order_by(SeasonRow.version)))


def season_at(session: Session, game_id: int, version: int) -> SeasonRow | None:
    """The archive of the phase adjudicated at ``version`` (``None``: not adjudicated, or rolled back)."""
    return session.exec(select(SeasonRow).where(SeasonRow.game_id == game_id, SeasonRow.version == version)).first()


def last_season(session: Session, game_id: int) -> SeasonRow | None:
    stmt = select(SeasonRow).where(SeasonRow.game_id == game_id).order_by(SeasonRow.version.desc())
    return session.exec(stmt).first()


def pending_timers(session: Session, *, due_before: datetime | None = None, limit: int | None = None) -> list[TimerRow]:
    stmt = select(TimerRow).where(TimerRow.fired_at.is_(None))
    if due_before is not None:
        stmt = stmt.where(TimerRow.due_at <= due_before)
    stmt = stmt.order_by(TimerRow.due_at, TimerRow.id)
    if limit:
        stmt = stmt.limit(limit)
    return list(session.exec(stmt))


def cancel_timers(session: Session, game_id: int, when: datetime) -> None:
    """Mark every pending timer of the game as spent (a new phase, pause or end)."""
    session.exec(sa.update(TimerRow).where(TimerRow.game_id == game_id, TimerRow.fired_at.is_(None))
                 .values(fired_at=when).execution_options(synchronize_session=False))


def claim_outbox(session: Session, node: str, now: datetime, until: datetime, limit: int = 200) -> list[OutboxRow]:
    """Claim undelivered announcements whose previous claim (if any) has lapsed."""
    stmt = (select(OutboxRow)
            .where(OutboxRow.delivered_at.is_(None),
                   sa.or_(OutboxRow.claimed_until.is_(None), OutboxRow.claimed_until < now))
            .order_by(OutboxRow.id).limit(limit))
    if session.get_bind().dialect.name != "sqlite":
        stmt = stmt.with_for_update(skip_locked=True)
    rows = list(session.exec(stmt))
    for row in rows:
        row.claimed_by, row.claimed_until, row.attempts = node, until, row.attempts + 1
        session.add(row)
    return rows


def mark_delivered(session: Session, ids: list[int], when: datetime) -> None:
    if ids:
        session.exec(sa.update(OutboxRow).where(OutboxRow.id.in_(ids)).values(delivered_at=when)
                     .execution_options(synchronize_session=False))


def outbox_of(session: Session, game_id: int | None = None) -> list[OutboxRow]:
    stmt = select(OutboxRow).order_by(OutboxRow.id)
    if game_id is not None:
        stmt = stmt.where(OutboxRow.game_id == game_id)
    return list(session.exec(stmt))


def delete_game(session: Session, game_id: int) -> None:
    for table in (OrderRow, SubmissionRow, SeasonRow, TimerRow, OutboxRow, PlayerRow):
        session.exec(sa.delete(table).where(table.game_id == game_id))
    session.exec(sa.delete(GameRow).where(GameRow.id == game_id))
