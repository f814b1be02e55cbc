"""``crusader picture``: the picture the judge posts, from the contract's documents."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image

from bot.cli.common import Exit
from bot.cli.main import main
from bot.codec.documents import adjudicate_position, new_game_document

ORDERS = ["FRA: A par - bur", "GER: A mun - bur", "FRA: A mar S A par - bur", "ENG: F lon - nth",
          "ITA: A ven flies to the moon"]


@pytest.fixture
def position():
    doc = new_game_document("standard")
    doc["orders"] = ORDERS
    return doc


def _png(data: bytes) -> Image.Image:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    return Image.open(io.BytesIO(data))


def test_a_position_with_its_orders(position, tmp_path):
    (tmp_path / "p.json").write_text(json.dumps(position))
    assert main(["picture", str(tmp_path / "p.json"), "-o", str(tmp_path / "p.png")]) == Exit.OK
    assert _png((tmp_path / "p.png").read_bytes()).width == 1000


def test_with_the_result_it_is_the_picture_the_judge_posts(position, tmp_path):
    from bot.render.season import season_picture

    variant, before, adjudication, result = adjudicate_position(position)
    (tmp_path / "p.json").write_text(json.dumps(position))
    (tmp_path / "r.json").write_text(json.dumps(result))
    out = tmp_path / "out.png"
    assert main(["picture", str(tmp_path / "p.json"), "--result", str(tmp_path / "r.json"), "--game", "lemberg",
                 "-o", str(out)]) == Exit.OK
    assert out.read_bytes() == season_picture(variant, before, adjudication, game="lemberg")
    assert main(["picture", str(tmp_path / "p.json"), "-o", str(tmp_path / "plain.png")]) == Exit.OK
    assert (tmp_path / "plain.png").read_bytes() != out.read_bytes()   # the outcome is drawn, not only the orders


def test_many_in_one_process_a_bad_line_costs_only_itself(position, tmp_path, capsys, monkeypatch):
    _, _, _, result = adjudicate_position(position)
    lines = [json.dumps(position), json.dumps({"position": position, "result": result}), "{not json",
             json.dumps({"variant": "atlantis", "phase": "S1901M", "units": []}), json.dumps(position)]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    out = tmp_path / "many"
    assert main(["picture", "--jsonl", "--out-dir", str(out)]) == Exit.OK
    assert sorted(p.name for p in out.iterdir()) == ["000001.png", "000002.png", "000005.png"]
    errors = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [e["line"] for e in errors] == [3, 4]
    assert "not valid JSON" in errors[0]["error"] and "atlantis" in errors[1]["error"]
    assert (out / "000001.png").read_bytes() == (out / "000005.png").read_bytes()


def test_a_document_that_cannot_be_used_exits_2_with_one_line(position, tmp_path, capsys):
    (tmp_path / "bad.json").write_text(json.dumps({"variant": "atlantis", "phase": "S1901M", "units": []}))
    assert main(["picture", str(tmp_path / "bad.json"), "-o", str(tmp_path / "x.png")]) == Exit.BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith("crusader: ") and "atlantis" in err and err.count("\n") == 1
    (tmp_path / "p.json").write_text(json.dumps(position))
    (tmp_path / "r.json").write_text(json.dumps({"results": "none"}))
    assert main(["picture", str(tmp_path / "p.json"), "--result", str(tmp_path / "r.json"),
                 "-o", str(tmp_path / "x.png")]) == Exit.BAD_INPUT
    assert "result document" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_a_picture_goes_to_standard_output_but_not_to_a_terminal(position, tmp_path, capsysbinary, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(position)))
    assert main(["picture"]) == Exit.OK
    assert _png(capsysbinary.readouterr().out).width == 1000
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(position)))
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    assert main(["picture"]) == Exit.BAD_INPUT
    assert "-o FILE.png" in capsysbinary.readouterr().err.decode()
