"""Speed of the order grammar: µs per order line, short and long notations, good and bad.

Run: ``python benchmarks/bench_grammar.py [--repeat 5]``. Each figure is the median of the
runs over the whole sample.
"""

from __future__ import annotations

import argparse
import statistics
import time

from adjudicator.variant import get_variant
from grammar import OrderError, parse_message, parse_order

SHORT = ["A par - bur", "F nth C A lon - nwy", "A mun S A ber - sil", "F stp/nc build", "A mar H",
         "F spa(sc) - wes", "A lon - bel via convoy", "waive", "A par disband", "F tri S F tri"]
PROSE = ["Army Paris moves to Burgundy", "Fleet in the North Sea convoys army London to Norway",
         "F St. Petersburg north coast - Barents Sea", "F Mid-Atlantic Ocean - Spain (north coast)",
         "BRIBE English F English Channel BID 2 F English Channel S F North Sea – London"]
BAD = ["A par - Burgandy", "A par", "A par mvoe bur", "F spa(nc - mao", "VASSAL A nwy"]


def per_line(lines: list[str], variant, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(20):
            for line in lines:
                try:
                    parse_order(line, variant, "ENG")
                except OrderError:
                    pass
        runs.append((time.perf_counter() - start) / (20 * len(lines)))
    return statistics.median(runs) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    variant = get_variant("standard")
    for name, lines in (("short notation", SHORT), ("prose and prestige", PROSE), ("errors", BAD)):
        print(f"{name:20} {per_line(lines, variant, args.repeat):8.1f} µs/line")
    message = "\n".join(SHORT * 3)
    runs = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        for _ in range(20):
            parse_message(message, variant, "ENG")
        runs.append((time.perf_counter() - start) / (20 * len(SHORT) * 3))
    print(f"{'message, per line':20} {statistics.median(runs) * 1e6:8.1f} µs/line")


if __name__ == "__main__":
    main()
