"""The outbox delivers once per recipient: refused recipients are recorded and the game master
told, recipients that must wait wait alone, a game's announcements reach each recipient in order,
two servers never make one delivery twice, and a delivery a dead server may have made is in doubt."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from structlog.testing import capture_logs

from bot.store import database, outbox
from bot.store.database import Database
from bot.store.outbox import DELIVERED, Announcement, Delivery, OutboxDispatcher, Refused, RetryLater, outbox_row, write
from tests.notifiers import RecordingNotifier
from bot.store.rows import GameRow, OutboxRow

T0 = datetime(2031, 3, 1, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


class Sink:
    """A notifier with several recipients whose answers a test chooses; every delivery it makes is
    kept as made (``made``: a raw record, shared by every server in the test)."""

    def __init__(self, recipients=("ann", "bob", "cat"), *, made: list | None = None, delay: float = 0.0,
                 gate: asyncio.Event | None = None, name: str = "sink") -> None:
        self.name = name
        self._recipients = recipients
        self.made = [] if made is None else made
        self.answers: dict[str, object] = {}  # recipient -> outcome (or exception) for now
        self.delay = delay
        self.gate = gate  # a delivery goes on until the test sets it
        self.doubts: list[tuple[str, str]] = []
        self.begun: list[tuple[str, str]] = []  # every attempt, as it begins

    async def recipients(self, announcement: Announcement):
        return () if announcement.kind == "undeliverable" else self._recipients

    async def deliver(self, delivery: Delivery):
        key, who = delivery.announcement.key, delivery.recipient
        self.begun.append((key, who))
        if delivery.in_doubt:
            self.doubts.append((key, who))
            if (key, who) in self.made:
                return DELIVERED
        answer = self.answers.get(who, DELIVERED)
        if isinstance(answer, Exception):
            raise answer
        if answer is DELIVERED:
            await self.making(delivery)
            self.made.append((key, who))
        return answer

    async def making(self, delivery: Delivery) -> None:
        """The time a delivery takes."""
        await asyncio.sleep(self.delay)
        if self.gate is not None:
            await self.gate.wait()


def game(db: Database, name: str = "g") -> int:
    with db.session() as session:
        row = GameRow(name=name, variant="standard", gm="gm", created_at=T0)
        session.add(row)
        session.flush()
        return row.id


def announce(db: Database, key: str, game_id: int | None, kind: str = "results") -> None:
    with db.session() as session:
        session.add(outbox_row(Announcement(key=key, kind=kind, audience="public", subject=f"about {key}",
                                            body="text", game_id=game_id, game="g"), T0))


def states(db: Database) -> dict[tuple[str, str, str], str]:
    with db.session() as session:
        keys = {o.id: o.key for o in database.outbox_of(session)}
        return {(keys[d.outbox_id], d.notifier, d.recipient): d.state for d in database.deliveries_of(session)}


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path):
    if request.param == "sqlite":
        db = Database.sqlite_file(tmp_path / "judge.db")
    else:
        db = Database(request.getfixturevalue("pg_url"))
    db.migrate()
    yield db
    db.dispose()


async def test_a_refused_recipient_is_recorded_the_gm_told_and_nobody_else_held_up(db):
    g = game(db)
    sink, gm = Sink(), RecordingNotifier(lambda a: ("gm",) if a.audience == "gm" else (), name="gm-desk")
    sink.answers["bob"] = Refused("550 5.1.1 no such mailbox")
    announce(db, "1:0:results", g)
    dispatcher = OutboxDispatcher(db, [sink, gm])
    await dispatcher.flush()
    assert sorted(sink.made) == [("1:0:results", "ann"), ("1:0:results", "cat")]
    assert states(db)[("1:0:results", "sink", "bob")] == "refused"
    [notice] = gm.of_kind("undeliverable")
    assert notice.audience == "gm" and notice.game_id == g
    assert "bob" in notice.body and "550 5.1.1 no such mailbox" in notice.body and "about 1:0:results" in notice.subject
    with db.session() as session:
        [delivery] = [d for d in database.deliveries_of(session) if d.recipient == "bob"]
        assert delivery.reason == "550 5.1.1 no such mailbox"
        assert all(o.delivered_at is not None for o in database.outbox_of(session))
    await dispatcher.flush()  # refused for good: never tried again
    assert len(sink.made) == 2 and len(gm.of_kind("undeliverable")) == 1


async def test_a_recipient_that_must_wait_waits_alone_and_gets_the_games_announcements_in_order(db):
    g = game(db)
    clock = Clock()
    sink = Sink()
    sink.answers["bob"] = RetryLater("451 4.3.0 mailbox busy")
    dispatcher = OutboxDispatcher(db, [sink], clock=clock, backoff=timedelta(minutes=1))
    announce(db, "1:0:results", g)
    await dispatcher.flush()
    announce(db, "1:1:results", g)
    await dispatcher.flush()
    assert [m for m in sink.made if m[1] != "bob"] == [("1:0:results", "ann"), ("1:0:results", "cat"),
                                                       ("1:1:results", "ann"), ("1:1:results", "cat")]
    assert not [m for m in sink.made if m[1] == "bob"]
    clock.now += timedelta(seconds=30)  # not yet: bob's back-off is a minute
    await dispatcher.flush()
    assert not [m for m in sink.made if m[1] == "bob"]
    del sink.answers["bob"]
    clock.now += timedelta(minutes=1)
    await dispatcher.flush()
    assert [m for m in sink.made if m[1] == "bob"] == [("1:0:results", "bob"), ("1:1:results", "bob")]
    assert set(states(db).values()) == {"delivered"}


async def test_a_recipient_still_failing_after_the_time_allowed_is_refused_and_the_gm_told(db):
    g = game(db)
    clock = Clock()
    sink = Sink(("ann",))
    sink.answers["ann"] = RetryLater("connection refused")
    gm = RecordingNotifier(lambda a: ("gm",) if a.audience == "gm" else (), name="gm-desk")
    dispatcher = OutboxDispatcher(db, [sink, gm], clock=clock, backoff=timedelta(minutes=10),
                                  max_backoff=timedelta(hours=1), give_up_after=timedelta(hours=3))
    announce(db, "1:0:results", g)
    tries = 0
    while not gm.of_kind("undeliverable"):
        await dispatcher.flush()
        clock.now += timedelta(minutes=20)
        tries += 1
        assert tries < 30
    [notice] = gm.of_kind("undeliverable")
    assert "still not delivered after" in notice.body and "connection refused" in notice.body
    assert states(db)[("1:0:results", "sink", "ann")] == "refused"


async def test_an_unexpected_failure_is_logged_with_its_traceback_and_tried_again(db):
    g = game(db)
    sink = Sink()
    sink.answers["cat"] = KeyError("bug")
    dispatcher = OutboxDispatcher(db, [sink], backoff=timedelta(0))
    announce(db, "1:0:results", g)
    with capture_logs() as logs:
        await dispatcher.flush()
    [failure] = [e for e in logs if e["event"].startswith("delivery failed unexpectedly")]
    assert failure["log_level"] == "error" and failure.get("exc_info")
    assert states(db)[("1:0:results", "sink", "cat")] == "pending"
    del sink.answers["cat"]
    await dispatcher.flush()
    assert sorted(sink.made) == [("1:0:results", "ann"), ("1:0:results", "bob"), ("1:0:results", "cat")]


async def test_a_direct_announcement_goes_through_its_notifier_only(db):
    mail = RecordingNotifier(lambda a: a.direct_to("mail"), name="mail")
    other = RecordingNotifier(lambda a: a.direct_to("other") or (() if a.audience == "direct" else ("all",)),
                              name="other")
    dispatcher = OutboxDispatcher(db, [mail, other])
    reply = Announcement(key="mail-reply:1", kind="reply", audience="direct", subject="Re: orders", body="ok",
                         recipients=("ann@players.test",), data={"via": "mail", "in_reply_to": "<m1@players.test>"})
    assert dispatcher.enqueue(reply) is True
    assert dispatcher.enqueue(reply) is False  # one key, one announcement
    await dispatcher.flush()
    assert mail.made == [("mail-reply:1", "ann@players.test")] and other.made == []
    assert mail.delivered[0].data["in_reply_to"] == "<m1@players.test>"
    with pytest.raises(ValueError, match="via"):
        dispatcher.enqueue(Announcement(key="k", kind="reply", audience="direct", subject="s", body="b"))


async def test_a_delivery_a_dead_server_was_making_is_in_doubt_and_made_once(db):
    g = game(db)
    announce(db, "1:0:results", g)
    sink = Sink(("ann",))
    clock = Clock()
    first = OutboxDispatcher(db, [sink], lease=timedelta(seconds=1), clock=clock)
    await first._expand()
    # a server claims the delivery, makes it, and dies before recording it
    [claimed] = first._claim("dead/1", set())
    await sink.deliver(claimed.delivery)
    assert sink.made == [("1:0:results", "ann")]
    clock.now += timedelta(seconds=1.1)  # its claim lapses
    second = OutboxDispatcher(db, [sink], lease=timedelta(seconds=1), clock=clock)
    await second.flush()
    assert sink.doubts == [("1:0:results", "ann")] and sink.made == [("1:0:results", "ann")]
    assert set(states(db).values()) == {"delivered"}


def many(db: Database) -> None:
    """Four games with two announcements each, for three recipients: 24 deliveries in 12 queues."""
    for n in range(4):
        g = game(db, f"g{n}")
        for version in range(2):
            announce(db, f"{g}:{version}:results", g)


class Ticker:
    """The servers' clock, moved by the test a ``step`` at a time while a delivery waits for it,
    and only once every claim being delivered has been renewed since the last step (or made
    since): a claim lapses only if its renewals stop, never because the machine is slow."""

    def __init__(self, monkeypatch, step: timedelta) -> None:
        self.clock, self.step, self.steps = Clock(), step, 0
        self.fresh: dict[outbox._Hold, int] = {}  # each claim being delivered -> the step it was renewed at
        self.claiming: set[str] = set()  # servers choosing rows (by the clock as it is)
        self.waiting = 0  # deliveries waiting for the clock
        real_claim, real_deliver_all, real_renewed = (OutboxDispatcher._claim_timed, OutboxDispatcher._deliver_all,
                                                      outbox._Hold.renewed)
        ticker = self

        def claim_timed(self, token, exclude, now=None):
            ticker.claiming.add(self.node)
            claimed = None
            try:
                claimed = real_claim(self, token, exclude, now)
                return claimed
            finally:
                if not (claimed and claimed[0]):
                    ticker.claiming.discard(self.node)

        async def deliver_all(self, claimed, hold):
            ticker.fresh[hold] = ticker.steps
            ticker.claiming.discard(self.node)
            try:
                return await real_deliver_all(self, claimed, hold)
            finally:
                del ticker.fresh[hold]

        def renewed(self, rows, until, deadline):
            real_renewed(self, rows, until, deadline)
            if self in ticker.fresh:
                ticker.fresh[self] = ticker.steps

        monkeypatch.setattr(OutboxDispatcher, "_claim_timed", claim_timed)
        monkeypatch.setattr(OutboxDispatcher, "_deliver_all", deliver_all)
        monkeypatch.setattr(outbox._Hold, "renewed", renewed)

    async def run(self) -> None:
        while True:
            while not (self.waiting and not self.claiming and all(s == self.steps for s in self.fresh.values())):
                await asyncio.sleep(0.01)
            self.clock.now += self.step
            self.steps += 1

    async def wait(self, span: timedelta) -> None:
        """Wait (as a delivery) until the clock has moved on ``span``."""
        end = self.clock.now + span
        self.waiting += 1
        try:
            while self.clock.now < end:
                await asyncio.sleep(0.01)
        finally:
            self.waiting -= 1


class Lasting(Sink):
    """A sink whose deliveries each take ``span`` by the ticker's clock."""

    def __init__(self, ticker: Ticker, span: timedelta, made: list) -> None:
        super().__init__(made=made)
        self.ticker, self.span = ticker, span

    async def making(self, delivery: Delivery) -> None:
        await self.ticker.wait(self.span)


