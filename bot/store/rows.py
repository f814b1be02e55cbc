"""The judge's tables (SQLModel rows) and the UTC timestamp type they use.

Every timestamp is timezone-aware UTC. Positions are kept as the command-line contract's position
documents (JSON), so that an export, an import and ``crusader verify`` all read the same thing.
The schema is owned by the Alembic migrations in ``bot/store/migrations``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from .names import game_key
from .statuses import GameStatus, PlayerStatus


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


class StatusType(sa.types.TypeDecorator):
    """A status stored as its string (``VARCHAR(20)``, as ever) and read back as its enum member."""

    impl = sa.String(20)
    cache_ok = True

    def __init__(self, enum: type[StrEnum]) -> None:
        super().__init__()
        self.enum = enum

    def process_bind_param(self, value: str | None, dialect) -> str | None:
        return None if value is None else self.enum(value).value

    def process_result_value(self, value: str | None, dialect) -> StrEnum | None:
        return None if value is None else self.enum(value)


def _status(enum: type[StrEnum], default: StrEnum, *, index: bool = False) -> Any:
    return Field(default=default, sa_column=sa.Column(StatusType(enum), nullable=False, index=index))


def table_of(row: type[SQLModel]) -> sa.Table:
    """The table of a row class, for statements on the table itself (SQLModel gives every table
    class its ``__table__``; its type does not say so)."""
    table: sa.Table = row.__table__  # type: ignore[attr-defined]  # (set by SQLModel's metaclass)
    return table


def _json(**kw) -> Any:
    return Field(sa_column=sa.Column(sa.JSON, nullable=kw.pop("nullable", False)), **kw)


def _when(nullable: bool = False, index: bool = False) -> Any:
    return Field(default=None,
                 sa_column=sa.Column(UTCDateTime(), nullable=nullable, index=index))


def _key_of_name(context) -> str:
    """A new game's key, when none is given: its name's (:func:`bot.store.names.game_key`)."""
    return game_key(context.get_current_parameters()["name"])


# -- tables ---------------------------------------------------------------------------------


class GameRow(SQLModel, table=True):
    __tablename__ = "game"

    id: int = Field(default=None, primary_key=True)  # (None until the row is first written)
    name: str = Field(unique=True, max_length=100)
    key: str = Field(sa_column=sa.Column(sa.String(100), nullable=False, unique=True, index=True,
                                         default=_key_of_name))
    variant: str = Field(max_length=40)
    rules: list = _json(default_factory=list)
    gm: str = Field(max_length=200)
    status: GameStatus = _status(GameStatus, GameStatus.FORMING, index=True)
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

    id: int = Field(default=None, primary_key=True)  # (None until the row is first written)
    game_id: int = Field(foreign_key="game.id", index=True)
    player: str = Field(max_length=200)
    power: str | None = Field(default=None, max_length=10)
    status: PlayerStatus = _status(PlayerStatus, PlayerStatus.ACTIVE)
    nmr_count: int = 0
    draw_vote: bool = False
    concede_to: str | None = Field(default=None, max_length=10)
    """The power this player votes to concede the game to (``None``: no such vote)."""
    ready_version: int | None = None
    """The version of the game (its phase) whose orders this player has marked final (ready);
    any other value, or ``None``: not ready. A new order of the player clears it."""
    joined_at: datetime = _when()


class ActionRow(SQLModel, table=True):
    """What the game master (``actor``; ``None``: the judge's operator at a shell) did to a game, at
    which version and phase: a new deadline, a pause, a rollback, a new player, a policy changed...
    ``details`` are the action's values. Kept for the game's export."""

    __tablename__ = "gm_action"

    id: int = Field(default=None, primary_key=True)  # (None until the row is first written)
    game_id: int = Field(foreign_key="game.id", index=True)
    version: int
    phase: str | None = Field(default=None, max_length=10)
    at: datetime = _when()
    actor: str | None = Field(default=None, max_length=200)
    action: str = Field(max_length=40)
    details: dict = _json(default_factory=dict)


class OrderRow(SQLModel, table=True):
    """The orders standing for a power in one phase: one row per unit (or per bid)."""

    __tablename__ = "orders"
    __table_args__ = (
        sa.UniqueConstraint("game_id", "version", "power", "key", name="uq_orders_unit"),
        sa.Index("ix_orders_game_version", "game_id", "version"),
    )

    id: int = Field(default=None, primary_key=True)  # (None until the row is first written)
    game_id: int = Field(foreign_key="game.id")
    version: int
    phase: str = Field(max_length=10)
    power: str = Field(max_length=10)
    key: str = Field(max_length=60)
    seq: int
    text: str = Field(sa_type=sa.Text)
    order: dict = _json()
    """The order as a value (:mod:`bot.codec.values`): what the judge understood of ``text``."""
    submission_id: int | None = Field(default=None, foreign_key="submission.id")
    submitted_at: datetime = _when()


class SubmissionRow(SQLModel, table=True):
    """The audit log: every message of orders, as written, and what the judge made of it."""

    __tablename__ = "submission"

    id: int = Field(default=None, primary_key=True)  # (None until the row is first written)
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

    id: int = Field(default=None, primary_key=True)  # (None until the row is first written)
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
    picture: bytes | None = Field(default=None, sa_column=sa.Column(sa.LargeBinary, nullable=True))
    """The season's picture (PNG), drawn when it was adjudicated; ``None`` when it could not be drawn."""


class TimerRow(SQLModel, table=True):
    """A deadline or reminder: a row, re-armed at start-up, consumed by whoever handles its kind."""

    __tablename__ = "timer"
    __table_args__ = (sa.Index("ix_timer_pending", "fired_at", "due_at"),)

    id: int = Field(default=None, primary_key=True)  # (None until the row is first written)
    game_id: int = Field(foreign_key="game.id", index=True)
    version: int
    kind: str = Field(max_length=20)
    due_at: datetime = _when()
    payload: dict = _json(default_factory=dict)
    fired_at: datetime | None = _when(nullable=True)


class OutboxRow(SQLModel, table=True):
    """An announcement to deliver: written in the same transaction as what it announces."""

    __tablename__ = "outbox"
    __table_args__ = (
        sa.Index("ix_outbox_pending", "delivered_at", "id"),
        # the announcements still to fan out, oldest first (a claim reads only these)
        sa.Index("ix_outbox_unexpanded", "id", postgresql_where=sa.text("expanded_at IS NULL"),
                 sqlite_where=sa.text("expanded_at IS NULL")),
    )

    id: int = Field(default=None, primary_key=True)  # (None until the row is first written)
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
    expanded_at: datetime | None = _when(nullable=True)  # its deliveries (one per notifier and recipient) written
    delivered_at: datetime | None = _when(nullable=True)  # every delivery done: delivered, or refused for good
    superseded_by: str | None = Field(default=None, max_length=200)
    """The key of a later announcement of the game that made this one stale before it was all
    delivered (what was left of it was dropped: :func:`bot.store.outbox.write`)."""


class DeliveryRow(SQLModel, table=True):
    """One announcement for one recipient of one notifier: its state, attempts and claim.

    ``state``: ``pending`` (to try at ``due_at``), ``delivered``, ``refused`` (for good,
    ``reason`` says why) or ``superseded`` (dropped: a later announcement of the game made it
    stale before it was made). A server delivering it holds the claim (``claimed_by``, until
    ``claimed_until``, renewed while it works); a pending row still claimed after that time was
    being delivered by a server that died: the next attempt is *in doubt*.

    The deliveries of one notifier to one recipient for one game (``game_id``, or none) are a
    *queue*, made in the order of their announcements. ``queue_head`` marks the first pending
    delivery of each queue, the only one of it a server may claim: set when it is written into
    an empty queue, or when the one before it is done.
    """

    __tablename__ = "delivery"
    __table_args__ = (
        sa.UniqueConstraint("outbox_id", "notifier", "recipient", name="uq_delivery_recipient"),
        # what a claim reads: the heads of the queues, by notifier, due first
        sa.Index("ix_delivery_heads", "notifier", "due_at", "id", postgresql_where=sa.text("state = 'pending' AND queue_head"),
                 sqlite_where=sa.text("state = 'pending' AND queue_head")),
        # the next delivery of a queue, when its head is done
        sa.Index("ix_delivery_queue_pending", "game_id", "notifier", "recipient", "outbox_id",
                 postgresql_where=sa.text("state = 'pending'"), sqlite_where=sa.text("state = 'pending'")),
        # who refused a game's mail for good (asked by every announcement's mail): refusals only
        sa.Index("ix_delivery_refused", "game_id", "notifier", "recipient",
                 postgresql_where=sa.text("state = 'refused'"), sqlite_where=sa.text("state = 'refused'")),
    )

    id: int = Field(default=None, primary_key=True)  # (None until the row is first written)
    outbox_id: int = Field(sa_column=sa.Column(sa.Integer, sa.ForeignKey("outbox.id", ondelete="CASCADE"),
                                               nullable=False, index=True))
    game_id: int | None = None  # the outbox row's, so that one game's announcements reach a recipient in order
    notifier: str = Field(max_length=40)
    recipient: str = Field(max_length=320)
    state: str = Field(default="pending", max_length=10)
    attempts: int = 0
    due_at: datetime = _when()
    claimed_by: str | None = Field(default=None, max_length=100)
    claimed_until: datetime | None = _when(nullable=True)
    first_tried_at: datetime | None = _when(nullable=True)
    done_at: datetime | None = _when(nullable=True)
    reason: str | None = Field(default=None, sa_type=sa.Text)
    queue_head: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})


