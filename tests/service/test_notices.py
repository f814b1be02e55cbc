"""What the judge tells each player on its own: a retreat or an adjustment phase begins (and what
the power has to decide), reminders spaced for short phases, a player taken off a power or given
one, why someone who plays no power may not order, results posted again after a rollback."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.service import DeadlinePolicy, NoGameError, NotPlayingError
from tests.service.conftest import flush, to_the_1901_retreat

PLAYERS = {"ENG": "ed", "FRA": "flo", "GER": "gus"}


@pytest.fixture
def game(make_service, sqlite_db, clock):
    """A classic game of three players (England, France, Germany; the rest in civil disorder)."""
    service, dispatcher, sink = make_service(sqlite_db)
    service.create_game("notices", "standard", "gm", policy=DeadlinePolicy(), seed=7)
    for power, player in PLAYERS.items():
        service.join("notices", player, power)
    service.start("notices", "gm", fill_civil_disorder=True)
    flush(dispatcher)
    return service, dispatcher, sink


def test_a_retreat_and_a_winter_tell_each_power_that_must_decide_what_and_by_when(game, clock, start):
    service, dispatcher, sink = game
    to_the_1901_retreat(service, "notices")
    flush(dispatcher)
    [retreat] = sink.of_kind("phase_opened")
    deadline = service.status("notices").deadline_at
    assert (retreat.audience, retreat.powers, retreat.recipients) == ("players", ("GER",), ("gus",))
    assert retreat.body.startswith("Fall 1901 Retreat (F1901R) has begun in 'notices', and Germany has to decide:\n"
                                   "  · A Burgundy: retreat to ")
    assert retreat.body.endswith(f"Orders are due by {deadline:%a %d %b %Y %H:%M} UTC.\n")
    assert retreat.data["deadline"] == deadline.isoformat()

    # a retreat phase of a day: reminded halfway through it and an hour before, not at its start
    clock.shift(timedelta(hours=12, seconds=1))
    assert service.fire_due() == 1
    flush(dispatcher)
    [halfway] = sink.of_kind("reminder")
    assert halfway.data["before"] == 12 * 3600 and halfway.powers == ("GER",)
    service.submit_orders("notices", "gus", "A bur disband")
    service.force_adjudicate("notices", "gm")
    flush(dispatcher)
    assert service.status("notices").phase == "W1901B"
    winter = {a.powers[0]: a for a in sink.of_kind("phase_opened")[1:]}
    assert sorted(winter) == ["FRA", "GER"]  # England has nothing to build or remove: not told
    assert "Winter 1901 Adjustment (W1901B) has begun in 'notices', and France has to decide:\n  · Builds: 1, at " \
           in winter["FRA"].body
    assert winter["GER"].recipients == ("gus",) and "Builds: 1, at Munich (or waive)" in winter["GER"].body


def test_a_notice_of_a_phase_rolled_back_before_it_was_delivered_is_dropped_and_the_results_are_marked(game):
    service, dispatcher, sink = game
    to_the_1901_retreat(service, "notices")
    service.rollback("notices", "gm")             # back to F1901M: the retreat notice is stale
    service.force_adjudicate("notices", "gm")     # the same orders again
    flush(dispatcher)
    assert [a.powers for a in sink.of_kind("phase_opened")] == [("GER",)]  # the one of the new retreat phase
    results = {a.data["phase"]: a for a in sink.of_kind("results")}
    assert not results["S1901M"].data["again"] and "again" not in results["S1901M"].subject
    fall = [a for a in sink.of_kind("results") if a.data["phase"] == "F1901M"]
    assert [a.data["again"] for a in fall] == [False, True]
    assert fall[1].subject == "notices: results of F1901M (adjudicated again)"
    assert "Adjudicated again: the game master rolled the game back" in fall[1].body


def test_a_kicked_and_a_replaced_player_are_told_at_once_and_every_refusal_says_what_happened(game):
    service, dispatcher, sink = game
    service.join("notices", "newcomer")                      # the waiting list
    service.remove_player("notices", "gm", "FRA")
    service.replace_player("notices", "gm", "GER", "newcomer")
    flush(dispatcher)
    told = {a.recipients[0]: a for a in sink.of_kind("unseated")}
    assert told["flo"].body == ("The game master has removed you from France in 'notices': you no longer play in "
                                "the game, and France is in civil disorder (its units hold) until it has a new "
                                "player.\n")
    assert told["gus"].body == "The game master has given Germany in 'notices' to another player: you no longer " \
                               "play in the game.\n"
    [seated] = sink.of_kind("seated")
    assert seated.recipients == ("newcomer",) and seated.body.startswith(
        "The game master has given you Germany in 'notices': you play it from now on.\n"
        "In Spring 1901 Movement (S1901M) it has to decide:\n  · Units to order: ")
    [public] = [a for a in sink.of_kind("removed") if a.audience == "public"]   # the channel's notice
    assert public.recipients == ()

    for player, why in (("flo", "removed"), ("gus", "replaced"), ("stranger", "stranger")):
        with pytest.raises(NotPlayingError) as refused:
            service.submit_orders("notices", player, "A par H")
        assert refused.value.why == why
    assert refused.value.to_player() == "You are not playing in 'notices'."
    with pytest.raises(NotPlayingError) as refused:
        service.vote_draw("notices", "flo")
    assert str(refused.value) == "'flo' no longer plays a power in 'notices': the game master removed them from FRA"
    with pytest.raises(NotPlayingError) as refused:
        service.my_orders("notices", "flo")
    assert refused.value.to_player().startswith("The game master removed you from France in 'notices': you no "
                                                "longer play in it")
    # orders by a replaced player, who plays in no other game, go nowhere: and say why
    [answer] = service.submit_messages([("gus", "A mun H", None)])
    assert isinstance(answer, NoGameError) and str(answer) == (
        "The game master gave Germany in 'notices' to another player: you no longer play in it. You play in no "
        "other running game, so there is nothing to order.")
    [answer] = service.submit_messages([("stranger", "A mun H", None)])
    assert str(answer) == "You are not playing in any running game, so there is nothing to order."


def test_a_player_taken_out_before_the_start_is_told_so(make_service, sqlite_db, clock):
    service, dispatcher, sink = make_service(sqlite_db)
    service.create_game("forming", "standard", "gm")
    service.join("forming", "ed", "ENG")
    service.join("forming", "flo", "FRA")
    service.remove_player("forming", "gm", "ENG")
    service.replace_player("forming", "gm", "FRA", "gus")
    flush(dispatcher)
    told = {a.recipients[0]: a.body for a in sink.of_kind("unseated")}
    assert told == {"ed": "The game master has taken you out of 'forming' before its start: you were to play "
                          "England, and no longer are in the game.\n",
                    "flo": "The game master has taken you out of 'forming' before its start: you were to play "
                           "France, and no longer are in the game.\n"}
    assert [a.body for a in sink.of_kind("seated")] == [
        "The game master has given you France in 'forming'; the game has not started yet.\n"]
    service.join("forming", "ed")
    service.start("forming", "gm", fill_civil_disorder=True)
    with pytest.raises(NotPlayingError) as refused:
        service.submit_orders("forming", "flo", "A par H")
    assert refused.value.why == "taken_out"


@pytest.mark.parametrize(("length", "reminders", "expected"), [
    ("48h", ("24h", "1h"), ("24h", "1h")),      # a long phase: as set
    ("24h", ("24h", "1h"), ("12h", "1h")),      # the first would come at its start: halfway instead
    ("2h", ("24h", "1h"), ("1h",)),             # halfway is the hour before
    ("90m", ("24h", "1h"), ("1h",)),            # one already in the first half: nothing more
    ("10m", ("24h", "1h"), ("5m",)),            # a live game
    ("10m", (), ()),                            # none asked for
])
def test_reminders_are_spaced_for_short_phases(length, reminders, expected):
    from bot.service import parse_duration

    policy = DeadlinePolicy(reminders=tuple(parse_duration(r) for r in reminders))
    assert policy.reminders_for(parse_duration(length)) == tuple(parse_duration(r) for r in expected)
