"""How long the archive site takes to bring a long game's pages up to date after one season's
results: ``SiteNotifier.update`` of an Outremer game of 40 seasons (the seeded careful random
player's orders, through the service, on SQLite) with one season more than its pages show, its
site put back as it was before each run; the season announced read through the service first, as
the other front ends read it in a server. The process's CPU time (median), and the part of it
that is not the drawing of the board the season left (``after_png``, :mod:`bot.render`'s): the
site's own work.

``--tree DIR`` measures another source tree too (main ``git archive``d into a directory), the same
way, in the same run: each tree in a process of its own, one update of each in turn (the machine's
other work weighs on both alike).

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


def serve(seasons: int) -> None:
    """In this process: the game written up to ``seasons - 1`` seasons, then one update timed for
    each line read from stdin, its times written as a line of JSON (the first line: the number of
    seasons, when ready)."""
    import structlog

    from bot.frontends.site import writer
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
        drawn, draw = [0.0], writer.after_png

        def after_png(*args, **kwargs):
            start = time.process_time()
            try:
                return draw(*args, **kwargs)
            finally:
                drawn[0] += time.process_time() - start

        writer.after_png = after_png  # (timed: the drawing is bot.render's part, the rest the site's)
        print(json.dumps({"seasons": count()}), flush=True)
        for _ in sys.stdin:
            shutil.rmtree(root)
            shutil.copytree(snapshot, root)
            notifier = SiteNotifier(source, SiteWriter(root))
            drawn[0] = 0.0
            start = time.process_time()
            assert notifier.update(game_id, **told)
            cpu = (time.process_time() - start) * 1000
            print(json.dumps({"cpu_ms": cpu, "own_ms": cpu - drawn[0] * 1000}), flush=True)
        db.dispose()
    finally:
        shutil.rmtree(work, ignore_errors=True)


class Tree:
    """:func:`serve` in a process of its own, with ``tree``'s code."""

    def __init__(self, tree: Path, seasons: int) -> None:
        env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{ROOT / 'benchmarks'}"}
        self.process = subprocess.Popen([sys.executable, "-c", f"import bench_site; bench_site.serve({seasons})"],
                                        cwd=tree, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.seasons = self._line()["seasons"]
        self.cpu: list[float] = []
        self.own: list[float] = []

    def _line(self) -> dict:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the benchmark's process ended (exit status {self.process.wait()})")
        return json.loads(line)

    def run(self) -> None:
        """One update, timed."""
        assert self.process.stdin is not None
        self.process.stdin.write("run\n")
        self.process.stdin.flush()
        times = self._line()
        self.cpu.append(times["cpu_ms"])
        self.own.append(times["own_ms"])

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seasons", type=int, default=40)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--tree", type=Path, help="another source tree to measure the same way, in turn")
    args = parser.parse_args()
    labels = [("before", args.tree)] if args.tree else []
    trees = [(label, Tree(tree, args.seasons)) for label, tree in [*labels, ("this tree", ROOT)]]
    try:
        for _ in range(args.runs):
            for _, tree in trees:  # (in turn: the machine's other work weighs on both alike)
                tree.run()
    finally:
        for _, tree in trees:
            tree.close()
    for label, tree in trees:
        print(f"{label}: update of a {tree.seasons}-season game, CPU ms median {statistics.median(tree.cpu):.1f}, "
              f"the site's own (without drawing the board after) {statistics.median(tree.own):.1f} "
              f"(runs {', '.join(f'{t:.1f}' for t in tree.cpu)})")


if __name__ == "__main__":
    main()
