"""A season's picture is drawn before its game is locked (on SQLite the lock holds back every other
writer while the picture, most of a run, is drawn), and used only when the game and its orders are
still what it was drawn from: an order that arrives in between is drawn again, with the season."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine

import bot.render.season as season_module
from bot.service import DeadlinePolicy

POWERS = {"AUS": "anna", "ENG": "ed", "FRA": "flo", "GER": "gus", "ITA": "ivo", "RUS": "rita", "TUR": "tom"}
POLICY = DeadlinePolicy(movement=timedelta(hours=48), reminders=())


@pytest.fixture
def game(make_service, sqlite_db, start):
    with time_machine.travel(start, tick=False) as clock:
        service, _, _ = make_service(sqlite_db)
        service.create_game("lemberg", "standard", "gm", policy=POLICY, seed=3)
        for power, player in POWERS.items():
            service.join("lemberg", player, power)
        service.start("lemberg", "gm")
        assert not service.submit_orders("lemberg", "flo", "A par - bur").rejected
        yield service, clock


@pytest.fixture
def drawings(monkeypatch):
    """Every season picture drawn (the real drawing), as the orders it showed."""
    real, drawn = season_module.season_picture, []

    def recording(variant, before, adjudication, **kw):
        drawn.append(sorted(str(r.order) for r in adjudication.results))
        return real(variant, before, adjudication, **kw)

    monkeypatch.setattr(season_module, "season_picture", recording)
    return drawn


def test_a_deadline_draws_its_season_s_picture_once(game, drawings):
    service, clock = game
    clock.shift(timedelta(hours=48, seconds=1))
    assert service.fire_due() == 1
    [shown] = drawings
    assert "A par - bur" in shown
    season = service.season("lemberg", 0)
    assert season.picture and season.picture.startswith(b"\x89PNG")


def test_an_order_given_after_the_picture_was_drawn_is_drawn_again_with_the_season(game, monkeypatch):
    service, clock = game
    real, drawings = season_module.season_picture, []

    def order_arrives_meanwhile(variant, before, adjudication, **kw):
        if not drawings:  # the first picture, drawn before the game is locked: an order comes now
            assert not service.submit_orders("lemberg", "ed", "F lon - nth").rejected
        drawings.append(sorted(str(r.order) for r in adjudication.results))
        return real(variant, before, adjudication, **kw)

    monkeypatch.setattr(season_module, "season_picture", order_arrives_meanwhile)
    clock.shift(timedelta(hours=48, seconds=1))
    assert service.fire_due() == 1
    assert len(drawings) == 2
    assert "F lon - nth" not in drawings[0] and "F lon - nth" in drawings[1]
    season = service.season("lemberg", 0)
    assert "F lon - nth" in {str(r.order) for r in season.adjudication.results}
    assert season.picture == real(season.variant, season.position, season.adjudication, game="lemberg")
