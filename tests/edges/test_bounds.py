"""Every input is bounded, with a clear message, at every edge: the command line's documents
(numbers, orders, text, nesting, years), a message of orders from any front end (lines, line
length, characters that are not text), the archive site's addresses, player names."""

from __future__ import annotations

import asyncio
import io
import json
import sys
import time
import tracemalloc

import pytest

from bot.cli.main import main
from bot.service import GameService, ServiceError
from bot.store import database
from bot.store.outbox import OutboxDispatcher
from tests.notifiers import RecordingNotifier

# Times below are this process's CPU time, which other work on the machine does not stretch: a
# bound of 10 s where a few milliseconds are spent catches an input that costs in proportion to
# something it should not, without failing on a busy machine.
BASE = {"variant": "standard", "phase": "S1901M", "units": ["ENG: F lon", "FRA: A par"], "orders": []}
GIANT = "9" * 5000  # more digits than Python turns into an integer (4300)


def crusader(capsys, *args: str, stdin: str | bytes = "") -> tuple[int, str, str]:
    old = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin if isinstance(stdin, bytes) else stdin.encode("utf-8",
                                                                                                  "surrogatepass")))
    try:
        code = main(list(args))
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return code, out, err


@pytest.mark.parametrize("text, message", [
    ('{"variant": "standard", "phase": "S1901M", "units": [], "seed": ' + GIANT + '}', "number too long to read"),
    ('{"variant": "standard", "phase": "S1901M", "units": [], "orders": ["ENG: F lon - \\ud800"]}',
     "half of a UTF-16 surrogate pair"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    (json.dumps({**BASE, "rules": ["prestige"], "prestige": {"ENG": 10**40}}), "from 0 to 1,000,000,000"),
    (json.dumps({**BASE, "rules": ["prestige"], "seed": 2**70}), "seed: must be a whole number"),
    (json.dumps({**BASE, "phase": "W9999B"}), "five digits"),
])
def test_a_document_beyond_a_bound_is_refused_with_a_reason(capsys, text, message):
    code, out, err = crusader(capsys, "adjudicate", stdin=text)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1, err


def test_bytes_that_are_not_utf8_on_standard_input_are_refused(capsys):
    code, _out, err = crusader(capsys, "adjudicate", stdin=b'{"variant": "\xff"}')
    assert code == 2 and "standard input is not UTF-8 text" in err


def test_a_jsonl_stream_goes_on_past_a_line_it_cannot_read(capsys):
    lines = ['{"variant": "standard", "seed": ' + GIANT + "}", '["\\udc00"]', "[" * 5000,
             json.dumps({**BASE, "phase": "W9999B"}), json.dumps(BASE)]
    code, out, _err = crusader(capsys, "adjudicate", "--jsonl", stdin="\n".join(lines) + "\n")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(rows) == 5
    assert [("error" in r) for r in rows] == [True, True, True, True, False]
    assert rows[-1]["position"]["phase"] == "F1901M"


@pytest.mark.parametrize("where", ["stdin", "file"])
def test_a_jsonl_line_that_is_not_utf8_is_an_error_line_and_the_rest_go_on(capsys, tmp_path, where):
    data = b"\n".join([json.dumps(BASE).encode(), b'{"variant": "st\xffandard"}', b"\xc3", json.dumps(BASE).encode(),
                       b""])
    args = ["adjudicate", "--jsonl"]
    if where == "file":
        (tmp_path / "many.jsonl").write_bytes(data)
        code, out, err = crusader(capsys, *args, str(tmp_path / "many.jsonl"))
    else:
        code, out, err = crusader(capsys, *args, stdin=data)
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and err == "" and len(rows) == 4
    assert rows[1] == {"error": "line 2 is not UTF-8 text (byte 16)"} and rows[2] == {"error": "line 3 is not UTF-8 text (byte 1)"}
    assert rows[0]["position"]["phase"] == rows[3]["position"]["phase"] == "F1901M"


@pytest.mark.parametrize("order", ["BYZ: SECURE LOYALTY BID " + GIANT, "BYZ: LEND ANT " + GIANT,
                                   "BYZ: A con - " + "x" * 10_000_000])
def test_an_order_too_long_is_one_invalid_order_among_the_others(capsys, order):
    doc = {"variant": "crusader", "phase": "S1101M", "units": ["BYZ: A con", "BYZ: F nic"],
           "orders": [order, "BYZ: F nic H"]}
    tracemalloc.start()
    started = time.process_time()
    code, out, _err = crusader(capsys, "adjudicate", stdin=json.dumps(doc))
    took = time.process_time() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    result = json.loads(out)
    assert code == 0
    bad, good = result["results"]
    assert bad["result"] == "invalid" and "an order has at most 300" in bad["reason"]
    assert good["result"] == "succeeds"
    assert took < 10 and peak < 20 * len(json.dumps(doc)) + 50_000_000  # a few copies of the input, no more


def test_crusader_parse_reads_no_line_beyond_the_bound_and_says_so(capsys):
    text = "A par - bur\n" + "A mar - spa " * 1_000_000 + "\n" + "\n".join(["A bre H"] * 500)
    started = time.process_time()
    code, out, _err = crusader(capsys, "parse", "--variant", "standard", "--power", "FRA", stdin=text)
    assert time.process_time() - started < 10
    assert code == 1
    assert "line 2: not read: the line is 12,000,000 characters long; a line of orders has at most 300" in out
    assert "line 401: not read: 102 more line(s) not read" in out


def test_the_last_year_the_notation_writes(capsys):
    for phase, following in (("S9999M", "F9999M"), ("F9999M", "W9999B")):
        code, out, _err = crusader(capsys, "adjudicate", stdin=json.dumps({**BASE, "phase": phase}))
        assert code == 0 and json.loads(out)["position"]["phase"] == following


# -- a message of orders, whichever front end it came through ---------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def service(request, tmp_path):
    from bot.store.database import Database

    db = (Database.sqlite_file(tmp_path / "judge.db") if request.param == "sqlite"
          else Database(request.getfixturevalue("pg_url")))
    db.migrate()
    service = GameService(db)
    service.create_game("bounded", "standard", "gm", seed=1)
    service.join("bounded", "flo", "FRA")
    service.start("bounded", "gm", fill_civil_disorder=True)
    yield service
    db.dispose()


def test_a_line_too_long_is_refused_and_the_other_lines_are_read(service):
    text = "A par - bur\n" + "F bre - mao " * 900_000 + "\nA mar - spa\n"
    started = time.process_time()
    report = service.submit_orders("bounded", "flo", text)
    assert time.process_time() - started < 10
    assert [line.written for line in report.accepted] == ["A par - bur", "A mar - spa"]
    [refused] = report.rejected
    assert refused.written.startswith("F bre - mao") and len(refused.written) < 50
    assert refused.reason == "the line is 10,800,000 characters long; a line of orders has at most 300"
    with service.db.session() as session:
        [stored] = database.submissions_of(session, service.entry("bounded").id)
    assert stored.text == f"A par - bur\n{refused.written}\nA mar - spa\n"  # the line's start, not its 10 MB


def test_lines_past_the_last_one_read_are_counted_not_read(service):
    text = "\n".join(["A par H"] * 399 + ["A mar - spa"] + ["F bre - mao"] * 600)
    report = service.submit_orders("bounded", "flo", text)
    assert [line.written for line in report.accepted][-1] == "A mar - spa"
    [refused] = report.rejected
    assert refused.reason.startswith("600 more line(s) not read: a message is read up to its 400th line")
    assert len(report.accepted) == 400


def test_characters_that_are_not_text_are_stored_and_echoed_as_replacement_characters(service):
    report = service.submit_orders("bounded", "flo", "A par - bur\x00\nA mar - spa \ud800\nF bre - mao\n")
    assert [line.written for line in report.accepted] == ["F bre - mao"]
    assert [line.written for line in report.rejected] == ["A par - bur\ufffd", "A mar - spa \ufffd"]
    with service.db.session() as session:
        [stored] = database.submissions_of(session, service.entry("bounded").id)
    assert stored.text == "A par - bur\ufffd\nA mar - spa \ufffd\nF bre - mao\n"


def test_a_player_name_too_long_is_refused_on_every_database(service):
    with pytest.raises(ServiceError, match="at most 200 characters"):
        service.create_game("other", "standard", "g" * 300)
    service.create_game("other", "standard", "gm")
    with pytest.raises(ServiceError, match="at most 200 characters"):
        service.join("other", "p" * 5000, "ENG")


def test_a_game_reaching_the_last_phase_the_notation_writes_ends_there(service):
    game = service.entry("bounded")
    with service.db.session() as session:  # as if eight thousand years had gone by
        row = session.get(database.GameRow, game.id)
        row.position = {**row.position, "phase": "W9999B"}
        row.phase = "W9999B"
        session.add(row)
    service.force_adjudicate("bounded", "gm")
    view = service.status("bounded")
    assert view.status == "ended" and view.phase == "W9999B" and view.outcome["calendar"]
    sink = RecordingNotifier()
    asyncio.run(OutboxDispatcher(service.db, [sink]).flush())
    [ended] = sink.of_kind("ended")
    assert "the calendar has run out: W9999B is the last phase" in ended.body


# -- the archive site --------------------------------------------------------------------------------


async def test_the_site_answers_a_nul_byte_or_an_endless_address_with_not_found(tmp_path):
    from aiohttp.test_utils import TestClient, TestServer

    from bot.frontends.site.server import site_app

    (tmp_path / "index.html").write_text("<h1>games</h1>")
    async with TestClient(TestServer(site_app(tmp_path))) as client:
        assert (await client.get("/")).status == 200
        for path in ("/a%00b", "/%00", "/x" * 3000, "/%ED%A0%80", "/../etc/passwd"):
            response = await client.get(path)
            assert response.status == 404, path
