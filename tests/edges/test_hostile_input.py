"""Fuzzing with budgets, one test per entry point: ``crusader adjudicate`` (a document: any text,
documents of plausible shape, hostile ones with giant integers, halves of surrogate pairs, deep
nesting, endless lines), ``crusader adjudicate --jsonl`` (any bytes, a line at a time), a message
of orders to the service, a duration or deadline, a game's name. Each input gets an answer (a
result, or a one-line reason) within a budget of CPU time and memory. ``--slow`` (``.ci/run``)
tries many more examples than the default run (``tests/budgets.py``)."""

from __future__ import annotations

import io
import json
import sys
import time
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cli.main import main
from bot.service import GameService, ServiceError
from bot.store import database
from bot.store.database import Database
from tests.budgets import examples

SECONDS = 10.0  # of this process's CPU per input (other work on the machine does not count)
BYTES = 64_000_000  # traced memory per input, beyond the input itself

FUZZ = settings(max_examples=examples(40, 300), deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])

digits = st.integers(1, 6000).map(lambda n: "7" * n)
surrogate = st.integers(0xD800, 0xDFFF).map(lambda c: f"\\u{c:04x}")
pair = st.tuples(st.integers(0xD800, 0xDBFF), st.integers(0xDC00, 0xDFFF)).map(lambda p: f"\\u{p[0]:04x}\\u{p[1]:04x}")
long_text = st.integers(0, 3_000_000).map(lambda n: "A par - bur " * (n // 12))
order = st.one_of(long_text, st.text(max_size=30), st.tuples(st.sampled_from(
    ["FRA: SECURE LOYALTY BID ", "FRA: LEND ENG ", "FRA: VASSAL A bel BID ", "FRA: A par - "]), digits).map("".join))


def hostile_document() -> st.SearchStrategy[str]:
    """JSON text of a position document with one hostile part."""
    base = {"variant": "standard", "phase": "S1901M", "units": ["FRA: A par", "ENG: F lon"], "orders": ["FRA: A par H"]}
    plain = json.dumps(base)[:-1]
    return st.one_of(
        digits.map(lambda d: plain + f', "seed": {d}}}'),
        digits.map(lambda d: json.dumps({**base, "rules": ["prestige"]})[:-1] + f', "prestige": {{"FRA": {d}}}}}'),
        st.lists(st.one_of(surrogate, pair, st.just("x")), min_size=1, max_size=6).map(
            lambda parts: plain.replace('"FRA: A par H"', f'"FRA: A par {"".join(parts)}"') + "}"),
        st.integers(1, 20_000).map(lambda n: "[" * n + "]" * n),
        st.integers(1, 20_000).map(lambda n: '{"a":' * n + "1" + "}" * n),
        st.lists(order, max_size=4).map(lambda orders: json.dumps({**base, "orders": orders})),
        st.sampled_from(["S9999M", "F9999M", "W9999B", "S10000M", "W0B", "F-1M"]).map(
            lambda phase: json.dumps({**base, "phase": phase})),
    )


# documents of plausible shape, with parts of every kind wrong
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



def measured(run):
    tracemalloc.start()
    started = time.process_time()
    try:
        value = run()
    finally:
        took = time.process_time() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return value, took, peak


def adjudicate(stdin: str | bytes, capsys, *args: str) -> tuple[int, str, str]:
    old = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin if isinstance(stdin, bytes) else stdin.encode("utf-8")))
    try:
        code = main(["adjudicate", *args])
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return code, out, err


@FUZZ
@given(st.one_of(hostile_document(), st.text(max_size=200), document.map(json.dumps)))
def test_any_document_gets_a_result_or_a_one_line_reason_within_budget(capsys, text):
    (code, out, err), took, peak = measured(lambda: adjudicate(text, capsys))
    assert "Traceback" not in err and "internal error" not in err, err[:500]
    assert code in (0, 2), (code, err[:500])
    if code == 2:
        assert out == "" and err.startswith("crusader: ") and err.count("\n") == 1
    else:
        result = json.loads(out)
        assert isinstance(result["results"], list) and "position" in result
        assert {entry["result"] for entry in result["results"]} <= {"succeeds", "fails", "invalid"}
    assert took < SECONDS, took
    assert peak < BYTES + 12 * len(text), peak


def _blank(line: bytes) -> bool:
    try:
        return not line.decode("utf-8").strip()
    except UnicodeDecodeError:
        return False


