"""Which game a message of orders is for: decided by the service, the same for every front end."""

from __future__ import annotations

import pytest

from bot.service import Ambiguous, NoGameError, Routed


@pytest.fixture
def two_games(make_service, sqlite_db):
    service, _, _ = make_service(sqlite_db)
    for name in ("Tannenberg", "Verdun"):
        service.create_game(name, "standard", "gm")
        service.join(name, "flo", "FRA")
        service.join(name, "ed" if name == "Verdun" else "gus", "ENG" if name == "Verdun" else "GER")
        service.start(name, "gm", fill_civil_disorder=True)
    return service


def test_a_player_in_one_running_game_need_not_say_which(two_games):
    found = two_games.route("ed", "F lon - nth")
    assert isinstance(found, Routed) and found.game.name == "Verdun" and found.text == "F lon - nth"


def test_a_player_in_several_says_which_on_the_first_line_or_is_asked(two_games):
    found = two_games.route("flo", "\n  Game: VERDUN \nA par - bur")
    assert isinstance(found, Routed) and found.game.name == "Verdun" and found.text == "A par - bur"
    asked = two_games.route("flo", "A par - bur")
    assert isinstance(asked, Ambiguous) and [g.name for g in asked.games] == ["Tannenberg", "Verdun"]
    picked = two_games.route("flo", asked.text, asked.games[0])
    assert isinstance(picked, Routed) and picked.game.name == "Tannenberg"


def test_a_message_for_no_game_says_why(two_games):
    with pytest.raises(NoGameError, match="not playing in any running game") as nothing:
        two_games.route("stranger", "A par - bur")
    assert nothing.value.games == () and nothing.value.named is None
    with pytest.raises(NoGameError, match="no running game called 'Somme'. Your games: Tannenberg, Verdun") as wrong:
        two_games.route("flo", "game: Somme\nA par - bur")
    assert wrong.value.games == ("Tannenberg", "Verdun")
    with pytest.raises(NoGameError, match="No orders after the `game: Verdun` line"):
        two_games.route("flo", "game: verdun\n\n")


def test_messages_are_routed_then_taken_together(two_games):
    reports = two_games.submit_messages([("ed", "F lon - nth", None), ("flo", "A par - bur", None),
                                         ("flo", "game: Tannenberg\nA par - pic", None), ("nobody", "A x", None)])
    assert reports[0].game == "Verdun" and [ln.canonical for ln in reports[0].accepted] == ["ENG: F lon - nth"]
    assert isinstance(reports[1], Ambiguous)
    assert reports[2].game == "Tannenberg" and reports[2].variant == "standard"
    assert isinstance(reports[3], NoGameError)
