"""The seasons' pictures drawn by a process of their own (:mod:`bot.render.pool`): the same bytes
as drawn in the judge's thread, drawn there meanwhile when the process ends, and a process that
does not outlive its server."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from collections import defaultdict
from datetime import timedelta

import pytest
import time_machine
from structlog.testing import capture_logs

from adjudicator.variant import get_variant
from bot.render.pool import PicturePool
from bot.render.season import season_picture
from bot.service import DeadlinePolicy, GameService
from tests.random_play import random_orders

POLICY = DeadlinePolicy(movement=timedelta(hours=48), retreat=timedelta(hours=24), adjustment=timedelta(hours=24),
                        reminders=())


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def wait_until(condition, guard: float = 60.0) -> None:
    """Wait for ``condition`` (``guard``: only a limit against a hang, not a measure)."""
    ends = time.monotonic() + guard
    while not condition():
        assert time.monotonic() < ends, "waited too long"
        time.sleep(0.05)


@pytest.fixture
def pool():
    pool = PicturePool()
    yield pool
    pool.close()


def test_every_season_of_a_game_is_drawn_by_the_pool_as_the_judge_s_thread_draws_it(sqlite_db, start, pool):
    """Sixteen deadlines of a seeded Outremer game with prestige orders (bids, bribes, random retreats of
    neutrals, the phases adjudicated at once): each season's stored picture, drawn in the pool's
    process from the documents, is byte for byte the one drawn here from the season's values."""
    variant, rng, name = get_variant("crusader"), random.Random(1), "pooled"
    with time_machine.travel(start, tick=False) as clock:
        service = GameService(sqlite_db, painter=pool)
        service.create_game(name, "crusader", "gm", policy=POLICY, seed=1)
        for power in variant.powers:
            service.join(name, f"player-{power.lower()}", power)
        service.start(name, "gm")
        for _ in range(16):
            view = service.status(name)
            by_power = defaultdict(list)
            for order in random_orders(rng, *service.board(name)):
                by_power[order.power].append(str(order))
            for power, lines in by_power.items():
                service.submit_orders(name, f"player-{power.lower()}", "\n".join(lines))
            clock.move_to(view.deadline_at + timedelta(seconds=1))
            assert service.fire_due() == 1
    seasons = [service.season(name, v) for v in range(service.status(name).version)]
    assert len(seasons) >= 8 and any(s.at_once for s in seasons)
    assert len(pool.pids) == 1
    for season in seasons:
        assert season.picture == season_picture(season.variant, season.position, season.adjudication, game=name), \
            season.phase


def test_a_picture_process_that_ended_is_started_again_and_the_picture_drawn_meanwhile(sqlite_db, start, pool):
    with time_machine.travel(start, tick=False) as clock:
        service = GameService(sqlite_db, painter=pool)
        service.create_game("ended", "standard", "gm", policy=POLICY, seed=3)
        for power in get_variant("standard").powers:
            service.join("ended", power.lower(), power)
        service.start("ended", "gm")
        service.submit_orders("ended", "fra", "A par - bur")
        clock.shift(timedelta(hours=48, seconds=1))
        assert service.fire_due() == 1
        [first] = pool.pids
        os.kill(first, signal.SIGKILL)
        wait_until(lambda: gone(first) or not pool.pids)
        service.submit_orders("ended", "fra", "A bur - mun")
        clock.shift(timedelta(hours=48, seconds=1))
        with capture_logs() as logs:
            assert service.fire_due() == 1
    season = service.season("ended", 1)
    assert season.picture == season_picture(season.variant, season.position, season.adjudication, game="ended")
    [warning] = [e for e in logs if e["log_level"] == "warning"]
    assert warning["event"].startswith("the picture process could not draw") and warning["reason"] == "the process ended"
    second = pool._executor().submit(os.getpid).result(60)  # the next picture's process
    assert second != first and pool.pids == [second]


def test_a_closed_pool_draws_in_the_thread_that_asks_and_starts_no_process(sqlite_db, start):
    pool = PicturePool()
    pool.close()
    with time_machine.travel(start, tick=False) as clock:
        service = GameService(sqlite_db, painter=pool)
        service.create_game("closed", "standard", "gm", policy=POLICY, seed=3)
        for power in get_variant("standard").powers:
            service.join("closed", power.lower(), power)
        service.start("closed", "gm")
        clock.shift(timedelta(hours=48, seconds=1))
        assert service.fire_due() == 1
    season = service.season("closed", 0)
    assert season.picture is not None and season.picture.startswith(b"\x89PNG")
    assert pool.pids == []


def test_the_picture_process_ends_when_its_server_is_killed(tmp_path):
    """A server killed (SIGKILL: nothing of it runs to end its pool) leaves no picture process behind."""
    server = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import os, sys, time
        from bot.render.pool import PicturePool
        pool = PicturePool()
        print(pool._executor().submit(os.getpid).result(60), flush=True)
        time.sleep(600)
        """)], stdout=subprocess.PIPE, text=True)
    try:
        worker = int(server.stdout.readline())
        assert worker != server.pid and not gone(worker)
    finally:
        server.kill()
        server.wait()
    wait_until(lambda: gone(worker))


def test_crusader_serve_draws_the_seasons_pictures_in_a_pool(tmp_path, monkeypatch):
    from bot.app.serve import build_app
    from bot.app.settings import Settings

    monkeypatch.setenv("CRUSADER_DATA_DIR", str(tmp_path))
    app = build_app(Settings())
    try:
        assert isinstance(app.service.context.painter, PicturePool) and app.service.context.pictures
        assert app.service.context.painter.pids == []  # started with the first picture
    finally:
        app.db.dispose()
