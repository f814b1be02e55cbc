"""The outbox under a backlog, on PostgreSQL: what a claim costs with 10 or 100,000 deliveries
waiting, and how long two ``crusader serve`` processes take to drain 100,000.

    python benchmarks/bench_outbox.py --database postgresql+psycopg://postgres@127.0.0.1/test
    python benchmarks/bench_outbox.py --database ... --baseline /tmp/before   # side by side
        (/tmp/before: another tree of the judge, e.g. ``git archive main | tar -x -C /tmp/before``)

Every measurement runs in a process of its own, on a throw-away database (created beside the one
named, and dropped), with the code of the tree measured: this one, and the ``--baseline`` tree
when one is given. A backlog is written the way the judge writes it: announcements of ``games``
games (``announcements`` each), fanned out by the tree's own ``expand_announcement`` to
``recipients`` recipients of one notifier, so that every game's announcements queue in order for
each recipient.

- ``claim``: the time of one claim of 50 deliveries (``database.claim_deliveries``, in a
  transaction rolled back, the median of several), with the backlog's tables never analysed
  since it was written (as after a storm) and then analysed. A claim that runs longer than
  ``--statement-timeout`` is stopped and reported as longer.
- ``drain``: two ``crusader serve`` processes with a notifier that appends each delivery to a
  file (so the outbox's own work is measured, not a front end's) deliver the whole backlog; one
  of them is stopped (SIGTERM) halfway and started again. Reported: the time to drain it, each
  server's share, how long the stop took, every delivery made once and each recipient's
  announcements of a game in the order made (read back from the file).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
NOTIFIER = "bench"


# -- in the process of the tree measured ----------------------------------------------------------

def use_tree(code: Path) -> None:
    """Import the judge from ``code`` (this process measures that tree)."""
    sys.path.insert(0, str(code))


def build_backlog(url: str, games: int, announcements: int, recipients: int) -> dict:
    """Write and fan out the backlog with the tree's own code; what it took."""
    import sqlalchemy as sa

    from bot.store.database import Database
    from bot.store.outbox import Announcement, OutboxDispatcher, outbox_row
    from tests.notifiers import RecordingNotifier
    from bot.store.rows import GameRow

    db = Database(url)
    db.migrate()
    now = datetime.now(UTC) - timedelta(minutes=1)
    began = time.perf_counter()
    with db.session() as session:
        ids = []
        for g in range(games):
            row = GameRow(name=f"backlog-{g:05d}", variant="standard", gm="gm", created_at=now)
            session.add(row)
            session.flush()
            ids.append(row.id)
        for v in range(announcements):     # a storm: every game's announcement, then the next round
            for g in ids:
                session.add(outbox_row(Announcement(key=f"{g}:{v}:bench", kind="bench", audience="public",
                                                    subject=f"round {v}", body="text", game_id=g), now))
    # fanned out as the judge does it, an announcement at a time, by the tree's own dispatcher
    readers = [f"reader-{r:02d}" for r in range(recipients)]
    fan_out = OutboxDispatcher(db, [RecordingNotifier(lambda a: readers, name=NOTIFIER)], batch=500,
                               clock=lambda: now)

    async def expand() -> None:
        while await fan_out._expand():
            pass

    asyncio.run(expand())
    with db.engine.connect() as c:
        pending = c.execute(sa.text("SELECT count(*) FROM delivery WHERE state = 'pending'")).scalar()
    db.dispose()
    return {"pending": pending, "written_s": round(time.perf_counter() - began, 1)}


def time_claims(url: str, repeats: int, timeout_s: float) -> dict:
    """The median time of a claim of 50 (rolled back each time), before and after ANALYZE."""
    import sqlalchemy as sa

    from bot.store import database
    from bot.store.database import Database

    db = Database(url)
    out = {}
    for label in ("never analysed", "analysed"):
        if label == "analysed":
            with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
                c.execute(sa.text("ANALYZE delivery"))
                c.execute(sa.text("ANALYZE outbox"))
        times, got = [], 0
        for _ in range(repeats):
            session_began = time.perf_counter()
            try:
                with db.session() as session:
                    session.connection().execute(sa.text(f"SET LOCAL statement_timeout = {int(timeout_s * 1000)}"))
                    now = datetime.now(UTC)
                    claimed = database.claim_deliveries(session, [NOTIFIER], "bench", now, now + timedelta(minutes=1),
                                                        limit=50)
                    got = len(claimed)
                    session.rollback()
            except sa.exc.OperationalError as exc:
                if "statement timeout" not in str(exc):
                    raise
                times.append(None)
                break
            times.append(time.perf_counter() - session_began)
        done = [t for t in times if t is not None]
        out[label] = {"median_ms": round(statistics.median(done) * 1000, 2) if done else None,
                      "stopped_after_s": timeout_s if None in times else None, "claimed": got, "runs": len(times)}
    db.dispose()
    return out


