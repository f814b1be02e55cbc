"""Exactly once while players race the clock and servers die or freeze at random moments.

Several games are played against real ``crusader serve`` processes (one on SQLite, two sharing
PostgreSQL), with a slow notifier that keeps a raw record of every delivery
(:mod:`tests.app.rawsink`). The players of each game (a thread per game) submit and replace
orders all the time, fastest around the deadline, and a deadline falls a second or three into
every phase. Meanwhile the servers are killed with SIGKILL (at random moments, just after a
committed write, at one of the named points of a deadline run) and frozen with SIGSTOP for longer
than their claim on deliveries lasts, and started or thawed again. Once the run has done its
work (seasons, kills and freezes, counted), one server runs on, unhindered, until everything
due is done, and the invariants are checked:

- each phase of each game adjudicated once, versions in a row;
- the orders adjudicated for each power are exactly the last set its player was told stands
  (a message acknowledged and then left out, or replaced and kept, is a fault);
- every season announced, and every announcement delivered once per recipient (the raw record,
  repeats included): a repeat only where a server frozen past its claim finished a delivery that
  another had taken over, in doubt;
- no temporary file left in the data directory.

The run is sized by work; time is only a guard (``GUARD``). Marked slow (``--slow``, as ``.ci/run``).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
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
from bot.store.faults import POINTS
from bot.store.rows import GameRow, SeasonRow
from tests.app.rawsink import read_record
from tests.random_play import CAREFUL, adjustment_orders, movement_orders, retreat_orders

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
GAMES = 4
PLAYERS = {"ENG": "ed", "FRA": "flo", "GER": "gus"}
LEASE = 2.0             # seconds a server's claim on deliveries lasts (CRUSADER_OUTBOX_LEASE)


@dataclass(frozen=True)
class Work:
    """What a run must have done before it stops: seasons adjudicated (in all), kills, freezes."""

    seasons: int
    kills: int
    freezes: int


GUARD = 1200.0          # seconds: a run that has not done its work by then fails, saying how far it got


class Servers:
    """``count`` ``crusader serve`` processes on one database, each with the raw notifier."""

    def __init__(self, tmp_path: Path, url: str, count: int) -> None:
        self.tmp_path, self.url = tmp_path, url
        self.record = tmp_path / "raw.jsonl"
        self.processes: list[subprocess.Popen | None] = [None] * count
        self.log_from = [0] * count  # where the log of the one running begins
        self.self_kill = [False] * count  # whether the one running is to kill itself
        self.ready_at: list[float | None] = [None] * count  # when the one running said it was serving
        self.frozen_until: list[float | None] = [None] * count
        self.thawing: list[threading.Timer | None] = [None] * count
        self.kills: Counter = Counter()
        self.freezes = 0
        for i in range(count):
            self.start(i)

    def start(self, i: int, death: tuple[str, str] | None = None) -> None:
        """Start server ``i``; ``death``: how it kills itself, ``("after_writes", "n")`` just after
        its n-th committed transaction that wrote, ``("at", point)`` at a named point of a
        deadline run (:mod:`bot.store.faults`)."""
        environ = {k: v for k, v in os.environ.items() if not k.startswith(("CRUSADER_", "DISCORD_"))}
        environ.update(CRUSADER_DATABASE_URL=self.url, CRUSADER_DATA_DIR=str(self.tmp_path / "data"),
                       CRUSADER_POLL_INTERVAL="0.3", CRUSADER_OUTBOX_LEASE=str(LEASE), CRUSADER_LOG_FORMAT="json",
                       CRUSADER_FRONT_ENDS="none", CRUSADER_NODE_NAME=f"server{i}")
        if death is not None:
            environ["CRUSADER_CRASH_AFTER_WRITES" if death[0] == "after_writes" else "CRUSADER_CRASH_AT"] = death[1]
        path = self.tmp_path / f"server{i}.log"
        log = path.open("ab")
        self.log_from[i] = path.stat().st_size
        self.self_kill[i] = death is not None
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

    def kill(self, i: int, why: str, death: tuple[str, str] | None = None) -> None:
        self.thaw(i, always=True)
        process = self.processes[i]
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=30) == -signal.SIGKILL, f"server{i} had stopped by itself"
        self.kills[why] += 1
        self.frozen_until[i] = None
        self.start(i, death)

    def reap(self, i: int, death: tuple[str, str] | None = None) -> bool:
        """Start server ``i`` again if it killed itself; whether it had."""
        code = self.processes[i].poll()
        if code is None:
            return False
        if not (code == -signal.SIGKILL and self.self_kill[i]):
            tail = (self.tmp_path / f"server{i}.log").read_bytes()[-4000:].decode(errors="replace")
            raise AssertionError(f"server{i} stopped by itself ({code}); the end of its log:\n{tail}")
        self.kills["by itself, after a commit or at a named point"] += 1
        self.start(i, death)
        return True

    def freeze(self, i: int, seconds: float) -> None:
        """Stop server ``i`` (SIGSTOP) for ``seconds``; a timer of its own thaws it, whatever this
        thread is doing (on SQLite it may wait for the very lock the frozen server holds)."""
        process = self.processes[i]
        process.send_signal(signal.SIGSTOP)
        self.thawing[i] = threading.Timer(seconds, process.send_signal, args=(signal.SIGCONT,))
        self.thawing[i].start()
        self.frozen_until[i] = time.monotonic() + seconds
        self.freezes += 1

    def thaw(self, i: int, always: bool = False) -> None:
        until = self.frozen_until[i]
        if until is not None and (always or time.monotonic() >= until):
            self.thawing[i].cancel()
            self.processes[i].send_signal(signal.SIGCONT)
            self.frozen_until[i] = None

    def disarm(self) -> None:
        """No more kills: the frozen thaw, and those about to kill themselves start again without it."""
        for i, armed in enumerate(self.self_kill):
            self.thaw(i, always=True)
            if armed:
                self.kill(i, "at random")

    def stop(self) -> list[int]:
        """Stop every server gracefully (SIGTERM), each once it serves: one started again a moment
        ago may still be importing, before it has a handler for SIGTERM, and would die of it."""
        codes = []
        for i, process in enumerate(self.processes):
            self.thaw(i, always=True)
            waited = time.monotonic() + 60
            while self.ready(i) is None and process.poll() is None and time.monotonic() < waited:
                time.sleep(0.05)
            process.send_signal(signal.SIGTERM)
            codes.append(process.wait(timeout=90))
        return codes

    def alive(self) -> bool:
        return all(p.poll() is None for p in self.processes)


def orders_for(rng: random.Random, row, power: str) -> list:
    """``power``'s careful random orders for the game's phase, or a part of them (a message that
    replaces some of its standing orders)."""
    variant, position = position_from_dict(row.position)
    make = {PhaseKind.MOVEMENT: movement_orders, PhaseKind.RETREAT: retreat_orders,
            PhaseKind.ADJUSTMENT: adjustment_orders}[position.phase.kind]
    orders = make(rng, variant, position, power, CAREFUL)
    if len(orders) > 1 and rng.random() < 0.5:
        orders = rng.sample(orders, rng.randint(1, len(orders) - 1))
    return orders


@dataclass
class Told:
    """What the players were told: the standing orders after each message acknowledged, the last
    of each power and phase kept (``last``: (game id, phase, power) -> canonical orders)."""

    last: dict[tuple[int, str, str], frozenset[str]] = field(default_factory=dict)
    messages: int = 0
    refused: int = 0      # messages refused as a whole (a game that had ended)


class Players(threading.Thread):
    """The three players of one game, sending one message after another for its phase: now and
    then during it, back to back from half a second before the deadline until the phase moves on."""

    def __init__(self, db: Database, name: str, seed: int, told: Told, lock: threading.Lock,
                 stop: threading.Event) -> None:
        super().__init__(name=f"players-{name}", daemon=True)
        self.db, self.game, self.rng, self.told, self.lock, self.halt = db, name, random.Random(seed), told, lock, stop
        self.failure: BaseException | None = None

    def run(self) -> None:
        service = GameService(self.db)
        try:
            while not self.halt.is_set():
                with self.db.session() as s:
                    row = s.exec(select(GameRow).where(GameRow.name == self.game)).one()
                if row.status != "active":
                    return
                power = self.rng.choice(sorted(PLAYERS))
                orders = orders_for(self.rng, row, power)
                if orders:
                    self.send(service, row, power, orders)
                due = row.deadline_at
                if due is None or abs((due - service.now()).total_seconds()) > 0.5:
                    self.halt.wait(self.rng.uniform(0.05, 0.3))
        except BaseException as exc:  # noqa: BLE001 (reported by the test)
            self.failure = exc

    def send(self, service: GameService, row, power: str, orders: list) -> None:
        try:
            report = service.submit_orders(row.name, PLAYERS[power], "\n".join(str(o) for o in orders))
        except ServiceError:
            with self.lock:
                self.told.refused += 1
            return
        with self.lock:
            self.told.messages += 1
            self.told.last[(row.id, report.phase, report.power)] = frozenset(line.canonical for line in report.standing)


def games(db: Database) -> list[GameRow]:
    with db.session() as s:
        return list(s.exec(select(GameRow).order_by(GameRow.id)))


def play_under_kills(tmp_path: Path, url: str, count: int, seed: int, work: Work) -> dict:
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
    told, lock, halt = Told(), threading.Lock(), threading.Event()
    players = [Players(db, f"kill-{g}", seed * 100 + g, told, lock, halt) for g in range(GAMES)]
    for p in players:
        p.start()
    timed: dict[int, int] = {}  # game -> the version whose deadline is set
    began = time.monotonic()
    kill_at: list[float | None] = [None] * count  # when each server is to be killed
    next_freeze = time.monotonic() + rng.uniform(2, 6)

    def death() -> tuple[str, str] | None:
        """How a server about to start will die by itself, if it will."""
        roll = rng.random()
        if roll < 0.55:
            return ("after_writes", str(rng.randint(1, 15)))
        if roll < 0.75:
            return ("at", rng.choice(POINTS))
        return None

    def seasons() -> int:
        with db.session() as s:
            return s.execute(sa.text("SELECT count(*) FROM season")).scalar()

    try:
        while True:
            done = seasons()
            kills = sum(servers.kills.values())
            if done >= work.seasons and kills >= work.kills and servers.freezes >= work.freezes:
                break
            assert time.monotonic() - began < GUARD, (
                f"the run did not do its work within {GUARD:.0f} s: {done} of {work.seasons} seasons, {kills} of "
                f"{work.kills} kills, {servers.freezes} of {work.freezes} freezes")
            assert not [p.failure for p in players if p.failure], [p.failure for p in players]
            for row in games(db):
                if row.status == "active" and timed.get(row.id) != row.version:
                    try:
                        service.set_deadline(row.name, "gm", service.now() + timedelta(seconds=rng.uniform(1.0, 3.0)))
                    except ServiceError:
                        continue  # adjudicated meanwhile
                    timed[row.id] = row.version
            # kills: most servers started kill themselves, just after a random committed write or
            # at a named point of a deadline run; the others are killed at a random moment of their
            # life (mostly once they serve, sometimes while they start); now and then one freezes
            for i in range(count):
                servers.thaw(i)
                if servers.frozen_until[i] is not None:
                    continue
                if servers.reap(i, death()):
                    kill_at[i] = None
                    continue
                if kill_at[i] is None and servers.ready(i) is not None and not servers.self_kill[i]:
                    kill_at[i] = servers.ready(i) + rng.uniform(0.2, 3.0)
                if kill_at[i] is not None and time.monotonic() >= kill_at[i]:
                    servers.kill(i, "at random" if servers.ready(i) is not None else "while starting", death())
                    kill_at[i] = time.monotonic() + rng.uniform(0.1, 3.0) if rng.random() < 0.15 else None
            if time.monotonic() >= next_freeze:
                awake = [i for i in range(count) if servers.frozen_until[i] is None and servers.ready(i) is not None
                         and servers.processes[i].poll() is None]
                if awake:   # frozen for longer than its claim lasts: the others take its deliveries over
                    servers.freeze(rng.choice(awake), LEASE * rng.uniform(1.5, 2.5))
                next_freeze = time.monotonic() + rng.uniform(3, 8)
            time.sleep(0.05)
        halt.set()
        for p in players:
            p.join(timeout=60)
        assert not [p.failure for p in players if p.failure], [p.failure for p in players]

        # no more kills, freezes or deadlines: the servers finish what is due and deliver all. A
        # deadline set just before the players stopped falls up to 3 s later: it is waited for too
        # (else it may fire between the last look and the stop, its results written and not sent)
        def settled() -> bool:
            with db.session() as s:
                undelivered = s.execute(sa.text("SELECT count(*) FROM outbox WHERE delivered_at IS NULL")).scalar()
                due = s.execute(sa.text("SELECT count(*) FROM timer WHERE fired_at IS NULL AND due_at <= :soon"),
                                {"soon": service.now() + timedelta(seconds=10)}).scalar()
            return undelivered == 0 and due == 0

        servers.disarm()
        deadline = time.monotonic() + 180
        while not settled():
            assert servers.alive(), "a server stopped by itself"
            assert time.monotonic() < deadline, "the servers did not finish what was due within 180 s"
            time.sleep(0.3)
    finally:
        halt.set()
        codes = servers.stop()
    assert codes == [0] * count, codes

    faults: list[str] = []
    with db.session() as s:
        archived_rows = list(s.exec(select(SeasonRow).order_by(SeasonRow.game_id, SeasonRow.version)))
        outbox = {r.id: r for r in s.execute(sa.text("SELECT id, key, kind, delivered_at FROM outbox")).all()}
        deliveries = s.execute(sa.text("SELECT outbox_id, recipient, state FROM delivery WHERE notifier = 'raw'")).all()
    # each phase adjudicated once, versions in a row
    by_game: dict[int, list] = {}
    for row in archived_rows:
        by_game.setdefault(row.game_id, []).append(row)
    for game_id, rows in by_game.items():
        if [r.version for r in rows] != list(range(len(rows))):
            faults.append(f"game {game_id}: versions {[r.version for r in rows]}")
        if len({r.phase for r in rows}) != len(rows):
            faults.append(f"game {game_id}: a phase adjudicated twice: {Counter(r.phase for r in rows)}")
    # the orders adjudicated for each power: exactly the last set its player was told stands
    archived: dict[tuple[int, str, str], set[str]] = {}
    for r in archived_rows:
        for o in r.orders:
            text = canonical(order_from_json(o["order"]))
            archived.setdefault((r.game_id, r.phase, text.split(":")[0]), set()).add(text)
    phases = {(r.game_id, r.phase) for r in archived_rows}
    compared = 0
    for (game_id, phase, power), last in sorted(told.last.items()):
        if (game_id, phase) not in phases:
            continue  # not adjudicated before the run stopped
        compared += 1
        got = archived.get((game_id, phase, power), set())
        if got != last:
            faults.append(f"game {game_id} {phase} {power}: told {sorted(last)}, adjudicated {sorted(got)}")
    # every season announced; every announcement delivered once per recipient
    keys = {r.key for r in outbox.values()}
    unannounced = [f"{r.game_id}:{r.version}:results" for r in archived_rows
                   if f"{r.game_id}:{r.version}:results" not in keys]
    if unannounced:
        faults.append(f"{len(unannounced)} seasons never announced: {unannounced[:5]}")
    # (a delivery a later announcement made stale is not made, unless it was under way then)
    wanted = Counter((outbox[d.outbox_id].key, d.recipient) for d in deliveries if d.state != "superseded")
    superseded = {(outbox[d.outbox_id].key, d.recipient) for d in deliveries if d.state == "superseded"}
    entries = _record(servers.record)
    made = Counter(read_record(servers.record.read_text()))
    doubted = {(e["key"], e["recipient"]) for e in entries if e["in_doubt"]}
    twice = {k: n for k, n in made.items() if n > 1}
    unexplained = {k: n for k, n in twice.items() if k not in doubted}
    if unexplained:
        faults.append(f"{len(unexplained)} deliveries made more than once, none in doubt: "
                      f"{sorted(unexplained.items())[:5]}")
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
    stats = {"kills": dict(servers.kills), "freezes": servers.freezes, "seasons": len(archived_rows),
             "messages acknowledged": told.messages, "messages refused": told.refused,
             "order sets compared": compared, "announcements": len(outbox), "deliveries": len(wanted),
             "made": sum(made.values()), "in doubt": sum(1 for e in entries if e["in_doubt"]),
             "repeats in doubt": len(twice), "seconds": round(time.monotonic() - began)}
    print(stats)
    db.dispose()
    assert not faults, f"{stats}\n" + "\n".join(faults)
    assert compared >= work.seasons, stats      # the players did race the deadlines
    return stats


def _record(record: Path) -> list[dict]:
    out = []
    for line in record.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue  # a line torn by a kill
    return out


@pytest.mark.timeout(GUARD + 300)     # sized by work: the guard, the settling and the checks, not the suite's 300 s
def test_one_server_on_sqlite_killed_and_frozen_loses_and_repeats_nothing(tmp_path):
    play_under_kills(tmp_path, f"sqlite:///{tmp_path / 'judge.db'}", 1, seed=1, work=Work(seasons=24, kills=12, freezes=3))


@pytest.mark.timeout(GUARD + 300)
def test_two_servers_on_postgresql_killed_and_frozen_lose_and_repeat_nothing(tmp_path, pg_url):
    play_under_kills(tmp_path, pg_url, 2, seed=2, work=Work(seasons=40, kills=16, freezes=4))
