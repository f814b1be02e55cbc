"""Exactly once, against real processes on a real PostgreSQL.

The crash test runs ``crusader serve`` in a subprocess with ``CRUSADER_CRASH_AT`` set (the
test-only seam in ``bot/store/faults.py``), lets it kill itself with SIGKILL at each named point
of a deadline run in turn (before the adjudication, with the results written but not committed,
just after the commit, with a delivery claimed, with a delivery made), starts it again without
it, and checks that the phase was adjudicated once, announced once, and that every submitted
order is in the archive. Two servers sharing one
database fire the same deadlines at once: each phase is adjudicated once.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from adjudicator.orders import canonical
from bot.codec.values import order_from_json
from bot.service import DeadlinePolicy, GameService
from bot.store import database
from bot.store.database import Database
from bot.store.faults import POINTS
from bot.store.outbox import OutboxDispatcher
from tests.notifiers import RecordingNotifier

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
ORDERS = {"ENG": ("ed", "F lon - nth\nA lvp - yor"), "FRA": ("flo", "A par - bur\nF bre - mao"),
          "GER": ("gus", "A mun - ruh")}


def start_server(tmp_path: Path, url: str, name: str, **env) -> subprocess.Popen:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("CRUSADER_", "DISCORD_"))}
    environ.update(CRUSADER_DATABASE_URL=url, CRUSADER_DATA_DIR=str(tmp_path / "data"),
                   CRUSADER_ANNOUNCE_JSONL=str(tmp_path / "announcements.jsonl"), CRUSADER_POLL_INTERVAL="0.5", CRUSADER_OUTBOX_LEASE="2",
                   CRUSADER_LOG_FORMAT="json", CRUSADER_FRONT_ENDS="none", CRUSADER_NODE_NAME=name, **env)
    log = (tmp_path / f"{name}.log").open("ab")
    return subprocess.Popen([sys.executable, "-m", "bot.cli", "serve"], cwd=ROOT, env=environ,
                            stdout=log, stderr=subprocess.STDOUT)


def announcements(tmp_path: Path) -> list[dict]:
    path = tmp_path / "announcements.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def wait_for(predicate, timeout: float, what: str):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def stop(process: subprocess.Popen) -> int:
    process.send_signal(signal.SIGTERM)
    return process.wait(timeout=30)


def new_game(service: GameService, name: str, movement: timedelta) -> None:
    service.create_game(name, "standard", "gm", seed=1, policy=DeadlinePolicy(reminders=(), nmr_limit=0))
    for power, (player, _) in ORDERS.items():
        service.join(name, player, power)
    service.start(name, "gm", fill_civil_disorder=True)
    service.set_deadline(name, "gm", service.now() + movement)  # this phase only: a phase lasts a minute at least


@pytest.mark.parametrize("point", POINTS)
def test_killed_at_any_point_of_a_deadline_run_adjudicates_and_announces_once(tmp_path, pg_url, point):
    db = Database(pg_url)
    service = GameService(db)
    new_game(service, "crash", timedelta(seconds=3))
    for (player, text) in ORDERS.values():
        service.submit_orders("crash", player, text)
    asyncio.run(OutboxDispatcher(db, [RecordingNotifier()]).flush())  # the start announcement is out

    first = start_server(tmp_path, pg_url, "first", CRUSADER_CRASH_AT=point)
    assert first.wait(timeout=60) == -signal.SIGKILL, f"the server did not reach {point}"
    with db.session() as s:
        seasons = s.execute(sa.text("SELECT count(*) FROM season")).scalar()
    assert seasons == (0 if point in ("before_adjudication", "after_results") else 1)
    # a late order while the judge is down is kept too (before the deadline run has committed)
    if seasons == 0:
        service.submit_orders("crash", "gus", "A ber - kie")

    second = start_server(tmp_path, pg_url, "second")
    try:
        def delivered():
            with db.session() as s:
                return s.execute(sa.text("SELECT count(*) FROM outbox WHERE kind = 'results' AND key LIKE '%:0:results'"
                                         " AND delivered_at IS NOT NULL")).scalar() == 1
        wait_for(delivered, 60, "the results of S1901M delivered")
        time.sleep(1.0)
    finally:
        assert stop(second) == 0
    results = [a for a in announcements(tmp_path) if a["kind"] == "results" and a["data"]["phase"] == "S1901M"]
    assert len(results) == 1
    keys = Counter(a["key"] for a in announcements(tmp_path))
    assert all(n == 1 for n in keys.values()), keys
    with db.session() as s:
        rows = s.execute(sa.text("SELECT phase, orders, adjudicated_by FROM season ORDER BY version")).all()
        undelivered = s.execute(sa.text("SELECT count(*) FROM outbox WHERE delivered_at IS NULL")).scalar()
    assert [r.phase for r in rows][:1] == ["S1901M"]
    written = {canonical(order_from_json(o["order"])) for o in rows[0].orders}
    expected = {"ENG: F lon - nth", "ENG: A lvp - yor", "FRA: A par - bur", "FRA: F bre - mao", "GER: A mun - ruh"}
    if seasons == 0:
        expected.add("GER: A ber - kie")
    assert expected <= written
    assert undelivered <= 1  # a later phase's results may be on their way when the server stopped
    # each phase adjudicated is announced once
    assert len([a for a in announcements(tmp_path) if a["kind"] == "results"]) == len(rows)
    db.dispose()


def test_two_servers_fire_the_same_deadlines_at_once_and_each_phase_is_adjudicated_once(pg_url, start):
    """Two servers (two services, each with its own connections to the database) fire the same
    24 deadlines, all due at one moment of a controlled clock, at the same time, one in the order
    due and the other the reverse: each phase is adjudicated once, by one of them; the other finds
    it taken or done (never an error). The scale is the storm benchmark's."""
    clock = Clock(start)
    dbs = [Database(pg_url) for _ in range(3)]
    setup = GameService(dbs[0], clock=clock, pictures=False)
    policy = DeadlinePolicy(reminders=(), nmr_limit=0)
    for i in range(24):
        setup.create_game(f"g{i:02d}", "standard", "gm", seed=i, policy=policy)
        setup.join(f"g{i:02d}", "ed", "ENG")
        setup.start(f"g{i:02d}", "gm", fill_civil_disorder=True)
        setup.submit_orders(f"g{i:02d}", "ed", "F lon - nth")
        setup.set_deadline(f"g{i:02d}", "gm", start + timedelta(minutes=1))
    clock.now = start + timedelta(minutes=2)
    servers = [GameService(db, clock=clock, node=name, pictures=False) for db, name in zip(dbs[1:], ("alpha", "beta"))]
    with dbs[0].session() as s:
        due = [t.id for t in database.pending_timers(s, due_before=clock.now)]
    assert len(due) == 24
    together = threading.Barrier(2)

    def fire(n: int) -> list[tuple[int, str]]:
        together.wait()
        return [(t, servers[n].fire_timer(t)) for t in (due if n == 0 else due[::-1])]

    with ThreadPoolExecutor(2) as pool:
        answers = [a for run in pool.map(fire, range(2)) for a in run]
    adjudicated = Counter(t for t, outcome in answers if outcome == "adjudicated")
    assert sorted(adjudicated) == sorted(due) and set(adjudicated.values()) == {1}, answers
    assert {outcome for _, outcome in answers} <= {"adjudicated", "busy", "spent", "stale"}, answers
    with dbs[0].session() as s:
        per_game = s.execute(sa.text("SELECT game_id, count(*), min(phase) FROM season GROUP BY game_id")).all()
        results = s.execute(sa.text("SELECT count(*) FROM outbox WHERE kind = 'results'")).scalar()
    assert len(per_game) == 24 and {(n, phase) for _, n, phase in per_game} == {(1, "S1901M")}
    assert results == 24
    for db in dbs:
        db.dispose()


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