def servers(db: Database, count: int, made: list, ticker: Ticker) -> list[OutboxDispatcher]:
    """``count`` servers whose deliveries take 0.6 s by the ticker's clock, six at a time, under a
    lease of 0.5 s: every delivery outlasts the lease, and a round of twelve does twice over."""
    return [OutboxDispatcher(db if db.is_sqlite else Database(db.url), [Lasting(ticker, timedelta(seconds=0.6), made)],
                             node=f"server{n}", lease=timedelta(seconds=0.5), concurrency=6, clock=ticker.clock)
            for n in range(count)]


async def sweep(dispatchers: list[OutboxDispatcher], db: Database) -> None:
    """Each server flushes every 0.1 s (as ``crusader serve``'s sweep does) until all is delivered."""
    async def one(d: OutboxDispatcher) -> None:
        while True:
            await d.flush()
            if set(states(db).values()) == {"delivered"}:
                return
            await asyncio.sleep(0.1)

    async with asyncio.timeout(120):  # (a guard: a test that would hang fails)
        await asyncio.gather(*(one(d) for d in dispatchers))


async def test_servers_sharing_the_outbox_never_make_one_delivery_twice_even_when_deliveries_outlast_the_lease(
        db, monkeypatch):
    """The servers' clock moves on only once the claims being delivered have been renewed:
    renewals keep every claim, none lapses, and each delivery is made once."""
    many(db)
    made: list[tuple[str, str]] = []
    ticker = Ticker(monkeypatch, timedelta(seconds=0.15))  # two steps from a renewal still leave a margin
    dispatchers = servers(db, 2, made, ticker)
    ticking = asyncio.ensure_future(ticker.run())
    try:
        with capture_logs() as logs:
            await sweep(dispatchers, db)
    finally:
        ticking.cancel()
    assert len(made) == 24 and len(set(made)) == 24, sorted(made)
    assert set(states(db).values()) == {"delivered"}
    assert not [e for e in logs if "lapsed" in e["event"] or "lost" in e["event"]], logs
    assert ticker.clock.now - T0 >= 2 * timedelta(seconds=0.6)  # (the twelve behind the first began once those were made)
    close(dispatchers, db)


