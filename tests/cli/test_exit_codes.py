"""One set of exit codes for every ``crusader`` command, as ``docs/cli.md`` lists them."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from bot.cli.common import Exit
from bot.cli.main import main

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_the_exit_codes_are_the_documented_ones():
    table = dict(re.findall(r"^  \| (\d) \| (.+) \|$", DOCS.read_text(), re.MULTILINE))
    assert sorted(int(code) for code in table) == sorted(Exit)
    assert (Exit.OK, Exit.FAILED, Exit.BAD_INPUT, Exit.INTERNAL) == (0, 1, 2, 3)
    assert table["3"].startswith("the judge itself failed")


def test_parse_exits_1_when_a_line_is_not_understood(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("A par - bur\nA par flies to the moon\n"))
    assert main(["parse", "--variant", "standard", "--power", "FRA"]) == Exit.FAILED
    monkeypatch.setattr("sys.stdin", io.StringIO("A par - bur\n"))
    assert main(["parse", "--variant", "standard", "--power", "FRA"]) == Exit.OK


@pytest.fixture
def data(tmp_path, capsys):
    data = ["--data-dir", str(tmp_path / "data")]
    assert main(["game", "create", "g", "--variant", "standard", "--gm", "gm", *data]) == Exit.OK
    assert main(["game", "join", "g", "ed", "--power", "ENG", *data]) == Exit.OK
    capsys.readouterr()
    return data


def test_an_action_the_games_state_refuses_exits_1(data, capsys):
    assert main(["game", "resume", "g", *data]) == Exit.FAILED
    assert capsys.readouterr().err == "crusader: game 'g' is forming; this needs it to be paused\n"


def test_a_request_that_is_wrong_in_itself_exits_2(data, capsys):
    assert main(["game", "start", "g", "--fill-civil-disorder", *data]) == Exit.OK
    capsys.readouterr()
    assert main(["game", "extend", "g", "--by", "soon", *data]) == Exit.BAD_INPUT
    assert "--by must be a number and a unit, like 36h" in capsys.readouterr().err
    assert main(["game", "join", "nosuch", "al", *data]) == Exit.BAD_INPUT
    assert "no game 'nosuch'" in capsys.readouterr().err


def test_a_usage_error_exits_2(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["adjudicate", "--no-such-option"])
    assert stop.value.code == Exit.BAD_INPUT


def test_a_bug_exits_3_with_one_line_and_no_traceback(capsys, monkeypatch, tmp_path):
    def broken(doc):
        raise RuntimeError("the engine fell over")

    monkeypatch.setattr("bot.codec.documents.adjudicate_document", broken)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    position = tmp_path / "p.json"
    position.write_text('{"variant": "standard", "phase": "S1901M", "units": []}')
    assert main(["adjudicate", str(position)]) == Exit.INTERNAL
    err = capsys.readouterr().err
    assert err.startswith("crusader: internal error: RuntimeError: the engine fell over (a fault of the judge, not "
                          "of what was asked; its traceback is in ") and err.count("\n") == 1 and "Traceback" not in err
    kept = Path(err.rsplit(" is in ", 1)[1].rstrip(")\n"))
    assert kept.parent == tmp_path and "Traceback" in kept.read_text() and "the engine fell over" in kept.read_text()


def test_a_value_error_in_the_service_is_a_bug_not_bad_input(capsys, monkeypatch, tmp_path):
    """Only the judge's own refusals (CrusaderError) are the user's to fix; any other ValueError is a bug."""
    database = f"sqlite:///{tmp_path / 'j.db'}"
    assert main(["game", "create", "g", "--gm", "gm", "--database", database]) == Exit.OK
    assert capsys.readouterr().err.startswith(f"crusader: made a new judge database at {tmp_path / 'j.db'}")
    assert main(["game", "status", "nothing", "--database", database]) == Exit.BAD_INPUT     # a refusal
    assert capsys.readouterr().err == (f"crusader: no game 'nothing' in the judge's database {tmp_path / 'j.db'}; "
                                       "games there: g\n")

    def broken(self, game):
        raise ValueError("a bug that happens to be a ValueError")

    monkeypatch.setattr("bot.service.GameService.status", broken)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    assert main(["game", "status", "g", "--database", database]) == Exit.INTERNAL
    err = capsys.readouterr().err
    assert err.startswith("crusader: internal error: ValueError: a bug that happens to be a ValueError (a fault of")
