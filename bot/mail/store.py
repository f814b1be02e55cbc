"""The e-mail front end's tables: who may sign on for a power, and which announcements went out.

``mail_identity``: one row per (game, power) with the address registered for it and the hash
of its password (never the password). ``mail_sent``: one row per announcement key and address
mailed, so that an announcement delivered twice by the outbox is mailed once.

The tables live on the same SQLModel metadata as :mod:`bot.storage`; the schema comes from the
Alembic migration ``mail_0001`` in ``bot/migrations/versions``.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, Session, SQLModel, select

from ..storage import UTCDateTime


class MailIdentityRow(SQLModel, table=True):
    __tablename__ = "mail_identity"
    __table_args__ = (sa.UniqueConstraint("game_id", "power", name="uq_mail_identity_game_power"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(sa_column=sa.Column(sa.Integer, sa.ForeignKey("game.id", ondelete="CASCADE"),
                                             nullable=False, index=True))
    power: str = Field(max_length=10)
    address: str | None = Field(default=None, max_length=254, index=True)
    password_hash: str | None = Field(default=None, max_length=200)
    updated_at: datetime = Field(sa_column=sa.Column(UTCDateTime(), nullable=False))


class MailSentRow(SQLModel, table=True):
    __tablename__ = "mail_sent"
    __table_args__ = (sa.UniqueConstraint("key", "address", name="uq_mail_sent_key_address"),)

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(max_length=200)
    address: str = Field(max_length=254)
    sent_at: datetime = Field(sa_column=sa.Column(UTCDateTime(), nullable=False))


# -- queries ----------------------------------------------------------------------------------


def identity(session: Session, game_id: int, power: str) -> MailIdentityRow | None:
    stmt = select(MailIdentityRow).where(MailIdentityRow.game_id == game_id, MailIdentityRow.power == power)
    return session.exec(stmt).first()


def identities_of(session: Session, game_id: int) -> list[MailIdentityRow]:
    stmt = select(MailIdentityRow).where(MailIdentityRow.game_id == game_id).order_by(MailIdentityRow.power)
    return list(session.exec(stmt))


def was_sent(session: Session, key: str, address: str) -> bool:
    stmt = select(MailSentRow.id).where(MailSentRow.key == key, MailSentRow.address == address)
    return session.exec(stmt).first() is not None


def mark_sent(session: Session, key: str, address: str, when: datetime) -> None:
    if not was_sent(session, key, address):
        session.add(MailSentRow(key=key, address=address, sent_at=when))
