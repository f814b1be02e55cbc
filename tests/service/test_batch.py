"""Messages of orders taken together (``submit_many``): every answer, every stored order and every
audit row exactly as if the messages had come one at a time, on SQLite and on PostgreSQL."""

from __future__ import annotations

import threading
from datetime import timedelta


from bot.archive.games import export_game
from bot.service import (DeadlinePolicy, GameService, NoSuchGameError, NotPlayingError, ServiceError,
                         WrongStateError)
from bot.store.database import Database

POWERS = {"AUS": "anna", "ENG": "ed", "FRA": "flo", "GER": "gus", "ITA": "ivo", "RUS": "rita", "TUR": "tom"}

# Two games, the same players in both; corrections, a waive-free movement phase, refusals of every kind.
MESSAGES = [
    ("alpha", "flo", "A par - bur\nF bre - mao"),
    ("beta", "flo", "A par - pic"),
    ("alpha", "ed", "F lon - nth\nA lvp - yor\nF edi - nwg"),
    ("alpha", "flo", "A par - pic\nA zzz - bur"),  # replaces the army's order, keeps the fleet's
    ("alpha", "stranger", "A par - bur"),  # not a player
    ("gamma", "flo", "A par - bur"),  # no such game
    ("forming", "flo", "A par - bur"),  # not started
    ("beta", "flo", "hello\nF bre - eng\nA mar - spa"),
    ("alpha", "ed", "F lon - eng"),
    ("alpha", "flo", "A par - gas\nF bre H\nA mar - bur"),
    ("beta", "ed", "A lvp - wal"),
]


def set_up(service) -> None:
    for name in ("alpha", "beta", "forming"):
        service.create_game(name, "standard", "gm", policy=DeadlinePolicy(movement=timedelta(days=2)), seed=3)
        for power, player in POWERS.items():
            service.join(name, player, power)
        if name != "forming":
            service.start(name, "gm", fill_civil_disorder=True)


def answers(results) -> list:
    return [(type(r).__name__, str(r)) if isinstance(r, ServiceError) else r for r in results]


def one_by_one(service, messages) -> list:
    out = []
    for game, player, text in messages:
        try:
            out.append(service.submit_orders(game, player, text))
        except ServiceError as exc:
            out.append(exc)
    return out


def stored(service) -> dict:
    """Everything the messages leave behind: standing orders (with their order) and the audit log."""
    out = {}
    for name in ("alpha", "beta"):
        orders = {p: [(o.written, o.canonical) for o in service.orders_of_power(name, None, p)] for p in POWERS}
        audit = [{k: v for k, v in s.items() if k not in ("id",)} for s in export_game(service.db, name)["submissions"]]
        out[name] = (orders, audit)
    return out


def check_batch_equals_one_by_one(db_a: Database, db_b: Database) -> None:
    one = GameService(db_a)
    many = GameService(db_b)
    set_up(one)
    set_up(many)
    expected = one_by_one(one, MESSAGES)
    got = many.submit_many(MESSAGES)
    assert answers(got) == answers(expected)
    assert [type(r) for r in got[4:7]] == [NotPlayingError, NoSuchGameError, WrongStateError]
    assert stored(many) == stored(one)
    orders, audit = stored(one)["alpha"]
    assert orders["FRA"] == [("A par - gas", "FRA: A par - gas"), ("F bre H", "FRA: F bre H"),
                             ("A mar - bur", "FRA: A mar - bur")]
    assert orders["ENG"] == [("A lvp - yor", "ENG: A lvp - yor"), ("F edi - nwg", "ENG: F edi - nwg"),
                             ("F lon - eng", "ENG: F lon - eng")]
    assert [a["player"] for a in audit] == ["flo", "ed", "flo", "ed", "flo"]
    # the later message stood for the army and the fleet; the fleet's first order was replaced
    assert [o.canonical for o in got[9].standing] == ["FRA: A par - gas", "FRA: F bre H", "FRA: A mar - bur"]


def test_a_batch_answers_and_stores_exactly_what_one_message_at_a_time_would(tmp_path, clock):
    dbs = [Database.sqlite_file(tmp_path / f"{n}.db") for n in "ab"]
    for db in dbs:
        db.migrate()
    try:
        check_batch_equals_one_by_one(*dbs)
    finally:
        for db in dbs:
            db.dispose()


def test_a_batch_on_postgresql_too(pg_url, tmp_path, clock):
    sqlite = Database.sqlite_file(tmp_path / "one.db")
    sqlite.migrate()
    pg = Database(pg_url)
    try:
        check_batch_equals_one_by_one(sqlite, pg)
    finally:
        sqlite.dispose()
        pg.dispose()


