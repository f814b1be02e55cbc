"""How long a map picture takes: SVG and PNG, with a phase's worth of orders.

Run: ``python benchmarks/bench_render.py``. The first render of a variant derives its shapes
(about a second); every later one uses the cached shapes, which is what is timed here.
"""

from __future__ import annotations

import statistics
import time

from adjudicator.orders import Convoy, Hold, Move, SupportHold, SupportMove
from adjudicator.position import starting_position
from adjudicator.results import OrderResult, Outcome
from adjudicator.variant import get_variant
from adjudicator.vocab import Location, Power, UnitType
from bot.render import render_png, render_svg

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


def timed(fn, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def main(runs: int = 20) -> None:
    variant = get_variant("standard")
    position = starting_position(variant)
    orders = standard_orders()
    results = [OrderResult(o, Outcome.FAILS if i % 3 == 0 else Outcome.SUCCEEDS) for i, o in enumerate(orders)]
    start = time.perf_counter()
    render_png(variant, position, results=results)  # shapes and static layers, once per variant
    print(f"first render (derives the map): {(time.perf_counter() - start) * 1000:.0f} ms")
    for label, fn in (("svg", render_svg), ("png", render_png)):
        times = timed(lambda: fn(variant, position, results=results), runs)
        print(f"{label} with {len(orders)} orders: median {statistics.median(times):.1f} ms, "
              f"max {max(times):.1f} ms over {runs} runs")


if __name__ == "__main__":
    main()