PG_BIN = Path("/usr/lib/postgresql/15/bin")


class PrivatePostgres:
    """A PostgreSQL server of this test's own (``initdb`` in a temporary directory, another port),
    which it may stop and start without troubling anybody else's tests."""

    def __init__(self, root: Path) -> None:
        self.data = root / "pgdata"
        self.port = free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_postgres:
            shutil.chown(root, "postgres")
        subprocess.run([*self.as_postgres, str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust",
                        "-U", "postgres", "--no-sync"], check=True, capture_output=True)
        self.start()

    def pg_ctl(self, *args: str) -> None:
        subprocess.run([*self.as_postgres, str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-w", *args],
                       check=True, capture_output=True, timeout=60)

    def start(self) -> None:
        self.pg_ctl("-l", str(self.data / "log"), "-o",
                    f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c fsync=off", "start")

    def stop(self) -> None:
        self.pg_ctl("-m", "fast", "stop")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def private_pg(tmp_path):
    if not (PG_BIN / "initdb").exists():
        pytest.skip(f"no PostgreSQL server programs in {PG_BIN} to run a private server with")
    root = Path(tempfile.mkdtemp(prefix="crusader-pg-"))  # (the user postgres cannot reach pytest's)
    try:
        server = PrivatePostgres(root)
        yield server
        try:
            server.pg_ctl("-m", "immediate", "stop")
        except subprocess.CalledProcessError:
            pass  # stopped already
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_postgresql_restarted_under_a_running_judge_loses_nothing(tmp_path, private_pg):
    """The database goes away just before a deadline and comes back after it: the judge rides it
    out, adjudicates the phase once when it can, and delivers the results once."""
    db = Database(private_pg.url)
    db.migrate()
    service = GameService(db)
    new_game(service, "restart", timedelta(seconds=8))
    for (player, text) in ORDERS.values():
        service.submit_orders("restart", player, text)
    asyncio.run(OutboxDispatcher(db, [RecordingNotifier()]).flush())  # the start announcement is out
    db.dispose()

    server = start_server(tmp_path, private_pg.url, "judge")
    try:
        wait_for(lambda: '"serving"' in (tmp_path / "judge.log").read_text(), 60, "the judge to serve")
        private_pg.stop()
        time.sleep(10)  # the deadline passes while the database is away
        assert server.poll() is None, "the judge stopped when its database went away"
        private_pg.start()

        def delivered():
            with db.session() as s:
                return s.execute(sa.text("SELECT count(*) FROM outbox WHERE kind = 'results' AND delivered_at IS NOT "
                                         "NULL")).scalar() == 1
        wait_for(delivered, 60, "the results delivered once the database is back")
        time.sleep(1.0)
    finally:
        assert stop(server) == 0
    with db.session() as s:
        rows = s.execute(sa.text("SELECT phase, orders FROM season ORDER BY version")).all()
    assert [r.phase for r in rows] == ["S1901M"]
    written = {canonical(order_from_json(o["order"])) for o in rows[0].orders}
    assert written == {"ENG: F lon - nth", "ENG: A lvp - yor", "FRA: A par - bur", "FRA: F bre - mao",
                       "GER: A mun - ruh"}
    results = [a for a in announcements(tmp_path) if a["kind"] == "results"]
    assert len(results) == 1 and results[0]["data"]["phase"] == "S1901M"
    log = (tmp_path / "judge.log").read_text()
    assert '"level": "error"' not in log and "database unavailable" in log and "reachable again" in log, log[-3000:]
    db.dispose()
