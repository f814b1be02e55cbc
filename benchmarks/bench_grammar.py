"""Speed of reading orders: µs per order line, short and long notations, good and bad.

The players' grammar (``grammar.parse_order``) on short notations, prose and prestige orders,
lines with an error, a whole message; and the strict reader of the judge's own notation
(``adjudicator.notation.read_order``), which reads the orders of the documents it writes.
Run: ``python benchmarks/bench_grammar.py [--repeat 5]``. Each figure is the median of the
runs over the whole sample. ``--instructions`` counts CPU instructions per line instead
(valgrind's callgrind, which must be installed): the same on every run, where seconds drift
with the machine.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from adjudicator.variant import get_variant
from grammar import parse_message, parse_order

SHORT = ["A par - bur", "F nth C A lon - nwy", "A mun S A ber - sil", "F stp/nc build", "A mar H",
         "F spa(sc) - wes", "A lon - bel via convoy", "waive", "A par disband", "F tri S F tri"]
PROSE = ["Army Paris moves to Burgundy", "Fleet in the North Sea convoys army London to Norway",
         "F St. Petersburg north coast - Barents Sea", "F Mid-Atlantic Ocean - Spain (north coast)",
         "BRIBE English F English Channel BID 2 F English Channel S F North Sea – London"]
BAD = ["A par - Burgandy", "A par", "A par mvoe bur", "F spa(nc - mao", "VASSAL A nwy"]
MILA = ["A PAR - BUR", "F NTH C A LON - NWY", "A MUN S A BER - SIL", "A LON - BEL VIA", "F STP/SC - BOT",
        "A VEN H", "A MAR S A PAR"]
CANONICAL = ["ENG: A par - bur", "ENG: F nth C A lon - nwy", "ENG: A mun S A ber - sil", "ENG: F stp/nc build",
             "ENG: A mar H", "ENG: A lon - bel via convoy", "ENG: waive", "ENG: A par disband",
             "ENG: F tri S F tri", "ENG: BRIBE A rum BID 1 A rum S A bud - ser"]


def samples(variant) -> dict[str, tuple[Callable[[], None], int]]:
    """Each measure: a function that reads its sample once, and how many lines that is."""
    def lines(sample: list[str], read) -> Callable[[], None]:
        def run() -> None:
            for line in sample:
                try:
                    read(line)
                except ValueError:
                    pass
        return run

    grammar = lambda line: parse_order(line, variant, "ENG")  # noqa: E731
    out = {"short notation": (lines(SHORT, grammar), len(SHORT)),
           "MILA's notation": (lines(MILA, grammar), len(MILA)),
           "prose and prestige": (lines(PROSE, grammar), len(PROSE)),
           "errors": (lines(BAD, grammar), len(BAD))}
    message = "\n".join(SHORT * 3)
    out["message, per line"] = (lambda: parse_message(message, variant, "ENG"), len(SHORT) * 3)
    try:
        from adjudicator.notation import read_order
    except ImportError:     # (a tree without the strict reader, measured for comparison)
        return out
    out["judge's notation (strict reader)"] = (lines(CANONICAL, lambda line: read_order(line, variant)),
                                               len(CANONICAL))
    return out


def per_line(run: Callable[[], None], n_lines: int, repeat: int) -> float:
    """Median µs per line over ``repeat`` rounds of 20 readings of the sample."""
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(20):
            run()
        runs.append((time.perf_counter() - start) / (20 * n_lines))
    return statistics.median(runs) * 1e6


def instructions(names) -> None:
    """``--instructions``: CPU instructions per line of each measure, counted by valgrind's callgrind
    (the difference of a run that reads the sample 20 times and one that only prepares it)."""
    def count(name: str, prepare_only: bool) -> int:
        command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
                   "--count", name] + (["--prepare-only"] if prepare_only else [])
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        return int(re.search(r"Collected : (\d+)", done.stderr).group(1))

    print("| sample | instructions per line (thousands) |")
    print("|---|---:|")
    for name, (_, n_lines) in names.items():
        per_line_count = (count(name, False) - count(name, True)) / (20 * n_lines)
        print(f"| {name} | {per_line_count / 1000:,.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--instructions", action="store_true",
                        help="count CPU instructions per line with valgrind instead of timing")
    parser.add_argument("--count", help=argparse.SUPPRESS)
    parser.add_argument("--prepare-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    variant = get_variant("standard")
    measures = samples(variant)
    for run, _ in measures.values():
        run()   # warm the caches (the parser of the map, the names)
    if args.count:  # one measure, under callgrind (see instructions())
        if not args.prepare_only:
            for _ in range(20):
                measures[args.count][0]()
        return
    if args.instructions:
        instructions(measures)
        return
    for name, (run, n_lines) in measures.items():
        print(f"{name:34} {per_line(run, n_lines, args.repeat):8.1f} µs/line")


if __name__ == "__main__":
    main()