def serve(record: Path) -> None:
    """``crusader serve`` with the benchmark's notifier (appends ``key recipient pid`` per delivery)."""
    from bot.app import serve as app_serve
    from bot.cli.main import main as crusader
    from bot.store.outbox import DELIVERED

    class Appending:
        name = NOTIFIER

        def __init__(self) -> None:
            self.fd = os.open(record, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

        async def recipients(self, announcement):
            return ()       # the backlog is fanned out already

        async def deliver(self, delivery):
            os.write(self.fd, f"{delivery.announcement.key} {delivery.recipient} {os.getpid()}\n".encode())
            return DELIVERED

    def register(app):
        app.dispatcher.register(Appending())

    app_serve.register_front_end(register)
    sys.exit(crusader(["serve"]))


def in_tree(code: Path, job: str, *args: str) -> dict:
    """Run ``job`` of this script in a process importing the judge from ``code``; its JSON answer."""
    out = subprocess.run([sys.executable, str(HERE), "--job", job, "--code", str(code), *args],
                         capture_output=True, text=True, cwd=code, check=False)
    if out.returncode != 0:
        raise SystemExit(f"{job} in {code} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- the measurements, driven from here ---------------------------------------------------------

def claim_costs(server_url: str, code: Path, sizes: list[tuple[int, int, int]], repeats: int, timeout_s: float) -> list:
    from bench_deadlines import scratch_database

    rows = []
    for games, announcements, recipients in sizes:
        with scratch_database(server_url) as url:
            built = in_tree(code, "backlog", url, str(games), str(announcements), str(recipients))
            costs = in_tree(code, "claims", url, str(repeats), str(timeout_s))
        rows.append({"pending": built["pending"], "written_s": built["written_s"], **costs})
        print(f"  {code}: {built['pending']:>7} pending: {costs}", file=sys.stderr)
    return rows


def drain(server_url: str, code: Path, games: int, announcements: int, recipients: int, lease: float,
          timeout_s: float) -> dict:
    import sqlalchemy as sa

    from bench_deadlines import scratch_database

    with scratch_database(server_url) as url, tempfile.TemporaryDirectory() as tmp:
        built = in_tree(code, "backlog", url, str(games), str(announcements), str(recipients))
        record = Path(tmp) / "record"
        engine = sa.create_engine(url)

        def pending() -> int:
            with engine.connect() as c:
                return c.execute(sa.text("SELECT count(*) FROM delivery WHERE state = 'pending'")).scalar()

        def start(i: int) -> subprocess.Popen:
            env = {k: v for k, v in os.environ.items() if not k.startswith(("CRUSADER_", "DISCORD_"))}
            env.update(CRUSADER_DATABASE_URL=url, CRUSADER_DATA_DIR=str(Path(tmp) / "data"),
                       CRUSADER_FRONT_ENDS="none", CRUSADER_NODE_NAME=f"server{i}", CRUSADER_LOG_FORMAT="json",
                       CRUSADER_LOG_LEVEL="WARNING", CRUSADER_OUTBOX_LEASE=str(lease), CRUSADER_POLL_INTERVAL="2")
            log = (Path(tmp) / f"server{i}.log").open("ab")
            return subprocess.Popen([sys.executable, str(HERE), "--job", "serve", "--code", str(code), str(record)],
                                    cwd=code, env=env, stdout=log, stderr=subprocess.STDOUT)

        total = built["pending"]
        began = time.perf_counter()
        servers = [start(0), start(1)]
        stop_s, restarted, drained_s = None, False, None
        try:
            while True:
                left = pending()
                if left == 0:
                    drained_s = time.perf_counter() - began
                    break
                if time.perf_counter() - began > timeout_s:
                    break
                if not restarted and left <= total // 2:      # halfway: stop one server, start it again
                    t = time.perf_counter()
                    servers[1].send_signal(signal.SIGTERM)
                    try:
                        code_1 = servers[1].wait(timeout=300)
                    except subprocess.TimeoutExpired:
                        servers[1].kill()
                        code_1 = "killed after 300 s"
                    stop_s = time.perf_counter() - t
                    servers[1] = start(1)
                    restarted = True
                    assert code_1 == 0, f"server1 stopped with {code_1}"
                time.sleep(0.5)
        finally:
            codes, stopping = [], time.perf_counter()
            for s in servers:
                s.send_signal(signal.SIGTERM)
            for s in servers:
                try:
                    codes.append(s.wait(timeout=max(1.0, 300 - (time.perf_counter() - stopping))))
                except subprocess.TimeoutExpired:
                    s.kill()
                    codes.append(f"killed after {time.perf_counter() - stopping:.0f} s")
            final_stop_s = time.perf_counter() - stopping
        delivered = total - pending()
        engine.dispose()
        made = Counter()
        by_server = Counter()
        order_broken = 0
        seen: dict[tuple[str, str], int] = defaultdict(lambda: -1)
        for line in record.read_text().splitlines():
            key, recipient, pid = line.split()
            made[(key, recipient)] += 1
            by_server[pid] += 1
            game, version, _ = key.split(":")
            if int(version) < seen[(game, recipient)]:
                order_broken += 1
            seen[(game, recipient)] = max(seen[(game, recipient)], int(version))
        logs = "".join((Path(tmp) / f"server{i}.log").read_text(errors="replace") for i in range(2))
    return {"backlog": total, "written_s": built["written_s"], "lease_s": lease,
            "drained_s": round(drained_s, 1) if drained_s is not None else None,
            "delivered": delivered, "per_s": round(delivered / (drained_s or timeout_s)),
            "made_twice": sum(1 for n in made.values() if n > 1), "out_of_order": order_broken,
            "per_server_process": sorted(by_server.values(), reverse=True), "stop_s": round(stop_s, 1) if stop_s else None,
            "final_stop_s": round(final_stop_s, 1),
            "exit_codes": codes, "tracebacks": logs.count("Traceback"), "errors": logs.count('"level": "error"')}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="postgresql+psycopg://postgres@127.0.0.1/test")
    parser.add_argument("--baseline", type=Path, help="another tree of the judge, measured the same way beside this one")
    parser.add_argument("--only", choices=("claim", "drain"), help="one of the two measurements")
    parser.add_argument("--sizes", default="1x1x10,100x10x10,1000x10x10",
                        help="backlogs for the claim, each GAMESxANNOUNCEMENTSxRECIPIENTS (default: 10, 10,000 "
                             "and 100,000 deliveries)")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--statement-timeout", type=float, default=120.0, help="seconds a claim may run")
    parser.add_argument("--drain-games", type=int, default=1000)
    parser.add_argument("--drain-announcements", type=int, default=10)
    parser.add_argument("--drain-recipients", type=int, default=10)
    parser.add_argument("--lease", type=float, default=30.0, help="the servers' outbox lease, seconds")
    parser.add_argument("--drain-timeout", type=float, default=1800.0)
    parser.add_argument("--job", help=argparse.SUPPRESS)
    parser.add_argument("--code", type=Path, default=ROOT, help=argparse.SUPPRESS)
    parser.add_argument("rest", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.job:        # in the process of the tree measured
        use_tree(args.code)
        if args.job == "serve":
            serve(Path(args.rest[0]))
        url = args.rest[0]
        if args.job == "backlog":
            answer = build_backlog(url, *(int(x) for x in args.rest[1:4]))
        else:
            answer = time_claims(url, int(args.rest[1]), float(args.rest[2]))
        print(json.dumps(answer))
        return 0

    sys.path.insert(0, str(HERE.parent))
    trees = [("this tree", ROOT)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    result: dict = {}
    if args.only in (None, "claim"):
        sizes = [tuple(int(n) for n in size.split("x")) for size in args.sizes.split(",")]
        for name, code in trees:
            result[f"claim, {name}"] = claim_costs(args.database, code, sizes, args.repeats, args.statement_timeout)
    if args.only in (None, "drain"):
        for name, code in trees:
            result[f"drain, {name}"] = drain(args.database, code, args.drain_games, args.drain_announcements,
                                             args.drain_recipients, args.lease, args.drain_timeout)
            print(f"  {name}: {result[f'drain, {name}']}", file=sys.stderr)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