def test_orders_in_a_batch_end_no_phase_early_and_make_their_ready_players_unready(make_service, sqlite_db, clock):
    service, _, _ = make_service(sqlite_db)
    service.create_game("early", "standard", "gm", policy=DeadlinePolicy(early=True))
    service.join("early", "ed", "ENG")
    service.join("early", "flo", "FRA")
    service.start("early", "gm", fill_civil_disorder=True)
    service.submit_many([("early", "ed", "F lon - nth"), ("early", "flo", "A par - bur")])
    assert service.status("early").phase == "S1901M"  # every order in, nobody said the orders are final
    assert not service.ready("early", "ed").adjudicated
    first, second = service.submit_many([("early", "ed", "F edi - nwg"), ("early", "flo", "A mar - spa")])
    assert first.ready_cleared and not second.ready_cleared
    assert [p.ready for p in service.status("early").players] == [False, False]
    service.ready("early", "ed")
    done = service.ready("early", "flo")
    assert done.adjudicated and done.game.phase == "F1901M" and done.game.version == 1
    # the orders the phase was adjudicated with are those standing when the last power was ready
    assert {"ENG: F lon - nth", "ENG: F edi - nwg", "FRA: A par - bur", "FRA: A mar - spa"} <= {
        o["canonical"] for o in export_game(service.db, "early")["seasons"][0]["orders"]}


def test_a_player_in_civil_disorder_who_orders_in_a_batch_is_active_again(make_service, sqlite_db, clock):
    service, _, _ = make_service(sqlite_db)
    service.create_game("cd", "standard", "gm", policy=DeadlinePolicy(nmr_limit=1))
    service.join("cd", "ed", "ENG")
    service.join("cd", "flo", "FRA")
    service.start("cd", "gm", fill_civil_disorder=True)
    clock.shift(timedelta(days=3))
    service.fire_due()
    assert {p.player: p.status for p in service.status("cd").players}["flo"] == "civil_disorder"
    refused, taken = service.submit_many([("cd", "flo", "A zzz - bur"), ("cd", "flo", "A par - bur")])
    assert not refused.accepted and taken.accepted
    player = {p.player: p for p in service.status("cd").players}["flo"]
    assert player.status == "active" and player.nmr_count == 0


def test_batches_from_two_processes_on_postgresql_lose_no_order(make_service, pg_url, clock):
    """Two judges (two engines) send interleaved batches for the same games at once."""
    first, _, _ = make_service(Database(pg_url))
    second, _, _ = make_service(Database(pg_url))
    set_up(first)
    units = {"ENG": ["F lon H", "F edi H", "A lvp H"], "FRA": ["F bre H", "A par H", "A mar H"],
             "GER": ["F kie H", "A ber H", "A mun H"], "ITA": ["F nap H", "A rom H", "A ven H"]}
    plan = {judge: [[(game, POWERS[p], line) for game in ("beta", "alpha") for p, lines in units.items()
                     for k, line in enumerate(lines) if (k + i) % 2 == j] for i in range(5)]
            for j, judge in enumerate((first, second))}
    errors = []

    def run(judge) -> None:
        try:
            for batch in plan[judge]:
                assert not [r for r in judge.submit_many(batch) if isinstance(r, ServiceError)]
        except Exception as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(judge,)) for judge in (first, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    for game in ("alpha", "beta"):
        for power, lines in units.items():
            got = sorted(o.written for o in first.orders_of_power(game, None, power))
            assert got == sorted(lines), (game, power)
    total = sum(len(b) for judge in plan for b in plan[judge])
    assert sum(len(export_game(first.db, g)["submissions"]) for g in ("alpha", "beta")) == total
    first.db.dispose()
    second.db.dispose()


def test_directories_list_each_players_games_with_their_front_end_data(make_service, sqlite_db, clock):
    service, _, _ = make_service(sqlite_db)
    set_up(service)
    service.create_game("posted", "standard", "gm",
                        policy=DeadlinePolicy(extra={"discord": {"channel": 42}}), seed=1)
    service.join("posted", "flo", "FRA")
    listed = service.directories(["flo", "ed", "nobody"], statuses=("active", "forming"))
    assert [(e.name, e.status, e.power) for e in listed["flo"]] == [
        ("alpha", "active", "FRA"), ("beta", "active", "FRA"), ("forming", "forming", "FRA"),
        ("posted", "forming", "FRA")]
    assert [e.name for e in listed["ed"]] == ["alpha", "beta", "forming"] and listed["nobody"] == []
    posted = listed["flo"][-1]
    assert posted.extra == {"discord": {"channel": 42}} == service.policy_of("posted").extra
    assert service.directory(player="flo", statuses=("active",)) == listed["flo"][:2]
    assert [e.power for e in service.directory()] == [None] * 4  # every game, nobody's seat
