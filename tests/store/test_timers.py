"""The timer scheduler: pending deadlines are armed from their rows at start-up, deadlines
written later arrive through the service's listener, and each fires once, on time."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from bot.service import DeadlinePolicy, GameService
from bot.store.timers import TimerScheduler


async def test_deadlines_armed_at_start_up_and_later_ones_through_the_listener(sqlite_db):
    service = GameService(sqlite_db)
    service.create_game("clock", "standard", "gm", policy=DeadlinePolicy(reminders=()))
    service.join("clock", "ed", "ENG")
    service.start("clock", "gm", fill_civil_disorder=True)
    service.set_deadline("clock", "gm", service.now() + timedelta(seconds=1))  # a row before any scheduler runs
    fired: list[str] = []

    async def handler(timer_id: int) -> None:
        fired.append(await asyncio.to_thread(service.fire_timer, timer_id))

    scheduler = TimerScheduler(sqlite_db, handler, poll_interval=3600)  # no sweeps: arming alone must do it
    service.timer_listeners.append(scheduler.arm)
    await scheduler.start()
    try:
        for _ in range(600):    # (a guard of 60 s: the loop ends when the phase moves on)
            if service.status("clock").version >= 1:
                break
            await asyncio.sleep(0.1)
        assert service.status("clock").phase == "F1901M"  # spring, armed at start-up
        # the fall's deadline is written while the scheduler runs: it arrives through the listener
        service.set_deadline("clock", "gm", service.now() + timedelta(seconds=1))
        for _ in range(600):    # (a guard of 60 s: the loop ends when the phase moves on)
            if service.status("clock").version >= 2:
                break
            await asyncio.sleep(0.1)
    finally:
        await scheduler.stop()
    assert service.status("clock").version >= 2
    assert fired.count("adjudicated") == service.status("clock").version


async def test_a_timer_brought_forward_fires_then_and_one_firing_is_not_armed_again(sqlite_db):
    """A sweep that finds a timer due sooner than its job fires it then; a timer whose job is
    running (waiting for its turn) is not armed a second time meanwhile."""
    release = asyncio.Event()
    fired: list[int] = []

    async def handler(timer_id: int) -> None:
        fired.append(timer_id)
        await release.wait()

    scheduler = TimerScheduler(sqlite_db, handler, poll_interval=3600)
    await scheduler.start()
    try:
        now = datetime.now(UTC)
        scheduler._add(1, now + timedelta(minutes=30))
        scheduler._add(1, now - timedelta(seconds=1))   # brought forward: due now
        for _ in range(600):
            if fired:
                break
            await asyncio.sleep(0.1)
        assert fired == [1]
        scheduler._add(1, now - timedelta(seconds=1))   # still running: not armed again
        assert scheduler.scheduler.get_job("timer-1") is None
        release.set()
    finally:
        await scheduler.stop()
    assert fired == [1]
