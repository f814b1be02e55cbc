"""How long a map picture takes, side by side with what it is measured against, in one run:

- a season's picture (the classic map with 22 orders, and the Outremer map in a crowded autumn:
  a season of the game in ``tests/data/exports``), against the floor: that same finished picture
  written as a PNG again (its own pixels put in the map's palette and deflated,
  :func:`bot.render.raster.png`); beside it, Pillow's own PNG writer (zlib, level 3) writing
  those pixels in that palette, as the judge wrote its pictures before; and the board the season
  left, as the archive site draws it (:func:`bot.frontends.site.pictures.after_png`), after its
  season's picture: with the owned land that picture left kept (:meth:`MapLayers.land
  <bot.render.layers.MapLayers.land>`), which each season's picture here is drawn without.
  Each picture is of a game of its own name, as at a deadline each game's title is new;
- the first picture of a fresh process, imports included (the interpreter's start is not), with
  the picture cache an earlier process wrote and with none; and which of cairo's modules it
  imported (none may be);
- ``crusader --help`` against ``python -c pass``.

Wall time and, since other work on the machine stretches it, the process's CPU time (medians).

Run: ``python benchmarks/bench_render.py``.
"""

from __future__ import annotations

import io
import itertools
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from adjudicator.adjudicate import adjudicate
from adjudicator.opening import starting_position
from adjudicator.orders import Convoy, Hold, Move, SupportHold, SupportMove
from adjudicator.variant import get_variant
from adjudicator.vocab import Location, Power, UnitType

ROOT = Path(__file__).resolve().parent.parent
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
    """The classic map's opening with 22 orders, adjudicated: (variant, position, adjudication)."""
    variant = get_variant("standard")
    position = starting_position(variant)
    return variant, position, adjudicate(variant, position, standard_orders())


def crowded(phase: str = "F1102M"):
    """A crowded autumn of a game on the Outremer map (``tests/data/exports``): (variant, position,
    adjudication)."""
    from bot.codec.season import season_from_document

    doc = json.loads((ROOT / "tests" / "data" / "exports" / "crusader-three-years.json").read_text())
    found = season_from_document(next(s for s in doc["seasons"] if s["phase"] == phase), "bench")
    return found.variant, found.position, found.adjudication


def _median_times(fn, runs: int) -> tuple[float, float]:
    """Median wall milliseconds of ``runs`` calls, and CPU milliseconds a call."""
    fn()
    walls = []
    cpu = time.process_time()
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        walls.append((time.perf_counter() - start) * 1000)
    return statistics.median(walls), (time.process_time() - cpu) * 1000 / runs


def pictures(runs: int = 30) -> None:
    from PIL import Image

    from bot.render.layers import map_layers
    from bot.render.raster import png
    from bot.render.season import render_png, season_picture

    games = itertools.count()
    for label, (variant, position, adjudication) in (("classic map, 22 orders", season()),
                                                     ("Outremer map, a crowded autumn", crowded())):
        picture = season_picture(variant, position, adjudication, game="bench")
        finished = Image.open(io.BytesIO(picture))
        finished.load()
        pixels, layers = finished.convert("RGB"), map_layers(variant.name, finished.width)
        zlib_size = len(_pillow_png(finished))

        def floor(pixels=pixels, layers=layers) -> None:
            png(pixels, layers)

        def pillow(pixels=pixels, layers=layers) -> None:
            _pillow_png(pixels.quantize(palette=layers.palette, dither=Image.Dither.NONE))

        def one(v=variant, p=position, a=adjudication, layers=layers) -> None:
            layers._lands.clear()  # a game whose owned land was not drawn lately, as at a deadline
            season_picture(v, p, a, game=f"bench {next(games)}")

        def after(v=variant, a=adjudication) -> None:
            render_png(v, a.position, game=f"bench {next(games)}")

        wall, cpu = _median_times(one, runs)
        after_wall, after_cpu = _median_times(after, runs)
        floor_wall, floor_cpu = _median_times(floor, runs)
        pillow_wall, pillow_cpu = _median_times(pillow, runs)
        print(f"season picture, {label} ({len(picture) // 1000} kB): {wall:.1f} ms (CPU {cpu:.1f} ms); "
              f"the same picture written as a PNG again: {floor_wall:.1f} ms (CPU {floor_cpu:.1f} ms); "
              f"ratio {wall / floor_wall:.2f} (CPU {cpu / floor_cpu:.2f}); "
              f"Pillow's writer (zlib level 3) on the same pixels: {pillow_wall:.1f} ms (CPU {pillow_cpu:.1f} ms, "
              f"{zlib_size // 1000} kB); the board after it: {after_wall:.1f} ms (CPU {after_cpu:.1f} ms)")


def _pillow_png(indexed) -> bytes:
    out = io.BytesIO()
    indexed.save(out, "PNG", compress_level=3)
    return out.getvalue()


_FRESH = """
import sys, time
start, cpu = time.perf_counter(), time.process_time()
from pathlib import Path
from bot.render import cache
cache.FOLDER = Path(sys.argv[1])
from benchmarks.bench_render import season
from bot.render.season import season_picture
variant, position, adjudication = season()
season_picture(variant, position, adjudication)
wall, used = (time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000
cairo = sorted(m for m in sys.modules if "cairo" in m)
print(wall, used, ",".join(cairo) or "-")
"""


def fresh_process(runs: int = 7, *, cached: bool = True) -> list[tuple[float, float, str]]:
    """The first season picture of a new process, imports included (the interpreter's start is
    not), as (wall, CPU) milliseconds and the cairo modules imported: with the picture cache
    (:mod:`bot.render.cache`) written by an earlier process, or with none (the first picture
    ever drawn on the machine)."""
    import tempfile

    out = []
    with tempfile.TemporaryDirectory() as folder:
        def run(where: str) -> tuple[float, float, str]:
            line = subprocess.run([sys.executable, "-c", _FRESH, where], cwd=ROOT, capture_output=True, text=True,
                                  check=True).stdout.split()
            return float(line[0]), float(line[1]), line[2]

        if cached:
            run(folder)  # writes the cache
        for i in range(runs):
            out.append(run(folder if cached else str(Path(folder) / f"empty-{i}")))
    return out


def commands(runs: int = 11) -> None:
    """``crusader --help`` and ``python -c pass``, one after the other, ``runs`` times each."""
    script = Path(sys.executable).with_name("crusader")
    helps, bare = [], []
    for _ in range(runs):
        for argv, into in (([str(script), "--help"], helps), ([sys.executable, "-c", "pass"], bare)):
            start = time.perf_counter()
            subprocess.run(argv, capture_output=True, check=True)
            into.append((time.perf_counter() - start) * 1000)
    h, b = statistics.median(helps), statistics.median(bare)
    print(f"crusader --help: {h:.0f} ms; python -c pass: {b:.0f} ms; difference {h - b:.0f} ms")


def main() -> None:
    pictures()
    for cached in (True, False):
        first = fresh_process(cached=cached)
        wall, cpu = [w for w, _, _ in first], [c for _, c, _ in first]
        cairo = sorted({c for _, _, c in first})
        print(f"first picture in a fresh process, {'the cache written' if cached else 'no cache'}: median "
              f"{statistics.median(wall):.0f} ms (CPU {statistics.median(cpu):.0f} ms), max {max(wall):.0f} ms; "
              f"cairo modules imported: {', '.join(cairo)}")
    commands()


if __name__ == "__main__":
    main()
