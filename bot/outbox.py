"""Announcements: written to the outbox with what they announce, delivered at least once.

Front ends (Discord, e-mail, the archive site) register *notifiers*: anything with an
``async deliver(announcement)``. The dispatcher claims undelivered rows, hands each one to every
notifier and marks it delivered. A process killed half-way leaves the row to be delivered
again, so a notifier must be idempotent on ``announcement.key`` (each key names one thing
said once, like ``"12:7:results"``).
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import structlog

from . import storage
from .faults import crash_point
from .storage import Database, OutboxRow, utcnow

log = structlog.get_logger("crusader.outbox")

AUDIENCES = ("public", "gm", "players")


@dataclass(frozen=True)
class Announcement:
    """Something the judge says. ``audience``: ``public`` (the whole game), ``gm``, or
    ``players`` (only ``powers``/``recipients``: reminders, late notices)."""

    key: str
    kind: str
    audience: str
    subject: str
    body: str
    game_id: int | None = None
    game: str | None = None
    powers: tuple[str, ...] = ()
    recipients: tuple[str, ...] = ()
    data: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["powers"], d["recipients"] = list(self.powers), list(self.recipients)
        d["created_at"] = self.created_at.isoformat() if self.created_at else None
        return d

    @classmethod
    def from_row(cls, row: OutboxRow) -> Announcement:
        data = dict(row.data)
        return cls(key=row.key, kind=row.kind, audience=row.audience, subject=row.subject, body=row.body,
                   game_id=row.game_id, game=data.pop("game", None), powers=tuple(row.powers),
                   recipients=tuple(row.recipients), data=data, created_at=row.created_at)


def outbox_row(announcement: Announcement, now: datetime) -> OutboxRow:
    if announcement.audience not in AUDIENCES:
        raise ValueError(f"audience must be one of {', '.join(AUDIENCES)}: {announcement.audience!r}")
    data = dict(announcement.data)
    if announcement.game:
        data["game"] = announcement.game
    return OutboxRow(key=announcement.key, game_id=announcement.game_id, kind=announcement.kind,
                     audience=announcement.audience, powers=list(announcement.powers),
                     recipients=list(announcement.recipients), subject=announcement.subject,
                     body=announcement.body, data=data, created_at=now)


@runtime_checkable
class Notifier(Protocol):
    """A sink for announcements. Must tolerate the same key twice (deliver it once)."""

    async def deliver(self, announcement: Announcement) -> None: ...


class RecordingNotifier:
    """Keeps every announcement in memory, once per key: for tests and for the benchmark."""

    def __init__(self) -> None:
        self.delivered: list[Announcement] = []
        self.attempts = 0
        self._keys: set[str] = set()

    async def deliver(self, announcement: Announcement) -> None:
        self.attempts += 1
        if announcement.key not in self._keys:
            self._keys.add(announcement.key)
            self.delivered.append(announcement)

    def of_kind(self, kind: str) -> list[Announcement]:
        return [a for a in self.delivered if a.kind == kind]


class JsonlNotifier:
    """Appends each announcement as one JSON line to a file, once per key.

    Idempotent across restarts and across processes sharing the file: under an exclusive
    lock it first reads what others appended since, then writes only a key not yet there.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.touch(exist_ok=True)
        self._keys: set[str] = set()
        self._offset = 0

    def _catch_up(self, f) -> None:
        f.seek(self._offset)
        for line in f:
            if not line.endswith("\n"):
                break  # torn by a crash: rewritten below if its key is delivered again
            try:
                self._keys.add(json.loads(line)["key"])
            except (ValueError, KeyError):
                pass
            self._offset += len(line.encode("utf-8"))

    async def deliver(self, announcement: Announcement) -> None:
        line = json.dumps({**announcement.to_dict(), "pid": os.getpid()}, ensure_ascii=False) + "\n"
        with self.path.open("r+", encoding="utf-8") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                self._catch_up(f)
                if announcement.key in self._keys:
                    return
                f.seek(0, os.SEEK_END)
                if f.tell() != self._offset:  # drop a torn last line
                    f.truncate(self._offset)
                f.write(line)
                f.flush()
                os.fsync(f.fileno())
                self._offset += len(line.encode("utf-8"))
                self._keys.add(announcement.key)
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)


class LogNotifier:
    """Writes a one-line log event per announcement (always on in ``crusader serve``)."""

    async def deliver(self, announcement: Announcement) -> None:
        log.info("announcement", key=announcement.key, kind=announcement.kind, audience=announcement.audience,
                 game=announcement.game, powers=list(announcement.powers), subject=announcement.subject)


class OutboxDispatcher:
    """Claims undelivered announcements (a lease, so that two servers share the work) and delivers them."""

    def __init__(self, db: Database, notifiers: list[Notifier] | None = None, *, node: str = "local",
                 lease: timedelta = timedelta(seconds=60), batch: int = 50) -> None:
        self.db = db
        self.notifiers: list[Notifier] = list(notifiers or [])
        self.node = node
        self.lease = lease
        self.batch = batch
        self._lock = asyncio.Lock()

    def register(self, notifier: Notifier) -> None:
        if not isinstance(notifier, Notifier):
            raise TypeError(f"a notifier needs an async deliver(announcement) method: {notifier!r}")
        self.notifiers.append(notifier)

    def _claim(self) -> list[tuple[int, Announcement]]:
        now = utcnow()
        with self.db.session() as session:
            rows = storage.claim_outbox(session, self.node, now, now + self.lease, limit=self.batch)
            return [(row.id, Announcement.from_row(row)) for row in rows]

    def _mark(self, ids: list[int]) -> None:
        with self.db.session() as session:
            storage.mark_delivered(session, ids, utcnow())

    async def flush(self) -> int:
        """Deliver everything pending; the number of announcements delivered."""
        async with self._lock:
            total = 0
            while True:
                claimed = await asyncio.to_thread(self._claim)
                if not claimed:
                    return total
                crash_point("before_announce")
                done = []
                for row_id, announcement in claimed:
                    try:
                        for notifier in self.notifiers:
                            await notifier.deliver(announcement)
                    except Exception:
                        log.exception("delivery failed; will retry when the claim lapses", key=announcement.key)
                        continue
                    crash_point("after_announce")
                    done.append(row_id)
                await asyncio.to_thread(self._mark, done)
                total += len(done)
                if len(done) < len(claimed):
                    return total
