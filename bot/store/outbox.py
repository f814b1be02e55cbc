"""Announcements: written to the outbox with what they announce, delivered once per recipient.

Front ends (Discord, e-mail, the archive site) register *notifiers*. A notifier has a ``name``
(the same on every server sharing the database), says who receives an announcement
(``recipients``: addresses, channels, or just itself), and delivers it to one recipient at a
time (``deliver``), answering :class:`Delivered`, :class:`RetryLater` or :class:`Refused`.

The dispatcher writes one *delivery* row per announcement, notifier and recipient, each with its
own state. A server claims a delivery, renews its claim while it works, and records the outcome
at once, so two servers never make the same delivery together, one recipient that is refused
(for good: recorded, and the game master told; for now: tried again later, alone) holds up
nobody else, and a game's announcements reach each recipient in the order they were made.

A notifier that says ``background = True`` (the archive site, the archive's files, the log's
line of each announcement: a record that nobody waits for) has its deliveries made after those
that players wait for: a claim takes them only where the others due leave room, or once they
have waited ``patience`` (five minutes by default). When the deadlines of many games fall
together, every result is posted and mailed first, and the record follows.

A server makes a delivery only while its claim holds. It starts one only on a row its last
claim or renewal said was still its own, before the claim's end (less a margin for the servers'
clocks); when a renewal fails or comes too late, the deliveries it is making are stopped where
they are at the claim's end, before another server may take them over, and it records nothing
for them. Recording an outcome checks that the claim is still its own.

A server killed (or stopped) between making a delivery and recording it leaves it *in doubt*: the
next attempt says so (:attr:`Delivery.in_doubt`), and a notifier that can tell whether it
arrived (Discord reads the channel, a file sink reads the file) looks for the announcement's key
at the recipient before delivering again. One that cannot (SMTP) delivers again, with the same
``Message-ID``; that is the only way a recipient can get an announcement twice.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol, runtime_checkable
from collections.abc import Callable, Sequence

import fcntl
import sqlalchemy as sa
import structlog

from . import database
from .database import Database
from .faults import crash_point
from .rows import OutboxRow, utcnow

log = structlog.get_logger("crusader.outbox")

AUDIENCES = ("public", "gm", "players", "direct")
AHEAD = 200
"""Deliveries players wait for that may be due and not yet made before a server starts another
phase run (:meth:`OutboxDispatcher.caught_up`): a second or so of Discord's pace, the results of
some twenty games."""
UNDELIVERABLE = "undeliverable"
TOLD_ABOUT = timedelta(days=1)
"""After the game master is told that a recipient refused an announcement, how long the refusals
that follow to that recipient are not reported one by one."""


@dataclass(frozen=True)
class Announcement:
    """Something the judge says. ``audience``: ``public`` (the whole game), ``gm``, ``players``
    (only ``powers``/``recipients``: reminders, late notices), or ``direct``: to ``recipients``
    through the one notifier named by ``data["via"]`` (a reply to a player's mail)."""

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
    supersedes: tuple[str, ...] = ()
    """Kinds of announcements of the same game, written before this one and not yet delivered, that
    this one makes stale (an earlier deadline of a phase, a reminder of a phase since adjudicated):
    what is left of them undelivered is dropped when this one is written (:func:`write`)."""

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        del d["supersedes"]  # a rule applied when it is written, not part of what is said
        d["powers"], d["recipients"] = list(self.powers), list(self.recipients)
        d["created_at"] = self.created_at.isoformat() if self.created_at else None
        return d

    def direct_to(self, notifier: str) -> tuple[str, ...]:
        """The recipients of a ``direct`` announcement if it goes through ``notifier``, else none."""
        return self.recipients if self.audience == "direct" and self.data.get("via") == notifier else ()

    @classmethod
    def from_row(cls, row: OutboxRow | sa.Row) -> Announcement:
        data = dict(row.data)
        return cls(key=row.key, kind=row.kind, audience=row.audience, subject=row.subject, body=row.body,
                   game_id=row.game_id, game=data.pop("game", None), powers=tuple(row.powers),
                   recipients=tuple(row.recipients), data=data, created_at=row.created_at)


def outbox_values(announcement: Announcement, now: datetime) -> dict[str, Any]:
    """The columns of ``announcement``'s outbox row written at ``now`` (all but its id), as values:
    what :func:`database.add_announcement` writes, with no ORM object made on the way."""
    if announcement.audience not in AUDIENCES:
        raise ValueError(f"audience must be one of {', '.join(AUDIENCES)}: {announcement.audience!r}")
    if announcement.audience == "direct" and not announcement.data.get("via"):
        raise ValueError("a direct announcement names the notifier it goes through in data['via']")
    data = dict(announcement.data)
    if announcement.game:
        data["game"] = announcement.game
    return {"key": announcement.key, "game_id": announcement.game_id, "kind": announcement.kind,
            "audience": announcement.audience, "powers": list(announcement.powers),
            "recipients": list(announcement.recipients), "subject": announcement.subject,
            "body": announcement.body, "data": data, "created_at": now, "claimed_by": None, "claimed_until": None,
            "attempts": 0, "expanded_at": None, "delivered_at": None, "superseded_by": None}


def outbox_row(announcement: Announcement, now: datetime) -> OutboxRow:
    """``announcement``'s outbox row written at ``now``, as an ORM object (:func:`outbox_values`)."""
    return OutboxRow(**outbox_values(announcement, now))


def write(session, announcement: Announcement, now: datetime) -> bool:
    """Write ``announcement`` to the outbox in ``session`` (the transaction of what it announces)
    unless its key is there already, and drop what it supersedes (:attr:`Announcement.supersedes`):
    the deliveries of those that are not being made at this moment are recorded ``superseded``,
    and an announcement not yet fanned out to its recipients never is. Whether it was written."""
    written = database.add_announcement(session, outbox_values(announcement, now))
    if written is not None and announcement.supersedes and announcement.game_id is not None:
        dropped = database.supersede_announcements(session, announcement.game_id, announcement.supersedes,
                                                   before=written, by=announcement.key, now=now)
        if dropped:
            log.info("announcements superseded", by=announcement.key, kinds=list(announcement.supersedes),
                     dropped=dropped)
    return written is not None


# -- what a notifier is given and answers --------------------------------------------------------


@dataclass(frozen=True)
class Delivery:
    """One announcement for one recipient. ``attempt`` counts from 1; ``in_doubt``: an earlier
    attempt may have delivered it (its server died, or lost its claim, before saying how it went)."""

    announcement: Announcement
    recipient: str
    attempt: int = 1
    in_doubt: bool = False


@dataclass(frozen=True)
class Delivered:
    """It reached the recipient (or, in doubt, was found there already)."""


@dataclass(frozen=True)
class RetryLater:
    """Not now (a relay's 4xx, a connection refused, not connected yet): try this recipient again
    ``after`` (``None``: the dispatcher's back-off), alone."""

    reason: str
    after: timedelta | None = None


@dataclass(frozen=True)
class Refused:
    """Never: the recipient does not exist or will not take it (a relay's 5xx, DMs closed).
    Recorded with the reason, and the game master is told."""

    reason: str


Outcome = Delivered | RetryLater | Refused
DELIVERED = Delivered()


@runtime_checkable
class Notifier(Protocol):
    """A sink for announcements; ``name`` is stable (it is stored with each delivery). One may
    also say ``background = True``: its deliveries wait for the others (the module's text)."""

    name: str

    async def recipients(self, announcement: Announcement) -> Sequence[str]:
        """Who receives ``announcement`` here (an empty list: nobody, nothing is stored)."""

    async def deliver(self, delivery: Delivery) -> Outcome:
        """Deliver to ``delivery.recipient``. An exception is a bug: logged, and retried later."""


# -- notifiers that need no front end ------------------------------------------------------------


class JsonlNotifier:
    """Appends each announcement as one JSON line to a file (for scripts that follow the judge):
    all but the answers to one player and press.

    Every delivery appends (the file is a raw record); a delivery in doubt first looks for its
    key in the file, so that a server killed after writing the line does not write it twice. A
    line torn by a kill is completed by the next write.
    """

    name = "jsonl"

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.touch(exist_ok=True)

    async def recipients(self, announcement: Announcement) -> Sequence[str]:
        # (a player's answers and the press between players are theirs alone)
        return () if announcement.audience == "direct" or announcement.kind == "press" else (self.name,)

    async def deliver(self, delivery: Delivery) -> Outcome:
        await asyncio.to_thread(self._append, delivery)
        return DELIVERED

    def _append(self, delivery: Delivery) -> None:
        a = delivery.announcement
        line = json.dumps({**a.to_dict(), "pid": os.getpid()}, ensure_ascii=False) + "\n"
        with self.path.open("r+", encoding="utf-8") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                text = f.read()
                if delivery.in_doubt and any(_key_of(ln) == a.key for ln in text.splitlines()):
                    return
                if text and not text.endswith("\n"):
                    f.write("\n")  # end a line torn by a kill; readers skip it
                f.write(line)
                f.flush()
                os.fsync(f.fileno())
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)


