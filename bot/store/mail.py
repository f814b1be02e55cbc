"""The e-mail front end's tables: who may sign on for a power, and the wrong passwords given.

``mail_identity``: one row per (game, power) with the address registered for it, the player it
was registered for (``None``: whoever plays the power), the hash of its password (never the
password), while the judge owes that address a new password the key of the announcement whose
mail carries it (``password_mail``), and the envelope sender of the last right sign-on
(``signon_sender``). ``mail_signon_failure``: one row per wrong password, with where it came from
(the envelope sender), shared by every server and kept across restarts, so that the limit on
guesses holds. ``mail_pending``: commands waiting for their address to confirm them.
``mail_notice``: each refusal or alarm mailed to an address, or held back from it
because too many went there in the hour (:func:`notice`). What was mailed to whom is the outbox's delivery rows.

The tables live on the same SQLModel metadata as :mod:`bot.store.rows`; the schema comes from the
Alembic migrations ``mail_0001``, ``inbox_0001``, ``mail_0002`` and ``mail_0003`` in ``bot/store/migrations/versions``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache

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


class MailNoticeRow(SQLModel, table=True):
    __tablename__ = "mail_notice"
    __table_args__ = (sa.Index("ix_mail_notice_address", "address", "kind", "at"),)

    id: int | None = Field(default=None, primary_key=True)
    address: str = Field(max_length=254)
    kind: str = Field(max_length=20)
    sent: bool
    at: datetime = Field(sa_column=sa.Column(UTCDateTime(), nullable=False))


class MailPendingRow(SQLModel, table=True):
    """A command (``JOIN``, ``LEAVE``) written in ``address``'s name from another mail system, waiting
    for the address to confirm it with the token mailed to it (kept as its SHA-256)."""

    __tablename__ = "mail_pending"
    __table_args__ = (sa.Index("ix_mail_pending_address", "address"),)

    id: int | None = Field(default=None, primary_key=True)
    address: str = Field(max_length=254)
    token_hash: str = Field(max_length=64)
    line: str = Field(max_length=400)
    at: datetime = Field(sa_column=sa.Column(UTCDateTime(), nullable=False))


# -- queries ----------------------------------------------------------------------------------


def identity(session: Session, game_id: int, power: str) -> MailIdentityRow | None:
    stmt = select(MailIdentityRow).where(MailIdentityRow.game_id == game_id, MailIdentityRow.power == power)
    return session.exec(stmt).first()


def identities_of(session: Session, game_id: int) -> list[MailIdentityRow]:
    """The game's registered powers, by power (on the path of every announcement mailed)."""
    return list(session.exec(_identities_of(), params={"game_id": game_id}))


@cache
def _identities_of():
    """:func:`identities_of`' statement (built once: only its parameters change)."""
    return (select(MailIdentityRow).where(MailIdentityRow.game_id == sa.bindparam("game_id"))
            .order_by(MailIdentityRow.power))


def record_failure(session: Session, game_id: int, power: str, source: str, at: datetime) -> None:
    """A wrong password for ``power``; failures older than a day are forgotten on the way."""
    table = table_of(MailSignonFailureRow)
    session.connection().execute(sa.delete(table).where(table.c.game_id == game_id, table.c.power == power,
                                                        table.c.at < at - timedelta(days=1)))
    session.add(MailSignonFailureRow(game_id=game_id, power=power, source=source[:254], at=at))


def failures_since(session: Session, game_id: int, power: str, since: datetime, *, source: str | None = None,
                   domain: str | None = None) -> int:
    """How many wrong passwords for ``power`` since ``since`` (from ``source`` only, or from senders
    whose address ends with ``domain``, like ``@example.org``, if given)."""
    table = table_of(MailSignonFailureRow)
    stmt = sa.select(sa.func.count()).where(table.c.game_id == game_id, table.c.power == power, table.c.at >= since)
    if source is not None:
        stmt = stmt.where(table.c.source == source)
    if domain is not None:
        stmt = stmt.where(sa.func.lower(table.c.source).like("%" + domain.lower().replace("%", "")))
    return session.connection().execute(stmt).scalar_one()


def clear_failures(session: Session, game_id: int, power: str) -> None:
    """A new password lifts the limit."""
    table = table_of(MailSignonFailureRow)
    session.connection().execute(sa.delete(table).where(table.c.game_id == game_id, table.c.power == power))


def notice(session: Session, address: str, kind: str, at: datetime, *, limit: int,
           window: timedelta) -> tuple[bool, int]:
    """A refusal or an alarm of ``kind`` for ``address`` at ``at``: whether it may be mailed (fewer than
    ``limit`` went there in the ``window`` before), and if so how many were held back from the address
    (of any kind) since it was last told (:func:`take_held`). Notices older than a day are forgotten."""
    table = table_of(MailNoticeRow)
    conn = session.connection()
    conn.execute(sa.delete(table).where(table.c.address == address, table.c.at < at - timedelta(days=1)))
    sent = conn.execute(sa.select(sa.func.count()).where(table.c.address == address, table.c.kind == kind,
                                                         table.c.sent, table.c.at >= at - window)).scalar_one()
    if sent >= limit:
        session.add(MailNoticeRow(address=address, kind=kind, sent=False, at=at))
        return False, 0
    session.add(MailNoticeRow(address=address, kind=kind, sent=True, at=at))
    return True, take_held(session, address)


def take_held(session: Session, address: str) -> int:
    """How many notices were held back from ``address`` since it was last told; from now on they are told."""
    table = table_of(MailNoticeRow)
    held = sa.and_(table.c.address == address, sa.not_(table.c.sent))
    conn = session.connection()
    count = conn.execute(sa.select(sa.func.count()).where(held)).scalar_one()
    if count:
        conn.execute(sa.delete(table).where(held))
    return count


PENDING_KEPT = 5
"""Commands waiting for one address's confirmation at most (the oldest go first)."""


def add_pending(session: Session, address: str, token_hash: str, line: str, at: datetime, *,
                lasts: timedelta) -> None:
    table = table_of(MailPendingRow)
    conn = session.connection()
    conn.execute(sa.delete(table).where(table.c.at < at - lasts))
    kept = conn.execute(sa.select(table.c.id).where(table.c.address == address)
                        .order_by(table.c.id.desc()).offset(PENDING_KEPT - 1)).scalars().all()
    if kept:
        conn.execute(sa.delete(table).where(table.c.id.in_(kept)))
    session.add(MailPendingRow(address=address, token_hash=token_hash, line=line[:400], at=at))


def take_pending(session: Session, address: str, token_hash: str, since: datetime) -> str | None:
    """The command ``address`` confirms with the token hashed ``token_hash`` (gone once taken)."""
    table = table_of(MailPendingRow)
    conn = session.connection()
    row = conn.execute(sa.select(table.c.id, table.c.line).where(
        table.c.address == address, table.c.token_hash == token_hash, table.c.at >= since)).first()
    if row is None:
        return None
    conn.execute(sa.delete(table).where(table.c.id == row.id))
    return row.line