class PressRow(SQLModel, table=True):
    """One message of press (:mod:`bot.service.press`): sent by ``power`` in a phase, to ``to`` (the
    powers it reached), to everyone (``broadcast``), to the game master (``to_gm``), anonymous or
    not. ``player`` is who sent it, never shown to other players."""

    __tablename__ = "press"
    __table_args__ = (sa.Index("ix_press_game_power_at", "game_id", "power", "at"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(sa_column=sa.Column(sa.Integer, sa.ForeignKey("game.id", ondelete="CASCADE"),
                                             nullable=False, index=True))
    version: int
    phase: str = Field(max_length=10)
    power: str = Field(max_length=10)
    player: str = Field(max_length=200)
    to: list = _json(default_factory=list)
    broadcast: bool = False
    to_gm: bool = False
    anonymous: bool = False
    text: str = Field(sa_type=sa.Text)
    at: datetime = _when()


class PaceRow(SQLModel, table=True):
    """Turns at an outside service shared by every server on the database (Discord's global rate
    limit: :mod:`bot.frontends.discord.ratelimit`): the next free turn of ``name``, in seconds
    since the epoch by the database's own clock."""

    __tablename__ = "pace"

    name: str = Field(primary_key=True, max_length=60)
    next_turn: float = Field(sa_column=sa.Column(sa.Float, nullable=False))