def _key_of(line: str) -> str | None:
    try:
        return json.loads(line).get("key")
    except (ValueError, AttributeError):
        return None


class LogNotifier:
    """Writes a one-line log event per announcement (always on in ``crusader serve``): a record
    for the operator, written after the deliveries players wait for (``background``)."""

    name = "log"
    background = True

    async def recipients(self, announcement: Announcement) -> Sequence[str]:
        return (self.name,)

    async def deliver(self, delivery: Delivery) -> Outcome:
        a = delivery.announcement
        log.info("announcement", key=a.key, kind=a.kind, audience=a.audience, game=a.game, powers=list(a.powers),
                 subject=a.subject)
        return DELIVERED


# -- the dispatcher --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Claimed:
    row_id: int
    outbox_id: int
    notifier: Notifier
    delivery: Delivery
    first_tried_at: datetime


class _Lapsed:
    """What a delivery comes to when the claim lapsed before it was made (or while it was being
    made): nothing recorded; the next attempt is in doubt."""


LAPSED = _Lapsed()


class _Hold:
    """A server's claim on one batch of deliveries, as far as the server knows: the rows it still
    holds, and until when (``until``, by the dispatcher's clock; ``deadline``, the event loop's
    time to stop, a ``margin`` before it). Renewals move both on; at the deadline, unless a
    renewal came first, every delivery in flight is stopped and none is started after."""

    def __init__(self, dispatcher: OutboxDispatcher, token: str, rows: set[int], until: datetime,
                 deadline: float) -> None:
        self.dispatcher, self.token = dispatcher, token
        self.rows, self.until, self.deadline = set(rows), until, deadline
        self.lapsed = False
        self.unmade = 0  # deliveries of the claim not yet made (for the dispatcher's records)
        self.flying: dict[int, asyncio.Task] = {}
        self.stopped: set[int] = set()
        self._timer: asyncio.TimerHandle | None = None

    def holds(self, row_id: int) -> bool:
        d = self.dispatcher
        return not self.lapsed and row_id in self.rows and d.clock() < self.until - d.margin

    def arm(self) -> None:
        loop = asyncio.get_running_loop()
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None if self.lapsed else loop.call_at(self.deadline, self._check)

    def disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def renewed(self, rows: set[int], until: datetime, deadline: float) -> None:
        """A renewal answered: these rows are still ours until ``until``; the others are lost."""
        if self.lapsed:
            return
        lost = self.rows - rows
        self.rows &= rows
        self.until, self.deadline = max(self.until, until), max(self.deadline, deadline)
        self._stop(lost)
        self.arm()

    def _check(self) -> None:
        self._timer = None
        d = self.dispatcher
        if d.clock() < self.until - d.margin:  # a clock of its own (tests) says not yet
            self._timer = asyncio.get_running_loop().call_later(max(d.lease.total_seconds() / 20, 0.01), self._check)
            return
        self.lapsed = True
        self._stop(set(self.rows))
        self.rows.clear()

    def _stop(self, rows: set[int]) -> None:
        stopping = [row for row in rows if row in self.flying and not self.flying[row].done()]
        for row in stopping:
            self.stopped.add(row)
            self.flying[row].cancel()
        if stopping or (rows and self.lapsed):
            log.warning("claim on deliveries lapsed while making them (a renewal failed or came late); "
                        "they are left in doubt for the next attempt", stopped=len(stopping), token=self.token)


