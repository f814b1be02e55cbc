"""A season read by several front ends is decoded once (:class:`bot.service.context.SeasonsRead`),
and a season rolled back is never the one read again, on this server or on another sharing its
database; a game's entry says where it stands without its board being read."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.service import DeadlinePolicy, GameService, NoSuchGameError
from bot.store.database import Database
from tests.service.conftest import start_tannenberg

POLICY = DeadlinePolicy(movement=timedelta(hours=48), retreat=timedelta(hours=24), adjustment=timedelta(hours=24))


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, sqlite_db):
    if request.param == "sqlite":
        yield sqlite_db
        return
    handle = Database(request.getfixturevalue("pg_url"))
    yield handle
    handle.dispose()


@pytest.fixture
def game(make_service, db, clock):
    service, dispatcher, _ = make_service(db)
    start_tannenberg(service, dispatcher, POLICY)
    return service


def _moves(season) -> list[str]:
    return sorted(o.written for o in season.orders)


def test_a_season_read_again_is_the_one_decoded_before(game):
    game.submit_orders("tannenberg", "flo", "A par - bur")
    game.force_adjudicate("tannenberg", "gm")
    first = game.season("tannenberg", 0)
    assert first is not None and _moves(first) == ["A par - bur"]
    assert game.season(game.entry("tannenberg").id, 0) is first
    assert game.season("tannenberg", 1) is None     # not adjudicated yet


def test_the_server_that_adjudicated_a_season_decodes_none_of_its_reads(game, db, monkeypatch):
    """The judge keeps the season it stores, known by its row's text: the front ends of its server
    read the row and decode nothing; another server decodes it once, to the same season."""
    from bot.service import context

    decoded: list[int] = []
    decode = context.season_from_row
    monkeypatch.setattr(context, "season_from_row", lambda row, game: decoded.append(row.version) or decode(row, game))
    game.submit_orders("tannenberg", "flo", "A par - bur")
    game.force_adjudicate("tannenberg", "gm")
    kept = game.season("tannenberg", 0)
    assert kept is not None and _moves(kept) == ["A par - bur"] and game.season("tannenberg", 0) is kept
    assert decoded == []
    other = GameService(db, node="other")
    read = other.season("tannenberg", 0)
    assert decoded == [0] and read is not kept and read == kept


def test_a_season_rolled_back_and_adjudicated_again_at_the_same_moment_is_read_anew(game):
    # the clock stands still: the season adjudicated again has the same time as the one rolled back
    game.submit_orders("tannenberg", "flo", "A par - bur")
    game.force_adjudicate("tannenberg", "gm")
    before = game.season("tannenberg", 0)
    assert before is not None and _moves(before) == ["A par - bur"]
    game.rollback("tannenberg", "gm")
    assert game.season("tannenberg", 0) is None
    game.submit_orders("tannenberg", "flo", "A par - pic")
    game.force_adjudicate("tannenberg", "gm")
    again = game.season("tannenberg", game.status("tannenberg").version - 1)
    assert again is not None and again.adjudicated_at == before.adjudicated_at
    assert _moves(again) == ["A par - pic"] and again.after != before.after
    assert game.season("tannenberg", 0) is None


def test_a_season_rolled_back_by_another_server_is_read_anew(game, db, clock):
    other = GameService(db, node="other")
    game.submit_orders("tannenberg", "flo", "A par - bur")
    game.force_adjudicate("tannenberg", "gm")
    assert _moves(game.season("tannenberg", 0)) == ["A par - bur"]
    other.rollback("tannenberg", "gm")
    assert game.season("tannenberg", 0) is None
    other.submit_orders("tannenberg", "flo", "A par - gas")
    other.force_adjudicate("tannenberg", "gm")
    assert game.season("tannenberg", 0) is None
    assert _moves(game.season("tannenberg", game.status("tannenberg").version - 1)) == ["A par - gas"]


def test_the_seasons_kept_are_the_last_read(game):
    game.lobby.seasons.size = 2
    for _ in range(3):
        game.force_adjudicate("tannenberg", "gm")
    first = game.season("tannenberg", 0)
    game.season("tannenberg", 1)
    game.season("tannenberg", 2)
    assert game.season("tannenberg", 2) is game.season("tannenberg", 2)
    assert game.season("tannenberg", 0) is not first   # read again: the oldest was let go
    assert game.season("tannenberg", 0) == first


def test_an_entry_says_where_the_game_stands(game, start):
    entry = game.entry("tannenberg")
    view = game.status("tannenberg")
    assert (entry.version, entry.deadline_at, entry.phase, entry.status) == \
           (view.version, view.deadline_at, view.phase, view.status) == (0, start + timedelta(hours=48), "S1901M",
                                                                         "active")
    assert game.entry(entry.id) == entry == game.entry(str(entry.id))
    game.force_adjudicate("tannenberg", "gm")
    assert (game.entry(entry.id).version, game.entry(entry.id).phase) == (1, "F1901M")
    assert [(e.version, e.deadline_at) for e in game.directory(player="flo")] == [(1, game.status(entry.id).deadline_at)]


def test_a_game_that_is_not_there_is_said_so(game):
    with pytest.raises(NoSuchGameError):
        game.entry(999)
    with pytest.raises(NoSuchGameError):
        game.season(999, 0)
    with pytest.raises(NoSuchGameError):
        game.season("nowhere", 0)


def test_the_seats_of_a_game_are_its_players_as_its_view_has_them(game):
    """Who plays a game, read without its board or orders, as the game's whole view says it."""
    game.replace_player("tannenberg", "gm", "FRA", "marianne")
    seats, view = game.seats("tannenberg"), game.status("tannenberg")
    assert seats.id == view.id and seats.gm == view.gm == "gm"
    assert [(s.player, s.power, s.status) for s in seats.players] == [(p.player, p.power, p.status) for p in view.players]
    assert seats.player_of("FRA").player == "marianne" and seats.player_of("XYZ") is None
    assert game.seats(view.id) == seats
    with pytest.raises(NoSuchGameError):
        game.seats(999)


def test_a_seasons_report_is_made_once_for_the_front_ends_that_show_it(game, monkeypatch):
    from bot.archive.games import season_report
    from bot.frontends.discord.formatting import results_detail, summary_lines
    from bot.service import report

    made: list[str] = []  # the phase of each report made (its orders, by power, made once a report)
    orders = report._orders
    monkeypatch.setattr(report, "_orders", lambda *a, **k: made.append(str(a[2].phase)) or orders(*a, **k))
    game.submit_orders("tannenberg", "flo", "A par - bur")
    game.force_adjudicate("tannenberg", "gm")  # (its announcement's text: the judge's own season, reported once)
    assert made == ["S1901M"]
    season = game.season("tannenberg", 0)  # the season the judge kept: its report made already
    assert season is not None
    posted = summary_lines(season, season.variant, next_phase="F1901M", deadline=None)  # the channel's post
    detail = results_detail(season, season.variant)  # the archive thread's
    text = season_report("tannenberg", season)  # the archive's file
    assert made == ["S1901M"]
    assert posted and "Burgundy" in str([e.to_dict() for e in detail]) and "Burgundy" in text
    # each words its own title, notices and next phase on the one report
    own = report.report_of(season, title="T", notices=["N"], next_phase="next")
    assert (own.title, own.notices, own.next) == ("T", ("N",), "next")
    assert own.orders == report.phase_report(season.adjudication, season.variant, season.position, nmr=season.nmr).orders
    assert report.report_of(season).title == f"Results of {season.phase.long_name} ({season.phase})"
    assert made == ["S1901M", "S1901M"]  # (the one made for the comparison)