@FUZZ
@given(st.lists(st.one_of(hostile_document().map(str.encode), document.map(lambda d: json.dumps(d).encode()),
                          st.text(max_size=40).map(str.encode), st.binary(max_size=40)), min_size=1, max_size=4))
def test_a_jsonl_stream_answers_every_line_within_budget(capsys, lines):
    lines = [line.replace(b"\n", b" ").replace(b"\r", b" ") for line in lines]   # any bytes, UTF-8 or not
    (code, out, err), took, _peak = measured(lambda: adjudicate(b"\n".join(lines) + b"\n", capsys, "--jsonl"))
    assert code == 0 and "Traceback" not in err, err[:500]
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == len([line for line in lines if not _blank(line)])
    for row in rows:
        assert "error" in row or "results" in row
        assert "internal error" not in row.get("error", "")
    assert took < SECONDS * len(lines)


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    db = Database.sqlite_file(tmp_path_factory.mktemp("hostile") / "judge.db")
    db.migrate()
    service = GameService(db)
    service.create_game("hostile", "standard", "gm", seed=1)
    service.join("hostile", "flo", "FRA")
    service.start("hostile", "gm", fill_civil_disorder=True)
    yield service
    db.dispose()


line = st.one_of(st.text(max_size=40), st.sampled_from(["A par - bur", "F bre - mao", "A mar H", "waive"]),
                 st.integers(0, 200).map(lambda n: "\x00" * n), st.integers(0, 1_000_000).map(lambda n: "x" * n),
                 st.integers(0xD800, 0xDFFF).map(chr), digits.map(lambda d: "A par - bur BID " + d))


@FUZZ
@given(st.lists(line, max_size=500))
def test_a_hostile_message_of_orders_is_read_within_budget_and_stored(service, lines):
    text = "\n".join(lines)
    try:
        report, took, peak = measured(lambda: service.submit_orders("hostile", "flo", text))
    except ServiceError as exc:  # a refusal with its reason is fine; nothing else is
        assert str(exc)
        return
    assert took < SECONDS, took
    assert peak < BYTES + 4 * len(text), peak
    for answer in report.accepted + report.rejected:
        answer.written.encode("utf-8")  # every echo is text
        assert len(answer.written) <= 301
    with service.db.session() as session:
        stored = database.submissions_of(session, service.entry("hostile").id)[-1]
    stored.text.encode("utf-8")
    assert len(stored.text) <= 400 * 301 + 100


hostile_words = st.one_of(
    st.text(max_size=60), digits.map(lambda d: d + "d"), digits.map(lambda d: f"1d{d}h"), digits.map(lambda d: "0." + d + "h"),
    st.integers(0xD800, 0xDFFF).map(lambda c: f"{chr(c)}1h"), st.sampled_from(["١٢h", "１２h", "12ｈ", "1e9h", "nan h", "inf d"]),
    st.integers(0, 200_000).map(lambda n: "1h" * n), st.integers(0, 200).map(lambda n: "\x00" * n + "2d"))


@FUZZ
@given(hostile_words)
def test_a_hostile_duration_or_deadline_is_read_or_refused_with_a_reason_within_budget(text):
    from bot.service import MAX_DURATION, parse_duration, parse_moment

    for read in (parse_duration, parse_moment):
        try:
            value, took, peak = measured(lambda read=read: read(text))
        except ServiceError as exc:  # a refusal that says what would be accepted
            assert str(exc) and len(str(exc)) < 1000
            continue
        assert took < SECONDS and peak < BYTES, (took, peak)
        if read is parse_duration:
            assert value <= MAX_DURATION


@FUZZ
@given(st.one_of(st.text(max_size=120), st.integers(0, 100_000).map(lambda n: "g" * n),
                 st.integers(0xD800, 0xDFFF).map(lambda c: f"game{chr(c)}"), st.just("x\x00y"),
                 st.sampled_from(["x y", "x_y", "X-Y", "../../etc", "' OR 1=1 --", "ｇａｍｅ"])))
def test_a_hostile_game_name_is_taken_or_refused_with_a_reason(service, name):
    try:
        (_, took, _) = measured(lambda: service.create_game(name, "standard", "gm", seed=1))
    except ServiceError as exc:
        assert str(exc) and len(str(exc)) < 1000
        return
    assert took < SECONDS
    assert service.entry(name).name.split() == name.split()  # found by the name as given (spaces made plain)
