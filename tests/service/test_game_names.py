"""One game per name, whatever its case and punctuation: at the shell and on import; each game has
an archive folder of its own. (On Discord: tests/discord/test_game_names.py.)"""

from __future__ import annotations

import asyncio

import pytest

from bot.archive.games import ArchiveWriter, export_game, import_game
from bot.service import GameService, ServiceError
from bot.store.names import check_game_name, game_key
from bot.store.outbox import OutboxDispatcher
from tests.notifiers import RecordingNotifier


@pytest.mark.parametrize("a, b", [("x y", "x_y"), ("Outremer 1", "OUTREMER-1"), ("fête", "FÊTE"),
                                  ("Ａｂｃ", "abc"), ("a.b", "a b"), ("  tannenberg ", "Tannenberg")])
def test_names_differing_in_case_or_punctuation_share_a_key(a, b):
    assert game_key(a) == game_key(b)


@pytest.mark.parametrize("a, b", [("x y", "xy"), ("game 1", "game 2"), ("fête", "fete")])
def test_other_names_do_not(a, b):
    assert game_key(a) != game_key(b)


@pytest.mark.parametrize("name, why", [("", "1 to 100 characters"), ("x" * 101, "has 101"), ("42", "not only digits"),
                                       ("4-2", "not only digits"), ("--", "at least one letter"),
                                       ("a\x00b", "no control characters")])
def test_a_name_that_cannot_be_a_game_is_refused_saying_what_is_accepted(name, why):
    with pytest.raises(ValueError, match=why):
        check_game_name(name)


def test_a_second_game_with_the_same_name_in_other_case_or_punctuation_is_refused(sqlite_db):
    service = GameService(sqlite_db)
    service.create_game("x y", "standard", "gm")
    for other in ("x_y", "X Y", "x-y", " x  y "):
        with pytest.raises(ServiceError, match=r"there is already a game called 'x y'.*choose another name"):
            service.create_game(other, "standard", "gm")
    assert service.entry("X_Y").name == "x y"  # found by any of its spellings
    service.create_game("xy", "standard", "gm")
    assert [g.name for g in service.games()] == ["x y", "xy"]


def test_an_import_under_a_name_taken_in_another_spelling_is_refused(sqlite_db):
    service = GameService(sqlite_db)
    service.create_game("Crusade", "crusader", "gm")
    doc = export_game(sqlite_db, "crusade")
    with pytest.raises(ValueError, match="import it with another name"):
        import_game(sqlite_db, doc, name="CRUSADE!")
    assert import_game(sqlite_db, doc, name="crusade 2") == "crusade 2"


def test_two_games_get_two_archive_folders(sqlite_db, tmp_path):
    service = GameService(sqlite_db)
    for name in ("x y", "xy"):
        service.create_game(name, "standard", "gm", seed=1)
        service.join(name, "ann", "ENG")
        service.start(name, "gm", fill_civil_disorder=True)
        service.force_adjudicate(name, "gm")
    root = tmp_path / "archive"
    asyncio.run(OutboxDispatcher(sqlite_db, [RecordingNotifier(), ArchiveWriter(service, root)]).flush())
    assert sorted(p.name for p in root.iterdir()) == ["x-y", "xy"]
    assert all(sorted(f.name for f in (root / d).iterdir()) == ["0000-S1901M.json", "0000-S1901M.txt"]
               for d in ("x-y", "xy"))
