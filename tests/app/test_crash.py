"""Exactly once, against real processes on a real PostgreSQL.

The crash test runs ``crusader serve`` in a subprocess with ``CRUSADER_CRASH_AT`` set (the
test-only seam in ``bot/store/faults.py``), lets it kill itself with SIGKILL at that point of a
deadline run, starts it again without it, and checks that the phase was adjudicated once,
announced once, and that every submitted order is in the archive. The two-process test runs
two servers on one database with 200 deadlines falling at the same moment.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
import time_machine

from adjudicator.orders import canonical
from bot.codec.values import order_from_json
from bot.service import DeadlinePolicy, GameService
from bot.store.database import Database
from bot.store.outbox import OutboxDispatcher, RecordingNotifier

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


@pytest.mark.parametrize("point", ["before_adjudication", "after_results", "before_announce", "after_announce"])
def test_killed_at_any_point_of_a_deadline_run_adjudicates_and_announces_once(tmp_path, pg_url, point):
    db = Database(pg_url)
    service = GameService(db)
    new_game(service, "crash", timedelta(seconds=3))
    for power, (player, text) in ORDERS.items():
        service.submit_orders("crash", player, text)
    asyncio.run(OutboxDispatcher(db, [RecordingNotifier()]).flush())  # the start announcement is out

    first = start_server(tmp_path, pg_url, "first", CRUSADER_CRASH_AT=point)
    assert first.wait(timeout=60) == -signal.SIGKILL, f"the server did not reach {point}"
    with db.session() as s:
        seasons = s.execute(sa.text("SELECT count(*) FROM season")).scalar()
    assert seasons == (1 if point in ("before_announce", "after_announce") else 0)
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


def test_two_servers_share_200_simultaneous_deadlines_each_adjudicated_once(tmp_path, pg_url):
    db = Database(pg_url)
    service = GameService(db)
    with time_machine.travel(datetime.now(UTC), tick=False):
        for i in range(200):
            service.create_game(f"g{i:03d}", "standard", "gm", seed=i,
                                policy=DeadlinePolicy(reminders=(), nmr_limit=0))
            service.join(f"g{i:03d}", "ed", "ENG")
            service.start(f"g{i:03d}", "gm", fill_civil_disorder=True)
            service.set_deadline(f"g{i:03d}", "gm", service.now() + timedelta(seconds=25))
    with db.session() as s:
        deadlines = s.execute(sa.text("SELECT DISTINCT deadline_at FROM game")).all()
    assert len(deadlines) == 1
    asyncio.run(OutboxDispatcher(db, [RecordingNotifier()]).flush())

    servers = [start_server(tmp_path, pg_url, name) for name in ("alpha", "beta")]
    try:
        def done():
            with db.session() as s:
                return s.execute(sa.text("SELECT count(*) FROM season")).scalar() >= 200 and \
                       s.execute(sa.text("SELECT count(*) FROM outbox WHERE delivered_at IS NULL")).scalar() == 0
        wait_for(done, 120, "200 adjudications")
    finally:
        codes = [stop(p) for p in servers]
    assert codes == [0, 0]
    with db.session() as s:
        per_game = s.execute(sa.text("SELECT game_id, count(*) FROM season GROUP BY game_id")).all()
        by_node = s.execute(sa.text("SELECT adjudicated_by, count(*) FROM season GROUP BY adjudicated_by")).all()
    assert len(per_game) == 200 and all(n == 1 for _, n in per_game)
    results = Counter(a["key"] for a in announcements(tmp_path) if a["kind"] == "results")
    assert len(results) == 200 and set(results.values()) == {1}
    runs = Counter()
    for name in ("alpha", "beta"):
        for line in (tmp_path / f"{name}.log").read_text().splitlines():
            if '"phase run"' in line and '"outcome": "adjudicated"' in line:
                runs[json.loads(line)["game"]] += 1
    assert len(runs) == 200 and set(runs.values()) == {1}
    print("adjudicated by:", dict(by_node))
    db.dispose()
