"""How far each front end has read its players' messages: one cursor per conversation.

A front end that can read back what was sent to it while it was away (Discord keeps every DM
channel's history) records, per conversation, the last message it has handled; at start it
reads what came after. Cursors only move forward.
"""

from __future__ import annotations

from datetime import datetime
from collections.abc import Mapping

import sqlalchemy as sa
from sqlmodel import Field, Session, SQLModel, col, select

from .rows import UTCDateTime


class InboxCursorRow(SQLModel, table=True):
    __tablename__ = "inbox_cursor"

    front_end: str = Field(primary_key=True, max_length=20)
    conversation: str = Field(primary_key=True, max_length=40)
    last_id: int = Field(sa_type=sa.BigInteger)
    updated_at: datetime = Field(sa_column=sa.Column(UTCDateTime(), nullable=False))


def cursors(session: Session, front_end: str) -> dict[str, int]:
    """Every conversation of ``front_end`` and the last message handled in it."""
    rows = session.exec(select(InboxCursorRow).where(InboxCursorRow.front_end == front_end))
    return {row.conversation: row.last_id for row in rows}


def advance(session: Session, front_end: str, handled: Mapping[str, int], now: datetime) -> None:
    """Move the cursors of these conversations forward to the messages handled (never back)."""
    if not handled:
        return
    have = {row.conversation: row for row in session.exec(select(InboxCursorRow).where(
        InboxCursorRow.front_end == front_end, col(InboxCursorRow.conversation).in_(sorted(handled))))}
    for conversation, last_id in handled.items():
        row = have.get(conversation)
        if row is None:
            session.add(InboxCursorRow(front_end=front_end, conversation=conversation, last_id=last_id, updated_at=now))
        elif last_id > row.last_id:
            row.last_id, row.updated_at = last_id, now
            session.add(row)
