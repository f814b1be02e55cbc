"""Exactly once under kills at random moments: a random-point kill harness.

Several games are played on short deadlines against real ``crusader serve`` processes (one on
SQLite, two sharing PostgreSQL), with a slow notifier that keeps a raw record of every delivery
(:mod:`tests.app.rawsink`). Meanwhile the servers are killed with SIGKILL, at random moments and
just after a season is committed, and started again. Then one server runs on, unhindered, until
everything due is done, and the invariants are checked:

- each phase of each game adjudicated once, versions in a row;
- every order a player was told was accepted is in the season it was for;
- every season announced, and every announcement delivered exactly once per recipient (the raw
  record, repeats included);
- no temporary file left in the data directory.

Bounded in time (``RUN`` seconds of kills per database); marked slow (``--slow``, as ``.ci/run``).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlmodel import select

from adjudicator.orders import canonical
from adjudicator.vocab import PhaseKind
from bot.archive.games import TEMPORARY
from bot.codec.documents import position_from_dict
from bot.codec.values import order_from_json
from bot.service import DeadlinePolicy, GameService, ServiceError
from bot.store.database import Database
from bot.store.rows import GameRow, SeasonRow
from tests.app.rawsink import read_record
from tests.random_play import CAREFUL, adjustment_orders, movement_orders, retreat_orders

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
RUN = 60.0          # seconds of play under kills, per database
GAMES = 4
PLAYERS = {"ENG": "ed", "FRA": "flo", "GER": "gus"}


class Servers:
    """``count`` ``crusader serve`` processes on one database, each with the raw notifier."""

    def __init__(self, tmp_path: Path, url: str, count: int) -> None:
        self.tmp_path, self.url = tmp_path, url
        self.record = tmp_path / "raw.jsonl"
        self.processes: list[subprocess.Popen | None] = [None] * count
        self.log_from = [0] * count  # where the log of the one running begins
        self.self_kill = [False] * count  # whether the one running is to kill itself after a commit
        self.ready_at: list[float | None] = [None] * count  # when the one running said it was serving
        self.kills = Counter()
        for i in range(count):
            self.start(i)

    def start(self, i: int, after_writes: int | None = None) -> None:
        """Start server ``i``; ``after_writes``: it kills itself just after that many committed
        transactions that wrote (``CRUSADER_CRASH_AFTER_WRITES``, :mod:`bot.store.faults`)."""
        environ = {k: v for k, v in os.environ.items() if not k.startswith(("CRUSADER_", "DISCORD_"))}
        environ.update(CRUSADER_DATABASE_URL=self.url, CRUSADER_DATA_DIR=str(self.tmp_path / "data"),
                       CRUSADER_POLL_INTERVAL="0.3", CRUSADER_OUTBOX_LEASE="2", CRUSADER_LOG_FORMAT="json",
                       CRUSADER_FRONT_ENDS="none", CRUSADER_NODE_NAME=f"server{i}")
        if after_writes is not None:
            environ["CRUSADER_CRASH_AFTER_WRITES"] = str(after_writes)
        path = self.tmp_path / f"server{i}.log"
        log = path.open("ab")
        self.log_from[i] = path.stat().st_size
        self.self_kill[i] = after_writes is not None
        self.ready_at[i] = None
        self.processes[i] = subprocess.Popen(
            [sys.executable, "-c", "from tests.app.rawsink import main; main()", str(self.record)],
            cwd=ROOT, env=environ, stdout=log, stderr=subprocess.STDOUT)

    def ready(self, i: int) -> float | None:
        """Since when server ``i`` has been serving (None: still starting)."""
        if self.ready_at[i] is None:
            with (self.tmp_path / f"server{i}.log").open("rb") as f:
                f.seek(self.log_from[i])
                if b'"event": "serving"' in f.read():
                    self.ready_at[i] = time.monotonic()
        return self.ready_at[i]

    def kill(self, i: int, why: str, after_writes: int | None = None) -> None:
        process = self.processes[i]
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=30) == -signal.SIGKILL, f"server{i} had stopped by itself"
        self.kills[why] += 1
        self.start(i, after_writes)

    def reap(self, i: int, after_writes: int | None = None) -> bool:
        """Start server ``i`` again if it killed itself after a commit; whether it had."""
        code = self.processes[i].poll()
        if code is None:
            return False
        assert code == -signal.SIGKILL and self.self_kill[i], f"server{i} stopped by itself ({code})"
        self.kills["just after a commit"] += 1
        self.start(i, after_writes)
        return True

    def disarm(self) -> None:
        """No more kills: the servers about to kill themselves are started again without the seam."""
        for i, armed in enumerate(self.self_kill):
            if armed:
                self.processes[i].send_signal(signal.SIGKILL)
                self.processes[i].wait(timeout=30)
                self.kills["at random"] += 1
                self.start(i)

    def stop(self) -> list[int]:
        codes = []
        for process in self.processes:
            process.send_signal(signal.SIGTERM)
            codes.append(process.wait(timeout=60))
        return codes

    def alive(self) -> bool:
        return all(p.poll() is None for p in self.processes)


def orders_for(rng: random.Random, row) -> dict[str, str]:
    """Each player's message for the game's phase (careful random orders; a power with nothing
    to decide sends nothing)."""
    variant, position = position_from_dict(row.position)
    kind = position.phase.kind
    make = {PhaseKind.MOVEMENT: movement_orders, PhaseKind.RETREAT: retreat_orders,
            PhaseKind.ADJUSTMENT: adjustment_orders}[kind]
    out = {}
    for power, player in PLAYERS.items():
        orders = make(rng, variant, position, power, CAREFUL)
        if orders and rng.random() < 0.9:
            out[player] = "\n".join(str(o) for o in orders)
    return out


def games(db: Database) -> list[GameRow]:
    with db.session() as s:
        return list(s.exec(select(GameRow).order_by(GameRow.id)))


def play_under_kills(tmp_path: Path, url: str, count: int, seed: int) -> dict:
    rng = random.Random(seed)
    db = Database(url)
    db.migrate()
    service = GameService(db)
    policy = DeadlinePolicy(reminders=(), nmr_limit=0)
    for g in range(GAMES):
        name = f"kill-{g}"
        service.create_game(name, "standard", "gm", seed=seed + g, policy=policy)
        for power, player in PLAYERS.items():
            service.join(name, player, power)
        service.start(name, "gm", fill_civil_disorder=True)

    servers = Servers(tmp_path, url, count)
    acknowledged: dict[tuple[int, str], set[str]] = {}  # (game, phase) -> orders players were told stand
    seen: dict[int, int] = {}  # game -> the version whose orders are in and deadline set
    end = time.monotonic() + RUN
    kill_at: list[float | None] = [None] * count  # when each server is to be killed
    try:
        while time.monotonic() < end:
            for row in games(db):
                if row.status != "active" or seen.get(row.id) == row.version:
                    continue
                for player, text in orders_for(rng, row).items():
                    try:
                        report = service.submit_orders(row.name, player, text)
                    except ServiceError:
                        continue  # the phase moved on meanwhile: not acknowledged
                    acknowledged.setdefault((row.id, report.phase), set()).update(
                        line.canonical for line in report.standing)
                try:
                    service.set_deadline(row.name, "gm", service.now() + timedelta(seconds=rng.uniform(0.3, 1.5)))
                except ServiceError:
                    pass  # adjudicated meanwhile (early) or ended
                seen[row.id] = row.version
            # kills: most servers started kill themselves just after a random committed write;
            # the others are killed at a random moment of their life (mostly once they serve,
            # sometimes while they start)
            for i in range(count):
                def next_life() -> int | None:
                    return rng.randint(1, 15) if rng.random() < 0.7 else None

                if servers.reap(i, next_life()):
                    kill_at[i] = None
                    continue
                if kill_at[i] is None and servers.ready(i) is not None and not servers.self_kill[i]:
                    kill_at[i] = servers.ready(i) + rng.uniform(0.2, 3.0)
                if kill_at[i] is not None and time.monotonic() >= kill_at[i]:
                    servers.kill(i, "at random" if servers.ready(i) is not None else "while starting", next_life())
                    kill_at[i] = time.monotonic() + rng.uniform(0.1, 3.0) if rng.random() < 0.15 else None
            time.sleep(0.05)

        # no more kills and no more deadlines: the servers finish what is due and deliver all
        def settled() -> bool:
            with db.session() as s:
                undelivered = s.execute(sa.text("SELECT count(*) FROM outbox WHERE delivered_at IS NULL")).scalar()
                due = s.execute(sa.text("SELECT count(*) FROM timer WHERE fired_at IS NULL AND due_at <= :now"),
                                {"now": service.now()}).scalar()
            return undelivered == 0 and due == 0

        servers.disarm()
        deadline = time.monotonic() + 90
        while not settled():
            assert servers.alive(), "a server stopped by itself"
            assert time.monotonic() < deadline, "the servers did not finish what was due within 90 s"
            time.sleep(0.3)
        time.sleep(1.0)  # (a delivery recorded just now)
    finally:
        codes = servers.stop()
    assert codes == [0] * count, codes

    faults: list[str] = []
    with db.session() as s:
        seasons = list(s.exec(select(SeasonRow).order_by(SeasonRow.game_id, SeasonRow.version)))
        outbox = {r.id: r for r in s.execute(sa.text("SELECT id, key, kind, delivered_at FROM outbox")).all()}
        deliveries = s.execute(sa.text("SELECT outbox_id, recipient, state FROM delivery WHERE notifier = 'raw'")).all()
    # each phase adjudicated once, versions in a row
    by_game: dict[int, list] = {}
    for row in seasons:
        by_game.setdefault(row.game_id, []).append(row)
    for game_id, rows in by_game.items():
        if [r.version for r in rows] != list(range(len(rows))):
            faults.append(f"game {game_id}: versions {[r.version for r in rows]}")
        if len({r.phase for r in rows}) != len(rows):
            faults.append(f"game {game_id}: a phase adjudicated twice: {Counter(r.phase for r in rows)}")
    # every acknowledged order in the season it was for
    archived = {(r.game_id, r.phase): {canonical(order_from_json(o["order"])) for o in r.orders} for r in seasons}
    for (game_id, phase), orders in acknowledged.items():
        if (game_id, phase) in archived and not orders <= archived[(game_id, phase)]:
            faults.append(f"game {game_id} {phase}: acknowledged orders missing from the archive: "
                          f"{sorted(orders - archived[(game_id, phase)])}")
    # every season announced; every announcement delivered once per recipient
    keys = {r.key for r in outbox.values()}
    unannounced = [f"{r.game_id}:{r.version}:results" for r in seasons if f"{r.game_id}:{r.version}:results" not in keys]
    if unannounced:
        faults.append(f"{len(unannounced)} seasons never announced: {unannounced[:5]}")
    # (a delivery a later announcement made stale is not made, unless it was under way then)
    wanted = Counter((outbox[d.outbox_id].key, d.recipient) for d in deliveries if d.state != "superseded")
    superseded = {(outbox[d.outbox_id].key, d.recipient) for d in deliveries if d.state == "superseded"}
    made = Counter(read_record(servers.record.read_text()))
    twice = {k: n for k, n in made.items() if n > 1}
    if twice:
        faults.append(f"{len(twice)} deliveries made more than once: {sorted(twice.items())[:5]}")
    missing = set(wanted) - set(made)
    if missing:
        faults.append(f"{len(missing)} deliveries never made: {sorted(missing)[:5]}")
    if set(made) - set(wanted) - superseded:
        faults.append(f"deliveries made of nothing in the outbox: {sorted(set(made) - set(wanted) - superseded)[:5]}")
    if any(r.delivered_at is None for r in outbox.values()):
        faults.append("announcements left undelivered")
    # no temporary file left
    left = [str(p) for p in (tmp_path / "data").rglob(f"*{TEMPORARY}*")]
    if left:
        faults.append(f"temporary files left: {left[:5]}")
    stats = {"kills": dict(servers.kills), "seasons": len(seasons), "announcements": len(outbox),
             "deliveries": len(wanted), "made": sum(made.values()), "in doubt": _in_doubt(servers.record),
             "acknowledged phases": len(acknowledged)}
    print(stats)
    db.dispose()
    assert not faults, f"{stats}\n" + "\n".join(faults)
    assert sum(servers.kills.values()) >= 5 and len(seasons) >= GAMES * 3, stats  # the run did play and kill
    return stats


def _in_doubt(record: Path) -> int:
    import json

    return sum(1 for line in record.read_text().splitlines() if line.endswith("}") and json.loads(line)["in_doubt"])


def test_one_server_on_sqlite_killed_at_random_moments_loses_and_repeats_nothing(tmp_path):
    play_under_kills(tmp_path, f"sqlite:///{tmp_path / 'judge.db'}", 1, seed=1)


def test_two_servers_on_postgresql_killed_at_random_moments_lose_and_repeat_nothing(tmp_path, pg_url):
    play_under_kills(tmp_path, pg_url, 2, seed=2)
