"""What a game master writes for time, read once for every front end: durations need a unit and
stay within a year, a phase lasts a minute at least, a moment is in a named time zone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.service import DeadlinePolicy, MAX_DURATION, MIN_PHASE, format_duration, parse_duration, parse_moment


@pytest.mark.parametrize("text, expected", [
    ("36h", timedelta(hours=36)), ("2d", timedelta(days=2)), ("90m", timedelta(minutes=90)),
    ("1d12h", timedelta(days=1, hours=12)), ("1d 12h", timedelta(days=1, hours=12)), ("45s", timedelta(seconds=45)),
    ("1w", timedelta(weeks=1)), ("1.5h", timedelta(minutes=90)), ("2 days", timedelta(days=2)),
    ("3 hours 30 minutes", timedelta(hours=3, minutes=30)), (" 48H ", timedelta(hours=48)), ("365d", MAX_DURATION),
])
def test_durations_in_every_form_a_gm_writes(text, expected):
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text, needle", [
    ("10", "needs a unit: '10' could be seconds or hours; write 10h, 10m or 10d"),
    ("2.5", "needs a unit"),
    ("99999999d", "too long: '99999999d' is more than 365d"),
    ("3000000d", "too long"),
    ("366d", "too long"),
    ("9" * 40 + "d", "must be a number and a unit"),  # more digits than any duration has
    ("0s", "more than nothing"),
    ("soon", "must be a number and a unit, like 36h, 2d, 90m, 1d12h or 45s"),
    ("10x", "must be a number and a unit"),
    ("-5h", "must be a number and a unit"),
    ("1e9h", "must be a number and a unit"),
    ("h" * 10_000, "must be a number and a unit"),
    ("", "must be a number and a unit"),
])
def test_what_is_not_a_duration_is_refused_with_the_forms_accepted(text, needle):
    with pytest.raises(ValueError) as refused:
        parse_duration(text)
    assert needle in str(refused.value)
    assert len(str(refused.value)) < 300


def test_zero_only_where_it_means_something_and_the_value_is_named():
    assert parse_duration("0s", zero=True) == timedelta(0)
    with pytest.raises(ValueError, match="^--movement needs a unit"):
        parse_duration("48", what="--movement")


def test_a_phase_lasts_a_minute_at_least_and_a_year_at_most():
    assert MIN_PHASE == timedelta(minutes=1)
    assert DeadlinePolicy(movement=MIN_PHASE, retreat=MIN_PHASE, adjustment=MIN_PHASE).movement == MIN_PHASE
    with pytest.raises(ValueError, match="the movement phase must last at least 1m, not 0.001s"):
        DeadlinePolicy(movement=timedelta(seconds=0.001))
    with pytest.raises(ValueError, match="the retreat phase may last at most 365d"):
        DeadlinePolicy(retreat=timedelta(days=400))
    with pytest.raises(ValueError, match="grace period"):
        DeadlinePolicy(grace=timedelta(days=-1))


def test_a_policy_stored_before_the_bounds_keeps_its_pace_within_them():
    stored = DeadlinePolicy().to_dict() | {"movement": 0.001, "adjustment": 10 ** 12}
    policy = DeadlinePolicy.from_dict(stored)
    assert (policy.movement, policy.adjustment) == (MIN_PHASE, MAX_DURATION)


def test_durations_read_back_as_written():
    for text in ("36h", "2d", "1d12h", "90m", "45s"):
        assert parse_duration(format_duration(parse_duration(text))) == parse_duration(text)
    assert format_duration(timedelta(minutes=90)) == "1h30m"


@pytest.mark.parametrize("text, zone, expected", [
    ("2031-03-01 18:00", "UTC", datetime(2031, 3, 1, 18, 0, tzinfo=UTC)),
    ("2031-03-01 18:00", "Europe/Paris", datetime(2031, 3, 1, 17, 0, tzinfo=UTC)),  # the game's zone
    ("2031-03-01 18:00 America/New_York", "Europe/Paris", datetime(2031, 3, 1, 23, 0, tzinfo=UTC)),
    ("2031-07-01T18:00 Europe/Paris", "UTC", datetime(2031, 7, 1, 16, 0, tzinfo=UTC)),  # summer time
    ("2031-03-01 18:00:30 UTC", "Asia/Tokyo", datetime(2031, 3, 1, 18, 0, 30, tzinfo=UTC)),
    ("2031-03-01T18:00Z", "Asia/Tokyo", datetime(2031, 3, 1, 18, 0, tzinfo=UTC)),
    ("2031-03-01T18:00+05:30", "UTC", datetime(2031, 3, 1, 12, 30, tzinfo=UTC)),
])
def test_a_moment_in_a_named_time_zone(text, zone, expected):
    moment = parse_moment(text, zone)
    assert moment == expected and moment.tzinfo is UTC


@pytest.mark.parametrize("text, needle", [
    ("tomorrow", "a date and time, like 2031-03-01 18:00"),
    ("18:00", "a date and time"),
    ("2031-02-30 10:00", "is not a date and time"),
    ("2031-03-01 18:00 Mars/Olympus", "unknown time zone 'Mars/Olympus'; use an IANA name like Europe/Paris"),
    ("2031-03-01 18:00 ../../etc/passwd", "unknown time zone"),
    ("2031-03-30 02:30 Europe/Paris", "does not exist in Europe/Paris: the clocks go forward"),
    ("2031-10-26 02:30 Europe/Paris", "happens twice in Europe/Paris (the clocks go back); say which with its UTC "
                                      "offset, like 2031-10-26T02:30+02:00 or 2031-10-26T02:30+01:00"),
    ("2031-03-01T18:00+25:00", "not a UTC offset"),
])
def test_what_is_not_a_moment_is_refused_saying_what_is(text, needle):
    with pytest.raises(ValueError) as refused:
        parse_moment(text, "UTC")
    assert needle in str(refused.value)


def test_a_games_policy_is_read_anew_when_its_document_is_replaced_or_changed_in_place():
    from bot.service.context import Context
    from bot.store.rows import GameRow

    game = GameRow(name="Policy", key="policy", variant="classic", gm="gm", policy={"movement": 7200})
    assert Context.policy(game).movement == timedelta(hours=2)
    assert Context.policy(game) is Context.policy(game)         # the same document, parsed once
    game.policy["movement"] = 3600
    assert Context.policy(game).movement == timedelta(hours=1)
    game.policy = {"movement": 10800}
    assert Context.policy(game).movement == timedelta(hours=3)
