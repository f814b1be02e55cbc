"""1,000 games whose deadlines fall at the same moment: how long until every one is adjudicated
and announced, on SQLite and on PostgreSQL, and how much memory a game costs.

    python benchmarks/bench_deadlines.py                       # SQLite in a temporary directory
    python benchmarks/bench_deadlines.py --database postgresql+psycopg://postgres@127.0.0.1/test
        (on PostgreSQL a throw-away database is created next to the one named, and dropped)
    python benchmarks/bench_deadlines.py --games 200 --workers 2

Each game is the classic map's opening with all seven powers ordered (22 units, the usual
first moves). One game is set up through the service and copied by export/import, so that
every copy has the same deadline. Then ``--workers`` processes run what ``crusader serve``
runs when timers fall due (``GameService.fire_due`` and the outbox dispatcher, delivering to an
in-memory notifier), sharing the database exactly as two servers would. The clock starts when
the workers start and stops when every game has its season and every announcement is delivered.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import resource
import secrets
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.app.logging import configure
from bot.archive.games import export_game, import_game
from bot.service import DeadlinePolicy, GameService
from bot.store.database import Database
from bot.store.outbox import OutboxDispatcher
from tests.notifiers import RecordingNotifier

OPENING = {
    "AUS": "A vie - gal\nA bud - ser\nF tri - alb", "ENG": "F lon - nth\nF edi - nwg\nA lvp - yor",
    "FRA": "A par - bur\nA mar - spa\nF bre - mao", "GER": "A mun - ruh\nA ber - kie\nF kie - den",
    "ITA": "A ven - pie\nA rom - apu\nF nap - ion", "RUS": "A mos - ukr\nA war - gal\nF sev - bla\nF stp/sc - bot",
    "TUR": "A con - bul\nA smy - arm\nF ank - bla",
}


@contextlib.contextmanager
def scratch_database(server_url: str):
    """A throw-away database on the server of ``server_url`` (never the one named there)."""
    name = f"crusader_bench_{secrets.token_hex(4)}"
    admin = sa.create_engine(server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield sa.engine.make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as c:
            c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def set_up(url: str, games: int) -> None:
    db = Database(url)
    db.migrate()
    with db.engine.begin() as c:
        for table in ("orders", "submission", "season", "timer", "outbox", "player"):
            c.execute(sa.text(f"DELETE FROM {table}"))
        c.execute(sa.text("DELETE FROM game"))
    service = GameService(db)
    service.create_game("bench-0000", "standard", "gm", seed=1,
                        policy=DeadlinePolicy(movement=timedelta(hours=1), reminders=()))
    for power in OPENING:
        service.join("bench-0000", f"player-{power}", power)
    service.start("bench-0000", "gm", fill_civil_disorder=True)
    for power, text in OPENING.items():
        assert not service.submit_orders("bench-0000", f"player-{power}", text).rejected
    doc = export_game(db, "bench-0000")
    doc["game"]["deadline_at"] = datetime.now(UTC).isoformat()  # every copy falls due now
    with db.engine.begin() as c:
        c.execute(sa.text("DELETE FROM timer"))
        c.execute(sa.text("UPDATE game SET deadline_at = NULL"))
    for i in range(1, games):
        import_game(db, doc, name=f"bench-{i:04d}")
    with db.session() as s:  # the template game too
        s.exec(sa.text("UPDATE game SET status = 'ended' WHERE name = 'bench-0000'"))
    with db.engine.begin() as c:
        c.execute(sa.text("DELETE FROM outbox"))
    db.dispose()


def worker(url: str, node: str, queue) -> None:
    configure("WARNING")
    db = Database(url)
    service = GameService(db, node=node)
    sink = RecordingNotifier()
    dispatcher = OutboxDispatcher(db, [sink], node=node)
    before = rss_mib()
    adjudicated = 0
    order = "DESC" if int(node[1:]) % 2 else "ASC"  # two workers start from opposite ends
    while True:
        now = datetime.now(UTC)
        with db.session() as s:
            ids = [r[0] for r in s.exec(sa.text(
                f"SELECT id FROM timer WHERE fired_at IS NULL AND kind = 'deadline' AND due_at <= :now "
                f"ORDER BY id {order} LIMIT 50").bindparams(now=now.replace(tzinfo=None) if db.is_sqlite else now))]
        if not ids:
            break
        for timer_id in ids:
            adjudicated += service.fire_timer(timer_id) == "adjudicated"
        asyncio.run(dispatcher.flush())
    asyncio.run(dispatcher.flush())
    queue.put((node, adjudicated, len(sink.delivered), before, rss_mib()))
    db.dispose()


def run(url: str, games: int, workers: int) -> dict:
    t = time.perf_counter()
    set_up(url, games)
    setup_s = time.perf_counter() - t
    queue = multiprocessing.get_context("fork").Queue()
    start = time.perf_counter()
    procs = [multiprocessing.get_context("fork").Process(target=worker, args=(url, f"w{i}", queue))
             for i in range(workers)]
    for p in procs:
        p.start()
    reports = [queue.get() for _ in procs]
    for p in procs:
        p.join()
    elapsed = time.perf_counter() - start
    db = Database(url)
    with db.engine.connect() as c:
        seasons = c.execute(sa.text("SELECT count(*) FROM season")).scalar()
        per_game = c.execute(sa.text("SELECT max(n) FROM (SELECT count(*) AS n FROM season GROUP BY game_id) x")).scalar()
        undelivered = c.execute(sa.text("SELECT count(*) FROM outbox WHERE delivered_at IS NULL")).scalar()
    db.dispose()
    adjudicated = sum(r[1] for r in reports)
    assert seasons == games - 1 == adjudicated and per_game == 1 and undelivered == 0, (seasons, adjudicated, per_game)
    rss_growth = max(r[4] - r[3] for r in reports)
    return {"games": games - 1, "workers": workers, "setup_s": round(setup_s, 1), "elapsed_s": round(elapsed, 2),
            "games_per_s": round((games - 1) / elapsed, 1), "announced": sum(r[2] for r in reports),
            "worker_peak_rss_mib": round(max(r[4] for r in reports), 1),
            "rss_growth_per_game_kib": round(rss_growth * 1024 / max(1, games - 1), 1)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", help="SQLAlchemy URL (default: SQLite in a temporary directory)")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    configure("WARNING")
    with tempfile.TemporaryDirectory() as tmp:
        if args.database:
            with scratch_database(args.database) as url:
                result = run(url, args.games + 1, args.workers)
        else:
            result = run(f"sqlite:///{Path(tmp) / 'bench.db'}", args.games + 1, args.workers)
            result["db_bytes_per_game"] = (Path(tmp) / "bench.db").stat().st_size // args.games
    print(" ".join(f"{k}={v}" for k, v in result.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