async def until(condition, guard: float = 60) -> None:
    """Wait for ``condition``, an event of the test (``guard``: a test that would hang fails)."""
    async with asyncio.timeout(guard):
        while not condition():
            await asyncio.sleep(0.01)


async def lapse_while_delivering(db: Database, monkeypatch) -> tuple[list, list[OutboxDispatcher]]:
    """Server 0 claims the twelve deliveries at the head of their queues (its last claim: it is
    winding down) and begins six, which go on until the test lets them end; its first renewal
    hangs in the database (as under a lock, a failover, a stalled machine) until then too. The
    test moves the servers' clock past the claim's end; once server 0 has seen its claim lapse,
    server 1 flushes (it takes the twelve over, in doubt, and makes the twelve behind them); then
    server 0's deliveries and renewal are let go. What was made, and the two servers."""
    renewing, release, renewed = threading.Event(), threading.Event(), threading.Event()
    real_renew = OutboxDispatcher._renew_now

    def renew_now(self, token, rows=None):
        if self.node != "server0" or renewing.is_set():
            return real_renew(self, token, rows)
        renewing.set()
        try:
            release.wait(60)
            return real_renew(self, token, rows)
        finally:
            renewed.set()

    holds: list[outbox._Hold] = []
    real_deliver_all = OutboxDispatcher._deliver_all

    async def deliver_all(self, claimed, hold):
        if self.node == "server0":
            holds.append(hold)
        return await real_deliver_all(self, claimed, hold)

    monkeypatch.setattr(OutboxDispatcher, "_renew_now", renew_now)
    monkeypatch.setattr(OutboxDispatcher, "_deliver_all", deliver_all)
    many(db)
    made: list[tuple[str, str]] = []
    clock, lease, gate = Clock(), timedelta(seconds=0.5), asyncio.Event()
    first, second = (OutboxDispatcher(db if db.is_sqlite else Database(db.url), [sink], node=f"server{n}",
                                      lease=lease, concurrency=6, clock=clock)
                     for n, sink in enumerate([Sink(made=made, gate=gate), Sink(made=made)]))
    making = asyncio.ensure_future(first.flush())
    try:
        await until(lambda: len(first.notifiers[0].begun) == 6 and renewing.is_set())
        first.wind_down()
        clock.now += lease + timedelta(seconds=0.1)  # past the claim's end: another server may take it over
        await until(lambda: holds[0].lapsed)
        await second.flush()
    finally:
        gate.set()
        release.set()
    await asyncio.wait_for(making, 60)
    await until(renewed.is_set)
    return made, [first, second]


async def test_a_server_whose_claim_lapses_stops_its_deliveries_and_each_is_still_made_once(db, monkeypatch):
    """Server 0's claim lapses while it makes six of its twelve deliveries: it stops the six and
    starts none of the others; server 1 takes the twelve over, in doubt; each is made once."""
    with capture_logs() as logs:
        made, dispatchers = await lapse_while_delivering(db, monkeypatch)
    assert len(made) == 24 and len(set(made)) == 24, sorted(made)
    assert set(states(db).values()) == {"delivered"}
    lapsed = [e for e in logs if e["event"].startswith("claim on deliveries lapsed")]
    assert [e["stopped"] for e in lapsed] == [6], lapsed
    first, second = (d.notifiers[0] for d in dispatchers)
    assert len(first.begun) == 6 and len(set(second.doubts)) == 12, second.doubts
    close(dispatchers, db)