def notice_key(key: str, *parts: str) -> str:
    """A key derived from ``key`` and ``parts`` that fits the outbox's 200 characters."""
    text = ":".join((key, *parts))
    return text if len(text) <= 200 else f"{text[:150]}~{hashlib.sha256(text.encode()).hexdigest()[:40]}"


_FannedOut = tuple[str, list[tuple[int, list[tuple[str, str]]]]]
"""New announcements fanned out, their deliveries not yet written: the token of their claim, and
the recipients of each (:meth:`OutboxDispatcher._recipients_of`)."""


class OutboxDispatcher:
    """Fans announcements out to one delivery per notifier and recipient, and makes the deliveries.

    ``lease``: how long a claim holds without renewal (renewed every third of it while a
    delivery is being made); a server stops its deliveries ``margin`` before its claim's end
    (default: a tenth of the lease, at most 2 s: more than the servers' clocks may differ).
    ``backoff`` doubles from one failed attempt of a recipient to the next, up to
    ``max_backoff``; after ``give_up_after`` from the first attempt the delivery is refused for
    good. ``patience``: how long the deliveries of background notifiers wait at most for the
    others due before them. ``concurrency``: deliveries made at once. ``record_linger``: how
    long at most the record of a delivery made waits for those still being made, to be written
    in the same transaction (:meth:`_record_soon`).
    """

    def __init__(self, db: Database, notifiers: list[Notifier] | None = None, *, node: str = "local",
                 lease: timedelta = timedelta(seconds=60), batch: int = 50, concurrency: int = 8,
                 backoff: timedelta = timedelta(seconds=30), max_backoff: timedelta = timedelta(hours=1),
                 give_up_after: timedelta = timedelta(days=3), clock: Callable[[], datetime] = utcnow,
                 margin: timedelta | None = None, record_linger: timedelta = timedelta(milliseconds=50),
                 patience: timedelta = timedelta(minutes=5)) -> None:
        self.db = db
        self.notifiers: list[Notifier] = []
        self.node = node
        self.lease = lease
        self.margin = min(lease / 10, timedelta(seconds=2)) if margin is None else margin
        if not timedelta(0) <= self.margin < lease:
            raise ValueError(f"the margin must be shorter than the lease: {self.margin} against {lease}")
        self.batch = batch
        self.concurrency = concurrency
        self.record_linger = record_linger.total_seconds()
        self.patience = patience
        self.backoff, self.max_backoff, self.give_up_after = backoff, max_backoff, give_up_after
        self.clock = clock
        self._lock = asyncio.Lock()
        self._again = False
        self._winding_down = False
        self._closed_up_to = 0  # where the last look for announcements left open stopped
        self._kicked: asyncio.Task | None = None
        self._renewer = ThreadPoolExecutor(1, thread_name_prefix="outbox-renewal")
        self._to_record: list[tuple[_Claimed, str, Outcome, asyncio.Future]] = []
        self._recording: asyncio.Task | None = None
        self._making = 0  # deliveries claimed and not yet made
        self._quiet: asyncio.Future | None = None  # set when none is (records waiting for them)
        self._attempted_at: dict[str, float] = {}  # by notifier: its last delivery made, put off or refused
        for notifier in notifiers or []:
            self.register(notifier)

    def register(self, notifier: Notifier) -> None:
        if not isinstance(notifier, Notifier):
            raise TypeError(f"a notifier needs a name, async recipients(announcement) and async "
                            f"deliver(delivery): {notifier!r}")
        if any(n.name == notifier.name for n in self.notifiers):
            raise ValueError(f"a notifier called {notifier.name!r} is registered already")
        self.notifiers.append(notifier)

    @property
    def background(self) -> frozenset[str]:
        """The names of the notifiers whose deliveries wait for the others (``background = True``)."""
        return frozenset(n.name for n in self.notifiers if getattr(n, "background", False) is True)

    def _token(self) -> str:
        return f"{self.node[:60]}/{uuid.uuid4().hex[:16]}"

    # -- writing ----------------------------------------------------------------------------------

    def enqueue(self, announcement: Announcement) -> bool:
        """Write ``announcement`` to the outbox in a transaction of its own (unless its key is there
        already) and deliver it soon; whether it was written. For what is said outside a service
        transaction, like the answer to a player's mail."""
        with self.db.session() as session:
            written = write(session, announcement, self.clock())
        self.kick()
        return written

    def kick(self) -> None:
        """Deliver what is pending now, in the background (several kicks during a flush: one more flush)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop here: the next sweep delivers it
        self._again = True
        if self._kicked is None or self._kicked.done():
            self._kicked = loop.create_task(self._flush_while_kicked())

    def wind_down(self) -> None:
        """Claim nothing more (the server is stopping): a flush in progress ends once the deliveries
        it is making are made and recorded, however many more are due."""
        self._winding_down = True

    async def close(self, timeout: float = 10.0) -> None:
        """Let a delivery run started by :meth:`kick` finish (at most ``timeout`` seconds: then it is
        stopped, and what it had claimed is delivered again, in doubt, after its claim lapses)."""
        self.wind_down()
        task, self._kicked = self._kicked, None
        if task is None or task.done():
            return
        self._again = False
        done, _ = await asyncio.wait([task], timeout=timeout)
        if not done:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            log.warning("deliveries still running at shutdown were stopped; they will be made again")

    async def _flush_while_kicked(self) -> None:
        while self._again:
            self._again = False
            try:
                await self.flush()
            except Exception:
                log.exception("outbox flush failed; the next sweep retries")

    def waiting(self, notifiers: Sequence[str] | None = None) -> int:
        """How many deliveries players wait for are due and not made yet, with the announcements
        not yet fanned out (:func:`bot.store.database.deliveries_waiting`): the deliveries of
        ``notifiers``, by default of every notifier not in the background."""
        if notifiers is None:
            notifiers = [n.name for n in self.notifiers if n.name not in self.background]
        with self.db.session(read_only=True) as session:
            return database.deliveries_waiting(session, notifiers, self.clock())

    async def caught_up(self, ahead: int = AHEAD, *, stalled: float = 2.0, every: float = 0.05) -> None:
        """Return once at most ``ahead`` deliveries players wait for are due and not made
        (:meth:`waiting`), counting only those of the notifiers that have made one (or put one off,
        or refused one) in the last ``stalled`` seconds.

        Before a phase run: when the deadlines of many games fall together, the results of those
        adjudicated go out at Discord's pace while the next are adjudicated, instead of waiting
        behind all the runs for the CPU. Deliveries put off after a failure are not due, so a
        front end that is down holds up no run; nor does one whose deliveries hang, once it has
        made none for ``stalled`` seconds: waiting for it would hold the runs up for nothing."""
        loop = asyncio.get_running_loop()
        background = self.background
        while True:
            now = loop.time()
            going = [name for name, at in self._attempted_at.items() if name not in background and now - at < stalled]
            if not going or await asyncio.to_thread(self.waiting, going) <= ahead:
                return
            await asyncio.sleep(every)

    # -- delivering ----------------------------------------------------------------------------------

    async def flush(self) -> int:
        """Make every delivery that is due (a batch at a time, until none is left or the server
        winds down); the number delivered.

        Each turn claims the new announcements and asks who receives them (:meth:`_recipients_of`),
        then writes their deliveries and claims the deliveries due; a turn's claims are made in one
        hand-off to a thread (:meth:`_claims`): those of deliveries with the writing of the
        deliveries of the announcements before them, or, when no announcement is new, with the look
        for new ones."""
        async with self._lock:
            total = 0
            deferred: set[int] = set()  # tried in this flush and not delivered: not again before the next
            loop = asyncio.get_running_loop()
            fanned: _FannedOut | None = None  # the new announcements of this turn, with their recipients
            while not self._winding_down:
                token = self._token()
                expanded = fanned is not None
                if fanned is None:
                    new_token = self._token()
                    new, claim = await asyncio.to_thread(self._claims, token, deferred, new_token=new_token)
                    if claim is None:
                        fanned = new_token, await self._recipients_of(new)
                        continue  # their deliveries written, and the deliveries due claimed, at the next turn
                else:
                    _, claim = await asyncio.to_thread(self._claims, token, deferred, fanned=fanned)
                    fanned = None
                assert claim is not None  # (claimed whenever no announcement was new)
                claimed, since, held = claim
                if claimed:
                    crash_point("before_announce")
                    # the claim runs from when its rows were chosen: however long choosing them
                    # took (a loaded database), the whole lease is left for the deliveries
                    begun = loop.time() - (time.monotonic() - held)
                    hold = _Hold(self, token, {c.row_id for c in claimed}, since + self.lease,
                                 begun + (self.lease - self.margin).total_seconds())
                    outcomes = await self._deliver_all(claimed, hold)
                    total += sum(isinstance(o, Delivered) for o in outcomes)
                    deferred |= {c.row_id for c, o in zip(claimed, outcomes) if isinstance(o, RetryLater)}
                elif not expanded:
                    await self._retrying(self._close_some)  # what a server killed between the two left open
                    return total
            if fanned is not None and fanned[1]:  # (winding down: the fanning out done, no more claimed)
                await asyncio.to_thread(self._write_expansions, *fanned)
            return total

    def _claims(self, token: str, exclude: set[int], *, new_token: str | None = None, fanned: _FannedOut | None = None,
                ) -> tuple[list[tuple[int, Announcement]], tuple[list[_Claimed], datetime, float] | None]:
        """A turn's claims, in a worker thread: with ``fanned``, the deliveries of the announcements
        claimed last written (:meth:`_write_expansions`), then the deliveries due claimed
        (:meth:`_claim_timed`); without, the new announcements claimed (:meth:`_claim_new`, with
        ``new_token``) and, if there are none, the deliveries due (``None``: not claimed, there
        were new announcements)."""
        if fanned is not None:
            if fanned[1]:
                self._write_expansions(*fanned)
        elif new_token is not None:
            new = self._claim_new(new_token)
            if new:
                return new, None
        return [], self._claim_timed(token, exclude)

    async def _expand(self) -> int:
        """Write the deliveries of new announcements: ask every notifier who receives each; how
        many were claimed."""
        token = self._token()
        claimed = await asyncio.to_thread(self._claim_new, token)
        expansions = await self._recipients_of(claimed)
        if expansions:
            await asyncio.to_thread(self._write_expansions, token, expansions)
        return len(claimed)

    async def _recipients_of(self, claimed: list[tuple[int, Announcement]]) -> list[tuple[int, list[tuple[str, str]]]]:
        """The deliveries of the announcements ``claimed``: every notifier asked who receives each
        (an announcement a notifier could not answer for is left out: asked again once its claim
        lapses)."""
        expansions = []
        for outbox_id, announcement in claimed:
            recipients = []
            for notifier in self.notifiers:
                try:
                    names = await notifier.recipients(announcement)
                except Exception:
                    log.exception("could not say who receives an announcement; asked again later",
                                  key=announcement.key, notifier=notifier.name)
                    break
                recipients += [(notifier.name, str(r)) for r in dict.fromkeys(names)]
            else:
                expansions.append((outbox_id, recipients))
        return expansions

    def _claim_new(self, token: str) -> list[tuple[int, Announcement]]:
        now = self.clock()
        with self.db.session() as session:
            rows = database.claim_outbox(session, token, now, now + self.lease, limit=self.batch)
            return [(row.id, Announcement.from_row(row)) for row in rows]

    def _write_expansions(self, token: str, expansions: list[tuple[int, list[tuple[str, str]]]]) -> None:
        """Write the deliveries of the announcements of one claim, in their order, in one transaction."""
        with self.db.session() as session:
            now = self.clock()
            for outbox_id, recipients in expansions:
                database.expand_announcement(session, outbox_id, token, recipients, now)

    def _claim(self, token: str, exclude: set[int], now: datetime | None = None) -> list[_Claimed]:
        """Claim deliveries due at ``now`` (the dispatcher's clock) for a lease."""
        return self._claim_timed(token, exclude, now)[0]

    def _claim_timed(self, token: str, exclude: set[int],
                     now: datetime | None = None) -> tuple[list[_Claimed], datetime, float]:
        """:meth:`_claim`, and when the claim's lease began: by the dispatcher's clock and by
        ``time.monotonic()``, once the rows were chosen."""
        began, began_monotonic = self.clock(), time.monotonic()

        def until() -> datetime:
            nonlocal began, began_monotonic
            began, began_monotonic = self.clock(), time.monotonic()
            return began + self.lease

        if not self.notifiers:
            return [], began, began_monotonic
        by_name = {n.name: n for n in self.notifiers}
        now = self.clock() if now is None else now
        with self.db.session() as session:
            rows = database.claim_deliveries(session, by_name, token, now, until, limit=self.batch,
                                             exclude=exclude, background=self.background, patience=self.patience)
            claimed = self._claimed(rows, by_name)
        return claimed, began, began_monotonic

    @staticmethod
    def _claimed(rows, by_name: dict[str, Notifier]) -> list[_Claimed]:
        """The deliveries of a claim, each announcement made once for all of its deliveries."""
        announcements: dict[int, Announcement] = {}
        for _, outbox, _ in rows:
            if outbox.id not in announcements:
                announcements[outbox.id] = Announcement.from_row(outbox)
        return [_Claimed(row.id, row.outbox_id, by_name[row.notifier],
                         Delivery(announcements[row.outbox_id], row.recipient, row.attempts, in_doubt),
                         row.first_tried_at)
                for row, outbox, in_doubt in rows]

    async def _deliver_all(self, claimed: list[_Claimed], hold: _Hold) -> list[Outcome | _Lapsed]:
        renewal = asyncio.get_running_loop().create_task(self._renew(hold))
        gate = asyncio.Semaphore(self.concurrency)
        self._making += len(claimed)  # each counted off by _deliver_one, however it ends
        hold.unmade = len(claimed)
        hold.arm()
        try:
            outcomes = await asyncio.gather(*(self._deliver_one(c, hold, gate) for c in claimed))
        finally:
            self._made(hold, hold.unmade)  # those never started (stopped at once)
            hold.disarm()
            renewal.cancel()
            await asyncio.gather(renewal, return_exceptions=True)
        return outcomes

    async def _renew(self, hold: _Hold) -> None:
        """Renew the claim every third of the lease, on a thread of its own (a busy pool of worker
        threads must not delay it past the lease). A renewal that fails is tried again at the next
        turn; meanwhile the claim runs out, and the deliveries stop at its end."""
        loop = asyncio.get_running_loop()
        lease, margin = self.lease.total_seconds(), self.margin.total_seconds()
        while True:
            await asyncio.sleep(max(lease / 3, 0.01))
            started = loop.time()
            try:
                until, rows = await loop.run_in_executor(self._renewer, self._renew_now, hold.token, set(hold.rows))
            except Exception as exc:  # noqa: BLE001 (logged; the renewal is tried again)
                log.warning("could not renew the claim on deliveries in progress", error=_short(exc))
                continue
            hold.renewed(rows, until, started + lease - margin)

    def _renew_now(self, token: str, rows: set[int] | None = None) -> tuple[datetime, set[int]]:
        until = self.clock() + self.lease
        with self.db.session() as session:
            return until, database.renew_deliveries(session, token, until, rows)

    async def _deliver_one(self, c: _Claimed, hold: _Hold, gate: asyncio.Semaphore) -> Outcome | _Lapsed:
        try:
            async with gate:
                if not hold.holds(c.row_id):
                    return LAPSED  # another server may have it now: not started
                making = asyncio.ensure_future(c.notifier.deliver(c.delivery))
                hold.flying[c.row_id] = making
                try:
                    outcome = await making
                    if not isinstance(outcome, (Delivered, RetryLater, Refused)):
                        raise TypeError(f"{c.notifier.name}.deliver answered {outcome!r}, not an outcome")
                    self._attempted_at[c.notifier.name] = asyncio.get_running_loop().time()
                except asyncio.CancelledError:
                    task = asyncio.current_task()
                    assert task is not None  # (a delivery is made in a task of its own)
                    if c.row_id in hold.stopped and not task.cancelling():
                        return LAPSED  # stopped where it was: in doubt
                    raise
                except Exception as exc:
                    log.exception("delivery failed unexpectedly; it will be tried again",
                                  key=c.delivery.announcement.key, notifier=c.notifier.name)
                    outcome = RetryLater(f"internal error ({type(exc).__name__})")
                finally:
                    hold.flying.pop(c.row_id, None)
        finally:
            self._made(hold)
        if isinstance(outcome, Delivered):
            crash_point("after_announce")
        await self._record_soon(c, hold.token, outcome)
        return outcome

    async def _record_soon(self, c: _Claimed, token: str, outcome: Outcome) -> None:
        """Record a delivery made, with the others made meanwhile: the outcomes that come while a
        transaction of records is being written are written together in the next one (a group
        commit: no record waits for more than the one before it, and a storm of deliveries costs
        a transaction per batch, not per delivery). While other deliveries claimed are still to be
        made, the first waits for them, ``record_linger`` at most, so that they join it."""
        done = asyncio.get_running_loop().create_future()
        self._to_record.append((c, token, outcome, done))
        if self._recording is None or self._recording.done():
            self._recording = asyncio.ensure_future(self._record_waiting())
        await asyncio.shield(done)  # a delivery stopped meanwhile leaves its record to be written

    def _made(self, hold: _Hold, count: int = 1) -> None:
        """Deliveries of ``hold`` have been made (or stopped, or not started): when they were the
        last of those claimed, the records waiting for more to join them wait no longer."""
        hold.unmade -= count
        self._making -= count
        if not self._making and self._quiet is not None and not self._quiet.done():
            self._quiet.set_result(None)

    async def _record_waiting(self) -> None:
        if self.record_linger > 0 and self._making:  # those ending in the next moment join this transaction
            self._quiet = asyncio.get_running_loop().create_future()
            try:
                await asyncio.wait_for(asyncio.shield(self._quiet), self.record_linger)
            except TimeoutError:
                pass
            finally:
                self._quiet = None
        while self._to_record:
            batch, self._to_record = self._to_record, []
            try:
                await self._retrying(self._record_many, [item[:3] for item in batch])
            finally:
                for *_, done in batch:
                    if not done.done():
                        done.set_result(None)

    def _record_many(self, items: list[tuple[_Claimed, str, Outcome]]) -> None:
        """Record deliveries made, in one transaction: those delivered together (a statement per
        claim), the others one by one."""
        with self.db.session() as session:
            done: set[int] = set()  # the announcements of the deliveries done: closed if they were their last
            delivered = [(c, token) for c, token, outcome in items if isinstance(outcome, Delivered)]
            kept = database.finish_deliveries(session, [(c.row_id, token) for c, token in delivered], self.clock())
            done |= {c.outbox_id for c, _ in delivered if c.row_id in kept}
            lost = [(c, c.row_id in kept) for c, _ in delivered]
            lost += [(c, self._record_in(session, c, token, outcome, done)) for c, token, outcome in items
                     if not isinstance(outcome, Delivered)]
            database.close_announcements(session, done, self.clock())
        for c, kept_it in lost:
            if not kept_it:
                log.warning("claim on a delivery lost while making it (held longer than the lease)",
                            key=c.delivery.announcement.key, notifier=c.notifier.name,
                            recipient=c.delivery.recipient)

    def _record(self, c: _Claimed, token: str, outcome: Outcome) -> None:
        """Record one delivery made, in a transaction of its own."""
        self._record_many([(c, token, outcome)])

    def _record_in(self, session, c: _Claimed, token: str, outcome: RetryLater | Refused, done: set[int]) -> bool:
        """Record a delivery attempted in ``session`` and not delivered (those delivered are recorded
        together: :meth:`_record_many`); whether the claim on it still held. Its announcement is
        added to ``done`` when the delivery is (refused for good)."""
        now = self.clock()
        a, recipient = c.delivery.announcement, c.delivery.recipient
        if isinstance(outcome, RetryLater) and now - c.first_tried_at >= self.give_up_after:
            outcome = Refused(f"still not delivered after {c.delivery.attempt} attempts since "
                              f"{c.first_tried_at:%Y-%m-%d %H:%M} UTC: {outcome.reason}")
        if isinstance(outcome, RetryLater):
            wait = outcome.after if outcome.after is not None else self._backoff(c.delivery.attempt)
            kept = database.finish_delivery(session, c.row_id, token, now, state="pending", due_at=now + wait,
                                            reason=outcome.reason)
            # the first deferral is worth a warning; the retries that follow say nothing new
            (log.warning if c.delivery.attempt <= 1 else log.info)(
                "delivery deferred", key=a.key, notifier=c.notifier.name, recipient=recipient,
                attempt=c.delivery.attempt, reason=outcome.reason, retry_in=wait.total_seconds())
        else:
            kept = database.finish_delivery(session, c.row_id, token, now, state="refused", reason=outcome.reason)
            if kept:
                self._tell_gm(session, c, outcome.reason, now)
        if kept and not isinstance(outcome, RetryLater):
            done.add(c.outbox_id)
        return kept

    def _tell_gm(self, session, c: _Claimed, reason: str, now: datetime) -> None:
        a, recipient, via = c.delivery.announcement, c.delivery.recipient, c.notifier.name
        log.error("delivery refused for good", key=a.key, notifier=via, recipient=recipient, reason=reason)
        if a.kind == UNDELIVERABLE or a.game_id is None:
            return  # nobody to tell, or the game master cannot be reached either
        earlier = [i for i, _ in database.refused_to(session, a.game_id, via, recipient, since=now - TOLD_ABOUT)
                   if i != c.row_id]
        if earlier:  # the game master was told of this recipient within the day: once is enough
            return
        notice = Announcement(
            key=notice_key(a.key, UNDELIVERABLE, via, recipient), kind=UNDELIVERABLE, audience="gm",
            subject=f"{a.game}: '{a.subject}' could not be delivered to {recipient}",
            body=(f"'{a.subject}' could not be delivered to {recipient} ({via}): {reason}.\n"
                  f"It will not be tried again; everybody else received it. Check that recipient "
                  f"(the address, or the player's settings). Other announcements refused to that "
                  f"recipient in the next day are not reported one by one; the recipient is told what "
                  f"it missed once its mail is delivered again.\n"),
            game_id=a.game_id, game=a.game, powers=a.powers,
            data={"about": a.key, "notifier": via, "recipient": recipient, "reason": reason,
                  "phase": a.data.get("phase")})
        database.add_announcement(session, outbox_values(notice, now))

    def _backoff(self, attempt: int) -> timedelta:
        return min(self.max_backoff, self.backoff * 2 ** min(max(attempt - 1, 0), 20))

    def _close_some(self, batch: int = 500) -> None:
        """Close the announcements whose every delivery is done but that are not marked so (what a
        server killed between the two once left), looking at ``batch`` of those open at a time,
        the next batch at the next call: a backlog makes no idle flush longer."""
        with self.db.session() as session:
            ids = database.open_announcements(session, self._closed_up_to, batch)
            database.close_announcements(session, ids, self.clock())
        self._closed_up_to = ids[-1] if len(ids) == batch else 0

    async def _retrying(self, write: Callable, *args) -> None:
        """Run ``write`` in a thread until the database takes it (it may be restarting), for at most
        the lease: after that, another server may have taken the claim over anyway."""
        loop = asyncio.get_running_loop()
        end = loop.time() + max(self.lease.total_seconds(), 5.0)
        delay = 0.2
        while True:
            try:
                await asyncio.to_thread(write, *args)
                return
            except Exception as exc:
                if loop.time() + delay > end:
                    log.exception("could not record a delivery; it stays in doubt and is checked again")
                    return
                log.warning("database unavailable while recording a delivery; trying again", error=_short(exc))
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)


def _short(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
