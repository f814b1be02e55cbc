"""How long a map picture takes: a season picture, the first picture of a fresh process (with
the picture cache an earlier process wrote, and with none), and ``crusader --help`` (which must
import no picture code). Wall time and, since other work on the machine stretches it, the
process's CPU time.

Run: ``python benchmarks/bench_render.py`` (add ``--rasterisers`` to compare CairoSVG with
resvg-py on the same SVG, after ``pip install resvg-py==0.5.0``; the judge does not depend on it).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

from adjudicator.orders import Convoy, Hold, Move, SupportHold, SupportMove
from adjudicator.opening import starting_position
from adjudicator.results import OrderResult, Outcome
from adjudicator.variant import get_variant
from adjudicator.vocab import Location, Power, UnitType

A, F, L = UnitType.ARMY, UnitType.FLEET, Location.parse


def standard_orders():
    P = Power
    return [
        Move(P("FRA"), A, L("par"), L("bur")), SupportMove(P("FRA"), A, L("mar"), A, L("par"), L("bur")),
        Move(P("FRA"), F, L("bre"), L("mao")), Move(P("GER"), A, L("mun"), L("bur")),
        Hold(P("GER"), A, L("ber")), SupportHold(P("GER"), F, L("kie"), A, L("ber")),
        Move(P("ENG"), A, L("lvp"), L("nwy"), True), Convoy(P("ENG"), F, L("edi"), A, L("lvp"), L("nwy")),
        Move(P("ENG"), F, L("lon"), L("nth")), Move(P("RUS"), F, L("stp/sc"), L("bot")),
        Move(P("RUS"), A, L("mos"), L("ukr")), Move(P("RUS"), A, L("war"), L("gal")),
        Move(P("RUS"), F, L("sev"), L("bla")), Move(P("TUR"), F, L("ank"), L("bla")),
        Move(P("TUR"), A, L("con"), L("bul")), Move(P("TUR"), A, L("smy"), L("arm")),
        Move(P("AUS"), A, L("vie"), L("gal")), Move(P("AUS"), A, L("bud"), L("ser")),
        Move(P("AUS"), F, L("tri"), L("alb")), Move(P("ITA"), A, L("ven"), L("tyr")),
        Move(P("ITA"), A, L("rom"), L("apu")), Move(P("ITA"), F, L("nap"), L("ion")),
    ]


def season():
    variant = get_variant("standard")
    results = [OrderResult(o, Outcome.FAILS if i % 3 == 0 else Outcome.SUCCEEDS)
               for i, o in enumerate(standard_orders())]
    return variant, starting_position(variant), results


def timed(fn, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


_FRESH = """
import sys, time
start, cpu = time.perf_counter(), time.process_time()
from pathlib import Path
from bot.render import cache
cache.FOLDER = Path(sys.argv[1])
from benchmarks.bench_render import season
from bot.render.season import season_picture
variant, position, results = season()
season_picture(variant, position, results)
print((time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000)
"""


def fresh_process(runs: int = 5, *, cached: bool = True) -> list[tuple[float, float]]:
    """The first season picture of a new process, imports included (the interpreter's start is
    not), as (wall, CPU) milliseconds: with the picture cache (:mod:`bot.render.cache`) written by
    an earlier process, or with none (the first picture ever drawn on the machine)."""
    import tempfile

    root = Path(__file__).resolve().parent.parent
    out = []
    with tempfile.TemporaryDirectory() as folder:
        def run(where: str) -> tuple[float, float]:
            line = subprocess.run([sys.executable, "-c", _FRESH, where], cwd=root, capture_output=True, text=True,
                                  check=True).stdout.split()
            return float(line[0]), float(line[1])

        if cached:
            run(folder)  # writes the cache
        for i in range(runs):
            out.append(run(folder if cached else str(Path(folder) / f"empty-{i}")))
    return out


def crusader_help(runs: int = 5) -> list[float]:
    script = Path(sys.executable).with_name("crusader")
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([str(script), "--help"], capture_output=True, check=True)
        out.append((time.perf_counter() - start) * 1000)
    return out


def rasterisers(runs: int = 10) -> None:
    import cairosvg
    import resvg_py

    from bot.render import render_svg

    variant, position, results = season()
    svg = render_svg(variant, position, results=results)
    for label, fn in (("CairoSVG", lambda: cairosvg.svg2png(bytestring=svg.encode())),
                      ("resvg-py", lambda: resvg_py.svg_to_bytes(svg_string=svg))):
        fn()
        times = timed(fn, runs)
        print(f"{label}, the whole picture as vectors: median {statistics.median(times):.1f} ms")


def main(runs: int = 20) -> None:
    from bot.render.season import season_picture

    variant, position, results = season()
    season_picture(variant, position, results)  # the map's unchanging layers, once per process
    times = timed(lambda: season_picture(variant, position, results), runs)
    cpu = time.process_time()
    for _ in range(runs):
        season_picture(variant, position, results)
    cpu = (time.process_time() - cpu) * 1000 / runs
    print(f"season picture, {len(results)} orders: median {statistics.median(times):.1f} ms (CPU {cpu:.1f} ms "
          f"a picture), max {max(times):.1f} ms over {runs} runs")
    for cached in (True, False):
        first = fresh_process(cached=cached)
        wall, cpu = [w for w, _ in first], [c for _, c in first]
        print(f"first picture in a fresh process, {'the cache written' if cached else 'no cache'}: median "
              f"{statistics.median(wall):.0f} ms (CPU {statistics.median(cpu):.0f} ms), max {max(wall):.0f} ms")
    helps = crusader_help()
    print(f"crusader --help: median {statistics.median(helps):.0f} ms, max {max(helps):.0f} ms")
    if "--rasterisers" in sys.argv:
        rasterisers()


if __name__ == "__main__":
    main()
