"""Speed of the adjudicator alone: the DATC suite, and dense 34-unit classic movement phases.

- ``datc``: every DATC v3.0 case of ``tests/data/datc`` (order lines parsed beforehand), in-process;
- ``phase``: seeded random positions of 34 units on the classic map, every unit with a random
  legal order (moves, supports, convoys), adjudicated by :func:`adjudicate` (checks, resolution,
  next position) and by :func:`resolve_movement` alone.

CPU time (``time.process_time``), best of several runs.
Run: ``python benchmarks/bench_adjudicator.py [--phases 200]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adjudicator.adjudicate import adjudicate
from adjudicator.movement import resolve_movement
from adjudicator.orders import Convoy, Hold, Move, SupportHold, SupportMove
from adjudicator.position import Position
from adjudicator.validate import Board, check
from adjudicator.variant import get_variant
from adjudicator.vocab import Location, Phase, ProvinceKind, Unit, UnitType

V = get_variant("standard")


def best(fn, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        runs.append(time.process_time() - t0)
    return min(runs)


def datc_calls() -> list:
    import tests.engine.test_datc as suite

    calls, real = [], suite.adjudicate
    suite.adjudicate = lambda v, p, o: (calls.append((v, p, o)), real(v, p, o))[1]
    try:
        for case in suite.CASES:
            {"Main": suite._main, "Retreat": suite._retreat, "Build": suite._build}[case.data["phase"]](case.data)
    finally:
        suite.adjudicate = real
    return calls


def random_phase(seed: int, size: int = 34):
    rng = random.Random(seed)
    provinces, powers = sorted(V.provinces), sorted(V.powers)
    units: dict = {}
    while len(units) < size:
        p = rng.choice(provinces)
        kind = V.provinces[p].kind
        t = (UnitType.FLEET if kind is ProvinceKind.SEA else UnitType.ARMY if kind is ProvinceKind.LAND
             else rng.choice(list(UnitType)))
        places = V.fleet_locations(p) if t is UnitType.FLEET else (Location(p),)
        if p in units or not places or not V.province_neighbours(p):
            continue
        units[p] = Unit(rng.choice(powers), t, rng.choice(places))
    position = Position("standard", Phase.parse("F1905M"), tuple(units.values()), V.starting_owners)
    board, orders = Board(V, position), []
    for u in units.values():
        near = sorted(V.province_neighbours(u.province))
        for _ in range(30):
            r, other = rng.random(), units.get(rng.choice(near))
            if r < 0.15:
                order = Hold(u.power, u.type, u.location)
            elif r < 0.6:
                order = Move(u.power, u.type, u.location, Location(rng.choice(near)))
            elif r < 0.75 and other:
                order = SupportHold(u.power, u.type, u.location, other.type, other.location)
            elif r < 0.93 and other:
                order = SupportMove(u.power, u.type, u.location, other.type, other.location, Location(rng.choice(near)))
            else:
                target = rng.choice(list(units.values()))
                order = Convoy(u.power, u.type, u.location, target.type, target.location,
                               Location(rng.choice(provinces)))
            if check(board, order)[1] is None:
                orders.append(order)
                break
    return position, orders


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phases", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    calls = datc_calls()
    t = best(lambda: [adjudicate(v, p, o) for v, p, o in calls], args.repeat)
    print(f"DATC suite: {len(calls)} phases adjudicated in {t * 1e3:.1f} ms")

    phases = [random_phase(seed) for seed in range(args.phases)]
    n = sum(len(o) for _, o in phases)
    t = best(lambda: [adjudicate(V, p, o) for p, o in phases], args.repeat)
    print(f"34-unit movement phase ({n / len(phases):.0f} orders): adjudicate {t / len(phases) * 1e6:.0f} µs")
    checked = []
    for position, orders in phases:
        board = Board(V, position)
        checked.append((position, {o.province: o for o in (check(board, o)[0] for o in orders)}))
    t = best(lambda: [resolve_movement(V, p.units, o) for p, o in checked], args.repeat)
    print(f"34-unit movement phase: resolve_movement alone {t / len(phases) * 1e6:.0f} µs")


if __name__ == "__main__":
    main()
