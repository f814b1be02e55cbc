"""The store's share of a phase closing: what a deadline run and the outbox's delivery of its
announcements cost in CPU, statements and transactions, on SQLite and on PostgreSQL.

    python benchmarks/bench_store.py                                   # SQLite, 200 games
    python benchmarks/bench_store.py --database postgresql+psycopg://postgres@127.0.0.1/test
    python benchmarks/bench_store.py --baseline /tmp/before             # side by side
    python benchmarks/bench_store.py --ahead                            # SQLite's reads ahead of the lock
        (/tmp/before: another tree of the judge, e.g. ``git archive main | tar -x -C /tmp/before``)

The games are :mod:`bench_deadlines`' (the classic map's opening, all seven powers ordered), every
deadline due. In one process, with no pictures (their cost is the picture's, not the store's),
every deadline is run (``GameService.fire_timer``), then the outbox delivers every announcement
(one flush) to notifiers that do nothing but keep what they are given, as many recipients as a
storm's: the results to two Discord places, seven mail addresses, the site, the archive files and
the log. Reported a phase closing: the process's CPU time of each part, the statements it sent
to the database (an ``executemany`` counts once) and its transactions. Statements and
transactions do not depend on the machine's load; the CPU does (the load average is printed, and
the trees are measured in turn ``--rounds`` times, the least CPU of each kept).

With ``--ahead`` (SQLite) the run takes the path it takes when it draws pictures: each season is
read and adjudicated in a read of its own before the game is locked, and its picture is a few
bytes drawn at no cost (a picture's cost is the picture's).

Each tree is measured in a process of its own on a throw-away database (PostgreSQL: created
beside the one named, and dropped).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(url: str, games: int, ahead: bool = False) -> dict[str, float]:
    """Run in the tree measured (``sys.path`` begins with it): the costs a phase closing."""
    import sqlalchemy as sa

    from benchmarks.bench_deadlines import set_up
    from bot.app.logging import configure
    from bot.service import GameService
    from bot.store.database import Database
    from bot.store.outbox import LogNotifier, OutboxDispatcher
    from tests.notifiers import RecordingNotifier

    configure("WARNING")
    set_up(url, games + 1)
    db = Database(url)
    if ahead:
        from bot.service.judge import Judge

        Judge._picture = lambda *_: b"picture"  # type: ignore[method-assign]
    service = GameService(db, node="bench", pictures=ahead)
    notifiers = [
        RecordingNotifier(lambda a: ("channel", "archive") if a.audience == "public" else ("dm",), name="discord"),
        RecordingNotifier(lambda a: tuple(f"p{i}@mail" for i in range(7)) if a.audience == "public" else ("gm@mail",),
                          name="mail"),
        RecordingNotifier(name="site"), RecordingNotifier(name="archive"), LogNotifier()]
    dispatcher = OutboxDispatcher(db, notifiers, node="bench")
    counts = {"statements": 0, "transactions": 0}

    def statement(*_) -> None:
        counts["statements"] += 1

    def commit(*_) -> None:
        counts["transactions"] += 1

    sa.event.listen(db.engine, "before_cursor_execute", statement)
    sa.event.listen(db.engine, "commit", commit)
    with db.engine.connect() as c:
        timers = [row[0] for row in c.execute(sa.text(
            "SELECT id FROM timer WHERE fired_at IS NULL AND kind = 'deadline' ORDER BY id"))]
    marks = [(time.process_time(), dict(counts))]
    for timer_id in timers:
        if service.fire_timer(timer_id) != "adjudicated":
            raise RuntimeError(f"timer {timer_id} did not adjudicate its game")
    marks.append((time.process_time(), dict(counts)))
    asyncio.run(dispatcher.flush())
    marks.append((time.process_time(), dict(counts)))
    made = sum(len(n.made) for n in notifiers if isinstance(n, RecordingNotifier))
    db.dispose()
    out: dict[str, float] = {"phases": len(timers), "deliveries_a_phase": round(made / len(timers), 1)}
    for part, (before, after) in zip(("deadline run", "outbox"), itertools.pairwise(marks), strict=True):
        out[f"{part}: CPU ms"] = round(1000 * (after[0] - before[0]) / len(timers), 2)
        for what in ("statements", "transactions"):
            out[f"{part}: {what}"] = round((after[1][what] - before[1][what]) / len(timers), 1)
    return out


def job(tree: Path, url: str, games: int, ahead: bool = False) -> dict[str, float]:
    """:func:`measure` in a process of its own, on ``tree``'s code."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--job", url, "--games", str(games),
                          *(["--ahead"] if ahead else [])],
                         env=env, cwd=str(tree), capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"the measurement on {tree} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", help="a PostgreSQL server URL (a throw-away database is made there); "
                                           "default: SQLite in a temporary directory")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="another tree of the judge, measured the same way before this one")
    parser.add_argument("--ahead", action="store_true",
                        help="read and adjudicate each season ahead of the lock, as a run that draws pictures does "
                             "(SQLite), its picture drawn at no cost")
    parser.add_argument("--job", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.job:
        sys.path.insert(0, os.getcwd())
        print(json.dumps(measure(args.job, args.games, args.ahead)))
        return 0
    sys.path.insert(0, str(ROOT))
    from benchmarks.bench_deadlines import scratch_database

    trees = ([("baseline", args.baseline)] if args.baseline else []) + [("this tree", ROOT)]
    print(f"{args.games} games on {'PostgreSQL' if args.database else 'SQLite'}"
          f"{', read ahead of the lock' if args.ahead else ''}, {args.rounds} rounds (the trees "
          f"in turn; CPU: the least of the rounds); load {os.getloadavg()[0]:.1f}")
    best: dict[str, dict[str, float]] = {}
    for _ in range(args.rounds):
        for label, tree in trees:
            with tempfile.TemporaryDirectory() as tmp:
                if args.database:
                    with scratch_database(args.database) as url:
                        result = job(tree, url, args.games, args.ahead)
                else:
                    result = job(tree, f"sqlite:///{Path(tmp) / 'store.db'}", args.games, args.ahead)
            kept = best.setdefault(label, result)
            for key, value in result.items():
                kept[key] = min(kept[key], value) if "CPU" in key else value
    for label, tree in trees:
        print(f"  {label} ({tree}): " + ", ".join(f"{k} {v}" for k, v in best[label].items()))
    print(f"  load {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
