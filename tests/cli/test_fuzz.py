"""Arbitrary input to `crusader adjudicate` gives a result or a one-line reason, never a crash."""

from __future__ import annotations

import io
import json
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cli.main import main
from tests.budgets import examples

PROVINCES = ["lon", "nth", "par", "bur", "mun", "spa/nc", "spa(sc)", "stp", "bul/ec", "xyz", "NTH", ""]
WORDS = ["A", "F", "-", "->", "S", "C", "H", "via", "convoy", "build", "disband", "waive", "R", "supports",
         "VASSAL", "BRIBE", "BID", "2", "LEND", "SEIZE", "FIEF", "REBEL", "SECURE", "LOYALTY", "to", "hold"]
POWERS = ["ENG", "FRA", "GER", "RUS", "NEU", "XXX", "ANT", "eng", ""]

unit_text = st.builds(lambda p, t, loc: f"{p}: {t} {loc}", st.sampled_from(POWERS), st.sampled_from(["A", "F", "X"]),
                      st.sampled_from(PROVINCES))
order_text = st.builds(lambda p, ws: f"{p}: " + " ".join(ws), st.sampled_from(POWERS),
                       st.lists(st.sampled_from(WORDS + PROVINCES), max_size=8))
json_value = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=10),
                          lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                          max_leaves=10)
document = st.fixed_dictionaries(
    {"variant": st.sampled_from(["standard", "crusader", "chess", 3]),
     "phase": st.sampled_from(["S1901M", "F1901M", "F1901R", "W1901B", "S1101M", "X", "S1901B"]),
     "units": st.lists(unit_text, max_size=6),
     "orders": st.lists(st.one_of(order_text, st.text(max_size=20)), max_size=8)},
    optional={"rules": st.sampled_from([[], ["prestige"], ["nope"], "prestige"]),
              "supply_centers": st.dictionaries(st.sampled_from(PROVINCES), st.sampled_from(POWERS), max_size=3),
              "dislodged": st.lists(st.fixed_dictionaries({"unit": unit_text, "from": st.sampled_from(PROVINCES)}),
                                    max_size=2),
              "standoffs": st.lists(st.sampled_from(PROVINCES), max_size=2),
              "prestige": st.dictionaries(st.sampled_from(POWERS), st.integers(-2, 9), max_size=3),
              "extra": json_value},
)


def run(stdin: str | bytes, capsys, *args) -> tuple[int, str, str]:
    old = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin)) if isinstance(stdin, bytes) else io.StringIO(stdin)
    try:
        code = main(["adjudicate", *args])
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return code, out, err


def check(code: int, out: str, err: str) -> None:
    assert "Traceback" not in err and "internal error" not in err, err
    assert code in (0, 2), (code, err)
    if code == 0:
        result = json.loads(out)
        assert isinstance(result["results"], list) and "position" in result
        for entry in result["results"]:
            assert entry["result"] in ("succeeds", "fails", "invalid")
    else:
        assert out == "" and err.startswith("crusader: ") and err.count("\n") == 1


FUZZ = settings(max_examples=examples(150, 600), deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(st.text(max_size=200))
def test_arbitrary_text(capsys, text):
    check(*run(text, capsys))


@FUZZ
@given(document)
def test_document_like_input(capsys, doc):
    check(*run(json.dumps(doc), capsys))


def _blank(line: bytes) -> bool:
    try:
        return not line.decode("utf-8").strip()
    except UnicodeDecodeError:
        return False


@FUZZ
@given(st.lists(st.one_of(document.map(lambda d: json.dumps(d).encode()), st.text(max_size=40).map(str.encode),
                          st.binary(max_size=40)), max_size=4))
def test_jsonl_never_stops_early(capsys, lines):
    lines = [line.replace(b"\n", b" ").replace(b"\r", b" ") for line in lines]   # any bytes, UTF-8 or not
    code, out, err = run(b"\n".join(lines), capsys, "--jsonl")
    assert code == 0 and "Traceback" not in err, err
    rows = [json.loads(x) for x in out.splitlines()]
    assert len(rows) == len([x for x in lines if not _blank(x)])
    for row in rows:
        assert "error" in row or "results" in row
        assert "internal error" not in row.get("error", "")
