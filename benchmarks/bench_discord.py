"""Orders by DM under load: 100 players send their orders to the bot at once.

The real discord.py bot runs against the local fake Discord (``tests/fakediscord``, TLS on
127.0.0.1) over a judge on a SQLite file: 100 players in 15 games of the classic map, each
sending one DM with an order for every unit. Latency is measured per DM from the moment the
fake Discord sends the message to the bot over the gateway to the moment it receives the bot's
answer (``POST /channels/{dm}/messages``): parsing, checking and storing the orders, and the
reply with the player's whole order set.

Two latencies per DM, both starting when the fake Discord sends the DM to the bot:

- ``answer sent``: until the bot has written its answer's request to the socket (an aiohttp
  trace in the bot, on the same monotonic clock): what the bot itself takes, DM received to
  acknowledgement sent;
- ``round trip``: until the fake Discord has read that request, which adds the fake's own
  queue (one Python process answering a hundred requests at once).

Scenarios: ``burst`` (all 100 DMs in the same instant), ``paced`` (the same 100 spread evenly
over ``--spread`` seconds) and ``single`` (one DM at a time: the floor). The service's own
share (``submit_orders`` alone, no Discord) is measured too.

``--library-floor`` measures what discord.py and aiohttp alone cost: the same bot process with
the orders cog replaced by one that answers every DM at once with a line of text (no service,
no database), so that the rest of a latency is the judge's own work.

By default the bot runs in a process of its own, set up as ``crusader serve`` sets it up
(pointed at the fake with ``DISCORD_API_BASE``/``DISCORD_GATEWAY_URL``, plain HTTP, the heap
settled after start-up), so that the fake's work does not count as the bot's;
``--in-process`` runs both in one event loop (TLS), as the tests do.

Run: ``python benchmarks/bench_discord.py [--players 100 --spread 5 --in-process]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import aiohttp
from discord.ext import commands

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adjudicator.variant import get_variant
from bot.app.serve import settle_heap
from bot.frontends.discord import DiscordSettings, make_bot
from bot.service import DeadlinePolicy, GameService
from bot.store.database import Database
from bot.store.outbox import OutboxDispatcher
from tests.fakediscord import FakeDiscord

ROUTE = "POST /channels/{channel_id}/messages"


class AnswerClock:
    """When the bot wrote each request to the socket: ``(method, path, time.monotonic())``.

    An aiohttp trace (discord.py's ``http_trace`` option), read by the benchmark on the same
    monotonic clock as the fake's ``loop.time()``.
    """

    def __init__(self) -> None:
        self.sent: list[tuple[str, str, float]] = []
        self.trace = aiohttp.TraceConfig()
        self.trace.on_request_headers_sent.append(self._headers_sent)

    async def _headers_sent(self, session, context, params) -> None:
        self.sent.append((params.method, params.url.path, time.monotonic()))


def answers_sent(sent: list) -> dict[int, list[float]]:
    """The times of the bot's messages (from :attr:`AnswerClock.sent`) by channel id."""
    out: dict[int, list[float]] = {}
    for method, path, when in sent:
        parts = path.rstrip("/").split("/")
        if method == "POST" and len(parts) >= 3 and parts[-1] == "messages" and parts[-3] == "channels":
            out.setdefault(int(parts[-2]), []).append(when)
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def orders_for(power: str) -> str:
    """One order per unit: fleets hold, armies hold, written in long form to make the parser work."""
    variant = get_variant("standard")
    lines = []
    for unit in variant.powers[power].units:
        noun = "Army" if unit.type.value == "A" else "Fleet"
        lines.append(f"{noun} {variant.provinces[unit.location.province].name} holds")
    return "\n".join(lines)


def set_up(service: GameService, fake: FakeDiscord, players: int) -> list[tuple[object, str]]:
    powers = list(get_variant("standard").powers)
    seats = []
    game_no = 0
    while len(seats) < players:
        name = f"bench{game_no:02d}"
        service.create_game(name, "standard", "discord:1", policy=DeadlinePolicy(movement=timedelta(days=7)), seed=game_no)
        for power in powers[: min(len(powers), players - len(seats))]:
            user = fake.add_user(f"p{len(seats):03d}")
            service.join(name, f"discord:{user.id}", power)
            seats.append((user, power))
        service.start(name, None, fill_civil_disorder=True)
        game_no += 1
    return seats


async def send_all(fake: FakeDiscord, seats, *, spread: float) -> list[tuple[int, float, float]]:
    """Each seat's player sends a DM of orders; ``(DM channel, when sent, when the fake read the answer)``."""
    loop = asyncio.get_running_loop()
    sent: dict[int, float] = {}
    channels = {fake.dm_channel(user).id: user for user, _ in seats}
    before = {cid: len(fake.bot_messages(fake.channels[cid])) for cid in channels}

    async def one(i: int, user, power: str) -> None:
        if spread:
            await asyncio.sleep(spread * i / len(seats))
        cid, text = fake.dm_channel(user).id, orders_for(power)
        sent[cid] = loop.time()
        await fake.user_sends_dm(user, text)

    await asyncio.gather(*(one(i, u, p) for i, (u, p) in enumerate(seats)))
    await fake.wait_until(lambda: all(len(fake.bot_messages(fake.channels[c])) > before[c] for c in channels),
                          timeout=120, what="every answer")
    out = []
    for rec in fake.requests_to(ROUTE):
        cid = int(rec.params["channel_id"])
        if cid in sent and rec.time >= sent[cid] and rec.status == 200:
            out.append((cid, sent.pop(cid), rec.time))
    return out


def round_trip(dms: list[tuple[int, float, float]]) -> list[float]:
    return [(read - sent) * 1000 for _, sent, read in dms]


def answer_sent(dms: list[tuple[int, float, float]], answers: dict[int, list[float]]) -> list[float]:
    """Per DM: from the fake sending it to the bot writing its (first) answer, in ms."""
    return [(min(t for t in answers.get(cid, ()) if t >= sent) - sent) * 1000 for cid, sent, _ in dms]


def service_only(service: GameService, seats, rounds: int = 1) -> list[float]:
    out = []
    for _ in range(rounds):
        for user, power in seats:
            game = service.directory(player=f"discord:{user.id}", statuses=("active",))[0]
            t0 = time.perf_counter()
            service.submit_orders(game.name, f"discord:{user.id}", orders_for(power))
            out.append((time.perf_counter() - t0) * 1000)
    return out


def report(name: str, values: list[float]) -> str:
    return (f"{name:>14}: n={len(values):3d}  p50 {statistics.median(values):7.1f} ms  "
            f"p99 {percentile(values, 99):7.1f} ms  max {max(values):7.1f} ms")


async def scenarios(fake: FakeDiscord, seats, spread: float) -> dict[str, list[tuple[int, float, float]]]:
    await send_all(fake, seats[:3], spread=0)  # warm-up: grammar, caches, connections
    single: list[tuple[int, float, float]] = []
    for seat in seats[:20]:
        single += await send_all(fake, [seat], spread=0)
    burst = await send_all(fake, seats, spread=0)
    paced = await send_all(fake, seats, spread=spread)
    return {"single": single, "burst": burst, "paced": paced}


class Echo(commands.Cog):
    """``--library-floor``: every DM answered at once, by the same discord.py calls the orders cog makes."""

    @commands.Cog.listener()
    async def on_message(self, message) -> None:
        if message.guild is None and not message.author.bot:
            await message.channel.send(f"Received {len(message.content)} characters.")


async def run_bot_process(db_path: str, answers_file: str, floor: str = "") -> None:
    """The bot alone, configured from the environment and settled like ``crusader serve`` (``--serve-bot``).

    On SIGTERM it stops and writes when it sent each request to ``answers_file`` (JSON).
    ``floor``: answer with :class:`Echo` instead of the judge's cogs.
    """
    from bot.frontends.discord import point_discord_at

    settings = DiscordSettings()
    point_discord_at(settings.api_base, settings.gateway_url)
    db = Database(f"sqlite:///{db_path}")
    clock = AnswerClock()
    extensions = {"extensions": ()} if floor else {}
    bot = make_bot(GameService(db), settings=settings, dispatcher=OutboxDispatcher(db, []), guild_ready_timeout=0.05,
                   http_trace=clock.trace, **extensions)
    if floor:
        await bot.add_cog(Echo())
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(bot.close()))
    running = loop.create_task(bot.start(settings.token.get_secret_value()))
    settle_heap()  # as serve does once its front ends are started
    try:
        await running
    finally:
        Path(answers_file).write_text(json.dumps(clock.sent))