async def test_a_server_that_went_on_delivering_after_its_claim_lapsed_would_deliver_twice(db, monkeypatch):
    """The test above can fail: when server 0 goes on with its deliveries (and starts the others)
    after its claim lapsed, the twelve it held are made twice."""
    monkeypatch.setattr(outbox._Hold, "holds", lambda self, row_id: True)
    monkeypatch.setattr(outbox._Hold, "_stop", lambda self, rows: None)
    with capture_logs():
        made, dispatchers = await lapse_while_delivering(db, monkeypatch)
    assert len(made) == 36 and len(set(made)) == 24, sorted(made)
    close(dispatchers, db)


async def test_a_renewal_says_which_deliveries_are_still_held(db):
    g = game(db)
    announce(db, "1:0:results", g)
    sink = Sink(("ann", "bob"))
    first = OutboxDispatcher(db, [sink], lease=timedelta(seconds=1))
    await first._expand()
    claimed = first._claim("a", set(), T0)
    assert len(claimed) == 2
    later = T0 + timedelta(seconds=2)  # the claim of "a" lapsed; "b" takes bob's delivery over
    with db.session() as session:
        [(taken, _, in_doubt)] = database.claim_deliveries(session, ["sink"], "b", later, later + timedelta(minutes=1),
                                                           exclude={c.row_id for c in claimed
                                                                    if c.delivery.recipient == "ann"})
        assert in_doubt
    with db.session() as session:
        held = database.renew_deliveries(session, "a", later + timedelta(minutes=1))
    assert held == {c.row_id for c in claimed} - {taken.id}


def close(dispatchers: list[OutboxDispatcher], db: Database) -> None:
    for d in dispatchers:
        if d.db is not db:
            d.db.dispose()


def test_claims_over_several_notifiers_take_the_deliveries_due_first_of_them_all(db):
    """Each notifier's look after the first reads only the heads that could be among the claim's
    first: whatever the order the notifiers are named in, claims take the deliveries due first
    (then in the order written), each once, and mark each tried once, from the claim's time."""
    for i in range(4):
        g = game(db, f"g{i}")
        announce(db, f"{g}:0:results", g)
    with db.session() as session:
        for i, row in enumerate(database.claim_outbox(session, "x", T0, T0 + timedelta(minutes=1))):
            # the later announcements due first, two of them at the same time
            due = T0 - timedelta(seconds=min(i, 2))
            database.expand_announcement(session, row.id, "x", [("a", "r"), ("b", "r"), ("c", "r")], due)
    with db.session() as session:
        due_first = [d.id for d in sorted(database.deliveries_of(session), key=lambda d: (d.due_at, d.id))]
    taken = []
    for n in range(7):
        with db.session() as session:
            claimed = database.claim_deliveries(session, ["c", "a", "b"], f"t{n}", T0, T0 + timedelta(minutes=1),
                                                limit=2)
        assert len(claimed) == (2 if n < 6 else 0)
        assert all(c.attempts == 1 and c.first_tried_at == T0 for c, _, _ in claimed)
        taken += [c.id for c, _, _ in claimed]
    assert taken == due_first
    with db.session() as session:
        assert {(d.attempts, d.first_tried_at, d.claimed_by is not None) for d in database.deliveries_of(session)} == {
            (1, T0, True)}


