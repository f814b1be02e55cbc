"""Speed of the rules engine against the `diplomacy` package (MILA's DATC engine).

Both engines adjudicate the same phases: a seeded random-play game is played with the
`diplomacy` package (random legal orders for every unit), and every phase is recorded as a
position document with its orders. Then, in the same run:

- ``mila``: the `diplomacy` package's ``set_orders`` + ``process`` for each phase, and
  ``process`` alone, each timed by itself (the games are loaded at each phase's state, and for
  ``process`` given their orders, before the clock starts: the difference of two medians
  swings too much to be a measurement);
- ``pipeline``: this judge's whole pipeline on the recorded document (parse the JSON document,
  parse every order, validate, adjudicate, write the result JSON), with the orders written in
  this judge's notation (``ENG: A lon - nth``, read by its strict reader, as the documents it
  writes and the service's stored orders are);
- ``pipeline_mila``: the same with the orders as MILA's engine writes them (``ENG: A LON - NTH``,
  ``A LON - BEL VIA``): the same notation in capitals, read by the strict reader in any case
  (MILA's ``VIA`` alone, the canonical ``via convoy``, by the players' grammar);
- ``adjudicate``: this judge's adjudication alone (orders already parsed).

Each is the median of several rounds over all phases, every measure run once per round, one
after the other (the machine's speed drifts: interleaving gives each measure the same drift);
results in µs per phase and per order.
Run: ``pip install -e '.[bench]' && python benchmarks/bench_engine.py [--games 3 --years 8]``.
``--instructions`` counts CPU instructions per phase instead (valgrind's callgrind, which
must be installed): slow, but the same on every run, where seconds drift with the machine.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import re
import statistics
import subprocess
import sys
import time

POWERS = {"AUSTRIA": "AUS", "ENGLAND": "ENG", "FRANCE": "FRA", "GERMANY": "GER", "ITALY": "ITA",
          "RUSSIA": "RUS", "TURKEY": "TUR"}


def _loc(text: str) -> str:
    return text.lower()


def record_game(seed: int, years: int):
    """Play a random game with the `diplomacy` package; return (phase records, MILA saved states)."""
    from diplomacy import Game

    rng = random.Random(seed)
    game = Game()
    records = []
    start_year = 1901
    while not game.is_game_done and int(game.get_current_phase()[1:5]) < start_year + years:
        phase = game.get_current_phase()
        possible = game.get_all_possible_orders()
        orders_by_power = {}
        for power_name, locs in game.get_orderable_locations().items():
            chosen = []
            for loc in locs:
                options = possible.get(loc) or []
                if options:
                    chosen.append(rng.choice(sorted(options)))
            orders_by_power[power_name] = chosen
        snapshot = copy.deepcopy(game.get_state())
        records.append({"phase": phase, "mila_state": snapshot, "orders": orders_by_power,
                        "doc": position_document(game, orders_by_power)})
        for power_name, orders in orders_by_power.items():
            game.set_orders(power_name, orders)
        game.process()
    return records


def position_document(game, orders_by_power) -> dict:
    units, dislodged = [], []
    for power_name, power_units in game.get_units().items():
        code = POWERS[power_name]
        for u in power_units:
            if u.startswith("*"):
                kind, loc = u[1:].split()
                attacker = game._dislodged_unit_attacker(u) if hasattr(game, "_dislodged_unit_attacker") else None
                dislodged.append((code, kind, loc, attacker))
            else:
                kind, loc = u.split()
                units.append(f"{code}: {kind} {_loc(loc)}")
    centers = {}
    for power_name, locs in game.get_centers().items():
        for loc in locs:
            centers[_loc(loc)] = POWERS[power_name]
    phase = game.get_current_phase()
    doc = {"variant": "standard", "phase": phase, "units": units, "supply_centers": centers,
           "orders": [f"{POWERS[p]}: {o}" for p, os in orders_by_power.items() for o in os]}
    return doc


def _mila_game(game_class, state):
    game = game_class()
    game.set_state(state)
    return game


def _time(fn, prepare=None) -> float:
    """Seconds of one run of ``fn`` (given what ``prepare`` makes, made untimed)."""
    arguments = (prepare(),) if prepare else ()
    t0 = time.perf_counter()
    fn(*arguments)
    return time.perf_counter() - t0


def _medians(measures: dict, repeat: int) -> dict[str, float]:
    """Median seconds of each measure over ``repeat`` rounds; each round runs every measure once,
    one after the other, so that all of them see the same state of the machine."""
    runs: dict[str, list[float]] = {name: [] for name in measures}
    for _ in range(repeat):
        for name, (fn, prepare) in measures.items():
            runs[name].append(_time(fn, prepare))
    return {name: statistics.median(values) for name, values in runs.items()}


MEASURES = {"mila_both": "diplomacy 1.1.2: set_orders + process", "mila_process": "diplomacy 1.1.2: process",
            "pipeline": "Crusader Judge: whole pipeline (JSON, parse, validate, adjudicate, JSON), "
                        "orders in the judge's notation",
            "pipeline_mila": "Crusader Judge: whole pipeline, orders in MILA's notation (in capitals)",
            "adjudicate": "Crusader Judge: adjudicate"}


def instructions(args) -> None:
    """``--instructions``: CPU instructions per phase of each measure, counted by valgrind's callgrind.

    Unlike seconds, a count does not drift with the machine. Each measure is counted as the
    difference of two runs of this script under callgrind, one that prepares and runs the
    measure twice and one that only prepares it twice (recording the games, loading the
    states and parsing cost the same in both).
    """
    def count(measure: str, prepare_only: bool) -> int:
        command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
                   "--games", str(args.games), "--years", str(args.years), "--count", measure]
        if prepare_only:
            command.append("--prepare-only")
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        phases[0] = int(re.search(r"phases (\d+)", done.stdout).group(1))
        return int(re.search(r"Collected : (\d+)", done.stderr).group(1))

    phases = [0]
    per_run = {measure: (count(measure, False) - count(measure, True)) / 2 for measure in MEASURES}
    per_phase = {measure: n / phases[0] for measure, n in per_run.items()}
    print(f"{phases[0]} movement phases; CPU instructions counted by callgrind\n")
    print("| engine | instructions per phase (thousands) |")
    print("|---|---:|")
    for measure, name in MEASURES.items():
        print(f"| {name} | {per_phase[measure] / 1000:,.0f} |")
    print()
    print(f"pipeline: {per_phase['mila_both'] / per_phase['pipeline']:.1f}x fewer instructions than set_orders + process")
    print(f"adjudication: {per_phase['mila_process'] / per_phase['adjudicate']:.1f}x fewer instructions than process")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--years", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--instructions", action="store_true",
                        help="count CPU instructions per phase with valgrind instead of timing")
    parser.add_argument("--count", choices=MEASURES, help=argparse.SUPPRESS)
    parser.add_argument("--prepare-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.instructions:
        instructions(args)
        return

    from diplomacy import Game

    from adjudicator.adjudicate import adjudicate
    from adjudicator.orders import canonical
    from adjudicator.variant import get_variant
    from bot.cli.common import json_text
    from bot.codec.documents import adjudicate_document, position_from_dict
    from grammar import parse_order

    records = []
    for g in range(args.games):
        records.extend(r for r in record_game(1000 + g, args.years) if r["phase"].endswith("M"))
    n_phases = len(records)
    n_orders = sum(len(r["doc"]["orders"]) for r in records)

    # The documents as MILA's engine writes the orders (``A LON - NTH``: the canonical notation in capitals),
    # and as this judge writes them (``ENG: A lon - nth``: read by its strict reader), as the
    # service's stored orders and a judge's own result documents are.
    variant = get_variant("standard")
    docs_mila = [json.dumps(r["doc"]) for r in records]
    docs = [json.dumps({**r["doc"], "orders": [canonical(parse_order(o, variant)) for o in r["doc"]["orders"]]})
            for r in records]

    def mila_games(with_orders: bool) -> list:
        """Fresh ``diplomacy`` games at each recorded phase (not timed), with or without their orders."""
        games = []
        for r in records:
            game = _mila_game(Game, r["mila_state"])
            if with_orders:
                for power_name, orders in r["orders"].items():
                    game.set_orders(power_name, orders)
            games.append(game)
        return games

    def mila_set_orders_and_process(games: list) -> None:
        for game, r in zip(games, records):
            for power_name, orders in r["orders"].items():
                game.set_orders(power_name, orders)
            game.process()

    def mila_process(games: list) -> None:
        for game in games:
            game.process()

    def pipeline(texts=docs):
        for text in texts:
            json_text(adjudicate_document(json.loads(text)))  # as `crusader adjudicate` reads and writes

    def pipeline_mila():
        pipeline(docs_mila)

    parsed = []
    for r in records:
        _, position = position_from_dict(r["doc"])
        parsed.append((position, [parse_order(o, variant) for o in r["doc"]["orders"]]))

    def adjudicate_only():
        for position, orders in parsed:
            adjudicate(variant, position, orders)

    pipeline()  # warm caches (grammar, variant)
    pipeline_mila()
    measures = {"mila_both": (mila_set_orders_and_process, lambda: mila_games(False)),  # (run, made untimed)
                "mila_process": (mila_process, lambda: mila_games(True)),
                "pipeline": (pipeline, None), "pipeline_mila": (pipeline_mila, None),
                "adjudicate": (adjudicate_only, None)}
    if args.count:  # one measure, under callgrind (see instructions())
        fn, prepare = measures[args.count]
        print(f"phases {n_phases}")
        for _ in range(2):
            prepared = (prepare(),) if prepare else ()
            if not args.prepare_only:
                fn(*prepared)
        return
    medians = _medians(measures, args.repeat)
    t_mila_both, t_mila_process = medians["mila_both"], medians["mila_process"]
    t_pipe, t_mila_notation, t_adj = medians["pipeline"], medians["pipeline_mila"], medians["adjudicate"]

    def row(name, seconds):
        return f"| {name} | {seconds / n_phases * 1e6:,.0f} | {seconds / n_orders * 1e6:,.1f} |"

    print(f"{n_phases} movement phases, {n_orders} orders, median of {args.repeat} runs\n")
    print("| engine | µs per phase | µs per order |")
    print("|---|---:|---:|")
    for measure, name in MEASURES.items():
        print(row(name, medians[measure]))
    print()
    print(f"pipeline speed-up over set_orders + process: {t_mila_both / t_pipe:.1f}x "
          f"(orders in MILA's notation: {t_mila_both / t_mila_notation:.1f}x)")
    print(f"adjudication speed-up over process: {t_mila_process / t_adj:.1f}x")

if __name__ == "__main__":
    main()
