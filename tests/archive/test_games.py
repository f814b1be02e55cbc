"""Archives: the season report, the files written after each results announcement, export and
import of a whole game, and ``crusader verify`` finding every season identical (or not)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from adjudicator.vocab import Location
from adjudicator.prestige.state import state_of
from bot.archive.games import ArchiveWriter, export_game, game_archive, import_game, season_report, verify_export
from bot.cli.main import main
from bot.service import GameService
from bot.store.outbox import OutboxDispatcher
from tests.notifiers import RecordingNotifier

MOVES = [
    {"ed": "F lon - nth\nF edi - nwg\nA lvp - yor", "flo": "A par - bur\nA mar - spa\nF bre - mao",
     "gus": "A mun - ruh\nA ber - kie\nF kie - den"},
    {"ed": "F nth - nwy\nA yor H\nF nwg H", "flo": "A bur - bel\nA spa H\nF mao - por",
     "gus": "A ruh - hol\nA kie H\nF den - swe"},
]


@pytest.fixture
def played(sqlite_db, tmp_path):
    service = GameService(sqlite_db)
    service.create_game("archive", "standard", "gm", seed=11)
    for player, power in (("ed", "ENG"), ("flo", "FRA"), ("gus", "GER")):
        service.join("archive", player, power)
    service.start("archive", "gm", fill_civil_disorder=True)
    for season in MOVES:
        for player, text in season.items():
            report = service.submit_orders("archive", player, text)
            assert not report.rejected, report.to_text()
        assert service.force_adjudicate("archive", "gm") == "adjudicated"
    while service.status("archive").phase.startswith("W"):
        service.force_adjudicate("archive", "gm")
    return service, sqlite_db


def test_every_season_verifies_identical_after_export(played):
    _service, db = played
    doc = json.loads(json.dumps(export_game(db, "archive")))
    checks = verify_export(doc)
    assert [c.phase for c in checks][:2] == ["S1901M", "F1901M"]
    assert all(c.identical for c in checks), checks
    assert doc["seasons"][0]["orders"][0]["text"]  # as written
    assert all(o["canonical"].startswith(("ENG: ", "FRA: ", "GER: ")) for o in doc["seasons"][0]["orders"])


def test_a_tampered_result_is_caught(played):
    _, db = played
    doc = export_game(db, "archive")
    doc["seasons"][1]["result"]["results"][0]["result"] = "fails" \
        if doc["seasons"][1]["result"]["results"][0]["result"] != "fails" else "succeeds"
    checks = verify_export(doc)
    assert checks[0].identical and not checks[1].identical
    assert "results[0].result" in checks[1].detail


def test_import_restores_the_whole_game(played):
    service, db = played
    doc = export_game(db, "archive")
    assert import_game(db, doc, name="archive-copy") == "archive-copy"
    copy = export_game(db, "archive-copy")
    assert copy["seasons"] == doc["seasons"] and copy["players"] == doc["players"]
    assert {k: v for k, v in copy["game"].items() if k != "name"} == {k: v for k, v in doc["game"].items() if k != "name"}
    assert service.status("archive-copy").phase == service.status("archive").phase
    with pytest.raises(ValueError, match="already a game"):
        import_game(db, doc)


def test_an_import_adjudicates_each_season_once(played, monkeypatch):
    """Verifying an export and keeping its reasons as the engine's values take one adjudication of
    each season between them, not one each."""
    import bot.codec.documents
    import bot.codec.season

    _, db = played
    doc = export_game(db, "archive")
    made: list[str] = []
    for module in (bot.codec.documents, bot.codec.season):
        real = module.adjudicate

        def counted(variant, position, orders, _real=real):
            made.append(str(position.phase))
            return _real(variant, position, orders)

        monkeypatch.setattr(module, "adjudicate", counted)
    import_game(db, doc, name="archive-once")
    assert sorted(made) == sorted(s["phase"] for s in doc["seasons"]) and len(made) >= 2


def test_season_report_reads_like_a_judge(played):
    service, _ = played
    text = season_report("archive", service.season("archive", 0))
    assert "S1901M" in text and "England (ENG):" in text and "F London - North Sea — succeeds" in text
    assert "Units after the phase:" in text and "Seed: " in text


def test_results_are_archived_to_files(sqlite_db, tmp_path):
    service = GameService(sqlite_db)
    service.create_game("files", "standard", "gm")
    service.join("files", "ed", "ENG")
    service.start("files", "gm", fill_civil_disorder=True)
    service.submit_orders("files", "ed", "F lon - nth")
    service.force_adjudicate("files", "gm")
    sink = RecordingNotifier()
    asyncio.run(OutboxDispatcher(sqlite_db, [sink, ArchiveWriter(service, tmp_path / "archive")]).flush())
    files = sorted(p.name for p in (tmp_path / "archive" / "files").iterdir())
    assert files == ["0000-S1901M.json", "0000-S1901M.txt"]
    stored = json.loads((tmp_path / "archive" / "files" / "0000-S1901M.json").read_text())
    assert stored["orders"][0]["canonical"] == "ENG: F lon - nth"


def test_the_shell_commands_export_import_and_verify(tmp_path, capsys):
    data = ["--data-dir", str(tmp_path / "data")]
    assert main(["game", "create", "shell", "--variant", "standard", "--gm", "gm", "--movement", "1h", *data]) == 0
    assert main(["game", "join", "shell", "ed", "--power", "ENG", *data]) == 0
    assert main(["game", "start", "shell", "--fill-civil-disorder", *data]) == 0
    assert main(["game", "adjudicate", "shell", *data]) == 0
    out = tmp_path / "shell.json"
    assert main(["game", "export", "shell", "-o", str(out), *data]) == 0
    assert main(["verify", str(out)]) == 0
    assert "1 of 1 seasons identical" in capsys.readouterr().out
    assert main(["game", "import", str(out), "--name", "shell2", *data]) == 0
    assert main(["game", "status", "shell2", "--format", "json", *data]) == 0
    status = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert status["phase"] == "F1901M" and status["players"][0]["power"] == "ENG"
    assert main(["game", "status", "nosuch", *data]) == 2
    assert "no game 'nosuch'" in capsys.readouterr().err
    # the game master's actions are in the export, and come back with an import
    doc = json.loads(out.read_text())
    assert [(a["action"], a["phase"], a["actor"]) for a in doc["actions"]] == [("start", "S1901M", None),
                                                                            ("adjudicate", "S1901M", None)]
    assert main(["game", "export", "shell2", "-o", str(tmp_path / "shell2.json"), *data]) == 0
    assert json.loads((tmp_path / "shell2.json").read_text())["actions"] == doc["actions"]
    # a name taken is the request's fault (exit 2), not the judge's
    capsys.readouterr()
    assert main(["game", "import", str(out), *data]) == 2
    assert capsys.readouterr().err == "crusader: there is already a game called 'shell'; import it with another name\n"
    # an export whose seasons do not re-adjudicate to what it stores is refused, as verify says
    doc["seasons"][0]["result"]["position"]["phase"] = "F1905M"
    out.write_text(json.dumps(doc))
    assert main(["verify", str(out)]) == 1
    capsys.readouterr()
    assert main(["game", "import", str(out), "--name", "shell3", *data]) == 1
    err = capsys.readouterr().err
    assert "the export does not re-adjudicate to what it stores (1 of 1 seasons differ; first S1901M" in err
    assert "import it as it is with --unverified" in err
    assert main(["game", "status", "shell3", *data]) == 2  # nothing was imported
    assert main(["game", "import", str(out), "--name", "shell3", "--unverified", *data]) == 0
    assert "imported as 'shell3' (not verified)" in capsys.readouterr().out


def test_the_shell_commands_say_which_file_they_cannot_read(tmp_path, capsys):
    data = ["--data-dir", str(tmp_path / "data")]
    assert main(["game", "create", "shell", "--variant", "standard", "--gm", "gm", *data]) == 0
    assert main(["game", "join", "shell", "ed", "--power", "ENG", *data]) == 0
    assert main(["game", "start", "shell", "--fill-civil-disorder", *data]) == 0
    capsys.readouterr()
    missing, latin1 = tmp_path / "missing.txt", tmp_path / "latin1.txt"
    latin1.write_bytes("F lon - nth  \u00a9".encode("latin-1"))
    for command in (["game", "orders", "shell", str(missing), "--player", "ed", *data], ["verify", str(missing)]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err == f"crusader: cannot read {missing}: No such file or directory\n", err
    for command in (["game", "orders", "shell", str(latin1), "--player", "ed", *data], ["verify", str(latin1)]):
        assert main(command) == 2
        assert capsys.readouterr().err == f"crusader: {latin1} is not UTF-8 text\n"


def test_an_outremer_game_keeps_bids_private_and_archives_the_prestige_ledger(sqlite_db):
    from adjudicator.variant import get_variant

    service = GameService(sqlite_db)
    service.create_game("outremer", "crusader", "gm", seed=5)
    for i, power in enumerate(get_variant("crusader").powers):
        service.join("outremer", f"p{i}", power)
    service.start("outremer", "gm", fill_civil_disorder=True)
    mine = service.my_orders("outremer", "p0")
    assert mine.power == "ANT" and mine.column == ("prestige", 2)
    report = service.submit_orders("outremer", "p0", "SECURE LOYALTY BID 1\nA ant H")
    assert [line.canonical for line in report.accepted] == ["ANT: SECURE LOYALTY BID 1", "ANT: A ant H"]
    assert service.force_adjudicate("outremer", "gm") == "adjudicated"
    assert service.my_orders("outremer", "p0").column == ("prestige", 1)
    doc = export_game(sqlite_db, "outremer")
    assert all(c.identical for c in verify_export(doc))
    text = season_report("outremer", service.season("outremer", 0))
    assert "Prestige:\n  The Principality of Antioch (ANT): had 2, spent 1, 1 left" in text
    assert "SECURE LOYALTY BID 1 — secured, 1 spent: loyalty secured" in text


def test_the_games_seed_drives_the_prestige_rules(sqlite_db):
    from bot.service import GameService

    service = GameService(sqlite_db)
    service.create_game("seeded", "crusader", "gm", seed=11)
    service.create_game("other", "crusader", "gm", seed=12)
    assert state_of(service.board("seeded")[1]).seed == 11
    assert state_of(service.board("other")[1]).seed == 12


def test_a_vassal_bid_takes_the_units_order_written_with_it(sqlite_db):
    """Rule 2.4.1: the bidder writes the neutral's order with the bid; the judge accepts that
    order (in the same message or a later one) and carries it out when the bid wins."""
    from adjudicator.variant import get_variant

    service = GameService(sqlite_db)
    service.create_game("leash", "crusader", "gm", seed=5)
    for i, power in enumerate(get_variant("crusader").powers):
        service.join("leash", f"p{i}", power)
    service.start("leash", "gm", fill_civil_disorder=True)
    report = service.submit_orders("leash", "p0", "VASSAL A ale BID 2\nA ale - ala\nA phr - lyd")
    assert [line.canonical for line in report.accepted] == ["ANT: VASSAL A ale BID 2", "ANT: A ale - ala"]
    assert "not your unit" in report.rejected[0].reason  # no bid on Phrygia
    report = service.submit_orders("leash", "p0", "A ale - tur")  # a later line replaces it
    assert [line.canonical for line in report.accepted] == ["ANT: A ale - tur"]
    assert [line.canonical for line in report.standing] == ["ANT: VASSAL A ale BID 2", "ANT: A ale - tur"]
    service.submit_orders("leash", "p0", "A ale - ala")
    assert service.force_adjudicate("leash", "gm") == "adjudicated"
    _, position = service.board("leash")
    assert position.unit_at("ala") is not None and position.unit_at("ala").power == "NEU"
    assert state_of(position).vassals == {Location("ala"): "ANT"}     # vassaldom goes with the unit
    # bought in spring, the vassal is its lord's to order in autumn too (rule 2.4.1, docs/rules.md 15)
    report = service.submit_orders("leash", "p0", "A ala - ale")
    assert [line.canonical for line in report.accepted] == ["ANT: A ala - ale"] and not report.rejected


GOLDEN_EXPORT = Path(__file__).resolve().parents[1] / "data" / "exports" / "crusader-three-years.json"


def test_a_recorded_export_imports_exports_and_verifies_byte_for_byte(sqlite_db):
    """An export written by an earlier version of the judge (three years on the Outremer map through
    the service: prestige orders, a retreat, builds, NMRs) reads back into the tables and comes out
    again unchanged, and every season still verifies."""
    recorded = GOLDEN_EXPORT.read_text(encoding="utf-8")
    doc = json.loads(recorded)
    assert import_game(sqlite_db, doc) == "golden"
    again = json.dumps(export_game(sqlite_db, "golden"), ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    written = lambda d: json.dumps(d, ensure_ascii=False, indent=1, sort_keys=True) + "\n"  # noqa: E731
    assert written(doc) == recorded
    assert again == written({**doc, "actions": []})  # it kept no game master's actions: it has none now
    assert all(check.identical for check in verify_export(doc))
    # its reasons, text in the export, are values again in the tables: the season report names the units
    seasons = {str(s.phase): s for s in game_archive(sqlite_db, "golden").seasons}
    assert "fails: bounced: A Phrygia holds, 1 against 1" in season_report("golden", seasons["S1101M"])
    assert "dislodged by F Acre (2 against 1)" in season_report("golden", seasons["F1102M"])


def test_what_a_kill_left_half_written_in_the_archive_is_swept_and_a_set_aside_folder_put_back(tmp_path):
    import os
    import subprocess
    import sys

    from bot.archive.games import sweep_temporary, temporary_prefix, write_atomically

    root = tmp_path / "archive"
    write_atomically(root / "g" / "0000-S1901M.json", "{}")
    # a process writes and is killed before its rename: its temporary files and folders stay
    script = ("import os, sys, tempfile, signal; from pathlib import Path; from bot.archive.games import temporary_prefix;"
              "root = Path(sys.argv[1]);"
              "tempfile.mkstemp(dir=root / 'g', prefix=temporary_prefix('0001-F1901M.json'));"
              "tempfile.mkdtemp(dir=root, prefix=temporary_prefix('g') + 'new-');"
              "old = Path(tempfile.mkdtemp(dir=root, prefix=temporary_prefix('h') + 'old-'));"
              "(root / 'h').mkdir(); (root / 'h' / 'page.html').write_text('x'); os.replace(root / 'h', old / 'h');"
              "os.kill(os.getpid(), signal.SIGKILL)")
    subprocess.run([sys.executable, "-c", script, str(root)], cwd=os.path.dirname(os.path.dirname(__file__)), check=False)
    mine = root / "g" / (temporary_prefix("0002-W1901B.json") + "busy")  # this process is still writing it
    mine.write_text("")
    leftovers = sorted(p.name for p in root.rglob(".*"))
    assert len(leftovers) == 4  # three of the killed process (one holding h), and this one's
    assert sweep_temporary(root) == 3
    assert sorted(p.name for p in root.rglob(".*")) == [mine.name]
    assert (root / "h" / "page.html").read_text() == "x"  # the folder set aside is back in its place
    assert (root / "g" / "0000-S1901M.json").exists()


def test_a_file_written_atomically_has_its_folders_made_and_its_mode_whatever_the_umask(tmp_path):
    import os

    from bot.archive.games import write_atomically

    old = os.umask(0o077)
    try:
        write_atomically(tmp_path / "a" / "b" / "page.html", "one")
        write_atomically(tmp_path / "a" / "b" / "page.html", b"two", mode=0o640)
        write_atomically(tmp_path / "a" / "b" / "other.html", "three")
    finally:
        os.umask(old)
    folder = tmp_path / "a" / "b"
    assert (folder / "page.html").read_bytes() == b"two" and (folder / "other.html").read_text() == "three"
    assert (folder / "page.html").stat().st_mode & 0o777 == 0o640
    assert (folder / "other.html").stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in folder.iterdir()) == ["other.html", "page.html"]  # no temporary file left