def background_claims(db: Database, due_minutes_ago: tuple[int, ...], claims: int,
                      limit: int) -> list[list[tuple[str, int]]]:
    """Games' results due so many minutes ago, each to the players and the archive (a background
    notifier, five minutes' patience), claimed ``claims`` times, ``limit`` at most each time:
    each claim's ``(notifier, minutes due)`` in the order taken."""
    due = {}
    for minutes in due_minutes_ago:
        g = game(db, f"g{minutes}")
        announce(db, f"{g}:0:results", g)
        due[g] = T0 - timedelta(minutes=minutes)
    with db.session() as session:
        for row in database.claim_outbox(session, "x", T0, T0 + timedelta(minutes=1)):
            database.expand_announcement(session, row.id, "x", [("players", "r"), ("archive", "r")], due[row.game_id])
    out = []
    for n in range(claims):
        with db.session() as session:
            claimed = database.claim_deliveries(session, ["archive", "players"], f"t{n}", T0,
                                                T0 + timedelta(minutes=1), limit=limit, background=["archive"],
                                                patience=timedelta(minutes=5))
        out.append([(c.notifier, int((T0 - due[c.game_id]).total_seconds() // 60)) for c, _, _ in claimed])
    return out


def test_a_background_notifiers_deliveries_wait_for_the_others_until_they_have_waited_long_enough(db):
    """The archive's deliveries (a background notifier) are claimed where the players' leave room
    in a claim; once due for longer than the patience, in due order with the others."""
    claims = [sorted(claim) for claim in background_claims(db, (10, 1, 0), claims=4, limit=2)]
    assert claims == [
        [("archive", 10), ("players", 10)],  # due ten minutes: the archive's has waited long enough
        [("players", 0), ("players", 1)],    # the players' first,
        [("archive", 0), ("archive", 1)],    # then the archive's, where nothing else is due
        [],
    ]


def test_background_deliveries_due_long_enough_are_taken_in_due_order_where_a_claim_has_room(db):
    """A claim the players' deliveries leave room in: the archive's due for longer than the
    patience come in due order with them, the others after them, as far as the room goes."""
    claims = background_claims(db, (10, 0), claims=3, limit=3)
    assert [sorted(claims[0][:2]), claims[0][2:], claims[1], claims[2]] == [
        [("archive", 10), ("players", 10)], [("players", 0)],  # due first; the archive's due now waits
        [("archive", 0)],
        [],
    ]


async def test_a_flush_makes_the_players_deliveries_before_the_background_ones(db):
    """Many games' results at once: each one's background delivery (the archive site) is made
    after every player's, claim after claim; each is made once."""
    made: list = []
    players = Sink(("ann", "bob"), made=made, name="players")
    record = Sink(("site",), made=made, name="record")
    record.background = True  # type: ignore[attr-defined]
    for i in range(6):
        g = game(db, f"g{i}")
        announce(db, f"{g}:0:results", g)
    dispatcher = OutboxDispatcher(db, [record, players], batch=4)
    await dispatcher.flush()
    assert len(made) == len(set(made)) == 18
    assert [who for _, who in made[:12]].count("site") == 0 and {who for _, who in made[12:]} == {"site"}


def test_claims_skip_rows_another_transaction_holds(pg_url):
    db = Database(pg_url)
    g = game(db)
    for i in range(4):
        announce(db, f"1:{i}:results", g)
    with db.session() as session:
        for row in database.claim_outbox(session, "x", T0, T0 + timedelta(minutes=1)):
            database.expand_announcement(session, row.id, "x", [("sink", "ann")], T0)
    now = T0 + timedelta(seconds=1)
    with db.session() as a:
        mine = database.claim_deliveries(a, ["sink"], "a", now, now + timedelta(minutes=1))
        with db.session() as b:
            theirs = database.claim_deliveries(b, ["sink"], "b", now, now + timedelta(minutes=1))
    # one queue (sink, ann, game g): only its head is ever claimed, by one server
    assert [o.key for _, o, _ in mine] == ["1:0:results"] and theirs == []
    with db.session() as a:
        assert database.claim_deliveries(a, ["sink"], "a2", now, now + timedelta(minutes=1)) == []  # "a" holds it
    later = now + timedelta(minutes=2)  # the claim of "a" has lapsed: in doubt, and claimable again
    with db.session() as a:
        [(_, _, in_doubt)] = database.claim_deliveries(a, ["sink"], "a3", later, later + timedelta(minutes=1))
        assert in_doubt
        with db.session() as b:  # while one transaction holds the head, another skips it
            assert database.claim_deliveries(b, ["sink"], "b", later, later + timedelta(minutes=1)) == []
    db.dispose()


async def test_an_announcement_is_closed_with_its_last_delivery_and_a_flush_closes_what_a_kill_left_open(db):
    g = game(db)
    announce(db, "1:0:results", g)
    announce(db, "1:1:results", g)
    dispatcher = OutboxDispatcher(db, [Sink(("ann",))])
    await dispatcher._expand()
    [first] = dispatcher._claim("a", set(), T0)
    dispatcher._record(first, "a", DELIVERED)  # the transaction that records the last delivery closes it
    with db.session() as session:
        assert [o.delivered_at is not None for o in database.outbox_of(session)] == [True, False]
        # a server killed between recording a delivery and closing its announcement (before both were one)
        session.execute(sa.update(OutboxRow).values(delivered_at=None))
    await dispatcher.flush()
    with db.session() as session:
        assert all(o.delivered_at is not None for o in database.outbox_of(session))


# -- the claim reads the heads of the queues, whatever waits behind them ----------------------------

def backlog(db: Database, games: int, announcements: int, recipients: int) -> None:
    """``games`` games with ``announcements`` announcements each, for ``recipients`` recipients of
    the notifier ``sink``, fanned out: games x announcements x recipients deliveries pending."""
    with db.session() as session:
        ids = [game(db, f"b{n}") for n in range(games)]
        for g in ids:
            for v in range(announcements):
                session.add(outbox_row(Announcement(key=f"{g}:{v}:results", kind="results", audience="public",
                                                    subject="s", body="b", game_id=g), T0))
    fan_out = OutboxDispatcher(db, [RecordingNotifier(lambda a: [f"r{i}" for i in range(recipients)], name="sink")],
                               batch=500, clock=Clock())

    async def expand() -> None:
        while await fan_out._expand():
            pass

    asyncio.run(expand())


def claim_plan(db: Database, limit: int) -> str:
    """The plan of the query a claim of ``limit`` deliveries runs, as the database carries it out
    (PostgreSQL: ``EXPLAIN ANALYZE``, in a transaction rolled back; SQLite: its query plan)."""
    seen: list[tuple[str, object]] = []

    def record(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("SELECT") and "FROM delivery" in statement:
            seen.append((statement, parameters))

    sa.event.listen(db.engine, "before_cursor_execute", record)
    try:
        with db.session() as session:
            database.claim_deliveries(session, ["sink"], "plan", T0, T0 + timedelta(minutes=1), limit=limit)
            session.rollback()
    finally:
        sa.event.remove(db.engine, "before_cursor_execute", record)
    [(statement, parameters)] = seen
    connection = db.engine.raw_connection()
    try:
        cursor = connection.cursor()
        if db.is_sqlite:
            cursor.execute("EXPLAIN QUERY PLAN " + statement, parameters)
            return "\n".join(str(row[-1]) for row in cursor.fetchall())
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + statement, parameters)
        plan = cursor.fetchone()[0]
        connection.rollback()
        return json.dumps(plan)
    finally:
        connection.close()


def test_a_claim_reads_only_the_heads_it_takes_however_many_deliveries_wait(db):
    """5,000 deliveries wait in 1,000 queues (40 games, 25 recipients, 5 announcements each):
    a claim of 50 reads the index of the due heads and no more than the 50 rows it takes (the
    work is counted by the database, not timed)."""
    backlog(db, 40, 5, 25)
    plan = claim_plan(db, 50)
    assert "ix_delivery_heads" in plan, plan
    if db.is_sqlite:
        assert "SCAN delivery" not in plan.replace("USING INDEX", "").split("ix_delivery_heads")[0], plan
        return
    nodes = list(_plan_nodes(json.loads(plan)[0]["Plan"]))
    scans = [n for n in nodes if n.get("Relation Name") == "delivery"]
    assert [n["Node Type"] for n in scans] == ["Index Scan"] and scans[0]["Index Name"] == "ix_delivery_heads", plan
    read = scans[0]["Actual Rows"] + scans[0].get("Rows Removed by Filter", 0)
    assert read <= 50, plan


def _plan_nodes(node: dict):
    yield node
    for child in node.get("Plans", ()):
        yield from _plan_nodes(child)


async def test_a_queue_goes_on_past_a_refused_delivery_in_order(db):
    g = game(db)
    sink = Sink(("ann", "bob"))
    sink.answers["bob"] = Refused("550 no such mailbox")
    for v in range(3):
        announce(db, f"1:{v}:results", g)
    dispatcher = OutboxDispatcher(db, [sink])
    await dispatcher._expand()
    first = dispatcher._claim("a", set(), T0)
    assert sorted((c.delivery.announcement.key, c.delivery.recipient) for c in first) == [
        ("1:0:results", "ann"), ("1:0:results", "bob")]    # the heads of the two queues, nothing behind them
    for c in first:
        dispatcher._record(c, "a", sink.answers.get(c.delivery.recipient, DELIVERED))
    del sink.answers["bob"]
    await dispatcher.flush()
    assert [m for m in sink.made if m[1] == "bob"] == [("1:1:results", "bob"), ("1:2:results", "bob")]
    assert [m for m in sink.made if m[1] == "ann"] == [("1:1:results", "ann"), ("1:2:results", "ann")]


async def test_a_superseded_head_hands_its_queue_on_to_the_next_delivery(db):
    """A deadline extended, then press, both fanned out and waiting; the results supersede the
    extension: its deliveries, the heads of their queues, are dropped, and each queue goes on with
    the press and then the results, in order, not stalled behind what was dropped."""
    g = game(db)
    sink = Sink(("ann", "bob"))
    announce(db, "1:0:extended", g, kind="extended")
    announce(db, "1:0:press", g, kind="press")
    dispatcher = OutboxDispatcher(db, [sink])
    await dispatcher._expand()
    with db.session() as session:
        heads = {(d.outbox_id, d.recipient) for d in database.deliveries_of(session, game_id=g) if d.queue_head}
        [extended] = [o.id for o in database.outbox_of(session) if o.kind == "extended"]
        assert heads == {(extended, "ann"), (extended, "bob")}
    with db.session() as session:
        assert write(session, Announcement(key="1:0:results", kind="results", audience="public", subject="results",
                                           body="text", game_id=g, game="g", supersedes=("extended",)), T0)
    with db.session() as session:
        queue = sorted((d.outbox_id, d.recipient, d.state, d.queue_head)
                       for d in database.deliveries_of(session, game_id=g))
        [press] = [o.id for o in database.outbox_of(session) if o.kind == "press"]
    assert queue == [(extended, "ann", "superseded", False), (extended, "bob", "superseded", False),
                     (press, "ann", "pending", True), (press, "bob", "pending", True)]
    await dispatcher.flush()
    for who in ("ann", "bob"):
        assert [key for key, to in sink.made if to == who] == ["1:0:press", "1:0:results"]
    assert {s for (key, _, _), s in states(db).items() if key != "1:0:extended"} == {"delivered"}


class Unsure(Sink):
    """A sink that cannot say who receives ``unsure`` the first time it is asked (a notifier's
    lookup failing for a moment): that announcement is fanned out after those written later."""

    def __init__(self, unsure: str, recipients=("ann",)) -> None:
        super().__init__(recipients)
        self.unsure = unsure

    async def recipients(self, announcement: Announcement):
        if announcement.key == self.unsure:
            self.unsure = ""
            raise ConnectionError("the lookup failed for a moment")
        return await super().recipients(announcement)


async def test_a_superseded_delivery_leaves_its_queue_one_head(db):
    """A queue whose deliveries were fanned out out of order (the first announcement's recipients
    asked again later) has its head in the middle; a delivery dropped behind that head makes no
    second head in front of it: one delivery of a queue is claimed at a time."""
    g = game(db)
    sink = Unsure("1:0:press")
    announce(db, "1:0:press", g, kind="press")
    announce(db, "1:1:press", g, kind="press")
    announce(db, "1:1:extended", g, kind="extended")
    clock = Clock()
    dispatcher = OutboxDispatcher(db, [sink], clock=clock, lease=timedelta(seconds=30))
    with capture_logs():
        await dispatcher._expand()                  # 1:0 not fanned out: asked again once its claim lapses
    clock.now += timedelta(minutes=1)
    await dispatcher._expand()

    def heads() -> list[str]:
        with db.session() as session:
            keys = {o.id: o.key for o in database.outbox_of(session)}
            return sorted(keys[d.outbox_id] for d in database.deliveries_of(session, game_id=g)
                          if d.state == "pending" and d.queue_head)

    assert heads() == ["1:1:press"]
    with db.session() as session:
        write(session, Announcement(key="1:1:results", kind="results", audience="public", subject="results",
                                    body="text", game_id=g, game="g", supersedes=("extended",)), T0)
    assert heads() == ["1:1:press"]
    await dispatcher.flush()
    assert sorted(sink.made) == [("1:0:press", "ann"), ("1:1:press", "ann"), ("1:1:results", "ann")]


@pytest.mark.parametrize("first", ["records the head done", "writes the next delivery"])
def test_two_servers_writing_one_queue_at_once_leave_it_one_head(pg_url, first):
    """One server records the head of a queue done while another writes the queue's next
    delivery, each in a transaction of its own: the second waits for the first, and the queue
    ends with one head, the next delivery (without the wait each would miss the other's, and
    the queue would be left with none)."""

    db = Database(pg_url)
    g = game(db)
    announce(db, "1:0:results", g)
    announce(db, "1:1:results", g)
    claim = lambda session: database.claim_outbox(session, "x", T0, T0 + timedelta(minutes=1), limit=1)  # noqa: E731
    with db.session() as session:
        [row] = claim(session)
        database.expand_announcement(session, row.id, "x", [("sink", "ann")], T0)
    with db.session() as session:
        [(head, _, _)] = database.claim_deliveries(session, ["sink"], "a", T0, T0 + timedelta(minutes=1))

    def record(session):
        assert database.finish_delivery(session, head.id, "a", T0, state="delivered")

    def write(session):
        [row] = claim(session)
        assert database.expand_announcement(session, row.id, "x", [("sink", "ann")], T0)

    steps = [record, write] if first == "records the head done" else [write, record]
    holder = db.session()
    session = holder.__enter__()
    backend: list[int] = []
    waiter = threading.Thread(target=lambda: _in_session(db, steps[1], backend))
    try:
        steps[0](session)
        waiter.start()
        assert _waits_for_a_lock(db, waiter, backend)   # it waits for the queue, as PostgreSQL says
        assert waiter.is_alive()
    finally:
        holder.__exit__(None, None, None)
    waiter.join(30)
    assert not waiter.is_alive()
    with db.session() as session:
        rows = {database.outbox_of(session)[0].id: "1:0", database.outbox_of(session)[1].id: "1:1"}
        queue = [(rows[d.outbox_id], d.state, d.queue_head) for d in database.deliveries_of(session, game_id=g)]
    assert sorted(queue) == [("1:0", "delivered", False), ("1:1", "pending", True)]
    db.dispose()


def _in_session(db: Database, step, backend: list[int]) -> None:
    with db.session() as session:
        backend.append(session.connection().exec_driver_sql("SELECT pg_backend_pid()").scalar_one())
        step(session)


def _waits_for_a_lock(db: Database, waiter: threading.Thread, backend: list[int]) -> bool:
    """Whether ``waiter``'s session comes to wait for a lock (PostgreSQL's own account of its
    backend, ``pg_stat_activity``) while it runs; False once it has ended without."""
    while waiter.is_alive():
        if backend:
            with db.engine.connect() as c:
                waiting = c.execute(sa.text("SELECT wait_event_type FROM pg_stat_activity WHERE pid = :pid"),
                                    {"pid": backend[0]}).scalar_one_or_none()
            if waiting == "Lock":
                return True
        time.sleep(0.01)
    return False


async def test_a_claim_that_takes_longer_than_the_lease_still_delivers(db, monkeypatch):
    """The database takes two leases to choose the rows (by the dispatcher's clock): the claim
    runs from when they are chosen, so every delivery is still made, once."""
    clock = Clock()
    real = database.claim_deliveries

    def slow(session, notifiers, token, now, until, **kw):
        clock.now += 2 * timedelta(seconds=30)
        return real(session, notifiers, token, now, until, **kw)

    monkeypatch.setattr(database, "claim_deliveries", slow)
    many(db)
    sink = Sink()
    dispatcher = OutboxDispatcher(db, [sink], clock=clock, lease=timedelta(seconds=30))
    await asyncio.wait_for(dispatcher.flush(), 60)      # (a guard: it used to claim the same rows forever)
    assert len(sink.made) == 24 == len(set(sink.made))
    assert set(states(db).values()) == {"delivered"}


async def test_a_server_winding_down_ends_its_flush_with_the_batch_in_hand(db):
    many(db)
    sink = Sink()
    dispatcher = OutboxDispatcher(db, [sink], batch=5)
    real = sink.deliver

    async def deliver(delivery):
        dispatcher.wind_down()      # the server is told to stop while the first batch is being made
        return await real(delivery)

    sink.deliver = deliver
    assert await dispatcher.flush() == 5 and len(sink.made) == 5
    assert list(states(db).values()).count("delivered") == 5


async def test_the_deliveries_of_one_claim_are_recorded_together_and_a_lone_one_at_once(db, monkeypatch):
    """Deliveries that end one after the other (a few at a time) are recorded in one transaction
    when they were claimed together: each record waits for the claim's others (here for as long
    as they take); a delivery with none left to wait for is recorded at once."""
    many(db)  # twelve queue heads: one claim of twelve, then the twelve behind them
    batches: list[int] = []
    real = OutboxDispatcher._record_many

    def record_many(self, items):
        batches.append(len(items))
        return real(self, items)

    monkeypatch.setattr(OutboxDispatcher, "_record_many", record_many)
    sink = Sink(delay=0.01)
    dispatcher = OutboxDispatcher(db, [sink], concurrency=3, record_linger=timedelta(hours=1))
    await asyncio.wait_for(dispatcher.flush(), 60)      # (a guard: a record waiting an hour would stop it)
    assert batches == [12, 12] and len(set(sink.made)) == 24
    assert set(states(db).values()) == {"delivered"}
    announce(db, "9:0:results", game(db, "lone"))
    alone = OutboxDispatcher(db, [Sink(("ann",))], record_linger=timedelta(hours=1))
    await asyncio.wait_for(alone.flush(), 60)   # (nothing else claimed: its record waits for nothing)
    assert batches[2:] == [1]


def test_a_games_announcement_is_not_fanned_out_before_an_earlier_one_another_server_holds(db):
    """Two servers fan out a game's announcements: while one holds the game's first (claimed, not
    yet fanned out), the other does not take the second, which would reach each recipient first;
    it takes it once the first is fanned out, or with the first once that claim has lapsed."""
    g, other = game(db), game(db, "other")
    announce(db, "1:0:results", g)
    lease = T0 + timedelta(minutes=1)
    with db.session() as session:
        [first] = database.claim_outbox(session, "x", T0, lease)
    announce(db, "1:1:results", g)
    announce(db, "2:0:results", other)   # another game's waits for nothing
    with db.session() as session:
        assert [row.key for row in database.claim_outbox(session, "y", T0, lease)] == ["2:0:results"]
    with db.session() as session:
        assert database.expand_announcement(session, first.id, "x", [("sink", "ann")], T0)
    with db.session() as session:
        [second] = database.claim_outbox(session, "y", T0, lease)
        assert second.key == "1:1:results"
        assert database.expand_announcement(session, second.id, "y", [("sink", "ann")], T0)
    with db.session() as session:
        keys = {o.id: o.key for o in database.outbox_of(session)}
        heads = [keys[d.outbox_id] for d in database.deliveries_of(session, game_id=g) if d.queue_head]
    assert heads == ["1:0:results"]

    # a server stopped holding a game's first: once its claim lapses, another takes both, in order
    announce(db, "1:2:results", g)
    announce(db, "1:3:results", g)
    with db.session() as session:
        [held] = database.claim_outbox(session, "x", T0, lease, limit=1)
        assert held.key == "1:2:results"
        assert database.claim_outbox(session, "y", T0, lease) == []
    with db.session() as session:
        later = database.claim_outbox(session, "y", lease + timedelta(seconds=1), lease + timedelta(minutes=1))
        assert [row.key for row in later] == ["2:0:results", "1:2:results", "1:3:results"]  # (y's lapsed too)
        for row in later:
            assert database.expand_announcement(session, row.id, "y", [("sink", "ann")], T0)

    # announcements of no game (replies to a player's mail) are in one another's turn alike
    announce(db, "reply:1", None, kind="reply")
    announce(db, "reply:2", None, kind="reply")
    with db.session() as session:
        [reply] = database.claim_outbox(session, "x", T0, lease, limit=1)
        assert reply.key == "reply:1"
        assert database.claim_outbox(session, "y", T0, lease) == []


async def test_what_players_wait_for_counts_the_due_heads_of_their_queues_and_the_announcements_not_fanned_out(db):
    """``waiting``: the announcements not yet fanned out, then the heads of the players' queues due
    (a game's next announcement waits behind its head; a background notifier's and a delivery put
    off after a failure are not counted)."""
    players = Sink(("ann", "bob", "cat"), name="players")
    record = Sink(("site",), name="record")
    record.background = True  # type: ignore[attr-defined]
    clock = Clock()
    g = game(db)
    announce(db, f"{g}:0:results", g)
    announce(db, f"{g}:1:results", g)
    dispatcher = OutboxDispatcher(db, [players, record], clock=clock)
    assert dispatcher.waiting() == 2
    await dispatcher._expand()
    assert dispatcher.waiting() == 3        # ann's, bob's and cat's first; the second behind them
    players.answers["bob"] = RetryLater("mailbox busy")
    await dispatcher.flush()
    assert dispatcher.waiting() == 0        # bob's put off for 30 s: not due
    clock.now += timedelta(seconds=30)
    assert dispatcher.waiting() == 1


async def test_a_run_waits_until_the_deliveries_players_wait_for_are_few_enough_or_none_is_being_made(db):
    """``caught_up`` counts the deliveries of the notifiers making some: before any is made, it
    returns at once; while one is being made it waits until they are down to ``ahead``; and when
    the notifier has made none for ``stalled`` seconds (its deliveries hang) it returns with them
    still waiting."""
    release = asyncio.Event()
    players = Sink(("ann", "bob"), name="players", gate=release)
    players.answers["ann"] = RetryLater("mailbox full")    # put off at once: ann's never due again here
    for i in range(3):
        g = game(db, f"g{i}")
        announce(db, f"{g}:0:results", g)
    dispatcher = OutboxDispatcher(db, [players], concurrency=1, batch=1)
    await asyncio.wait_for(dispatcher.caught_up(ahead=0), 30)     # nothing made yet: nobody to wait for
    assert dispatcher.waiting() == 3

    flushing = asyncio.ensure_future(dispatcher.flush())
    for _ in range(6000):                   # (a guard of 60 s) the first game fanned out, ann's put off,
        if players.begun == [("1:0:results", "ann"), ("1:0:results", "bob")]:   # bob's held:
            break
        await asyncio.sleep(0.01)
    held = dispatcher.waiting()             # bob's, and what is behind it
    assert held >= 3
    await asyncio.wait_for(dispatcher.caught_up(ahead=2, stalled=0.2, every=0.01), 30)  # bob's hangs: given up
    assert dispatcher.waiting() == held

    waiting = asyncio.ensure_future(dispatcher.caught_up(ahead=1, stalled=3600, every=0.01))
    await asyncio.sleep(0.1)
    assert not waiting.done()
    release.set()
    await asyncio.wait_for(waiting, 30)     # made one after another: down to one
    assert dispatcher.waiting() <= 1
    await asyncio.wait_for(flushing, 30)
    assert dispatcher.waiting() == 0 and len(players.made) == 3


async def test_a_flush_claims_in_one_hand_off_a_turn(db, monkeypatch):
    """An announcement fanned out and delivered: the claim of new announcements, the fanning out
    with the claim of the deliveries it made, and the last look (nothing new, nothing due) are one
    hand-off to a thread each; then the records, and the close of what a kill left open."""
    announce(db, "1:0:results", game(db))
    handed: list[str] = []
    real = asyncio.to_thread

    async def to_thread(fn, /, *args, **kwargs):
        handed.append(fn.__name__)
        return await real(fn, *args, **kwargs)

    monkeypatch.setattr(asyncio, "to_thread", to_thread)
    sink = Sink()
    assert await OutboxDispatcher(db, [sink]).flush() == 3
    assert sorted(sink.made) == [("1:0:results", who) for who in ("ann", "bob", "cat")]
    assert handed == ["_claims", "_claims", "_record_many", "_claims", "_close_some"]
    assert set(states(db).values()) == {"delivered"}


async def test_a_server_told_to_stop_while_it_fans_out_writes_the_deliveries_and_makes_none(db):
    """The fanning out in hand is written (not left for its claim to lapse), and no delivery is
    claimed: the next server to flush makes them."""
    announce(db, "1:0:results", game(db))
    sink = Sink()
    dispatcher = OutboxDispatcher(db, [sink])
    real = sink.recipients

    async def recipients(announcement):
        dispatcher.wind_down()      # the server is told to stop while it asks who receives it
        return await real(announcement)

    sink.recipients = recipients
    assert await dispatcher.flush() == 0 and sink.made == []
    assert states(db) == {("1:0:results", "sink", who): "pending" for who in ("ann", "bob", "cat")}
    assert await OutboxDispatcher(db, [Sink(made=sink.made)]).flush() == 3
