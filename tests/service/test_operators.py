"""What a game master does beside the clock, and what reaches players after downtime: a game's
settings changed (one service call, announced, from the next deadline), draws and concessions,
the record of the game master's actions, and an outbox that drops what a later announcement of
the game makes stale, so that a judge that was down sends each player what is still true, once."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from bot.service import DeadlinePolicy, InputError, NotAllowedError, ServiceError, WrongStateError
from bot.store import database
from bot.store.outbox import OutboxDispatcher
from tests.notifiers import RecordingNotifier
from tests.service.conftest import POWERS, flush, start_tannenberg

POLICY = DeadlinePolicy(reminders=(timedelta(hours=24), timedelta(hours=1)), nmr_limit=2)


@pytest.fixture
def game(make_service, sqlite_db, clock):
    """A classic game, started, its start delivered; every announcement goes to each player."""
    service = make_service(sqlite_db)[0]
    sink = RecordingNotifier(lambda a: a.recipients if a.audience == "players" else tuple(POWERS.values()))
    dispatcher = OutboxDispatcher(sqlite_db, [sink])
    start_tannenberg(service, dispatcher, POLICY)
    return service, dispatcher, sink


# -- nothing stale after downtime -----------------------------------------------------------------


def test_a_day_of_downtime_sends_each_player_what_is_still_true_once(game, clock, sqlite_db):
    """The server is down (nothing delivered) while the game master moves the deadline ten times
    and then adjudicates from the shell, and a day passes: at the next start each player gets the
    results, once, and none of the ten deadlines of the phase already played, nor its reminders."""
    service, dispatcher, sink = game
    before = len(sink.made)
    for hours in range(10):
        service.extend("tannenberg", None, timedelta(hours=1 + hours))
    deadline = service.status("tannenberg").deadline_at
    clock.move_to(deadline - timedelta(hours=23))     # the 24-hour reminder falls due meanwhile...
    assert service.fire_due() == 1                    # ...and is written (a sweep), not delivered
    service.force_adjudicate("tannenberg", None)
    clock.shift(timedelta(days=1))
    flush(dispatcher)
    made = sink.made[before:]
    kinds = [a.kind for a in sink.delivered[before:]]
    assert "extended" not in kinds and "reminder" not in kinds
    assert sorted(who for (key, who), kind in zip(made, kinds) if kind == "results") == sorted(POWERS.values())
    with sqlite_db.session() as session:
        outbox = database.outbox_of(session)
        dropped = [o for o in outbox if o.superseded_by]
        states = {d.state for d in database.deliveries_of(session) if d.outbox_id in {o.id for o in dropped}}
    assert sorted(o.kind for o in dropped) == ["extended"] * 10 + ["reminder"]
    assert all(o.superseded_by.endswith(":results") for o in dropped if o.kind == "reminder")
    assert all(o.delivered_at is not None for o in dropped) and states <= {"superseded"}


def test_a_later_deadline_of_a_phase_drops_the_earlier_one_and_results_stay(game, clock):
    service, dispatcher, sink = game
    service.extend("tannenberg", None, timedelta(hours=1))
    service.extend("tannenberg", None, timedelta(hours=2))
    last = service.status("tannenberg").deadline_at
    flush(dispatcher)
    extended = [a for a in sink.delivered if a.kind == "extended"]
    assert len(extended) == len(POWERS)               # one announcement, to each player once
    assert {a.data["deadline"] for a in extended} == {last.isoformat()}
    # what was delivered stays delivered; a later deadline is announced again
    service.pause("tannenberg", None)
    service.resume("tannenberg", None)
    flush(dispatcher)
    assert [a.kind for a in sink.delivered[-len(POWERS):]] == ["resumed"] * len(POWERS)  # the pause went stale


def test_a_delivery_being_made_is_left_to_finish_and_the_rest_dropped(game, clock, sqlite_db):
    """Supersession never takes a delivery another server is making at that moment (its claim
    holds): it finishes as it would have; the others of the announcement are dropped."""
    service, dispatcher, _sink = game
    service.extend("tannenberg", None, timedelta(hours=1))
    asyncio.run(dispatcher._expand())
    now = service.now()
    with sqlite_db.session() as session:
        [first, *others] = [d for d in database.deliveries_of(session) if d.state == "pending"]
        first.claimed_by, first.claimed_until = "another-server/1", now + timedelta(seconds=30)
        session.add(first)
    service.extend("tannenberg", None, timedelta(hours=2))
    with sqlite_db.session() as session:
        states = {d.id: d.state for d in database.deliveries_of(session)}
    assert states[first.id] == "pending" and {states[d.id] for d in others} == {"superseded"}


def test_a_reminder_due_after_its_deadline_is_not_sent(game, clock):
    service, dispatcher, sink = game
    clock.shift(timedelta(hours=49))                  # the judge was down across both reminders and the deadline
    service.fire_due()
    flush(dispatcher)
    assert sink.of_kind("reminder") == [] and sink.of_kind("results")


def test_a_start_mailed_after_the_first_season_shows_the_opening_board(game, clock):
    service, _dispatcher, sink = game
    [started] = [a for a in sink.delivered if a.kind == "started"][:1]
    service.force_adjudicate("tannenberg", None)
    _variant, opening = service.board("tannenberg", started.data["version"])
    assert str(opening.phase) == "S1901M" and str(service.board("tannenberg")[1].phase) == "F1901M"


# -- the game's settings, changed -------------------------------------------------------------------


def test_set_policy_is_checked_stored_recorded_and_announced_from_the_next_deadline(game, clock, start, sqlite_db):
    service, dispatcher, sink = game
    deadline = service.status("tannenberg").deadline_at
    change = service.set_policy("tannenberg", "gm", {"movement": timedelta(hours=36), "grace": timedelta(hours=2),
                                                      "reminders": [timedelta(hours=6)], "nmr_limit": 3,
                                                      "early": True, "timezone": "Europe/Paris"})
    assert change.changed == ("movement", "grace", "reminders", "nmr_limit", "early", "timezone")
    assert change.before == POLICY and change.after.movement == timedelta(hours=36)
    assert service.policy_of("tannenberg") == change.after
    assert change.game.deadline_at == deadline and change.game.timezone == "Europe/Paris"  # this phase's stays
    flush(dispatcher)
    [said] = {a.key: a for a in sink.of_kind("policy")}.values()
    assert said.audience == "public" and said.data["changed"] == list(change.changed)
    assert "movement phases: 2d -> 1d12h" in said.body and "time zone: Europe/Paris" in said.body
    assert "This phase keeps its deadline" in said.body
    # the reminders of this phase follow the new times; the next phase lasts as set
    clock.move_to(deadline - timedelta(hours=6, seconds=-1))
    assert service.fire_due() == 1
    flush(dispatcher)
    assert [a.data["before"] for a in sink.of_kind("reminder")][-1] == 6 * 3600
    service.force_adjudicate("tannenberg", None)
    assert service.status("tannenberg").deadline_at == service.now() + timedelta(hours=36)
    with sqlite_db.session() as session:
        [action] = [a for a in database.actions_of(session, 1) if a.action == "set_policy"]
    assert action.actor == "gm" and action.details["changes"]["movement"] == [48 * 3600, 36 * 3600]
    # nothing to change: nothing stored or said
    assert service.set_policy("tannenberg", None, {"early": True}).changed == ()


@pytest.mark.parametrize("changes, words", [
    ({"movement": "36h"}, "movement is a duration, not '36h'"),
    ({"nmr_limit": True}, "nmr_limit is a whole number"),
    ({"reminders": "1h"}, "reminders is a list of durations"),
    ({"press": "white"}, "press is one of full, public, grey, none, not 'white'"),
    ({"colour": "red"}, "unknown setting 'colour'; the settings are movement, retreat"),
    ({"extra": {}}, "unknown setting 'extra'"),
    ({"movement": timedelta(seconds=5)}, "must last at least 1m"),
    ({"timezone": "Mars/Olympus"}, "unknown time zone"),
])
def test_set_policy_refuses_what_a_new_game_would_refuse(game, changes, words):
    service = game[0]
    with pytest.raises(InputError, match=words.replace("(", r"\(")):
        service.set_policy("tannenberg", "gm", changes)
    assert service.policy_of("tannenberg") == POLICY


def test_only_the_game_master_sets_the_policy_and_not_once_the_game_is_over(game):
    service = game[0]
    with pytest.raises(NotAllowedError):
        service.set_policy("tannenberg", "ed", {"early": True})
    service.end_game("tannenberg", "gm")
    with pytest.raises(WrongStateError):
        service.set_policy("tannenberg", "gm", {"early": True})


def test_early_adjudication_turned_on_when_every_power_is_ready_adjudicates_at_once(game):
    service = game[0]
    for power, player in POWERS.items():
        service.submit_orders("tannenberg", player, {"ENG": "F lon H", "FRA": "A par H", "GER": "A ber H",
                                                     "ITA": "A rom H", "AUS": "A vie H", "RUS": "A mos H",
                                                     "TUR": "A con H"}[power])
    assert service.set_policy("tannenberg", "gm", {"early": True}).game.phase == "S1901M"  # orders in, not final
    service.set_policy("tannenberg", "gm", {"early": False})
    for player in POWERS.values():
        assert not service.ready("tannenberg", player).adjudicated
    assert service.set_policy("tannenberg", "gm", {"early": True}).game.phase == "F1901M"


# -- draws and concessions ----------------------------------------------------------------------------


def test_a_concession_by_every_other_surviving_power_ends_the_game_with_its_winner(game):
    service, dispatcher, sink = game
    others = [p for p in POWERS if p != "ENG"]
    for power in others[:-1]:
        view = service.concede("tannenberg", POWERS[power], "eng")
        assert view.status == "active" and view.player_of(power).concede_to == "ENG"
    with pytest.raises(ServiceError, match="cannot concede the game to itself"):
        service.concede("tannenberg", "ed", "ENG")
    with pytest.raises(ServiceError, match="conceded to a power still in it"):
        service.concede("tannenberg", "tom", "XXX")
    assert service.concede("tannenberg", "tom", None).player_of("TUR").concede_to is None  # withdrawn
    view = service.concede("tannenberg", "tom", "ENG")
    assert view.status == "ended" and view.outcome == {"winner": "ENG", "conceded": sorted(others)}
    flush(dispatcher)
    [ended] = {a.key: a for a in sink.of_kind("ended")}.values()
    assert "AUS, FRA, GER, ITA, RUS, TUR conceded it to ENG, who has won" in ended.body


def test_a_draw_vote_and_its_withdrawal_take_the_same_path(game):
    service = game[0]
    for player in list(POWERS.values())[:-1]:
        service.vote_draw("tannenberg", player)
    assert service.vote_draw("tannenberg", "anna", False).player_of("AUS").draw_vote is False
    service.vote_draw("tannenberg", "tom")
    view = service.vote_draw("tannenberg", "anna")
    assert view.status == "ended" and view.outcome == {"draw": sorted(POWERS)}
    with pytest.raises(WrongStateError):
        service.vote_draw("tannenberg", "anna")
