"""The store's share of a phase closing: what a deadline run and the outbox's delivery of its
announcements cost in CPU, statements and transactions, on SQLite and on PostgreSQL.

    python benchmarks/bench_store.py                                   # SQLite, 200 games
    python benchmarks/bench_store.py --database postgresql+psycopg://postgres@127.0.0.1/test
    python benchmarks/bench_store.py --baseline /tmp/before             # side by side
    python benchmarks/bench_store.py --ahead                            # SQLite's reads ahead of the lock
    python benchmarks/bench_store.py --front-ends                       # the site's and archive's reads too
        (/tmp/before: another tree of the judge, e.g. ``git archive main | tar -x -C /tmp/before``)

The games are :mod:`bench_deadlines`' (the classic map's opening, all seven powers ordered), every
deadline due. In one process, with no pictures (their cost is the picture's, not the store's),
every deadline is run (``GameService.fire_timer``), then the outbox delivers every announcement
(one flush) to notifiers that do nothing but keep what they are given, as many recipients as a
storm's: the results to two Discord places, seven mail addresses, the site, the archive files and
the log. Reported a phase closing: the process's CPU time of each part, the statements it sent
to the database (an ``executemany`` counts once; a transaction's ``BEGIN`` and ``COMMIT`` are
counted as the transaction) and its transactions, in all and by part: the deadline run, the
outbox's fanning out, claims and records, and each notifier's deliveries (what it reads). Statements and
transactions do not depend on the machine's load; the CPU does (the load average is printed, and
the trees are measured in turn ``--rounds`` times, the least CPU of each kept).

With ``--front-ends`` the archive's files and the archive site's pages are written as a server
writes them (to a temporary directory), so that their reads are counted; their CPU is mostly
the pages' (the outbox's part then includes it).

With ``BENCH_STORE_SQL=1`` in the environment, every statement is printed (to stderr) with the
part it is counted in: what to read when a part's count moves.

With ``--ahead`` (SQLite) the run takes the path it takes when it draws pictures: each season is
read and adjudicated in a read of its own before the game is locked, and its picture is a few
bytes drawn at no cost (a picture's cost is the picture's).

Each tree is measured in a process of its own on a throw-away database (PostgreSQL: created
beside the one named, and dropped).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(url: str, games: int, ahead: bool = False, front_ends: bool = False) -> dict[str, float]:
    """Run in the tree measured (``sys.path`` begins with it): the costs a phase closing, in all
    and by part."""
    import contextlib
    import contextvars
    import tempfile

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
    notifiers: list = [
        RecordingNotifier(lambda a: ("channel", "archive") if a.audience == "public" else ("dm",), name="discord"),
        RecordingNotifier(lambda a: tuple(f"p{i}@mail" for i in range(7)) if a.audience == "public" else ("gm@mail",),
                          name="mail"), LogNotifier()]
    files = tempfile.TemporaryDirectory()
    if front_ends:  # the archive's files and the site's pages, as ``crusader serve`` writes them
        from bot.archive.games import ArchiveWriter
        from bot.frontends.site.server import SiteNotifier
        from bot.frontends.site.writer import SiteWriter

        notifiers += [ArchiveWriter(service, Path(files.name) / "archive"),
                      SiteNotifier(service, SiteWriter(Path(files.name) / "site"))]
    else:
        notifiers += [RecordingNotifier(name="site"), RecordingNotifier(name="archive")]
    dispatcher = OutboxDispatcher(db, notifiers, node="bench")

    # what each statement and transaction is part of: the deadline run, the outbox's own work
    # (fanning out, claiming, recording) and each notifier's deliveries (what it reads)
    part: contextvars.ContextVar[str] = contextvars.ContextVar("part", default="other")
    counts: dict[str, dict[str, int]] = {}

    def count(what: str) -> None:
        of_part = counts.setdefault(part.get(), {"statements": 0, "transactions": 0})
        of_part[what] += 1

    def statement(_connection, _cursor, text: str, *_) -> None:
        if not text.startswith("BEGIN"):   # (a transaction's control is counted as the transaction)
            count("statements")

    sa.event.listen(db.engine, "before_cursor_execute", statement)
    if os.environ.get("BENCH_STORE_SQL"):
        sa.event.listen(db.engine, "before_cursor_execute",
                        lambda c, cur, stmt, *_: print(part.get(), "|", " ".join(stmt.split())[:150], file=sys.stderr))
    sa.event.listen(db.engine, "commit", lambda *_: count("transactions"))

    @contextlib.contextmanager
    def within(name: str):
        token = part.set(name)
        try:
            yield
        finally:
            part.reset(token)

    def tagged(name: str, method):
        if asyncio.iscoroutinefunction(method):
            async def run_async(*args, **kwargs):
                with within(name):
                    return await method(*args, **kwargs)
            return run_async

        def run(*args, **kwargs):
            with within(name):
                return method(*args, **kwargs)
        return run

    for name, method in (("outbox: fan out", "_claim_new"), ("outbox: fan out", "_write_expansions"),
                         ("outbox: claim", "_claim_timed"), ("outbox: record", "_record_many"),
                         ("outbox: close", "_close_some")):
        setattr(dispatcher, method, tagged(name, getattr(dispatcher, method)))
    for notifier in notifiers:
        notifier.deliver = tagged(f"deliver: {notifier.name}", notifier.deliver)
    with db.engine.connect() as c:
        timers = [row[0] for row in c.execute(sa.text(
            "SELECT id FROM timer WHERE fired_at IS NULL AND kind = 'deadline' ORDER BY id"))]
    counts.clear()
    marks = [time.process_time()]
    with within("deadline run"):
        for timer_id in timers:
            if service.fire_timer(timer_id) != "adjudicated":
                raise RuntimeError(f"timer {timer_id} did not adjudicate its game")
    marks.append(time.process_time())
    asyncio.run(dispatcher.flush())
    marks.append(time.process_time())
    made = sum(len(n.made) for n in notifiers if isinstance(n, RecordingNotifier))
    made += len(timers) * sum(1 for n in notifiers if not isinstance(n, (RecordingNotifier, LogNotifier)))
    db.dispose()
    files.cleanup()
    out: dict[str, float] = {"phases": len(timers), "deliveries_a_phase": round(made / len(timers), 1)}
    out["deadline run: CPU ms"] = round(1000 * (marks[1] - marks[0]) / len(timers), 2)
    out["outbox and deliveries: CPU ms"] = round(1000 * (marks[2] - marks[1]) / len(timers), 2)
    outbox = {what: sum(n[what] for p, n in counts.items() if p != "deadline run")
              for what in ("statements", "transactions")}
    for name, of_part in [("outbox and deliveries", outbox), *sorted(counts.items())]:
        for what in ("statements", "transactions"):
            out[f"{name}: {what}"] = round(of_part[what] / len(timers), 2)
    return out


def job(tree: Path, url: str, games: int, ahead: bool = False, front_ends: bool = False) -> dict[str, float]:
    """:func:`measure` in a process of its own, on ``tree``'s code."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--job", url, "--games", str(games),
                          *(["--ahead"] if ahead else []), *(["--front-ends"] if front_ends else [])],
                         env=env, cwd=str(tree), stdout=subprocess.PIPE, text=True, check=False,
                         stderr=None if os.environ.get("BENCH_STORE_SQL") else subprocess.PIPE)
    if out.returncode != 0:
        raise RuntimeError(f"the measurement on {tree} failed:\n{(out.stderr or '')[-3000:]}")
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
    parser.add_argument("--front-ends", action="store_true",
                        help="deliver to the archive's files and the archive site's pages as a server does "
                             "(their reads counted by notifier; their CPU is in the outbox part's)")
    parser.add_argument("--job", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.job:
        sys.path.insert(0, os.getcwd())
        print(json.dumps(measure(args.job, args.games, args.ahead, args.front_ends)))
        return 0
    sys.path.insert(0, str(ROOT))
    from benchmarks.bench_deadlines import scratch_database

    trees = ([("baseline", args.baseline)] if args.baseline else []) + [("this tree", ROOT)]
    print(f"{args.games} games on {'PostgreSQL' if args.database else 'SQLite'}"
          f"{', read ahead of the lock' if args.ahead else ''}{', with the site and archive' if args.front_ends else ''}"
          f", {args.rounds} rounds (the trees "
          f"in turn; CPU: the least of the rounds); load {os.getloadavg()[0]:.1f}")
    best: dict[str, dict[str, float]] = {}
    for _ in range(args.rounds):
        for label, tree in trees:
            with tempfile.TemporaryDirectory() as tmp:
                if args.database:
                    with scratch_database(args.database) as url:
                        result = job(tree, url, args.games, args.ahead, args.front_ends)
                else:
                    result = job(tree, f"sqlite:///{Path(tmp) / 'store.db'}", args.games, args.ahead,
                                 args.front_ends)
            kept = best.setdefault(label, result)
            for key, value in result.items():
                kept[key] = min(kept.get(key, value), value) if "CPU" in key else value
    for label, tree in trees:
        print(f"  {label} ({tree}):")
        for key, value in best[label].items():
            print(f"    {key}: {value}")
    print(f"  load {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
