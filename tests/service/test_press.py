"""Press through the judge: who may send what to whom under the game's press rules, what each
recipient reads (and nobody else), the bounds, and each power's history."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from bot.service import DeadlinePolicy, InputError, NotAllowedError, NotPlayingError, WrongStateError
from bot.service.press import history_lines, receipt_text
from bot.store.outbox import Announcement, OutboxDispatcher
from tests.notifiers import RecordingNotifier
from tests.service.conftest import flush, to_the_1901_retreat

PLAYERS = {"ENG": "ed", "FRA": "flo", "GER": "gus", "ITA": "ivo"}


def _by_player(a: Announcement) -> tuple[str, ...]:
    """Like the front ends: a players' announcement to its players, the game master's to ``gm``."""
    if a.audience == "gm":
        return ("gm",)
    if a.audience == "players":
        return a.recipients
    return ("public",)


@pytest.fixture
def game(sqlite_db, clock):
    from bot.service import GameService

    service = GameService(sqlite_db)
    sink = RecordingNotifier(_by_player)
    dispatcher = OutboxDispatcher(sqlite_db, [sink])
    service.create_game("parley", "standard", "gm", policy=DeadlinePolicy(press_per_hour=5), seed=7)
    for power, player in PLAYERS.items():
        service.join("parley", player, power)
    service.start("parley", "gm", fill_civil_disorder=True)
    flush(dispatcher)
    sink.made.clear()
    sink.delivered.clear()
    return service, dispatcher, sink


def _press(sink: RecordingNotifier) -> list[tuple[str, str]]:
    return sorted((recipient, a.body) for a, (_, recipient) in zip(sink.delivered, sink.made) if a.kind == "press")


def test_full_press_reaches_exactly_its_recipients_named_by_power_never_by_player(game):
    service, dispatcher, sink = game
    receipt = service.send_press("parley", "ed", "FRA, germany", "Shall we split the Low Countries?")
    assert receipt.sent_to == ("FRA", "GER") and not receipt.refused and not receipt.anonymous
    flush(dispatcher)
    got = _press(sink)
    assert [r for r, _ in got] == ["flo", "gus"]
    body = got[0][1]
    assert "from England (ENG) to France (FRA), Germany (GER)" in body and "split the Low Countries" in body
    assert not set(re.findall(r"\w+", body)) & set(PLAYERS.values())
    assert receipt_text(receipt).startswith("Press sent in 'parley' (S1901M) to FRA, GER, as ENG.")


def test_recipients_refused_one_by_one_and_a_message_that_goes_nowhere_is_refused_whole(game):
    service, _dispatcher, _sink = game
    receipt = service.send_press("parley", "ed", ["FRA", "XYZ", "ENG", "RUS"], "hello")
    assert receipt.sent_to == ("FRA",)
    reasons = dict(receipt.refused)
    assert "not a power of standard" in reasons["XYZ"] and reasons["ENG"] == "that is your own power"
    assert reasons["RUS"] == "nobody plays RUS"
    with pytest.raises(NotAllowedError, match="not sent: XYZ: not a power"):
        service.send_press("parley", "ed", "XYZ", "hello")
    with pytest.raises(InputError, match="no text"):
        service.send_press("parley", "ed", "FRA", "   ")
    with pytest.raises(NotPlayingError):
        service.send_press("parley", "stranger", "FRA", "hello")


def test_broadcast_goes_to_every_other_power_played_and_to_the_gm_when_asked(game):
    service, dispatcher, sink = game
    receipt = service.send_press("parley", "flo", "ALL GM", "Peace in our time.")
    assert receipt.broadcast and receipt.sent_to == ("ENG", "GER", "ITA", "GM")
    flush(dispatcher)
    assert [r for r, _ in _press(sink)] == ["ed", "gm", "gus", "ivo"]
    assert "to everyone and the game master" in _press(sink)[0][1]


def test_public_press_allows_only_press_to_everyone_and_none_only_to_the_gm(game):
    service, _dispatcher, _sink = game
    service.set_policy("parley", "gm", {"press": "public"})
    with pytest.raises(NotAllowedError, match="public press only"):
        service.send_press("parley", "ed", "FRA", "psst")
    assert service.send_press("parley", "ed", "ALL", "hello all").broadcast
    service.set_policy("parley", "gm", {"press": "none"})
    with pytest.raises(NotAllowedError, match="no press between players"):
        service.send_press("parley", "ed", "ALL", "hello all")
    receipt = service.send_press("parley", "ed", "FRA GM", "help")
    assert receipt.sent_to == ("GM",) and "no press between players" in dict(receipt.refused)["FRA"]


def test_grey_press_hides_the_sender_from_every_recipient_and_only_under_grey(game):
    service, dispatcher, sink = game
    with pytest.raises(NotAllowedError, match="only under grey press"):
        service.send_press("parley", "ed", "FRA", "boo", anonymous=True)
    service.set_policy("parley", "gm", {"press": "grey"})
    flush(dispatcher)
    receipt = service.send_press("parley", "ed", "FRA, GER", "Beware of Italy", anonymous=True)
    assert receipt.anonymous and "anonymously" in receipt_text(receipt)
    flush(dispatcher)
    for recipient, body in _press(sink):
        assert "an anonymous power" in body and "ENG" not in body and "England" not in body and "ed" != recipient
    stored = [a for a in sink.delivered if a.kind == "press"]
    assert all("ENG" not in str(a.data) and "ed" not in a.recipients for a in stored)
    flo = service.press_history("parley", "flo")
    assert [(line.sender, line.anonymous) for line in flo.lines] == [(None, True)]
    ed = service.press_history("parley", "ed")
    assert ed.lines[0].sent and "sent to FRA, GER (anonymously)" in "\n".join(history_lines(ed))


def test_press_in_retreats_and_adjustments_only_when_the_game_allows(game):
    service, _dispatcher, _sink = game
    service.set_policy("parley", "gm", {"press_all_phases": False})
    to_the_1901_retreat(service, "parley")
    with pytest.raises(NotAllowedError, match="retreat and adjustment phases"):
        service.send_press("parley", "flo", "GER", "sorry about Burgundy")
    assert service.send_press("parley", "flo", "GM", "a question").sent_to == ("GM",)


def test_the_bounds_size_and_rate_each_refused_with_what_would_do(game, clock):
    service, _dispatcher, _sink = game
    with pytest.raises(InputError, match="at most 4000"):
        service.send_press("parley", "ed", "FRA", "x" * 4001)
    for i in range(5):
        service.send_press("parley", "ed", "FRA", f"note {i}")
    with pytest.raises(NotAllowedError, match="5 an hour"):
        service.send_press("parley", "ed", "FRA", "one too many")
    assert service.send_press("parley", "flo", "ENG", "others are not held up").sent_to == ("ENG",)
    clock.shift(timedelta(minutes=61))
    assert service.send_press("parley", "ed", "FRA", "an hour later").sent_to == ("FRA",)
    with pytest.raises(InputError, match="press_max_chars is 1 to"):
        service.set_policy("parley", "gm", {"press_max_chars": 0})


def test_history_by_power_keeps_each_powers_own_and_the_gm_sees_volume_and_what_was_sent_to_them(game):
    service, _dispatcher, _sink = game
    service.send_press("parley", "ed", "FRA", "private to France")
    service.send_press("parley", "gus", "ITA", "private to Italy")
    service.send_press("parley", "ivo", "GM", "to the GM alone")
    flo = service.press_history("parley", "flo")
    assert [line.text for line in flo.lines] == ["private to France"]
    ivo = "\n".join(history_lines(service.press_history("parley", "ivo")))
    assert "private to Italy" in ivo and "to the GM alone" in ivo and "private to France" not in ivo
    gm = service.press_history("parley", "gm")
    assert [line.text for line in gm.lines] == ["to the GM alone"]
    assert gm.volume == (("S1901M", "ENG", 1), ("S1901M", "GER", 1), ("S1901M", "ITA", 1))
    shown = "\n".join(history_lines(gm))
    assert "private to" not in shown and "S1901M ENG: 1" in shown
    assert service.published_press("parley") is None


def test_an_eliminated_or_removed_power_sends_none_and_an_ended_game_takes_none(game):
    service, _dispatcher, _sink = game
    service.remove_player("parley", "gm", "ITA")
    with pytest.raises(NotPlayingError):
        service.send_press("parley", "ivo", "FRA", "still here?")
    receipt = service.send_press("parley", "ed", "FRA ITA", "hello")
    assert dict(receipt.refused)["ITA"] == "nobody plays ITA"
    service.end_game("parley", "gm")
    with pytest.raises(WrongStateError, match="ended"):
        service.send_press("parley", "ed", "FRA", "after the end")


def test_published_press_at_the_end_keeps_anonymous_press_anonymous_and_the_gms_mail_private(game):
    service, _dispatcher, _sink = game
    service.set_policy("parley", "gm", {"press": "grey", "press_published": True})
    service.send_press("parley", "ed", "FRA", "signed", anonymous=False)
    service.send_press("parley", "ed", "GER", "unsigned", anonymous=True)
    service.send_press("parley", "ed", "GM", "for the GM")
    assert service.published_press("parley") is None
    service.end_game("parley", "gm")
    published = service.published_press("parley")
    assert [(line.sender, line.text) for line in published.lines] == [("ENG", "signed"), (None, "unsigned")]


def test_whether_a_game_is_anonymous_is_chosen_before_it_starts(game):
    service, _dispatcher, _sink = game
    with pytest.raises(WrongStateError, match="before it starts"):
        service.set_policy("parley", "gm", {"anonymous": True})


def test_an_anonymous_game_names_no_player_in_what_it_announces_until_it_ends(sqlite_db, clock):
    from bot.service import GameService

    service = GameService(sqlite_db)
    sink = RecordingNotifier(_by_player)
    dispatcher = OutboxDispatcher(sqlite_db, [sink])
    service.create_game("masked", "standard", "gm", policy=DeadlinePolicy(anonymous=True), seed=7)
    for power, player in PLAYERS.items():
        service.join("masked", player, power)
    view = service.start("masked", "gm", fill_civil_disorder=True)
    assert view.anonymous
    service.replace_player("masked", "gm", "ITA", "newcomer")
    service.set_civil_disorder("masked", "gm", "GER")
    service.restore_player("masked", "gm", "GER")
    service.remove_player("masked", "gm", "FRA")
    service.send_press("masked", "ed", "GER", "who am I?")
    flush(dispatcher)
    public = [a for a in sink.delivered if a.audience == "public"]
    assert {a.kind for a in public} >= {"started", "replaced", "civil_disorder", "removed", "active"}
    names = set(PLAYERS.values()) | {"newcomer"}
    for a in public + sink.of_kind("press"):
        assert not set(re.findall(r"\w+", a.body + a.subject)) & names, a.body
    [started] = sink.of_kind("started")
    assert "ENG: a player (this game is anonymous)" in started.body
    service.end_game("masked", "gm")
    assert not service.status("masked").anonymous
    flush(dispatcher)
    [ended] = sink.of_kind("ended")
    assert "The game was anonymous; its players were:" in ended.body and "  ENG: ed\n" in ended.body


def test_published_press_goes_on_the_archive_site_beside_the_seasons_when_the_game_ends(game, tmp_path):
    from bot.archive.games import game_archive
    from bot.frontends.site.writer import SiteWriter

    service, _dispatcher, _sink = game
    service.set_policy("parley", "gm", {"press": "grey", "press_published": True})
    service.send_press("parley", "ed", "FRA", "<b>signed</b>")
    service.send_press("parley", "gus", "ALL", "unsigned", anonymous=True)
    service.send_press("parley", "ivo", "GM", "for the GM alone")
    writer = SiteWriter(tmp_path)
    writer.write_game(game_archive(service.db, "parley"))
    assert not (tmp_path / "parley" / "press.html").exists()
    service.end_game("parley", "gm")
    writer.write_game(game_archive(service.db, "parley"))
    page = (tmp_path / "parley" / "press.html").read_text()
    assert "&lt;b&gt;signed&lt;/b&gt;" in page and "from <strong>ENG</strong> to FRA</p>" in page
    assert "from <strong>an anonymous power</strong>" in page and "GER" not in page
    assert "for the GM alone" not in page
    assert 'href="press.html"' in (tmp_path / "parley" / "index.html").read_text()


def test_the_game_master_answers_any_power_whatever_the_rules(game):
    service, dispatcher, sink = game
    service.set_policy("parley", "gm", {"press": "none"})
    service.send_press("parley", "flo", "GM", "May I retreat to Spain?")
    receipt = service.send_press("parley", "gm", "FRA", "Yes, if it is adjacent.")
    assert receipt.sent_to == ("FRA",) and "as the game master" in receipt_text(receipt)
    with pytest.raises(NotAllowedError, match="under the game master's name"):
        service.send_press("parley", "gm", "FRA", "boo", anonymous=True)
    flush(dispatcher)
    [(_to, body)] = [(r, b) for r, b in _press(sink) if r == "flo"]
    assert "from the game master to France (FRA)" in body
    gm = "\n".join(history_lines(service.press_history("parley", "gm")))
    assert "from FRA to GM" in gm and "sent to FRA:" in gm
    assert "from GM to FRA" in "\n".join(history_lines(service.press_history("parley", "flo")))


def test_recipients_by_code_name_or_adjective_between_commas_or_spaces(game):
    service, _dispatcher, _sink = game
    assert service.send_press("parley", "ed", "france, German", "hello").sent_to == ("FRA", "GER")
    assert service.send_press("parley", "ed", "fra ger ita", "hello").sent_to == ("FRA", "GER", "ITA")
    assert service.send_press("parley", "ed", ["Italy", "gm"], "hello").sent_to == ("ITA", "GM")
