"""Fixtures every area of the tests shares, and the ``--slow`` option.

- Each test leaves the process's logging as it found it: the `crusader` command configures
  logging for the whole process (a handler on the root logger, levels, structlog); tests that run
  it in-process would otherwise change what later tests' log captures see.
- Databases: ``sqlite_db`` (a migrated SQLite file), ``pg_url`` (the session's PostgreSQL
  database, emptied for the test): a throw-away database created once per test session on the
  server at ``CRUSADER_TEST_PG`` (default ``postgresql+psycopg://postgres@127.0.0.1:5432/test``)
  and dropped at the end; the tests that want it skip, saying why, when no server answers.
- ``start``: the moment the tests' clocks stand at when a game begins.
- ``board``, ``orders``, ``lords``: positions on the classic map with the prestige rules on, orders
  written as in the rules text, and who holds which neutral in vassaldom.
- ``outremer_phases``: a seeded game on the Outremer map with legal orders, prestige orders among
  them, phase by phase.
- ``acre``: a short Outremer game with the prestige rules, played through the service (for the
  archive site's pages and the pictures the front ends send).
"""

from __future__ import annotations

import logging
import os
import random
import secrets
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
import structlog

from adjudicator.adjudicate import adjudicate
from adjudicator.opening import starting_position
from adjudicator.orders import Convoy, Disband, Hold, Move, Retreat, SupportHold, SupportMove
from adjudicator.position import Position
from adjudicator.prestige.orders import Bribe, Lend, Rebel, SecureLoyalty, SeizeFief, Vassal
from adjudicator.prestige.state import neutral_units, put_state, state_of, vassals_by_home, vassals_from_homes
from adjudicator.variant import get_variant
from adjudicator.vocab import Location, Phase, Power, ProvinceId, Unit, UnitType
from bot.app.logging import HANDLER_NAME, QUIET
from bot.service import GameService
from bot.store.database import Database


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true",
                     help="also run the slow integration tests (marked slow), as .ci/run does")


def pytest_configure(config: pytest.Config) -> None:
    from tests import budgets

    budgets.SLOW = bool(config.getoption("--slow"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="slow integration test; python -m pytest --slow runs it")
    for item in items:
        if item.get_closest_marker("slow"):
            item.add_marker(skip)


@pytest.fixture(autouse=True, scope="session")
def _data_home(tmp_path_factory):
    """The user's own data directory (the judge's default when no test names one) is the session's,
    never the real home's; processes the tests start inherit it."""
    old = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("data-home"))
    yield
    if old is None:
        os.environ.pop("XDG_DATA_HOME", None)
    else:
        os.environ["XDG_DATA_HOME"] = old


@pytest.fixture(autouse=True)
def _restore_logging():
    root = logging.getLogger()
    level = root.level
    levels = {name: logging.getLogger(name).level for name in QUIET}
    config = structlog.get_config()
    yield
    for handler in [h for h in root.handlers if h.get_name() == HANDLER_NAME]:
        root.removeHandler(handler)
    root.setLevel(level)
    for name, old in levels.items():
        logging.getLogger(name).setLevel(old)
    structlog.configure(**config)


@pytest.fixture(scope="session")
def start() -> datetime:
    """The moment the tests' clocks stand at when a game begins."""
    return datetime(2031, 3, 1, 12, 0, tzinfo=UTC)


# -- databases ------------------------------------------------------------------------------------

