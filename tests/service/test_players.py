"""Players before and during a game, as a game master manages them: joining stops at the number of
powers (then a waiting list), the GM assigns, moves and removes players before the start, a game
starts only with every power played unless the GM fills the rest with civil disorder, and a
running game's powers are replaced, removed and brought back."""

from __future__ import annotations

import asyncio

import pytest
import time_machine

from bot.service import NotAllowedError, NotFoundError, ServiceError, UnplayedPowersError, WrongStateError

PLAYERS = ["anna", "ed", "flo", "gus", "ivo", "rita", "tom"]


@pytest.fixture
def service(start, make_service, sqlite_db):
    with time_machine.travel(start, tick=False):
        service, dispatcher, sink = make_service(sqlite_db)
        service.create_game("g", "standard", "gm", seed=5)
        service.sent = lambda: (asyncio.run(dispatcher.flush()), sink)[1]
        yield service


def seats(view) -> dict[str, str | None]:
    return {p.player: p.power for p in view.players if p.status != "waiting"}


def waiting(view) -> list[str]:
    return [p.player for p in view.players if p.status == "waiting"]


def test_an_eighth_player_goes_on_the_waiting_list(service):
    for player in PLAYERS:
        view = service.join("g", player)
    assert len(seats(view)) == 7 and not waiting(view)
    view = service.join("g", "zoe")
    assert waiting(view) == ["zoe"] and len(seats(view)) == 7
    with pytest.raises(WrongStateError, match="has a player for each of its 7 powers; join without a power"):
        service.join("g", "yan", "FRA")
    with pytest.raises(ServiceError, match="'zoe' is on the waiting list of 'g'"):
        service.join("g", "zoe")
    view = service.start("g", "gm")  # the seven seated players get the seven powers
    assert sorted(p for p in seats(view).values()) == ["AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"]
    assert waiting(view) == ["zoe"]
    with pytest.raises(NotAllowedError, match="on the waiting list"):
        service.submit_orders("g", "zoe", "A par - bur")


def test_the_gm_assigns_moves_and_unassigns_before_the_start(service):
    service.join("g", "anna")
    assert seats(service.assign("g", "gm", "anna", "FRA"))["anna"] == "FRA"
    assert seats(service.assign("g", "gm", "anna", "eng"))["anna"] == "ENG"  # moved
    assert seats(service.assign("g", "gm", "ed", "FRA")) == {"anna": "ENG", "ed": "FRA"}  # joined by the GM
    with pytest.raises(ServiceError, match="FRA is already played by ed in 'g'; move or remove them first"):
        service.assign("g", "gm", "anna", "FRA")
    with pytest.raises(NotFoundError, match="'FAT' is not a power of standard"):
        service.assign("g", "gm", "anna", "FAT")
    assert seats(service.assign("g", "gm", "anna", None))["anna"] is None  # drawn at the start
    with pytest.raises(NotAllowedError, match="only the game master"):
        service.assign("g", "anna", "anna", "ENG")


def test_the_gm_removes_a_player_by_name_or_power_and_the_waiting_list_moves_up(service):
    for player in PLAYERS:
        service.join("g", player)
    service.join("g", "zoe")
    service.assign("g", "gm", "ed", "ENG")
    view = service.remove_player("g", "gm", player="anna")  # no power yet: named by the player
    assert "anna" not in seats(view) and "zoe" in seats(view) and not waiting(view)
    view = service.remove_player("g", "gm", "ENG")
    assert "ed" not in seats(view) and len(seats(view)) == 6
    with pytest.raises(NotFoundError, match="nobody plays 'FRA'"):
        service.remove_player("g", "gm", "FRA")
    with pytest.raises(ServiceError, match="name the player to remove, or the power"):
        service.remove_player("g", "gm")
    assert "flo" not in seats(service.leave("g", "flo"))


