"""``crusader adjudicate`` writes, byte for byte, the results recorded for a corpus of documents.

The corpus (``tests/data/golden/documents.jsonl``, made by ``make_corpus.py`` beside it) holds
seeded games on both maps through every kind of phase, prestige orders, orders in every
notation players and other judges write, bad lines, the DATC cases and documents the judge
refuses. ``results.jsonl`` is what the judge wrote for them. A change that changes a result on
purpose (a better reason, a rule fixed) records the corpus again::

    crusader adjudicate --jsonl tests/data/golden/documents.jsonl > tests/data/golden/results.jsonl

and the commit says which results changed and why.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

from bot.cli.main import main

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"


def test_adjudicate_writes_the_recorded_results_byte_for_byte():
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["adjudicate", "--jsonl", str(GOLDEN / "documents.jsonl")]) == 0
    written = out.getvalue().splitlines()
    expected = (GOLDEN / "results.jsonl").read_text(encoding="utf-8").splitlines()
    documents = (GOLDEN / "documents.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(written) == len(expected) == len(documents)
    for number, (got, want) in enumerate(zip(written, expected), start=1):
        if got != want:
            assert _differences(json.loads(got), json.loads(want)) == [], f"document {number} of the corpus"
            assert got == want, f"document {number}: the same values, written differently"


def _differences(got, want, where: str = "") -> list[str]:
    """Where two result documents differ, as short lines (the whole documents are long)."""
    if isinstance(got, dict) and isinstance(want, dict):
        out = [f"{where}.{k}: only in one" for k in sorted(set(got) ^ set(want))]
        for key in sorted(set(got) & set(want)):
            out += _differences(got[key], want[key], f"{where}.{key}")
        return out
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        out = []
        for i, (a, b) in enumerate(zip(got, want)):
            out += _differences(a, b, f"{where}[{i}]")
        return out
    return [] if got == want else [f"{where}: {got!r} != {want!r}"]
