"""Timers are rows; this arms an APScheduler (asyncio) job for each pending one.

At start-up every pending timer is armed; timers created later by this process arrive
through :meth:`TimerScheduler.arm`, and a periodic sweep arms those created or brought forward
by other processes (another server, ``crusader game ...`` at a shell) and anything a crash left
behind: a timer due fires only through its job. The scheduler knows nothing of what a timer
means: it calls ``handler(timer_id)``.
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
        self._firing: set[int] = set()  # the timers whose jobs are running
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
        """Arm the timer's job to fire at ``due_at`` (at once if that has passed); one armed to
        fire later (the timer was brought forward since) fires then instead."""
        if timer_id in self._firing:
            return  # its job is running (waiting for its turn, perhaps): it is not armed again meanwhile
        job_id, when = f"timer-{timer_id}", max(due_at, utcnow())
        job = self.scheduler.get_job(job_id)
        if job is None:
            self.scheduler.add_job(self._fire, "date", run_date=when, args=[timer_id], id=job_id,
                                   misfire_grace_time=None, replace_existing=True)
        elif job.next_run_time is not None and job.next_run_time > when:
            self.scheduler.reschedule_job(job_id, trigger="date", run_date=when)

    async def _fire(self, timer_id: int) -> None:
        self._track()
        self._firing.add(timer_id)
        try:
            await self.handler(timer_id)
        except Exception as exc:
            if not self._database_away(exc):
                log.exception("timer failed; the sweep will retry", timer=timer_id)
        finally:
            self._firing.discard(timer_id)

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