def test_a_player_resigns_their_own_power_and_nobody_elses(service):
    for player in PLAYERS:
        service.join("g", player)
    view = service.start("g", "gm")
    mine, theirs = seats(view)["anna"], seats(view)["ed"]
    with pytest.raises(NotAllowedError, match="only the game master of 'g'"):
        service.remove_player("g", "anna", theirs)
    with pytest.raises(NotAllowedError, match="only the game master of 'g'"):
        service.remove_player("g", "anna", player="ed")
    with pytest.raises(NotAllowedError, match="only the game master of 'g'"):  # nothing told of other seats
        service.remove_player("g", "anna", player="nobody")
    with pytest.raises(NotAllowedError, match="only the game master of 'g'"):
        service.remove_player("g", "stranger", mine)
    assert seats(service.status("g"))["ed"] == theirs
    view = service.remove_player("g", "anna", mine)
    assert next(p for p in view.players if p.power == mine).status == "removed"
    with pytest.raises(NotAllowedError, match="only the game master of 'g'"):  # no longer theirs
        service.remove_player("g", "anna", mine)


def test_a_game_starts_only_with_every_power_played_unless_the_gm_fills_them(service):
    service.join("g", "anna", "FRA")
    service.join("g", "ed")
    with pytest.raises(UnplayedPowersError, match="'g' has 2 player\\(s\\) for 7 powers: 5 power\\(s\\) would have "
                                                  "no player") as refused:
        service.start("g", "gm")
    assert refused.value.unplayed == 5 and service.status("g").status == "forming"
    view = service.start("g", "gm", fill_civil_disorder=True)
    assert view.status == "active" and seats(view)["anna"] == "FRA" and seats(view)["ed"]
    [started] = service.sent().of_kind("started")
    unplayed = sorted({"AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"} - set(seats(view).values()))
    assert started.data["civil_disorder"] == unplayed
    for power in unplayed:
        assert f"{power}: no player (civil disorder" in started.body
    view = service.replace_player("g", "gm", unplayed[0], "zoe")  # a power never played gets a player
    assert seats(view)["zoe"] == unplayed[0]


def test_replace_remove_and_bring_back_during_the_game(service):
    for player in PLAYERS:
        service.join("g", player)
    view = service.start("g", "gm")
    power = seats(view)["anna"]
    service.join("g", "zoe")  # a started game's newcomers wait
    view = service.replace_player("g", "gm", power, "zoe")
    assert seats(view)["zoe"] == power and "anna" not in seats(view) and not waiting(view)
    view = service.replace_player("g", "gm", power, "anna")  # and back within the same phase
    assert seats(view)["anna"] == power
    other = seats(view)["ed"]
    with pytest.raises(ServiceError, match=f"ed already plays {other} in 'g'; remove them from {other} first"):
        service.replace_player("g", "gm", power, "ed")

    view = service.remove_player("g", "gm", power)
    assert next(p for p in view.players if p.power == power).status == "removed"
    with pytest.raises(WrongStateError, match="has no player to bring back; give it one with replace"):
        service.restore_player("g", "gm", power)
    service.replace_player("g", "gm", power, "anna")

    service.set_civil_disorder("g", "gm", other)
    view = service.restore_player("g", "gm", other)
    back = next(p for p in view.players if p.power == other)
    assert (back.player, back.status, back.nmr_count) == ("ed", "active", 0)
    with pytest.raises(WrongStateError, match="is not in civil disorder; ed plays it"):
        service.restore_player("g", "gm", other)
    kinds = [a.kind for a in service.sent().delivered]
    assert kinds.count("replaced") == 3 and "removed" in kinds and "active" in kinds


def test_players_are_named_one_documented_way(service):
    view = service.join("g", "<@123456789012345678>")
    assert view.players[-1].player == "discord:123456789012345678"
    assert service.join("g", "223456789012345678").players[-1].player == "discord:223456789012345678"
    assert service.join("g", "Ann@Example.ORG").players[-1].player == "ann@example.org"
    with pytest.raises(ServiceError, match="is not a Discord user"):
        service.join("g", "discord:someone")
    with pytest.raises(ServiceError, match="at most 200 characters"):
        service.join("g", "x" * 201)
    with pytest.raises(ServiceError, match="control characters"):
        service.join("g", "bad\x00name")
