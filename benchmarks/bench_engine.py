"""Speed of the rules engine against the `diplomacy` package (MILA's DATC engine).

Both engines adjudicate the same phases: a seeded random-play game is played with the
`diplomacy` package (random legal orders for every unit), and every phase is recorded as a
position document with its orders. Then, in the same run:

- ``mila``: the `diplomacy` package's ``set_orders`` + ``process`` for each phase, and
  ``process`` alone, each timed by itself (the games are loaded at each phase's state, and for
  ``process`` given their orders, before the clock starts: the difference of two medians
  swings too much to be a measurement);
- ``pipeline``: this judge's whole pipeline on the recorded document (parse the JSON document,
  parse every order, validate, adjudicate, write the result JSON);
- ``adjudicate``: this judge's adjudication alone (orders already parsed).

Each is the median of several runs over all phases; results in µs per phase and per order.
Run: ``pip install -e '.[bench]' && python benchmarks/bench_engine.py [--games 3 --years 8]``.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import statistics
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


def _time(fn, repeat: int, prepare=None) -> float:
    """Median seconds of ``repeat`` runs of ``fn`` (given what ``prepare`` makes, made untimed)."""
    runs = []
    for _ in range(repeat):
        arguments = (prepare(),) if prepare else ()
        t0 = time.perf_counter()
        fn(*arguments)
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--years", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    from diplomacy import Game

    from adjudicator.adjudicate import adjudicate
    from adjudicator.variant import get_variant
    from bot.documents import adjudicate_document, position_from_dict
    from grammar import parse_order

    records = []
    for g in range(args.games):
        records.extend(r for r in record_game(1000 + g, args.years) if r["phase"].endswith("M"))
    n_phases = len(records)
    n_orders = sum(len(r["doc"]["orders"]) for r in records)

    docs = [json.dumps(r["doc"]) for r in records]

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

    def pipeline():
        for text in docs:
            json.dumps(adjudicate_document(json.loads(text)))

    variant = get_variant("standard")
    parsed = []
    for r in records:
        _, position = position_from_dict(r["doc"])
        parsed.append((position, [parse_order(o, variant) for o in r["doc"]["orders"]]))

    def adjudicate_only():
        for position, orders in parsed:
            adjudicate(variant, position, orders)

    pipeline()  # warm caches (grammar, variant)
    t_mila_both = _time(mila_set_orders_and_process, args.repeat, lambda: mila_games(False))
    t_mila_process = _time(mila_process, args.repeat, lambda: mila_games(True))
    t_pipe = _time(pipeline, args.repeat)
    t_adj = _time(adjudicate_only, args.repeat)

    def row(name, seconds):
        return f"| {name} | {seconds / n_phases * 1e6:,.0f} | {seconds / n_orders * 1e6:,.1f} |"

    print(f"{n_phases} movement phases, {n_orders} orders, median of {args.repeat} runs\n")
    print("| engine | µs per phase | µs per order |")
    print("|---|---:|---:|")
    print(row("diplomacy 1.1.2: set_orders + process", t_mila_both))
    print(row("diplomacy 1.1.2: process", t_mila_process))
    print(row("Crusader Judge: whole pipeline (JSON, parse, validate, adjudicate, JSON)", t_pipe))
    print(row("Crusader Judge: adjudicate", t_adj))
    print()
    print(f"pipeline speed-up over set_orders + process: {t_mila_both / t_pipe:.1f}x")
    print(f"adjudication speed-up over process: {t_mila_process / t_adj:.1f}x")


if __name__ == "__main__":
    main()