PG_ADMIN_URL = os.environ.get("CRUSADER_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _pg_reachable() -> str | None:
    try:
        engine = sa.create_engine(PG_ADMIN_URL, connect_args={"connect_timeout": 3})
        with engine.connect() as c:
            c.execute(sa.text("SELECT 1"))
        engine.dispose()
        return None
    except Exception as exc:  # noqa: BLE001 (the reason goes into the skip message)
        return f"PostgreSQL not reachable at {PG_ADMIN_URL}: {type(exc).__name__}: {str(exc).splitlines()[0]}"


@pytest.fixture(scope="session")
def pg_server_url():
    """The URL of a fresh database on the PostgreSQL server, dropped after the session."""
    reason = _pg_reachable()
    if reason:
        pytest.skip(reason)
    name = f"crusader_test_{secrets.token_hex(6)}"
    admin = sa.create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = sa.engine.make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    yield url
    with admin.connect() as c:
        c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def pg_url(pg_server_url):
    """The session's PostgreSQL database, emptied for this test."""
    db = Database(pg_server_url)
    db.migrate()
    with db.engine.begin() as c:
        c.execute(sa.text("TRUNCATE game, player, orders, submission, season, timer, outbox RESTART IDENTITY CASCADE"))
    db.dispose()
    return pg_server_url


@pytest.fixture
def sqlite_db(tmp_path):
    db = Database.sqlite_file(tmp_path / "judge.db")
    db.migrate()
    yield db
    db.dispose()


# -- positions and orders of the prestige rules on the classic map --------------------------------

STANDARD = get_variant("standard")


def _board(phase: str = "S1907M", units: list[str] = (), centers: dict[str, str] | None = None, *,
          prestige: dict[str, int] | None = None, start: dict[str, int] | None = None,
          vassals: dict[str, str] | None = None, homes: dict[str, list[str]] | None = None,
          neutral_homes: dict[str, str] | None = None, eliminated: tuple[str, ...] = (),
          seed: int = 0, variant=STANDARD) -> Position:
    """A position: ``units`` like ``"NEU: A nwy"``, ``centers`` the owners that differ from the start."""
    base = starting_position(variant, ["prestige"])
    owners = dict(base.supply_centers)
    owners.update({ProvinceId(k): Power(v) for k, v in (centers or {}).items()})
    state = state_of(base)
    now = dict(state.prestige)
    now.update(prestige or {})
    begun = dict(now)
    begun.update(start or {})
    home_centers = dict(state.home_centers)
    home_centers.update({Power(k): tuple(v) for k, v in (homes or {}).items()})
    state = replace(state, prestige=now, prestige_start=begun, home_centers=home_centers,
                    neutral_homes={Location.parse(k): ProvinceId(v) for k, v in (neutral_homes or {}).items()},
                    seed=seed)
    position = base.with_changes(phase=Phase.parse(phase), units=tuple(Unit.parse(u) for u in units),
                                 supply_centers=owners, eliminated=frozenset(eliminated), modules={"prestige": state})
    held = vassals_from_homes(state, neutral_units(position),
                              {ProvinceId(k): Power(v) for k, v in (vassals or {}).items()})
    return put_state(position, replace(state, vassals=held))


def _lords(position: Position) -> dict[str, str]:
    """The position's vassals by home province (each home here is one unit's)."""
    by_home, by_location = vassals_by_home(state_of(position), neutral_units(position))
    assert not by_location
    return by_home


# -- orders in the rules text's notation (province ids) ------------------------------------


def _unit_order(power: Power, words: list[str], retreat: bool = False):
    t, loc, rest = UnitType.parse(words[0]), Location.parse(words[1]), words[2:]
    if not rest or rest == ["H"]:
        return Hold(power, t, loc)
    if rest[0] == "-":
        if retreat:
            return Retreat(power, t, loc, Location.parse(rest[1]))
        return Move(power, t, loc, Location.parse(rest[1]), via_convoy=rest[2:] == ["via", "convoy"])
    if rest == ["disband"]:
        return Disband(power, t, loc)
    kind, tt, target, tail = rest[0], UnitType.parse(rest[1]), Location.parse(rest[2]), rest[3:]
    if kind == "S" and not tail:
        return SupportHold(power, t, loc, tt, target)
    if kind == "S":
        return SupportMove(power, t, loc, tt, target, Location.parse(tail[1]))
    return Convoy(power, t, loc, tt, target, Location.parse(tail[1]))


def _order(text: str, retreat: bool = False, variant=STANDARD):
    """``"FRA: VASSAL A nwy BID 3"``, ``"FRA: A nwy - swe"``, ``"RUS: LEND ENG 3"``, ...

    Read by the order grammar, as a player's message is; a move in a retreat phase is a retreat.
    """
    if not retreat:
        from grammar import parse_order

        return parse_order(text, variant)
    return _plain_order(text, retreat)


def _plain_order(text: str, retreat: bool = False):
    head, _, body = text.partition(":")
    power, words = Power(head.strip()), body.split()
    key = words[0].upper()
    if key == "VASSAL":
        return Vassal(power, UnitType.parse(words[1]), Location.parse(words[2]), int(words[4]))
    if key == "BRIBE":
        owner = None
        if words[1].isupper() and len(words[1]) == 3:
            owner, words = Power(words[1]), [words[0]] + words[2:]
        inner = _unit_order(power, words[5:]) if len(words) > 5 else None
        return Bribe(power, UnitType.parse(words[1]), Location.parse(words[2]), int(words[4]), owner, inner)
    if key == "SEIZE":
        return SeizeFief(power, ProvinceId(words[2]))
    if key == "REBEL":
        return Rebel(power, ProvinceId(words[1]), int(words[3]))
    if key == "SECURE":
        return SecureLoyalty(power, int(words[3]))
    if key == "LEND":
        return Lend(power, Power(words[1]), int(words[2]))
    return _unit_order(power, words, retreat)


def _orders(*texts: str, retreat: bool = False, variant=STANDARD) -> list:
    return [_order(t, retreat, variant) for t in texts]


@pytest.fixture(scope="session")
def board():
    """``board(phase="S1907M", units=(), centers=None, *, prestige=..., vassals=..., ...)``: a
    position on the classic map with the prestige rules on (see ``_board``)."""
    return _board


@pytest.fixture(scope="session")
def orders():
    """``orders(*texts, retreat=False, variant=STANDARD)``: orders written as in the rules text."""
    return _orders


@pytest.fixture(scope="session")
def lords():
    """``lords(position)``: the position's vassals by home province (each home here is one unit's)."""
    return _lords


# -- a seeded Outremer game -----------------------------------------------------------------------

CRUSADER = get_variant("crusader")


def _phases(seed: int, years: int):
    from tests.random_play import CAREFUL, random_orders

    rng = random.Random(seed)
    position = starting_position(CRUSADER)
    position = put_state(position, replace(state_of(position), seed=seed))
    while position.phase.year < CRUSADER.start_phase.year + years:
        given = random_orders(rng, CRUSADER, position, CAREFUL)
        adjudication = adjudicate(CRUSADER, position, given)
        yield position, given, adjudication
        position = adjudication.position


@pytest.fixture(scope="session")
def outremer_phases():
    """``outremer_phases(seed, years)``: each phase of a game on the Outremer map, from the seeded
    random player (``tests/random_play.py``: every power orders every unit it commands, prestige
    orders of every kind and supported attacks among them, so that units are dislodged and
    retreat; no wrong lines, nobody silent), as ``(position, orders, adjudication)``."""
    return _phases


# -- "acre": a short game played through the service ------------------------------------------------


@dataclass(frozen=True)
class Acre:
    """A short Outremer game with the prestige rules, played through the service.

    Spring 1101 has a vassal bid that is won, one below the minimum, a bribe, a bounce and moves
    into two neutral centres; Fall 1101 holds them, so Winter 1101 has builds; the game then
    stands at Spring 1102 (``next_season`` plays it).
    """

    name = "acre"
    players = {"ANT": "antoine", "BYZ": "basil", "EDE": "eudes", "FAT": "faiz", "JER": "joscelin", "SEL": "sanjar",
               "RUM": "rukn"}
    seasons = [
        ("S1101M", {"JER": "VASSAL F tyr BID 2\nA jer - jaf",
                    "FAT": "BRIBE F tyr BID 1\nF tyr S F acr\nA cai - sid\nF dmt - sid",
                    "BYZ": "BRIBE A phr BID 1", "RUM": "A ico - att\nA seb - tre", "SEL": "A mos - jez"}),
        ("F1101M", {"RUM": "A att H\nA tre H", "SEL": "A jez H", "JER": "A jaf - asc", "FAT": "A cai - sid"}),
        ("W1101B", {"RUM": "build A ico\nbuild A seb", "SEL": "build A mos"}),
    ]
    next_season = ("S1102M", {"RUM": "A att - myr", "JER": "A jaf H"})

    def play(self, service: GameService, phase: str, orders: dict[str, str]) -> None:
        """Every power's orders for ``phase``, all accepted, and the phase adjudicated."""
        now = service.status(self.name).phase
        assert now == phase, f"the game is at {now}, not {phase}"
        for power, text in orders.items():
            report = service.submit_orders(self.name, self.players[power], text)
            assert not report.rejected, report.to_text()
        assert service.force_adjudicate(self.name, "gm") == "adjudicated"

    def played(self, path: Path) -> tuple[Database, GameService]:
        """A SQLite judge at ``path`` holding the game after its first three seasons."""
        db = Database.sqlite_file(path)
        db.migrate()
        service = GameService(db)
        service.create_game(self.name, "crusader", "gm", rules=("prestige",), seed=11)
        for power, player in self.players.items():
            service.join(self.name, player, power)
        service.start(self.name, "gm", fill_civil_disorder=True)
        for phase, orders in self.seasons:
            self.play(service, phase, orders)
        return db, service


@pytest.fixture(scope="session")
def acre() -> Acre:
    """The "acre" game: its players and seasons, ``acre.played(path)`` and ``acre.play(...)``."""
    return Acre()
