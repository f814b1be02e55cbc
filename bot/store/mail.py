"""The e-mail front end's tables: who may sign on for a power, and the wrong passwords given.

``mail_identity``: one row per (game, power) with the address registered for it, the player it
was registered for (``None``: whoever plays the power), the hash of its password (never the
password), while the judge owes that address a new password the key of the announcement whose
mail carries it (``password_mail``), and the envelope sender of the last right sign-on
(``signon_sender``). ``mail_signon_failure``: one row per wrong password, with where it came from
(the envelope sender), shared by every server and kept across restarts, so that the limit on
guesses holds. What was mailed to whom is the outbox's delivery rows.

The tables live on the same SQLModel metadata as :mod:`bot.store.rows`; the schema comes from the
Alembic migrations ``mail_0001``, ``inbox_0001`` and ``mail_0002`` in ``bot/store/migrations/versions``.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlmodel import Field, Session, SQLModel, select

from .rows import UTCDateTime, table_of


class MailIdentityRow(SQLModel, table=True):
    __tablename__ = "mail_identity"
    __table_args__ = (sa.UniqueConstraint("game_id", "power", name="uq_mail_identity_game_power"),)

    id: int = Field(default=None, primary_key=True)  # (None until the row is first written)
    game_id: int = Field(sa_column=sa.Column(sa.Integer, sa.ForeignKey("game.id", ondelete="CASCADE"),
                                             nullable=False, index=True))
    power: str = Field(max_length=10)
    address: str | None = Field(default=None, max_length=254, index=True)
    player: str | None = Field(default=None, max_length=200)
    password_hash: str | None = Field(default=None, max_length=200)
    password_mail: str | None = Field(default=None, max_length=200)
    signon_sender: str | None = Field(default=None, max_length=254)
    updated_at: datetime = Field(sa_column=sa.Column(UTCDateTime(), nullable=False))


class MailSignonFailureRow(SQLModel, table=True):
    __tablename__ = "mail_signon_failure"
    __table_args__ = (sa.Index("ix_mail_signon_failure_power", "game_id", "power", "at"),)

    id: int = Field(default=None, primary_key=True)  # (None until the row is first written)
    game_id: int = Field(sa_column=sa.Column(sa.Integer, sa.ForeignKey("game.id", ondelete="CASCADE"),
                                             nullable=False))
    power: str = Field(max_length=10)
    source: str = Field(max_length=254)  # the envelope sender (or From) the guess came from
    at: datetime = Field(sa_column=sa.Column(UTCDateTime(), nullable=False))


# -- queries ----------------------------------------------------------------------------------


def identity(session: Session, game_id: int, power: str) -> MailIdentityRow | None:
    stmt = select(MailIdentityRow).where(MailIdentityRow.game_id == game_id, MailIdentityRow.power == power)
    return session.exec(stmt).first()


def identities_of(session: Session, game_id: int) -> list[MailIdentityRow]:
    stmt = select(MailIdentityRow).where(MailIdentityRow.game_id == game_id).order_by(MailIdentityRow.power)
    return list(session.exec(stmt))


def record_failure(session: Session, game_id: int, power: str, source: str, at: datetime) -> None:
    """A wrong password for ``power``; failures older than a day are forgotten on the way."""
    table = table_of(MailSignonFailureRow)
    session.connection().execute(sa.delete(table).where(table.c.game_id == game_id, table.c.power == power,
                                                        table.c.at < at - timedelta(days=1)))
    session.add(MailSignonFailureRow(game_id=game_id, power=power, source=source[:254], at=at))


def failures_since(session: Session, game_id: int, power: str, since: datetime, *, source: str | None = None) -> int:
    """How many wrong passwords for ``power`` since ``since`` (from ``source`` only, if given)."""
    table = table_of(MailSignonFailureRow)
    stmt = sa.select(sa.func.count()).where(table.c.game_id == game_id, table.c.power == power, table.c.at >= since)
    if source is not None:
        stmt = stmt.where(table.c.source == source)
    return session.connection().execute(stmt).scalar_one()


def clear_failures(session: Session, game_id: int, power: str) -> None:
    """A new password lifts the limit."""
    table = table_of(MailSignonFailureRow)
    session.connection().execute(sa.delete(table).where(table.c.game_id == game_id, table.c.power == power))
