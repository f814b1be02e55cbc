"""How long the archive site takes to bring a long game's pages up to date after one season's
results: ``SiteNotifier.update`` of an Outremer game of 40 seasons (the seeded careful random
player's orders, through the service, on SQLite) with one season more than its pages show, its
site put back as it was before each run; the season announced read through the service first, as
the other front ends read it in a server. The process's CPU time (median).

``--tree DIR`` measures another source tree too (main ``git archive``d into a directory), the same
way, in the same run: each tree in a process of its own.

Run: ``python benchmarks/bench_site.py [--seasons 40] [--runs 11] [--tree DIR]``.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _played(work: Path, seasons: int):
    """A judge at ``work`` holding a game of ``seasons`` seasons; its database, service and game id."""
    from adjudicator.variant import get_variant
    from bot.codec.documents import position_from_dict
    from bot.store import database
    from tests.conftest import Acre
    from tests.random_play import CAREFUL, random_orders

    acre, variant, rng = Acre(), get_variant("crusader"), random.Random(3)
    db, service = acre.played(work / "judge.db")

    def count() -> int:
        with db.session() as session:
            return len(next(iter(database.site_columns(session)[2].values()), []))

    while count() < seasons:
        with db.session() as session:
            game = database.game_by_name(session, acre.name)
            _, position = position_from_dict({k: v for k, v in game.position.items() if k != "orders"})
            game_id = game.id
        lines: dict[str, list[str]] = {}
        for order in random_orders(rng, variant, position, CAREFUL):
            lines.setdefault(order.power, []).append(str(order))
        for power, text in lines.items():
            if power in acre.players:
                service.submit_orders(acre.name, acre.players[power], "\n".join(text))
        service.force_adjudicate(acre.name, "gm")
    return db, service, game_id, count


def measure(seasons: int, runs: int) -> dict:
    """In this process: the game written up to ``seasons - 1`` seasons and one update timed."""
    import structlog

    from bot.frontends.site.server import SiteNotifier
    from bot.frontends.site.writer import SiteWriter
    from bot.store import database

    structlog.configure(logger_factory=structlog.ReturnLoggerFactory())  # (the phase runs' lines)
    work = Path(tempfile.mkdtemp(prefix="bench-site-"))
    try:
        db, service, game_id, count = _played(work, seasons - 1)
        # (a tree before the notifier read seasons through the service took the database)
        first = list(inspect.signature(SiteNotifier.__init__).parameters)[1]
        source = service if first == "service" else db
        root, snapshot = work / "site", work / "snapshot"
        SiteNotifier(source, SiteWriter(root)).update(game_id)
        shutil.copytree(root, snapshot)
        service.force_adjudicate("acre", "gm")
        with db.session() as session:
            announced = max(database.site_columns(session, game_id)[2][game_id])
        service.season(game_id, announced)  # (read and decoded by the other front ends, as in a server)
        update = inspect.signature(SiteNotifier.update).parameters
        told = {"announced": announced} if "announced" in update else {}
        times = []
        for _ in range(runs):
            shutil.rmtree(root)
            shutil.copytree(snapshot, root)
            notifier = SiteNotifier(source, SiteWriter(root))
            start = time.process_time()
            assert notifier.update(game_id, **told)
            times.append((time.process_time() - start) * 1000)
        db.dispose()
        return {"seasons": count(), "cpu_ms": statistics.median(times), "runs_ms": [round(t, 1) for t in times]}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_tree(tree: Path, seasons: int, runs: int) -> dict:
    """:func:`measure` in a process of its own, with ``tree``'s code."""
    env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{ROOT / 'benchmarks'}"}
    out = subprocess.run([sys.executable, "-c", f"import json, bench_site; print(json.dumps(bench_site.measure("
                          f"{seasons}, {runs})))"], cwd=tree, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seasons", type=int, default=40)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--tree", type=Path, help="another source tree to measure the same way, first")
    args = parser.parse_args()
    trees = [("before", args.tree)] if args.tree else []
    for label, tree in [*trees, ("this tree", ROOT)]:
        r = run_tree(tree, args.seasons, args.runs)
        print(f"{label}: update of a {r['seasons']}-season game, CPU ms median {r['cpu_ms']:.1f} "
              f"(runs {', '.join(map(str, r['runs_ms']))})")


if __name__ == "__main__":
    main()
