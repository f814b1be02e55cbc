"""The timer scheduler: pending deadlines are armed from their rows at start-up, deadlines
written later arrive through the service's listener, and each fires once, on time."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from bot.scheduler import TimerScheduler
from bot.service import DeadlinePolicy, GameService
from bot.service.engine import winner
from tests.service_support import sqlite_db  # noqa: F401


async def test_deadlines_armed_at_start_up_and_later_ones_through_the_listener(sqlite_db):
    service = GameService(sqlite_db)
    service.create_game("clock", "standard", "gm",
                        policy=DeadlinePolicy(movement=timedelta(seconds=1), adjustment=timedelta(seconds=1),
                                              reminders=()))
    service.join("clock", "ed", "ENG")
    service.start("clock", "gm")  # the spring deadline is a row before any scheduler runs
    fired: list[str] = []

    async def handler(timer_id: int) -> None:
        fired.append(await asyncio.to_thread(service.fire_timer, timer_id))

    scheduler = TimerScheduler(sqlite_db, handler, poll_interval=3600)  # no sweeps: arming alone must do it
    service.timer_listeners.append(scheduler.arm)
    await scheduler.start()
    try:
        for _ in range(100):
            if service.status("clock").version >= 2:
                break
            await asyncio.sleep(0.1)
    finally:
        await scheduler.stop()
    assert service.status("clock").version >= 2  # spring at start-up, fall through the listener
    assert fired.count("adjudicated") == service.status("clock").version


def test_a_winner_is_read_from_the_position_document():
    eighteen = ["lon", "edi", "lvp", "bre", "par", "mar", "spa", "por", "bel", "hol", "mun", "kie", "ber", "den",
                "nwy", "swe", "stp", "mos"]
    assert winner({"variant": "standard", "supply_centers": {p: "FRA" for p in eighteen}}) == "FRA"
    assert winner({"variant": "standard", "supply_centers": {p: "FRA" for p in eighteen[:17]}}) is None
