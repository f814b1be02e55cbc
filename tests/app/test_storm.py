"""A small deadline storm through the whole judge (``benchmarks/bench_storm.py``): twenty games
whose deadlines fall at one instant, run by real ``crusader serve`` processes (one on SQLite, two
on one PostgreSQL), the test Discord enforcing Discord's limits in a process of its own, and a
capturing SMTP relay. Checked from the test Discord's and the relay's own records: every result
posted once in its channel and once in its archive thread, every player mailed once, no 429
beyond the first of a bucket, never more than 50 requests in a second; the whole outbox
delivered, every phase run timed in the servers' logs, the first result posted before the last
game is adjudicated, nothing logged as an error."""

from __future__ import annotations

import sys

import pytest

from benchmarks.bench_storm import report, storm

GAMES = 20


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_a_small_storm_is_posted_and_mailed_once_under_discord_s_limits(database, tmp_path, request):
    if database == "sqlite":
        url, servers = f"sqlite:///{tmp_path / 'storm.db'}", 1
    else:
        url, servers = request.getfixturevalue("pg_url"), 2
    result = storm(url, GAMES, servers, site=True, lead=45, baseline=False, tmp=tmp_path, timeout=600)
    discord = result["discord"]
    assert discord["results_posted"] == discord["archive_posted"] == GAMES
    assert discord["posted_more_than_once"] == {"results": 0, "archive": 0}
    assert discord["refs_repeated"] == {"results": 0, "archive": 0}
    assert discord["requests_needed"] == 2 * GAMES  # one message a season, and its archive
    assert discord["429s_beyond_first_of_bucket"] == 0 and discord["most_in_a_second"] <= 50
    assert not discord["problems"]
    mail = result["mail"]
    assert (mail["mails"], mail["recipients"], mail["repeated"]) == (7 * GAMES, 7 * GAMES, 0)
    engine = result["engine"]
    assert engine["phase_runs"] == GAMES and set(engine["by_server"]) <= {f"s{i + 1}" for i in range(servers)}
    assert engine["picture_ms"]["mean"] > 0 and engine["adjudicate_ms"]["mean"] > 0
    # the results go out while the storm is adjudicated, not after its last game
    assert result["first_result_posted_s"] < engine["last_adjudicated_s"]
    assert result["logs"]["errors"] == 0, result["logs"]["first_errors"]
    assert result["posted_and_mailed_s"] > 0
    # the interpreter's speed that day, measured by the servers' interpreter before and after
    assert result["python"].startswith("CPython ") and sys.executable in result["python"]
    assert result["yardstick_ms"]["before"] > 0 and result["yardstick_ms"]["after"] > 0
    assert "yardsticks" in report(result)
