"""The command-line contract (docs/cli.md), driven through the real `crusader` entry point."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bot.cli.main import main


def run(args, stdin: str = "", capsys=None):
    """Run `crusader ARGS` in-process; returns (exit code, stdout, stderr)."""
    import io

    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        code = main(args)
    finally:
        sys.stdin = old_stdin
    out, err = capsys.readouterr()
    return code, out, err


def doc(**over):
    base = {"variant": "standard", "phase": "S1901M",
            "units": ["ENG: F lon", "FRA: F bre", "GER: A mun", "GER: A ber"], "orders": []}
    base.update(over)
    return base


def adjudicate(capsys, document, *extra):
    code, out, err = run(["adjudicate", *extra], json.dumps(document), capsys)
    assert code == 0, err
    return json.loads(out)


def test_results_one_per_order_in_input_order(capsys):
    orders = ["ENG: F lon - eng", "FRA: F bre - eng", "GER: A mun - bur", "GER: A ber - kie", "ENG: X"]
    result = adjudicate(capsys, doc(orders=orders))
    assert [r["order"] for r in result["results"]] == orders
    assert [r["result"] for r in result["results"]] == ["fails", "fails", "succeeds", "succeeds", "invalid"]
    assert result["results"][0]["canonical"] == "ENG: F lon - eng"
    assert result["results"][4]["canonical"] is None
    assert result["results"][1]["reason"]  # a sentence the player can act on


def test_next_position_is_a_position_document_ready_to_feed_back(capsys):
    result = adjudicate(capsys, doc(orders=["ENG: F lon - nth", "GER: A mun - bur"]))
    position = result["position"]
    assert position["phase"] == "F1901M"
    assert sorted(position["units"]) == ["ENG: F nth", "FRA: F bre", "GER: A ber", "GER: A bur"]
    assert position["orders"] == []
    position["orders"] = ["GER: A bur - par"]
    again = adjudicate(capsys, position)
    assert again["results"][0]["result"] == "succeeds"
    assert again["position"]["phase"] == "W1901B"
    assert again["position"]["supply_centers"]["par"] == "GER"


def test_retreat_phase_has_dislodged_and_standoffs(capsys):
    d = doc(units=["FRA: A par", "FRA: A mar", "GER: A bur", "GER: A kie", "ENG: A hol"],
            orders=["FRA: A par - bur", "FRA: A mar S A par - bur", "GER: A kie - ruh", "ENG: A hol - ruh"])
    position = adjudicate(capsys, d)["position"]
    assert position["phase"] == "S1901R"
    assert position["dislodged"] == [{"unit": "GER: A bur", "from": "par", "by_convoy": False}]
    assert position["standoffs"] == ["ruh"]
    for retreat, outcome in [("GER: A bur - par", "invalid"), ("GER: A bur - ruh", "invalid"),
                             ("GER: A bur - gas", "succeeds")]:
        position["orders"] = [retreat]
        result = adjudicate(capsys, position)
        assert result["results"][0]["result"] == outcome, (retreat, result["results"][0])
    assert result["position"]["phase"] == "F1901M"
    assert "GER: A gas" in result["position"]["units"]


@pytest.mark.parametrize("bad, needle", [
    ("{", "not valid JSON"),
    ("[]", "JSON object"),
    (json.dumps(doc(variant="chess")), "unknown variant"),
    (json.dumps(doc(units=["ENG: F xyz"])), "unknown province"),
    (json.dumps(doc(colour="red")), "'colour'"),
    (json.dumps(doc(phase="Spring")), "S1901M"),
    (json.dumps(doc(units=["ENG: A nth"])), "cannot stand"),
    (json.dumps(doc(rules=[["prestige"]])), "unknown rule module"),
])
def test_unusable_document_exits_2_with_one_line(capsys, bad, needle):
    code, out, err = run(["adjudicate"], bad, capsys)
    assert code == 2
    assert out == ""
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_jsonl_one_result_per_line_and_errors_inline(capsys):
    lines = [json.dumps(doc(orders=["ENG: F lon - nth"])), "not json", json.dumps(doc(variant="nope")),
             json.dumps(doc(rules=[{}])), json.dumps(doc())]
    code, out, _err = run(["adjudicate", "--jsonl"], "\n".join(lines) + "\n", capsys)
    assert code == 0
    rows = [json.loads(x) for x in out.splitlines()]
    assert len(rows) == 5
    assert rows[0]["results"][0]["result"] == "succeeds"
    assert "error" in rows[1] and "error" in rows[2] and "unknown variant" in rows[2]["error"]
    assert "unknown rule module" in rows[3]["error"] and "results" in rows[4]


def test_file_argument_and_dash(capsys, tmp_path):
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(doc(orders=["ENG: F lon - nth"])))
    code, out, _ = run(["adjudicate", str(path)], "", capsys)
    assert code == 0 and json.loads(out)["results"][0]["result"] == "succeeds"
    code, out, _ = run(["adjudicate", "-"], path.read_text(), capsys)
    assert code == 0 and json.loads(out)["results"][0]["result"] == "succeeds"
    code, _, err = run(["adjudicate", str(tmp_path / "missing.json")], "", capsys)
    assert code == 2 and "cannot read" in err


def test_variant_show_json_shape(capsys):
    code, out, _ = run(["variant", "show", "standard", "--format", "json"], "", capsys)
    assert code == 0
    v = json.loads(out)
    assert v["name"] == "standard" and v["start_phase"] == "S1901M" and v["victory_centers"] == 18
    assert v["powers"]["RUS"]["units"] == ["A mos", "F sev", "F stp/sc", "A war"]
    assert v["provinces"]["spa"]["coasts"] == ["nc", "sc"] and v["provinces"]["spa"]["kind"] == "coast"
    assert v["provinces"]["mun"]["kind"] == "land" and v["provinces"]["nth"]["kind"] == "sea"
    assert ["mao", "spa/nc"] in v["adjacency"]["fleet"]
    pairs = [tuple(p) for p in v["adjacency"]["army"]]
    assert len(pairs) == len({frozenset(p) for p in pairs}), "each pair appears once"


def test_variant_show_unknown_exits_2(capsys):
    code, _, err = run(["variant", "show", "nope", "--format", "json"], "", capsys)
    assert code == 2 and "unknown variant" in err


def test_installed_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "variant", "list"], capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "standard" in proc.stdout


@pytest.mark.parametrize("sort_keys", [False, True])
@pytest.mark.parametrize("pretty", [False, True])
def test_json_output_is_the_standard_librarys_text(pretty, sort_keys):
    """The result is written by orjson for speed, byte for byte as the standard library writes
    it; what orjson refuses (a 70-bit integer, a key that is no string, a lone surrogate) falls
    back to the standard library."""
    from bot.codec.jsontext import json_text
    from bot.codec.documents import adjudicate_document

    result = adjudicate_document(doc(orders=["ENG: F lon - nth", "FRA: F bre - mao", "GER: A mun - bür",
                                             "GER: A ber S A mun - kie", "ENG: F nth - nwy\u2028"]))
    odd = {"big": 2 ** 70, 3: "three", "lone": "\ud800", "nested": [[], {}, {"é": None, "t": True}]}
    for value in (result, odd, []):
        if sort_keys and value is odd:
            value = {str(k): v for k, v in odd.items()}  # (the standard library sorts no keys of two types)
        expected = json.dumps(value, ensure_ascii=False, indent=2 if pretty else None,
                              separators=None if pretty else (",", ":"), sort_keys=sort_keys)
        assert json_text(value, pretty=pretty, sort_keys=sort_keys) == expected
