"""A whole game played through the service with a frozen clock: deadlines pass, reminders go to
the players who have not ordered, NMR turns into civil disorder, a rollback restores the season."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import select

from adjudicator.variant import get_variant
from adjudicator.vocab import Phase
from bot.archive.games import export_game
from bot.service import DeadlinePolicy, NotAllowedError, NotPlayingError, ServiceError, WrongStateError
from bot.store.rows import GameRow
from tests.service.conftest import POWERS, flush, start_tannenberg

POLICY = DeadlinePolicy(movement=timedelta(hours=48), retreat=timedelta(hours=24), adjustment=timedelta(hours=24),
                        reminders=(timedelta(hours=24), timedelta(hours=1)), nmr_limit=2)


@pytest.fixture
def game(make_service, sqlite_db, clock):
    service, dispatcher, sink = make_service(sqlite_db)
    start_tannenberg(service, dispatcher, POLICY)
    return service, dispatcher, sink


def test_a_game_starts_with_a_deadline_and_an_announcement(start, game):
    service, _, sink = game
    view = service.status("tannenberg")
    assert view.status == "active" and view.phase == "S1901M"
    assert view.deadline_at == start + timedelta(hours=48)
    assert view.deadline_at.tzinfo is not None
    [started] = sink.of_kind("started")
    assert started.audience == "public" and "S1901M" in started.body


def test_later_orders_replace_earlier_ones_per_unit_and_errors_say_why(game):
    service, _, _ = game
    first = service.submit_orders("tannenberg", "flo", "A par - bur\nF bre - mao")
    assert [line.canonical for line in first.accepted] == ["FRA: A par - bur", "FRA: F bre - mao"]
    second = service.submit_orders("tannenberg", "flo", "A par - pic\nA zzz - bur")
    assert [line.canonical for line in second.accepted] == ["FRA: A par - pic"]
    [bad] = second.rejected
    assert bad.written == "A zzz - bur" and bad.reason
    mine = service.my_orders("tannenberg", "flo")
    assert sorted(o.canonical for o in mine.orders) == ["FRA: A par - pic", "FRA: F bre - mao"]
    assert service.status("tannenberg").player_of("FRA").has_orders


def test_orders_are_private_until_adjudicated(game):
    service, _, _ = game
    service.submit_orders("tannenberg", "flo", "A par - bur")
    with pytest.raises(NotAllowedError):
        service.orders_of_power("tannenberg", "ed", "FRA")
    assert [o.canonical for o in service.orders_of_power("tannenberg", "flo", "FRA")] == ["FRA: A par - bur"]
    with pytest.raises(NotAllowedError):
        service.submit_orders("tannenberg", "stranger", "A par - bur")


def test_only_the_game_master_runs_the_game(game):
    service, _, _ = game
    with pytest.raises(NotAllowedError):
        service.pause("tannenberg", "ed")
    with pytest.raises(WrongStateError):
        service.resume("tannenberg", "gm")


def _order_all_but(service, missing: set[str], orders: dict[str, str]) -> None:
    for power, text in orders.items():
        if power not in missing:
            service.submit_orders("tannenberg", POWERS[power], text)


def test_a_season_of_deadlines_reminders_nmr_and_civil_disorder(start, game, clock):
    service, dispatcher, sink = game
    spring = {"ENG": "F lon - nth\nF edi - nwg\nA lvp - yor", "FRA": "A par - bur\nA mar - spa\nF bre - mao",
              "GER": "A mun - ruh\nA ber - kie\nF kie - den", "AUS": "A vie - gal\nA bud - ser\nF tri - alb",
              "ITA": "A ven - pie\nA rom - ven\nF nap - ion", "TUR": "A con - bul\nA smy - con\nF ank - bla"}
    _order_all_but(service, {"RUS"}, spring)

    # 24 hours before the deadline: only Russia, who has not ordered, is reminded
    clock.shift(timedelta(hours=24, seconds=1))
    assert service.fire_due() == 1
    flush(dispatcher)
    [reminder] = sink.of_kind("reminder")
    assert reminder.powers == ("RUS",) and reminder.recipients == ("rita",) and reminder.audience == "players"

    # the deadline passes: the phase is adjudicated once, Russia is NMR (its units hold)
    clock.shift(timedelta(hours=24))
    service.fire_due()
    assert service.fire_due() == 0
    flush(dispatcher)
    view = service.status("tannenberg")
    assert view.phase == "F1901M" and view.version == 1
    assert view.player_of("RUS").nmr_count == 1 and view.player_of("RUS").status == "active"
    # the 1-hour reminder fell due with the deadline (nothing fired in between): it is not sent
    # once the deadline has passed
    assert len(sink.of_kind("reminder")) == 1
    [results] = sink.of_kind("results")
    assert "S1901M" in results.body and results.data["nmr"] == ["RUS"]
    assert [a.kind for a in sink.of_kind("nmr")] == ["nmr"]
    assert view.deadline_at == start + timedelta(hours=96, seconds=1)

    # Russia misses again: civil disorder, the game master and Russia's player are told
    fall = {"ENG": "F nth - nwy\nF nwg H\nA yor H", "FRA": "A bur H\nA spa H\nF mao - por",
            "GER": "A ruh - hol\nA kie H\nF den H", "AUS": "A gal H\nA ser H\nF alb - gre",
            "ITA": "A pie H\nA ven H\nF ion - tun", "TUR": "A bul H\nA con H\nF bla H"}
    _order_all_but(service, {"RUS"}, fall)
    clock.shift(timedelta(hours=48))
    service.fire_due()
    flush(dispatcher)
    view = service.status("tannenberg")
    assert view.player_of("RUS").status == "civil_disorder"
    disorder = {a.audience: a for a in sink.of_kind("civil_disorder")}  # the game master, and the player
    assert sorted(disorder) == ["gm", "players"] and all(a.powers == ("RUS",) for a in disorder.values())
    assert disorder["players"].recipients == (view.player_of("RUS").player,)
    assert view.phase in ("W1901B", "S1902M")
    # told to order in this phase only when it has something to decide in it
    assert (f"Send orders for {view.phase} to play it again" if "RUS" in view.must_order else
            f"It has nothing to decide in {view.phase}; send orders in a later phase") in disorder["players"].body

    # play on two more years with no orders at all: every deadline adjudicates, nobody in
    # civil disorder is reminded
    reminders_before = len(sink.of_kind("reminder"))
    for _ in range(8):
        view = service.status("tannenberg")
        clock.move_to(view.deadline_at - timedelta(minutes=30))  # the reminders, before the deadline
        service.fire_due()
        flush(dispatcher)  # (not delivered before the results, they would be dropped: stale)
        clock.move_to(view.deadline_at + timedelta(seconds=1))
        service.fire_due()
        flush(dispatcher)
    new_reminders = sink.of_kind("reminder")[reminders_before:]
    assert new_reminders and all("RUS" not in r.powers for r in new_reminders)
    view = service.status("tannenberg")
    assert Phase.parse(view.phase).year >= 1903
    results = sink.of_kind("results")
    assert len(results) == view.version  # one announcement per adjudicated phase
    assert len({r.key for r in results}) == len(results)


def test_rollback_restores_the_previous_season_exactly(start, game, clock):
    service, dispatcher, sink = game
    service.submit_orders("tannenberg", "flo", "A par - bur\nF bre - mao")
    service.submit_orders("tannenberg", "ed", "F lon - nth")
    before = service.status("tannenberg")
    saved = export_game(service.db, "tannenberg")
    service.force_adjudicate("tannenberg", "gm")
    after = service.status("tannenberg")
    assert after.phase == "F1901M" and after.version == before.version + 1
    clock.shift(timedelta(hours=1))
    rolled = service.rollback("tannenberg", "gm")
    restored = export_game(service.db, "tannenberg")
    assert restored["game"]["position"] == saved["game"]["position"]
    assert restored["players"] == saved["players"]
    assert [{k: o[k] for k in ("power", "key", "seq", "text", "canonical", "submitted_at")} for o in restored["orders"]] \
        == [{k: o[k] for k in ("power", "key", "seq", "text", "canonical", "submitted_at")} for o in saved["orders"]]
    assert rolled.phase == "S1901M" and rolled.centers == before.centers
    assert [(p.power, p.status, p.nmr_count) for p in rolled.players] == \
           [(p.power, p.status, p.nmr_count) for p in before.players]
    assert sorted(o.canonical for o in service.my_orders("tannenberg", "flo").orders) == \
           ["FRA: A par - bur", "FRA: F bre - mao"]
    assert rolled.deadline_at == start + timedelta(hours=49)
    with pytest.raises(WrongStateError):
        service.rollback("tannenberg", "gm")
    # the same season adjudicated again gives a new, separate announcement
    service.force_adjudicate("tannenberg", "gm")
    flush(dispatcher)
    assert len(sink.of_kind("results")) == 2 and len(sink.of_kind("rolled_back")) == 1


def test_pause_resume_extend_keep_the_remaining_time(start, game, clock):
    service, _, _ = game
    clock.shift(timedelta(hours=10))
    service.pause("tannenberg", "gm")
    clock.shift(timedelta(days=5))
    assert service.fire_due() == 0  # paused: nothing fires
    view = service.resume("tannenberg", "gm")
    assert view.deadline_at == start + timedelta(hours=10, days=5) + timedelta(hours=38)
    view = service.extend("tannenberg", "gm", timedelta(hours=12))
    assert view.deadline_at == start + timedelta(hours=10, days=5) + timedelta(hours=50)


def test_a_new_deadline_moves_the_reminders_and_is_announced(start, game, clock):
    service, dispatcher, sink = game
    at = start + timedelta(hours=72)
    with pytest.raises(ValueError, match="timezone-aware time after now"):
        service.set_deadline("tannenberg", "gm", start - timedelta(hours=1))
    with pytest.raises(NotAllowedError):
        service.set_deadline("tannenberg", "anna", at)
    assert service.set_deadline("tannenberg", "gm", at).deadline_at == at
    flush(dispatcher)
    [moved] = [a for a in sink.of_kind("extended") if "new deadline" in a.subject]
    assert moved.audience == "public" and "Tue 04 Mar 2031 12:00 UTC" in moved.body
    clock.shift(timedelta(hours=47))  # the reminder 24h before the old deadline is gone
    assert service.fire_due() == 0
    clock.shift(timedelta(hours=1))  # 24h before the new one
    assert service.fire_due() == 1 and service.status("tannenberg").phase == "S1901M"
    flush(dispatcher)
    assert len(sink.of_kind("reminder")) == 1


def test_a_phase_that_gives_a_power_enough_centres_ends_the_game_once(game):
    service, dispatcher, sink = game
    variant = get_variant("standard")
    centres = sorted(p for p in variant.supply_centers if p != "mun")[:variant.victory_centers - 1]
    with service.db.session() as session:
        row = session.exec(select(GameRow).where(GameRow.name == "tannenberg")).one()
        row.position = {**row.position, "phase": "F1901M", "units": ["FRA: A bur"],
                        "supply_centers": {p: "FRA" for p in centres}}
        row.phase = "F1901M"
        session.add(row)
    orders = service.submit_orders("tannenberg", "flo", "A bur - mun")
    assert [line.canonical for line in orders.accepted] == ["FRA: A bur - mun"]
    assert service.force_adjudicate("tannenberg", "gm") == "adjudicated"
    view = service.status("tannenberg")
    assert view.status == "ended" and view.outcome == {"winner": "FRA"} and view.deadline_at is None
    assert service.fire_due() == 0
    flush(dispatcher)
    [results], [ended] = sink.of_kind("results"), sink.of_kind("ended")
    assert "FRA has won" in results.body and "orders are due" not in results.body
    assert ended.key == f"{view.id}:0:ended" and ended.data["outcome"] == {"winner": "FRA"}
    assert [a.kind for a in sink.delivered][-2:] == ["results", "ended"]


def test_draw_when_every_survivor_agrees(game):
    service, dispatcher, sink = game
    for player in list(POWERS.values())[:-1]:
        assert service.vote_draw("tannenberg", player).status == "active"
    view = service.vote_draw("tannenberg", POWERS["TUR"])
    assert view.status == "ended" and sorted(view.outcome["draw"]) == sorted(POWERS)
    flush(dispatcher)
    assert len(sink.of_kind("ended")) == 1


def test_replace_and_remove_players(game):
    service, _, _ = game
    view = service.replace_player("tannenberg", "gm", "ENG", "edith")
    assert view.player_of("ENG").player == "edith"
    assert service.submit_orders("tannenberg", "edith", "F lon - nth").accepted
    with pytest.raises(NotAllowedError):
        service.submit_orders("tannenberg", "ed", "F lon - nth")
    view = service.remove_player("tannenberg", "gm", "ITA")
    assert view.player_of("ITA").status == "removed"


def test_grace_period_tells_the_late_powers_then_adjudicates(make_service, start, sqlite_db, clock):
    service, dispatcher, sink = make_service(sqlite_db)
    service.create_game("grace", "standard", "gm", seed=3,
                        policy=DeadlinePolicy(movement=timedelta(hours=24), grace=timedelta(hours=6), reminders=()))
    service.join("grace", "ed", "ENG")
    service.join("grace", "flo", "FRA")
    service.start("grace", "gm", fill_civil_disorder=True)
    service.submit_orders("grace", "ed", "F lon - nth")
    clock.shift(timedelta(hours=24))
    service.fire_due()
    flush(dispatcher)
    view = service.status("grace")
    assert view.phase == "S1901M" and view.deadline_at == start + timedelta(hours=30)
    [late] = sink.of_kind("late")
    assert late.powers == ("FRA",) and late.recipients == ("flo",)
    service.submit_orders("grace", "flo", "A par - bur")  # in time for the grace deadline
    clock.shift(timedelta(hours=6))
    service.fire_due()
    flush(dispatcher)
    view = service.status("grace")
    assert view.phase == "F1901M" and view.player_of("FRA").nmr_count == 0
    [results] = sink.of_kind("results")
    assert results.data["nmr"] == []


def test_early_adjudication_once_every_power_that_must_decide_is_ready(make_service, sqlite_db, clock):
    service, _dispatcher, _sink = make_service(sqlite_db)
    service.create_game("early", "standard", "gm", policy=DeadlinePolicy(early=True))
    service.join("early", "ed", "ENG")
    service.join("early", "flo", "FRA")
    service.join("early", "wait", "GER")
    service.leave("early", "wait")
    service.start("early", "gm", fill_civil_disorder=True)
    service.submit_orders("early", "ed", "F lon - nth")
    service.submit_orders("early", "flo", "A par - bur")
    assert service.status("early").phase == "S1901M"  # every order in: still revising
    first = service.ready("early", "ed")
    assert first.ready and not first.adjudicated and first.waiting_for == ("FRA",) and first.early
    assert [u.unit.province for u in first.left.units] == ["edi", "lvp"]  # they hold, unless ordered
    assert service.status("early").player_of("ENG").ready and service.my_orders("early", "ed").ready
    assert service.submit_orders("early", "ed", "F edi - nwg").ready_cleared  # a new order: not final any more
    assert not service.status("early").player_of("ENG").ready
    service.ready("early", "ed")
    service.clear_orders("early", "ed", "edi")  # withdrawn: not final either
    assert not service.status("early").player_of("ENG").ready
    assert not service.ready("early", "flo").adjudicated
    done = service.ready("early", "ed")
    assert done.adjudicated and done.game.phase == "F1901M" and done.game.version == 1
    assert service.fire_due() == 0  # the spring deadline was spent with the phase
    assert not any(p.ready for p in service.status("early").players)  # each phase is made ready anew
    with pytest.raises(NotPlayingError) as refused:
        service.ready("early", "wait")
    assert refused.value.why == "stranger" and refused.value.to_player() == "You are not playing in 'early'."


def test_powers_ready_while_the_game_is_paused_end_the_phase_when_it_resumes(make_service, sqlite_db, clock):
    service, _, _ = make_service(sqlite_db)
    service.create_game("paused", "standard", "gm", policy=DeadlinePolicy(early=True))
    service.join("paused", "ed", "ENG")
    service.start("paused", "gm", fill_civil_disorder=True)
    service.pause("paused", "gm")
    assert not service.ready("paused", "ed").adjudicated
    assert service.resume("paused", "gm").phase == "F1901M"


def test_the_last_power_not_ready_taken_out_of_play_ends_the_phase_and_nobody_ready_ends_none(
        make_service, sqlite_db, clock):
    service, _, _ = make_service(sqlite_db)
    service.create_game("out", "standard", "gm", policy=DeadlinePolicy(early=True))
    for player, power in (("ed", "ENG"), ("flo", "FRA"), ("gus", "GER")):
        service.join("out", player, power)
    service.start("out", "gm", fill_civil_disorder=True)
    service.ready("out", "ed")
    assert service.set_civil_disorder("out", "gm", "FRA").phase == "S1901M"  # Germany is not ready
    assert service.remove_player("out", "gm", "GER").phase == "F1901M"      # England was the last one playing
    service.remove_player("out", "gm", "ENG")
    service.set_policy("out", "gm", {"early": False})
    assert service.set_policy("out", "gm", {"early": True}).game.phase == "F1901M"  # nobody plays: the deadline


def test_a_power_ready_without_orders_is_neither_reminded_nor_nmr_and_one_with_nothing_to_decide_is_refused(
        make_service, sqlite_db, clock):
    service, dispatcher, sink = make_service(sqlite_db)
    service.create_game("calm", "standard", "gm", policy=DeadlinePolicy(nmr_limit=1))
    for player, power in (("ed", "ENG"), ("flo", "FRA"), ("gus", "GER")):
        service.join("calm", player, power)
    service.start("calm", "gm", fill_civil_disorder=True)
    assert not service.ready("calm", "ed").early   # England's units hold: said so
    service.submit_orders("calm", "flo", "F bre - mao")
    clock.shift(timedelta(hours=24, seconds=1))
    service.fire_due()
    flush(dispatcher)
    [reminder] = sink.of_kind("reminder")
    assert reminder.powers == ("GER",)
    clock.shift(timedelta(hours=24))
    service.fire_due()
    flush(dispatcher)
    view = service.status("calm")
    assert view.phase == "F1901M" and sink.of_kind("results")[0].data["nmr"] == ["GER"]
    assert view.player_of("ENG").status == "active" and view.player_of("GER").status == "civil_disorder"
    assert service.ready("calm", "gus").game.player_of("GER").status == "active"  # back in play, as with orders
    service.submit_orders("calm", "flo", "F mao - por")
    service.ready("calm", "ed")
    service.force_adjudicate("calm", "gm")
    assert service.status("calm").phase == "W1901B"  # France builds; England has nothing to decide
    with pytest.raises(ServiceError, match="ENG has nothing to decide in W1901B: the phase does not wait for it"):
        service.ready("calm", "ed")


def test_a_timer_of_an_earlier_phase_never_adjudicates_the_next(make_service, sqlite_db, clock):
    service, _, _ = make_service(sqlite_db)
    service.create_game("stale", "standard", "gm")
    service.join("stale", "ed", "ENG")
    service.start("stale", "gm", fill_civil_disorder=True)
    assert service.adjudicate(service.status("stale").id, 0, trigger="forced") == "adjudicated"
    assert service.adjudicate(service.status("stale").id, 0, trigger="forced") == "stale"
    assert service.status("stale").version == 1


def test_deadlines_are_stored_in_utc_and_shown_in_the_games_time_zone(make_service, sqlite_db, clock):
    service, dispatcher, sink = make_service(sqlite_db)
    service.create_game("paris", "standard", "gm",
                        policy=DeadlinePolicy(movement=timedelta(hours=48), timezone="Europe/Paris"))
    service.join("paris", "flo", "FRA")
    view = service.start("paris", "gm", fill_civil_disorder=True)
    assert view.deadline_at.utcoffset() == timedelta(0)
    flush(dispatcher)
    [started] = sink.of_kind("started")
    assert "Mon 03 Mar 2031 13:00 CET (Mon 03 Mar 2031 12:00 UTC)" in started.body
    with pytest.raises(ValueError, match="unknown time zone"):
        DeadlinePolicy(timezone="Mars/Olympus")


def test_every_submission_is_kept_in_the_audit_log(game):
    service, _, _ = game
    service.submit_orders("tannenberg", "flo", "A par - bur")
    service.submit_orders("tannenberg", "flo", "A par - pic\nA zzz - bur")
    log = export_game(service.db, "tannenberg")["submissions"]
    assert [(s["player"], s["power"], s["phase"], s["text"]) for s in log] == [
        ("flo", "FRA", "S1901M", "A par - bur"), ("flo", "FRA", "S1901M", "A par - pic\nA zzz - bur")]
    assert log[1]["accepted"] == [{"written": "A par - pic", "canonical": "FRA: A par - pic"}]
    assert log[1]["rejected"][0]["written"] == "A zzz - bur" and log[1]["rejected"][0]["reason"]
    assert log[0]["at"].endswith("+00:00")


def test_the_game_master_hears_of_every_power_without_orders_when_another_falls_into_civil_disorder(
        make_service, sqlite_db, clock):
    service, dispatcher, sink = make_service(sqlite_db)
    service.create_game("two", "standard", "gm", policy=POLICY, seed=7)
    service.join("two", "ed", "ENG")
    service.join("two", "flo", "FRA")
    service.start("two", "gm", fill_civil_disorder=True)
    service.submit_orders("two", "flo", "A par H")
    clock.shift(timedelta(hours=48, seconds=1))
    service.fire_due()      # spring: only England without orders (its first)
    clock.shift(timedelta(hours=48, seconds=1))
    service.fire_due()      # autumn: nobody orders; England's second miss puts it in civil disorder
    flush(dispatcher)
    assert {p.player: p.status for p in service.status("two").players} == {"ed": "civil_disorder", "flo": "active"}
    assert [a.powers for a in sink.of_kind("civil_disorder") if a.audience == "gm"] == [("ENG",)]
    assert [a.powers for a in sink.of_kind("nmr")] == [("ENG",), ("FRA",)]
