"""Timers are rows; this arms an APScheduler (asyncio) job for each pending one.

At start-up every pending timer is armed; timers created later by this process arrive
through :meth:`TimerScheduler.arm`, and a periodic sweep picks up those created by other
processes (another server, ``crusader game ...`` at a shell) and anything a crash left
behind. The scheduler knows nothing of what a timer means: it calls ``handler(timer_id)``.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from collections.abc import Awaitable, Callable

import sqlalchemy as sa
import structlog
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from . import database
from .database import Database
from .rows import utcnow

log = structlog.get_logger("crusader.scheduler")

Handler = Callable[[int], Awaitable[None]]


class TimerScheduler:
    def __init__(self, db: Database, handler: Handler, *, sweep: Callable[[], Awaitable[None]] | None = None,
                 poll_interval: float = 30.0, horizon: timedelta = timedelta(hours=1)) -> None:
        self.db = db
        self.handler = handler
        self.sweep = sweep
        self.poll_interval = poll_interval
        self.horizon = horizon
        self.scheduler = AsyncIOScheduler(timezone="UTC")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._running: set[asyncio.Task] = set()
        self._unavailable = False  # the database could not be reached at the last attempt

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.scheduler.start()
        self.scheduler.add_job(self._poll, "interval", seconds=self.poll_interval, id="poll",
                               next_run_time=utcnow(), max_instances=1, coalesce=True)

    async def stop(self, timeout: float = 60.0) -> None:
        """Stop arming jobs and let the runs in progress finish (each commits or rolls back whole)."""
        if not self.scheduler.running:
            return
        self.scheduler.pause()  # no new runs; shutting the executor down would cancel those in progress
        running = [t for t in self._running if not t.done()]
        if running:
            await asyncio.wait(running, timeout=timeout)
        self.scheduler.shutdown(wait=False)

    def _track(self) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    def _pending(self) -> list[tuple[int, datetime]]:
        with self.db.session() as session:
            return [(t.id, t.due_at) for t in database.pending_timers(session, due_before=utcnow() + self.horizon)
                    if t.id is not None]

    async def _poll(self) -> None:
        self._track()
        try:
            for timer_id, due_at in await asyncio.to_thread(self._pending):
                self._add(timer_id, due_at)
            if self.sweep is not None:
                await self.sweep()
        except Exception as exc:
            if not self._database_away(exc):
                log.exception("timer sweep failed; next sweep will retry")
        else:
            if self._unavailable:
                self._unavailable = False
                log.info("database reachable again")

    def arm(self, timers: list[database.Timer]) -> None:
        """Arm timers just committed (thread-safe: the service may call from a worker thread)."""
        if self._loop is None:
            return
        for t in timers:
            if t.id is not None and t.due_at <= utcnow() + self.horizon:
                self._loop.call_soon_threadsafe(self._add, t.id, t.due_at)

    def _add(self, timer_id: int, due_at: datetime) -> None:
        job_id = f"timer-{timer_id}"
        if self.scheduler.get_job(job_id) is None:
            self.scheduler.add_job(self._fire, "date", run_date=max(due_at, utcnow()), args=[timer_id], id=job_id,
                                   misfire_grace_time=None, replace_existing=True)

    async def _fire(self, timer_id: int) -> None:
        self._track()
        try:
            await self.handler(timer_id)
        except Exception as exc:
            if not self._database_away(exc):
                log.exception("timer failed; the sweep will retry", timer=timer_id)

    def _database_away(self, exc: Exception) -> bool:
        """Is ``exc`` the database out of reach (restarting, the network)? Said once, as a warning
        without a traceback (nothing is wrong with the judge), until it answers again."""
        if not isinstance(exc, sa.exc.OperationalError):
            return False
        if not self._unavailable:
            self._unavailable = True
            first = str(exc.orig or exc).splitlines()[0] if str(exc.orig or exc) else type(exc).__name__
            log.warning("database unavailable; the sweep tries again until it answers", error=first)
        return True