async def main(players: int, spread: float, in_process: bool, floor: bool) -> None:
    logging.getLogger("discord").setLevel(logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "bench.db"
        db = Database.sqlite_file(db_path)
        db.migrate()
        service = GameService(db)
        fake = await FakeDiscord().start(tls=in_process)
        try:
            seats = set_up(service, fake, players)
            if in_process:
                clock = AnswerClock()
                extensions = {"extensions": ()} if floor else {}
                bot = make_bot(service, settings=DiscordSettings(token=None), dispatcher=OutboxDispatcher(db, []),
                               http_trace=clock.trace, **extensions, **fake.client_kwargs())
                if floor:
                    await bot.add_cog(Echo())
                async with fake.run(bot):
                    results = await scenarios(fake, seats, spread)
                    await bot.drain()
                sent = clock.sent
            else:
                answers_file = Path(tmp) / "answers.json"
                env = {**os.environ, "DISCORD_TOKEN": fake.token, "DISCORD_API_BASE": fake.api_base,
                       "DISCORD_GATEWAY_URL": fake.gateway_url, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
                proc = await asyncio.create_subprocess_exec(sys.executable, __file__, "--serve-bot", str(db_path),
                                                            str(answers_file), "floor" if floor else "",
                                                            env=env, stdout=subprocess.DEVNULL)
                try:
                    await fake.wait_until(lambda: fake.identifies and fake.session and fake.session.conn,
                                          timeout=30, what="the bot process to connect")
                    await asyncio.sleep(0.5)
                    results = await scenarios(fake, seats, spread)
                finally:
                    proc.send_signal(signal.SIGTERM)
                    await asyncio.wait_for(proc.wait(), 15)
                sent = json.loads(answers_file.read_text())
            own = await asyncio.to_thread(service_only, service, seats[:20])
            problems = fake.problems()
        finally:
            await fake.stop()
            db.dispose()
    by_channel = answers_sent(sent)
    where = "bot and fake Discord in one process" if in_process else "bot in its own process"
    what = "; library floor (every DM answered at once, no service)" if floor else ""
    print(f"{players} players in {(players + 6) // 7} games, {where}{what}.")
    print("DM received -> answer sent (by the bot):")
    for name in ("single", "burst", "paced"):
        print(report(name if name != "paced" else f"paced {spread:g}s", answer_sent(results[name], by_channel)))
    print("DM received -> answer read (by the fake Discord):")
    for name in ("single", "burst", "paced"):
        print(report(name if name != "paced" else f"paced {spread:g}s", round_trip(results[name])))
    print(report("service only", own))
    if problems:
        print("fake Discord problems:", *problems, sep="\n  ")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--spread", type=float, default=5.0, help="seconds over which the paced DMs arrive")
    parser.add_argument("--in-process", action="store_true", help="run the bot in the benchmark's event loop")
    parser.add_argument("--library-floor", action="store_true",
                        help="answer every DM at once without the service: what discord.py and aiohttp alone cost")
    parser.add_argument("--serve-bot", nargs=3, metavar=("DB", "ANSWERS", "FLOOR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_bot:
        asyncio.run(run_bot_process(*args.serve_bot))
    else:
        asyncio.run(main(args.players, args.spread, args.in_process, args.library_floor))
