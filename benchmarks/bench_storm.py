"""The deadline storm, end to end: N games whose deadlines fall at the same moment, run by real
``crusader serve`` processes; until every result is posted on Discord and mailed to every player.

    python benchmarks/bench_storm.py                                    # 1,000 games, one server, SQLite
    python benchmarks/bench_storm.py --database postgresql+psycopg://postgres@127.0.0.1/test
        (two servers on a throw-away database created next to the one named, and dropped)
    python benchmarks/bench_storm.py --games 100 --servers 1 --no-site --json out.json
    python benchmarks/bench_storm.py --relay smtp-sink      (Debian's postfix package: its smtp-sink)
    python benchmarks/bench_storm.py --games 1000 --restart --start-only --profile DIR
        (only a start: the servers started, stopped and started again; with --profile, py-spy's
        samples of the start again, 200 a second, in DIR)
    python benchmarks/bench_storm.py --games 300 --spread 150 --restart --relay smtp-sink --pin
        (a phase closing alone: one game after another, the server on a core of its own)

The world: N games of the crusader map, all seven powers ordered (the same careful orders in
each: moves, supports, bids), each with its results channel and archive thread on a test Discord
(:mod:`tests.fakediscord`, in a process of its own, enforcing Discord's global limit of 50
requests a second per token and its per-route limits, with real headers, counting every 429) and
every power's player with an address, mailed through a capturing SMTP relay (aiosmtpd, in a
process of its own; or, with ``--relay smtp-sink``, Postfix's ``smtp-sink``, whose C takes a
sliver of the CPU aiosmtpd's Python does: on a machine of two cores aiosmtpd takes CPU the
servers would have, as a real relay on a machine of its own does not). The servers are
``crusader serve`` as an operator runs it (the archive site on, unless ``--no-site``), on one
SQLite file or, two of them, on one PostgreSQL. Every deadline is set to the same instant, far
enough ahead for the servers to be up and connected.

The clock starts at that instant and stops when the last game's result is posted in its channel
(as the test Discord recorded it) and the last player's mail reached the relay; the archive
threads and the rest of the outbox (the site, the archive files) are timed too. The floor is what
Discord's global limit allows: the results posts alone at 50 a second (the figure of one message
a season), and every request the judge must make (the results and the archive posts). Checked
from the test Discord's and the relay's own records: every game posted exactly once, every player
mailed exactly once, the 429s by bucket. The servers' own account of where the time went (the
``phase run`` log line: adjudication, picture, the whole run with its storage) gives the
engine's share; their CPU time and memory are read from /proc.

The servers' interpreter is recorded, and the CPU time of a fixed piece of pure Python
(:data:`YARDSTICK`) run by it on the servers' core before and after the storm: the speed of the
machine and the interpreter that day, by which closings measured on different days compare.

``--memory-baseline`` (on by default) first starts one server with no game, for the memory a
game costs once armed; the memory of one armed timer is measured in this process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import platform
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adjudicator.opening import starting_position  # noqa: E402
from adjudicator.variant import get_variant  # noqa: E402
from benchmarks.bench_deadlines import scratch_database  # noqa: E402
from bot.archive.games import export_game, import_game  # noqa: E402
from bot.service import DeadlinePolicy, GameService  # noqa: E402
from bot.store.database import Database  # noqa: E402
from bot.store.mail import MailIdentityRow  # noqa: E402
from bot.store.rows import GameRow, TimerRow, utcnow  # noqa: E402
from tests.fakediscord.server import most_in_a_second  # noqa: E402

VARIANT = "crusader"
GLOBAL_PER_SECOND = 50  # Discord's global limit, as the test Discord enforces it
MESSAGES = "POST /channels/{channel_id}/messages"
GAMES_PER_GUILD = 400  # Discord allows 500 channels in a server


# -- processes on the side: the test Discord and the SMTP relay ---------------------------------------


class Remote:
    """A helper process answering calls over a pipe: ``remote.call("progress")``."""

    def __init__(self, target, *args) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=target, args=(child, *args), daemon=True)
        self.process.start()
        self.info = self.conn.recv()  # what it says once started (its address)

    def call(self, name: str, *args) -> Any:
        self.conn.send((name, args))
        ok, value = self.conn.recv()
        if not ok:
            raise RuntimeError(f"{name} failed in the helper process: {value}")
        return value

    def cpu_seconds(self) -> float:
        return sum(cpu_seconds(pid) for pid in (self.process.pid, *self.info.get("children", ())))

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.send(("stop", ()))
        self.process.join(15)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)


def cpu_times(pid: int) -> tuple[float, float]:
    """The CPU time a process has used so far, from /proc: in its own code, and in the kernel
    (its writes, reads, syncs)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / os.sysconf("SC_CLK_TCK"), int(fields[12]) / os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) a process has used so far."""
    return sum(cpu_times(pid))


def system_seconds(pid: int) -> float:
    """The part of :func:`cpu_seconds` spent in the kernel."""
    return cpu_times(pid)[1]


def _serve_calls(conn, loop: asyncio.AbstractEventLoop, handlers: dict, done: asyncio.Event) -> None:
    """In a thread of the helper process: each call from the pipe runs on the helper's loop."""
    while True:
        try:
            name, args = conn.recv()
        except EOFError:
            name, args = "stop", ()
        if name == "stop":
            loop.call_soon_threadsafe(done.set)
            return

        async def run(fn=handlers[name], args=args):
            return fn(*args)

        try:
            conn.send((True, asyncio.run_coroutine_threadsafe(run(), loop).result()))
        except Exception as exc:  # noqa: BLE001 (the benchmark reports it)
            conn.send((False, f"{type(exc).__name__}: {exc}"))


def _offset(loop: asyncio.AbstractEventLoop) -> float:
    """What to add to the loop's clock to get the wall clock (shared by the processes)."""
    return time.time() - loop.time()


def fake_discord_main(conn) -> None:
    """The test Discord in a process of its own, with Discord's limits enforced."""
    from bot.frontends.discord import refs
    from tests.fakediscord import FakeDiscord

    async def main() -> None:
        loop = asyncio.get_running_loop()
        fake = await FakeDiscord(enforce_rate_limits=True).start(tls=False)
        places: dict[int, tuple[str, int]] = {}  # channel id -> ("results" | "archive", game number)

        def world(games: int) -> list[dict[str, int]]:
            out, guild = [], None
            for i in range(games):
                if i % GAMES_PER_GUILD == 0:
                    guild = fake.add_guild(f"Storm {i // GAMES_PER_GUILD + 1}", text_channels=())
                channel = fake.add_text_channel(guild, f"game-{i:04d}")
                thread = fake.add_thread(channel, f"game-{i:04d} archive")
                places[channel.id], places[thread.id] = ("results", i), ("archive", i)
                out.append({"guild": guild.id, "channel": channel.id, "archive": thread.id})
            return out

        def posts() -> list[tuple[str, int, float, int]]:
            """Every message the bot posted in a game's channel or thread: (place, game, wall time, channel)."""
            offset = _offset(loop)
            return [(*places[int(r.params["channel_id"])], r.time + offset, int(r.params["channel_id"]))
                    for r in fake.requests_to(MESSAGES) if r.status == 200 and int(r.params["channel_id"]) in places]

        def progress() -> dict[str, Any]:
            seen = {"results": set(), "archive": set()}
            last = {"results": 0.0, "archive": 0.0}
            for place, game, when, _ in posts():
                seen[place].add(game)
                last[place] = max(last[place], when)
            return {"results": len(seen["results"]), "archive": len(seen["archive"]),
                    "last_results": last["results"], "last_archive": last["archive"],
                    "sessions": fake.identifies, "limited": sum(fake.limited.values())}

        def record(since: float) -> dict[str, Any]:
            offset = _offset(loop)
            refs_by_place: dict[str, Counter] = {"results": Counter(), "archive": Counter()}
            per_channel: Counter = Counter()
            for cid, (place, _) in places.items():
                for message in fake.bot_messages(cid):
                    per_channel[cid] += 1
                    refs_by_place[place][refs.read(message["content"], message["embeds"])] += 1
            storm = [r for r in fake.requests if r.time + offset >= since]
            counted = [t + offset for t in fake.global_arrivals if t + offset >= since]
            return {
                "posts": posts(), "messages_per_channel": dict(per_channel),
                "refs": {place: dict(c) for place, c in refs_by_place.items()},
                "limited": dict(fake.limited), "routes": dict(Counter(r.route for r in storm)),
                "counted_requests": len(counted), "most_in_a_second": most_in_a_second(counted),
                "problems": fake.problems(), "identifies": fake.identifies,
            }

        handlers = {"world": world, "progress": progress, "record": record}
        conn.send({"token": fake.token, "api_base": fake.api_base, "gateway_url": fake.gateway_url})
        done = asyncio.Event()
        threading.Thread(target=_serve_calls, args=(conn, loop, handlers, done), daemon=True).start()
        await done.wait()
        await fake.stop()

    asyncio.run(main())


def relay_main(conn) -> None:
    """A capturing SMTP relay (aiosmtpd) in a process of its own: it keeps who got which message."""
    from aiosmtpd.smtp import SMTP

    mails: list[tuple[float, str, str, int]] = []  # (wall time, recipient, Message-ID, bytes)
    message_id = re.compile(rb"^Message-ID:\s*(\S+)", re.MULTILINE | re.IGNORECASE)

    class Capture:
        async def handle_DATA(self, server, session, envelope) -> str:
            found = message_id.search(envelope.content[:16384])
            mid = found.group(1).decode() if found else ""
            now = time.time()
            for rcpt in envelope.rcpt_tos:
                mails.append((now, rcpt, mid, len(envelope.content)))
            return "250 OK"

    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: SMTP(Capture(), enable_SMTPUTF8=True), "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]

        def progress() -> dict[str, Any]:
            return {"mails": len(mails)}

        conn.send({"port": port})
        done = asyncio.Event()
        threading.Thread(target=_serve_calls, args=(conn, loop, {"progress": progress,
                                                                 "record": lambda: mail_record(mails)}, done),
                         daemon=True).start()
        await done.wait()
        server.close()

    asyncio.run(main())


def mail_record(mails: list[tuple[float, str, str, int]]) -> dict[str, Any]:
    """What a relay says it got (``mails``: wall time, recipient, Message-ID and bytes of each)."""
    per = Counter((rcpt, mid) for _, rcpt, mid, _ in mails)
    return {"mails": len(mails), "recipients": len({m[1] for m in mails}),
            "repeated": sum(n - 1 for n in per.values()), "bytes": sum(m[3] for m in mails),
            "times": [m[0] for m in mails]}



def sink_main(conn) -> None:
    """Postfix's ``smtp-sink`` as the relay (C: a sliver of aiosmtpd's CPU, which on a machine of
    few cores takes the servers' share), each mail dumped to a file of its own in memory
    (``/dev/shm``), read afterwards for who got which message; a mail's time is its file's last
    write. A helper process around it answers the same calls as :func:`relay_main`."""
    folder = Path(tempfile.mkdtemp(prefix="crusader-sink-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
    folder.chmod(0o777)  # (written by the unprivileged user smtp-sink becomes when started as root)
    port = free_port()
    command = ["smtp-sink", *(["-u", "nobody"] if os.geteuid() == 0 else []), "-d", f"{folder}/m.",
               f"127.0.0.1:{port}", "256"]
    sink = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    recipient = re.compile(rb"^X-Rcpt-Args: <([^>]*)>", re.MULTILINE)
    message_id = re.compile(rb"^Message-ID:\s*(\S+)", re.MULTILINE | re.IGNORECASE)

    def files() -> list[os.DirEntry]:
        return [e for e in os.scandir(folder) if e.is_file()]

    def progress() -> dict[str, Any]:
        return {"mails": len(files())}  # (a mail's time from :func:`record`, once every mail is in)

    def record() -> dict[str, Any]:
        mails: list[tuple[float, str, str, int]] = []
        for entry in files():
            size, when = (info := entry.stat()).st_size, info.st_mtime
            with open(entry.path, "rb") as f:
                head = f.read(16384)
            found = message_id.search(head)
            mid = found.group(1).decode() if found else ""
            start = head.find(b"\nFrom:")  # (the mail as sent: after the sink's own lines and Received field)
            mails += [(when, rcpt.decode(), mid, size - start - 1) for rcpt in recipient.findall(head)]
        return mail_record(mails)

    async def main() -> None:
        done = asyncio.Event()
        conn.send({"port": port, "children": [sink.pid]})
        threading.Thread(target=_serve_calls, args=(conn, asyncio.get_running_loop(),
                                                     {"progress": progress, "record": record}, done),
                         daemon=True).start()
        await done.wait()

    try:
        wait_for(lambda: sink.poll() is not None or _listening(port), 30, "smtp-sink to listen", every=0.05)
        asyncio.run(main())
    finally:
        sink.terminate()
        sink.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


RELAYS = {"aiosmtpd": relay_main, "smtp-sink": sink_main}



# -- the games -------------------------------------------------------------------------------------------


def careful_orders(seed: int = 3) -> dict[str, str]:
    """Every power's orders for the crusader map's first spring, drawn by the seeded careful player
    (moves, supports, prestige bids) and kept only when the judge accepts every line of them."""
    from tests.random_play import CAREFUL, random_orders

    variant = get_variant(VARIANT)
    position = starting_position(variant)
    for s in range(seed, seed + 200):
        by_power: dict[str, list[str]] = {}
        for order in random_orders(random.Random(s), variant, position, CAREFUL):
            by_power.setdefault(str(order.power), []).append(str(order))
        if set(by_power) == set(variant.powers) and _all_accepted(by_power):
            return {p: "\n".join(lines) for p, lines in by_power.items()}
    raise RuntimeError("no seed gave orders the judge accepts whole")


def _all_accepted(by_power: dict[str, list[str]]) -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        db = Database.sqlite_file(Path(tmp) / "try.db")
        db.migrate()
        service = GameService(db, pictures=False)
        service.create_game("try", VARIANT, "gm", seed=1)
        for power in by_power:
            service.join("try", f"player-{power}", power)
        service.start("try", "gm")
        ok = all(not service.submit_orders("try", f"player-{p}", "\n".join(lines)).rejected
                 for p, lines in by_power.items())
        db.dispose()
        return ok


def address(power: str, game: int) -> str:
    return f"{power.lower()}.{game:04d}@players.example"


def set_up(url: str, places: list[dict[str, int]], orders: dict[str, str], deadline: datetime) -> None:
    """N games, each a copy (export, import) of one set up through the service, with its own
    Discord channel and archive thread, players and their addresses; every deadline at ``deadline``."""
    db = Database(url)
    db.migrate()
    service = GameService(db, pictures=False)
    policy = DeadlinePolicy(movement=timedelta(days=2))  # the default reminders: the next phase arms them
    service.create_game("storm-template", VARIANT, "gm", seed=1, policy=policy)
    for power in orders:
        service.join("storm-template", f"player-{power}", power)
    service.start("storm-template", "gm")
    for power, text in orders.items():
        assert not service.submit_orders("storm-template", f"player-{power}", text).rejected
    doc = export_game(db, "storm-template")
    _drop(db, "storm-template")
    doc["game"]["deadline_at"] = deadline.isoformat()
    for i, place in enumerate(places):
        copy = json.loads(json.dumps(doc))
        copy["game"]["policy"].setdefault("extra", {})["discord"] = dict(place)
        for p in copy["players"]:
            p["player"] = f"{p['player']}-{i:04d}"
        for s in copy["submissions"]:
            s["player"] = f"{s['player']}-{i:04d}"
        import_game(db, copy, name=f"storm-{i:04d}")
    with db.session() as session:
        ids = dict(session.exec(sa.text("SELECT name, id FROM game")).all())
        now = utcnow()
        session.add_all(MailIdentityRow(game_id=ids[f"storm-{i:04d}"], power=power, address=address(power, i),
                                        updated_at=now)
                        for i in range(len(places)) for power in orders)
    with db.engine.begin() as c:
        c.execute(sa.text("DELETE FROM outbox"))  # the template's announcements
    db.dispose()


def _drop(db: Database, name: str) -> None:
    from bot.store import database

    with db.session() as session:
        game = database.game_by_name(session, name)
        database.delete_game(session, game.id)




# -- the servers -----------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One ``crusader serve`` process, its log (JSON lines) in a file."""

    def __init__(self, node: str, env: dict[str, str], log: Path, tree: Path = ROOT,
                 core: int | None = None) -> None:
        self.node, self.log = node, log
        self.out = log.open("w")  # ``crusader serve`` (the command's module, whichever virtualenv runs this)
        self.process = subprocess.Popen([sys.executable, "-m", "bot.cli", "serve"], env=env, stdout=self.out,
                                        stderr=subprocess.STDOUT, cwd=str(tree))
        if core is not None:  # (before the interpreter has started any thread: those it starts inherit it)
            pin(self.process.pid, [core])

    def lines(self) -> list[dict[str, Any]]:
        out = []
        for line in self.log.read_text(errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                out.append(json.loads(line))
        return out

    def said(self, text: str) -> bool:
        return any(text in str(line.get("event", "")) for line in self.lines())

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.process.pid)

    def memory_kib(self) -> dict[str, int]:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return {k: int(re.search(rf"^{k}:\s+(\d+)", status, re.MULTILINE).group(1)) for k in ("VmRSS", "VmHWM")}

    def stop(self, timeout: float = 60) -> int | None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.out.close()
        return self.process.returncode


def server_env(url: str, data_dir: Path, node: str, fake: dict, relay_port: int, site: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CRUSADER_", "DISCORD_"))}
    env.update({
        "CRUSADER_DATA_DIR": str(data_dir), "CRUSADER_DATABASE_URL": url, "CRUSADER_NODE_NAME": node,
        "CRUSADER_LOG_FORMAT": "json", "CRUSADER_LOG_LEVEL": "INFO",
        "CRUSADER_ARCHIVE_PORT": str(free_port() if site else 0),
        "CRUSADER_MAIL_ADDRESS": "judge@storm.example", "CRUSADER_MAIL_LISTEN_PORT": "0",
        "CRUSADER_MAIL_RELAY_HOST": "127.0.0.1", "CRUSADER_MAIL_RELAY_PORT": str(relay_port),
        "DISCORD_TOKEN": fake["token"], "DISCORD_API_BASE": fake["api_base"], "DISCORD_GATEWAY_URL": fake["gateway_url"],
    })
    return env


def wait_for(check, timeout: float, what: str, every: float = 0.25):
    end = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > end:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


def start_servers(count: int, url: str, data_dir: Path, fake: dict, relay_port: int, site: bool,
                  logs: Path, tag: str = "s", tree: Path = ROOT, profile: Path | None = None,
                  cores: list[int] | None = None) -> list[Server]:
    """``count`` servers started together, once each is serving and connected to Discord; with
    ``profile``, each sampled by py-spy from the moment it was started until then; with ``cores``,
    the n-th on the n-th of them alone (:func:`pin`)."""
    servers = [Server(f"{tag}{i + 1}", server_env(url, data_dir, f"{tag}{i + 1}", fake, relay_port, site),
                      logs / f"{tag}{i + 1}.log", tree, cores[i] if cores else None) for i in range(count)]
    samplers = [sampler(server, profile, rate=200) for server in servers] if profile else []
    try:
        for server in servers:  # started together, as after a deployment
            wait_for(lambda server=server: server.process.poll() is not None or (server.said("serving")
                                                                                and server.said("connected to Discord")),
                     180, f"server {server.node} to start")
            if server.process.poll() is not None:
                raise RuntimeError(f"server {server.node} stopped at start:\n{server.log.read_text()[-3000:]}")
    except BaseException:
        for server in servers:
            server.stop(10)
        raise
    finally:
        for p in samplers:  # each writes its stacks when told to stop
            p.send_signal(signal.SIGINT)
            p.wait(60)
    return servers


def quiet_cores(servers: int) -> tuple[list[int], list[int]]:
    """``--pin``: a core for each server alone (the last ones), and the others for the rest (the
    test Discord, the relay, this process): each phase closing on a quiet core of its own."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) <= servers:
        raise SystemExit(f"--pin needs a core more than the servers: {len(cores)} core(s) for {servers} server(s)")
    return cores[-servers:], cores[:-servers]


def pin(pid: int, cores: list[int]) -> None:
    """Every thread of the process ``pid`` (those it starts later too) on ``cores`` only."""
    for task in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(ProcessLookupError):
            os.sched_setaffinity(int(task), cores)


YARDSTICK = """
import os, sys, time
if sys.argv[1] != "-":
    os.sched_setaffinity(0, {int(sys.argv[1])})

class Unit:
    __slots__ = ("kind", "where", "power")

    def __init__(self, kind, where, power):
        self.kind, self.where, self.power = kind, where, power

    def key(self):
        return (self.power, self.where)

def work():
    total = 0
    for n in range(4000):
        units = [Unit("A" if i % 3 else "F", f"p{(n + i) % 75}", i % 7) for i in range(12)]
        seen = {}
        for unit in sorted(units, key=Unit.key):
            seen[unit.where] = seen.get(unit.where, 0) + len(unit.kind)
        total += sum(seen.values())
    return total

times = []
for _ in range(7):
    t = time.process_time()
    work()
    times.append(time.process_time() - t)
print(1000 * min(times))
"""
"""A fixed piece of pure Python (objects made, sorted, counted in a dict), the same in every
version of the judge: its CPU time, the best of seven, measured by the servers' interpreter on
the servers' core before and after the storm, is the yardstick of a run. Machines of the same
kind here have run the judge at speeds two to one apart from one day to another, and a fifth
apart within an hour: a phase closing in yardsticks compares runs made on different days with
the same interpreter. Not across interpreters: a build with profile-guided optimisation (as
Debian's python3 and the official Docker image's are) ran the yardstick 1.9 times as fast as
one without on the same machine, and a phase closing only 1.2 times; on a machine 2.4 times as
fast at the yardstick, 1.45 and 1.0-1.08 times. Nor across machines: that machine ran a phase
closing only 1.8 times as fast."""


def yardstick_ms(core: int | None) -> float:
    """:data:`YARDSTICK`'s CPU time in ms, its best of seven, with the servers' interpreter on ``core``."""
    out = subprocess.run([sys.executable, "-c", YARDSTICK, "-" if core is None else str(core)],
                         capture_output=True, text=True, check=True)
    return round(float(out.stdout), 2)


def site_caught_up(server: Server) -> bool:
    """Whether the server has written the archive pages of every game (in the background since it
    started; before, before it served)."""
    return any(line.get("event") == "archive pages brought up to date"
               or (line.get("event") == "archive site" and "games" in line) for line in server.lines())


RATE = 50
"""py-spy's samples a second in a storm (:func:`sampler`), each ``1/RATE`` s of the interpreter's work
(:func:`phase_costs`)."""


def sampler(server: Server, directory: Path, rate: int = RATE) -> subprocess.Popen:
    """py-spy (``pip install py-spy``) sampling ``server`` until stopped: its stacks, collapsed, in
    ``directory/<node>.txt``, only the thread holding the interpreter's lock (``--gil``): a sample
    is ``1/rate`` s of the interpreter's work (:func:`phase_costs`). Without ``--gil`` py-spy
    counts threads that only wait as running (a thread pool's idle workers, those waiting for the
    lock or on the disk): 2.6 threads a sample in a storm, for a server using one core. With it,
    py-spy's count falls a little short (230 samples in 5 s of a busy loop at 50 a second here), so
    that ``released`` is a little over; and a thread holding the lock while the kernel runs another
    process counts, so that on a machine with more work than cores ``released`` is under."""
    directory.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(["py-spy", "record", "--pid", str(server.process.pid), "--format", "raw", "--rate", str(rate),
                             "--gil", "--output", str(directory / f"{server.node}.txt")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


PARTS = (  # the part of a phase closing a sampled stack belongs to: the first whose frame it has
    ("site", ("bot/frontends/site/",)),
    ("mail", ("bot/frontends/mail/",)),
    ("discord", ("bot/frontends/discord/", "discord/", "aiohttp/")),
    ("archive", ("ArchiveWriter",)),
    ("outbox", ("bot/store/outbox.py",)),
    ("picture", ("bot/render/",)),
    ("adjudication", ("adjudicator/",)),
    ("storage", ("bot/service/judge.py", "bot/service/")),
)


def phase_parts(stacks: Path) -> Counter:
    """Samples of ``stacks`` (py-spy's raw format) by part of a phase closing (:data:`PARTS`;
    ``other``: the event loop, logging, the scheduler)."""
    out: Counter = Counter()
    for line in stacks.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        part = next((name for name, keys in PARTS if any(key in stack for key in keys)), "other")
        out[part] += int(count)
    return out


def phase_costs(profile: Path, servers: list[str], cpu_s: dict[str, float], games: int,
                rate: int = RATE) -> dict[str, float]:
    """The servers' CPU time per phase closing, in ms, by part. Each sample (:func:`sampler`: of the
    thread holding the interpreter's lock) is ``1/rate`` s of the interpreter's work, given to its
    part; the rest of the servers' CPU time was spent with the lock released, and is its own part,
    ``released``: zlib's and Pillow's work on the pictures (their deflate, quantizing and pasting),
    SQLite's, the sockets' and the kernel's, which the samples cannot place. On some machines it
    holds more: on one, py-spy found the lock held for 31 ms of a 69 ms closing where perf found
    the interpreter's own code running for about 39, so that ``released`` held interpreter work
    the samples missed (perf's samples by thread are the whole to check it against)."""
    samples: Counter = Counter()
    for node in servers:
        path = profile / f"{node}.txt"
        if path.is_file():
            samples += phase_parts(path)
    total = sum(samples.values())
    if not total or not games:
        return {}
    cpu = sum(cpu_s.values())
    held = min(cpu, total / rate)   # (py-spy's sampling is not exact: never more than the CPU time)
    out = {part: round(1000 * held * n / total / games, 1) for part, n in samples.most_common()}
    return out | {"released": round(1000 * (cpu - held) / games, 1), "all": round(1000 * cpu / games, 1)}


def armed_timer_bytes(count: int = 5000) -> float:
    """What one armed timer costs in the scheduler (APScheduler's date job), measured here."""
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

    async def arm() -> float:
        scheduler = AsyncIOScheduler(timezone="UTC")
        scheduler.start(paused=True)
        when = utcnow() + timedelta(hours=1)

        async def job(timer_id: int) -> None:  # pragma: no cover - never run
            pass

        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for i in range(count):
            scheduler.add_job(job, "date", run_date=when, args=[i], id=f"timer-{i}", misfire_grace_time=None)
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        scheduler.shutdown(wait=False)
        return (after - before) / count

    return asyncio.run(arm())


# -- the storm -------------------------------------------------------------------------------------------


def phase_runs(servers: list[Server]) -> list[dict[str, Any]]:
    """The servers' log lines of the phases they adjudicated."""
    return [line for s in servers for line in s.lines()
            if line.get("event") == "phase run" and line.get("outcome") == "adjudicated"]


def adjudicated_times(runs: list[dict[str, Any]]) -> list[float]:
    """When each of ``runs`` (:func:`phase_runs`) was adjudicated (epoch seconds)."""
    return [datetime.fromisoformat(line["timestamp"]).timestamp() for line in runs if "timestamp" in line]


def timings(runs: list[dict[str, Any]], start: float) -> dict[str, Any]:
    """What the deadline runs ``runs`` (:func:`phase_runs`) took, and when the storm's first and last ended."""
    out: dict[str, Any] = {"phase_runs": len(runs), "by_server": dict(Counter(line.get("node") for line in runs))}
    ended = sorted(t - start for t in adjudicated_times(runs))
    if ended:  # when the first and the last game of the storm were adjudicated (the end of the run)
        out["first_adjudicated_s"], out["last_adjudicated_s"] = round(ended[0], 2), round(ended[-1], 2)
    for key in ("run_ms", "cpu_ms", "adjudicate_ms", "picture_ms"):
        values = [float(line[key]) for line in runs if key in line]
        if values:
            out[key] = {"mean": round(statistics.fmean(values), 2), "p50": round(statistics.median(values), 2),
                        "max": round(max(values), 2)}
    if runs and "run_ms" in runs[0]:
        storage = [float(r["run_ms"]) - float(r["adjudicate_ms"]) - float(r["picture_ms"]) for r in runs]
        out["storage_ms"] = {"mean": round(statistics.fmean(storage), 2), "p50": round(statistics.median(storage), 2)}
    return out


def timeline(start: float, posts: list[float], mails: list[float], adjudicated: list[float],
             window: float = 5.0) -> dict[str, Any]:
    """How many Discord posts, mails and adjudications each ``window`` seconds of the storm saw,
    from its start: where the storm ran at Discord's pace and where it waited for something else."""
    def counts(times: list[float]) -> list[int]:
        found = Counter(int((t - start) // window) for t in times if t >= start)
        return [found[i] for i in range(max(found, default=-1) + 1)]

    return {"window_s": window, "posts": counts(posts), "mails": counts(mails),
            "adjudicated": counts(adjudicated)}


def log_problems(servers: list[Server]) -> dict[str, Any]:
    lines = [line for s in servers for line in s.lines()]
    errors = [line for line in lines if line.get("level") in ("error", "critical") or line.get("exception")]
    deferred = [line for line in lines if line.get("event") == "delivery deferred"]
    return {"errors": len(errors), "first_errors": [str(e.get("event"))[:200] for e in errors[:5]],
            "deliveries_deferred": len(deferred),
            "deferred_reasons": dict(Counter(str(d.get("reason"))[:80] for d in deferred).most_common(5)),
            "rate_limit_warnings": sum("rate limited" in str(line.get("event", "")) for line in lines)}


def outbox_left(url: str) -> int:
    db = Database(url)
    try:
        with db.engine.connect() as c:
            return c.execute(sa.text("SELECT count(*) FROM outbox WHERE delivered_at IS NULL")).scalar_one()
    finally:
        db.dispose()


def storm(url: str, games: int, servers_count: int, site: bool, lead: float, baseline: bool, tmp: Path,
          timeout: float, profile: Path | None = None, tree: Path = ROOT, restart: bool = False,
          start_only: bool = False, spread: float = 0.0, relay_kind: str = "aiosmtpd",
          pinned: bool = False) -> dict[str, Any]:
    logs = tmp / "logs"
    logs.mkdir()
    result: dict[str, Any] = {"games": games, "servers": servers_count,
                              "database": "sqlite" if url.startswith("sqlite") else "postgresql", "site": site,
                              "load_at_start": os.getloadavg(), "spread_s": spread, "relay": relay_kind}
    cores, others = quiet_cores(servers_count) if pinned else (None, None)
    if others:
        pin(os.getpid(), others)  # (the helpers started from here are on them too)
        result["cores"] = {"servers": cores, "others": others}
    result["python"] = f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})"
    gauged = cores[0] if cores else None   # the yardstick's core: the first server's, when pinned
    result["yardstick_ms"] = {"before": yardstick_ms(gauged)}
    fake = Remote(fake_discord_main)
    relay = Remote(RELAYS[relay_kind])
    running: list[Server] = []
    profilers: list[subprocess.Popen] = []
    try:
        if baseline:  # a server on the empty database and Discord: what a game costs once armed is measured against it
            base = start_servers(1, url, tmp / "baseline", fake.info, relay.info["port"], site, logs, "baseline")
            time.sleep(2)
            result["baseline_rss_kib"] = base[0].memory_kib()["VmRSS"]
            base[0].stop()
        t = time.perf_counter()
        places = fake.call("world", games)
        orders = careful_orders()
        deadline = datetime.now(UTC) + timedelta(days=1)  # moved to the storm's instant below
        set_up(url, places, orders, deadline)
        result["setup_s"] = round(time.perf_counter() - t, 1)
        result["orders_per_game"] = sum(len(text.splitlines()) for text in orders.values())
        db = Database(url)
        with db.session() as session:   # reminders long gone by then; the deadlines a day away, unarmed
            session.exec(sa.delete(TimerRow).where(TimerRow.kind != "deadline"))
        data_dir = tmp / "data"
        started_at = time.time()
        running = start_servers(servers_count, url, data_dir, fake.info, relay.info["port"], site, logs, tree=tree,
                                cores=cores)
        ready_at = time.time()
        result["servers_ready_s"] = round(ready_at - started_at, 1)
        if restart:  # what an operator's restart costs: the same servers stopped and started again
            if site:  # once the archive site has caught up with every game
                wait_for(lambda: all(site_caught_up(s) for s in running), 600, "the archive site to catch up")
            for server in running:
                server.stop()
            started_at = time.time()
            running = start_servers(servers_count, url, data_dir, fake.info, relay.info["port"], site, logs, "r",
                                    tree=tree, profile=profile if start_only else None, cores=cores)
            result["servers_restarted_s"] = round(time.time() - started_at, 1)
        if start_only:
            result["start"] = start_phases(running)
            for server in running:  # the CPU time of the start, whatever the load (the wall time is the load's too)
                result["start"][server.node]["cpu_s"] = round(server.cpu_seconds(), 2)
            return result
        # every deadline at one instant, ``lead`` seconds after the servers are ready (however long
        # they took to start): their next sweep arms it
        at = datetime.now(UTC) + timedelta(seconds=lead)
        with db.session() as session:
            session.exec(sa.update(GameRow).where(GameRow.status == "active").values(deadline_at=at))
            session.exec(sa.update(TimerRow).where(TimerRow.kind == "deadline", TimerRow.fired_at.is_(None))
                         .values(due_at=at))
            if spread:  # one game's deadline after another, evenly over ``spread`` seconds: each closes alone
                ids = sorted(session.exec(sa.select(GameRow.id).where(GameRow.status == "active")).scalars())
                for n, game_id in enumerate(ids):
                    when = at + timedelta(seconds=spread * n / len(ids))
                    session.exec(sa.update(GameRow).where(GameRow.id == game_id).values(deadline_at=when))
                    session.exec(sa.update(TimerRow).where(TimerRow.game_id == game_id, TimerRow.kind == "deadline",
                                                           TimerRow.fired_at.is_(None)).values(due_at=when))
        db.dispose()
        result["rss_ready_kib"] = {s.node: s.memory_kib()["VmRSS"] for s in running}
        profilers += [sampler(s, profile) for s in running] if profile else []
        start = at.timestamp()
        wait_for(lambda: time.time() >= start, lead + 5, "the deadline", every=0.05)
        cpu0 = {s.node: s.cpu_seconds() for s in running}
        system0 = {s.node: system_seconds(s.process.pid) for s in running}
        helpers_cpu0 = {"discord": fake.cpu_seconds(), "relay": relay.cpu_seconds()}
        mails_wanted = games * len(orders)

        def results_done():
            p, m = fake.call("progress"), relay.call("progress")
            return (p, m) if p["results"] >= games and m["mails"] >= mails_wanted else None

        p, _ = wait_for(results_done, timeout + spread, "every result posted and mailed", every=0.5)
        done = time.time()
        cpu_results = {s.node: s.cpu_seconds() - cpu0[s.node] for s in running}
        last_results = p["last_results"]
        result["results_posted_s"] = round(last_results - start, 2)
        p = wait_for(lambda: p if (p := fake.call("progress"))["archive"] >= games else None, timeout,
                     "every archive thread posted", every=0.5)
        result["archive_posted_s"] = round(p["last_archive"] - start, 2)
        wait_for(lambda: outbox_left(url) == 0, timeout, "the whole outbox delivered", every=1.0)
        result["outbox_delivered_s"] = round(time.time() - start, 1)  # to the second: polled
        result["cpu_s"] = {s.node: round(s.cpu_seconds() - cpu0[s.node], 1) for s in running}
        result["system_cpu_s"] = {s.node: round(system_seconds(s.process.pid) - system0[s.node], 1) for s in running}
        result["cpu_to_results_s"] = {k: round(v, 1) for k, v in cpu_results.items()}
        result["helpers_cpu_s"] = {"discord": round(fake.cpu_seconds() - helpers_cpu0["discord"], 1),
                                   "relay": round(relay.cpu_seconds() - helpers_cpu0["relay"], 1)}
        result["memory_kib"] = {s.node: s.memory_kib() for s in running}
        result["load_at_end"] = os.getloadavg()
        result["yardstick_ms"]["after"] = yardstick_ms(gauged)
        record = fake.call("record", start)
        mail = relay.call("record")
        mailed = max(mail["times"], default=start)
        result["mailed_s"] = round(mailed - start, 2)
        result["posted_and_mailed_s"] = round(max(last_results, mailed) - start, 2)
        result["discord"] = summarise_discord(record, games)
        result["first_result_posted_s"] = round(min(when for place, _, when, _ in record["posts"] if place == "results")
                                                - start, 2)
        result["mail"] = {k: v for k, v in mail.items() if k != "times"} | {"wanted": mails_wanted}
        result["mail"]["most_in_a_second"] = most_in_a_second(mail["times"])
        runs = phase_runs(running)
        result["engine"] = timings(runs, start)
        result["timeline"] = timeline(start, [when for place, _, when, _ in record["posts"]], mail["times"],
                                      adjudicated_times(runs))
        for p in profilers:  # each writes its stacks when told to stop
            p.send_signal(signal.SIGINT)
            p.wait(60)
        result["logs"] = log_problems(running)
        if profile:
            result["phase_closing_cpu_ms"] = phase_costs(profile, [s.node for s in running], result["cpu_s"], games)
        _ = done
    finally:
        for p in profilers:
            if p.poll() is None:
                p.kill()
        for server in running:
            server.stop()
        fake.stop()
        relay.stop()
    result["floor_one_message_s"] = round(games / GLOBAL_PER_SECOND, 1)
    result["floor_requests_s"] = round(result["discord"]["requests_needed"] / GLOBAL_PER_SECOND, 1)
    if "baseline_rss_kib" in result:  # each server arms every game's timer and knows every game's channels
        ready = max(result["rss_ready_kib"].values())
        result["memory_per_game_kib"] = round((ready - result["baseline_rss_kib"]) / games, 1)
    return result


def start_phases(servers: list[Server]) -> dict[str, dict[str, float]]:
    """Where each server's last start went, from its log: seconds from its first line to its
    ``serving`` line and to its ``connected to Discord`` line."""
    out = {}
    for server in servers:
        lines = server.lines()
        stamps = [(line.get("event", ""), datetime.fromisoformat(line["timestamp"]).timestamp())
                  for line in lines if "timestamp" in line]
        first = stamps[0][1] if stamps else 0.0
        at = {name: next((t for e, t in stamps if str(e).startswith(name)), None)
              for name in ("serving", "connected to Discord")}
        out[server.node] = {name: round(t - first, 2) for name, t in at.items() if t is not None}
    return out


def summarise_discord(record: dict[str, Any], games: int) -> dict[str, Any]:
    per_game: dict[str, Counter] = {"results": Counter(), "archive": Counter()}
    for place, game, _, _ in record["posts"]:
        per_game[place][game] += 1
    repeated = {place: {g: n for g, n in c.items() if n != 1} for place, c in per_game.items()}
    missing = {place: games - len(c) for place, c in per_game.items()}
    beyond_first = {bucket: n - 1 for bucket, n in record["limited"].items() if n > 1}
    return {
        "results_posted": len(per_game["results"]), "archive_posted": len(per_game["archive"]),
        "posted_more_than_once": {k: len(v) for k, v in repeated.items()},
        "missing": missing, "refs_repeated": {p: sum(n - 1 for n in c.values() if n > 1) for p, c in
                                              record["refs"].items()},
        "requests_needed": len(record["posts"]), "requests_counted": record["counted_requests"],
        "most_in_a_second": record["most_in_a_second"], "429s": sum(record["limited"].values()),
        "429s_by_bucket": record["limited"], "429s_beyond_first_of_bucket": sum(beyond_first.values()),
        "routes": record["routes"], "problems": record["problems"],
    }


def report(r: dict[str, Any]) -> str:
    d, e = r["discord"], r.get("engine", {})
    lines = [
        f"{r['games']} games, {r['servers']} server(s) on {r['database']}, relay {r.get('relay', 'aiosmtpd')}, servers ready in {r['servers_ready_s']} s"
        + (f" (started again in {r['servers_restarted_s']} s)" if "servers_restarted_s" in r else "") + f", site {'on' if r['site'] else 'off'}; "
        + (f"the deadlines spread over {r['spread_s']} s; " if r.get("spread_s") else "") +
        f"load {r['load_at_start'][0]:.1f} at the start, {r['load_at_end'][0]:.1f} at the end",
        f"  posted and mailed: {r['posted_and_mailed_s']} s (results posted {r['results_posted_s']} s, mailed "
        f"{r['mailed_s']} s); archive threads {r['archive_posted_s']} s; whole outbox {r['outbox_delivered_s']} s; "
        f"games adjudicated from {e.get('first_adjudicated_s')} s to {e.get('last_adjudicated_s')} s, the first "
        f"result posted at {r['first_result_posted_s']} s",
        f"  floor (global limit, {GLOBAL_PER_SECOND}/s): {r['floor_one_message_s']} s for one message a season, "
        f"{r['floor_requests_s']} s for the {d['requests_needed']} posts the judge makes (1.5x: "
        f"{1.5 * r['floor_requests_s']:.0f} s)",
        f"  Discord: {d['results_posted']} results and {d['archive_posted']} archive posts, repeated "
        f"{d['posted_more_than_once']}, missing {d['missing']}; {d['requests_counted']} requests, at most "
        f"{d['most_in_a_second']} in a second; 429s {d['429s']} ({d['429s_beyond_first_of_bucket']} beyond the "
        f"first of a bucket) {d['429s_by_bucket']}",
        f"  mail: {r['mail']['mails']} of {r['mail']['wanted']} to {r['mail']['recipients']} addresses, "
        f"{r['mail']['repeated']} repeated, {r['mail']['bytes'] / 1e6:.0f} MB",
    ]
    if e.get("run_ms"):
        lines.append(
            f"  engine ({e['phase_runs']} runs {e['by_server']}): a run {e['run_ms']['mean']} ms mean "
            f"({e['run_ms']['p50']} p50; CPU {e['cpu_ms']['mean']} ms): adjudication {e['adjudicate_ms']['mean']} ms, "
            f"picture {e['picture_ms']['mean']} ms, storage {e['storage_ms']['mean']} ms")
    lines.append(f"  servers' CPU: {r['cpu_s']} s in all ({r['cpu_to_results_s']} s until the last result; "
                 f"in the kernel {r.get('system_cpu_s')} s); "
                 f"memory {r['memory_kib']} KiB; the test Discord's and the relay's CPU {r['helpers_cpu_s']} s")
    if "yardstick_ms" in r and "after" in r["yardstick_ms"]:
        y = r["yardstick_ms"]
        per = sum(r["cpu_s"].values()) * 1000 / r["games"] / statistics.mean(y.values())
        where = "on the servers' core" if r.get("cores") else "no core pinned"
        lines.append(f"  {r['python']}; the yardstick ({where}): "
                     f"{y['before']} ms before, {y['after']} ms after: a phase closing's CPU (all included) "
                     f"{per:.2f} yardsticks")
    if "memory_per_game_kib" in r:
        lines.append(f"  memory: {r['baseline_rss_kib']} KiB with no game, {r['rss_ready_kib']} KiB with "
                     f"{r['games']} games armed: {r['memory_per_game_kib']} KiB a game")
    if "armed_timer_bytes" in r:
        lines.append(f"  an armed timer: {r['armed_timer_bytes']:.0f} bytes")
    if r.get("timeline"):
        t = r["timeline"]
        lines.append(f"  every {t['window_s']:g} s: posts {t['posts']}; mails {t['mails']}; adjudicated {t['adjudicated']}")
    if r.get("phase_closing_cpu_ms"):
        lines.append(f"  a phase closing, CPU ms by part (py-spy samples of the servers): {r['phase_closing_cpu_ms']}")
    lines.append(f"  logs: {r['logs']}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--database", help="a PostgreSQL server URL (a throw-away database is made there); "
                                           "default: SQLite in a temporary directory")
    parser.add_argument("--servers", type=int, help="crusader serve processes (default: 1 on SQLite, 2 on PostgreSQL)")
    parser.add_argument("--no-site", dest="site", action="store_false", help="turn the archive site off")
    parser.add_argument("--lead", type=float, default=60.0,
                        help="seconds from the servers being ready to the deadline (more than their sweep's 30 s)")
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--spread", type=float, default=0.0,
                        help="the deadlines one after another, evenly over this many seconds, not all at once: "
                             "each phase closing on a quiet core, its CPU measured alone")
    parser.add_argument("--relay", choices=sorted(RELAYS), default="aiosmtpd",
                        help="the capturing SMTP relay: aiosmtpd (Python, the default) or Postfix's smtp-sink (C, "
                             "from Debian's package postfix), which leaves the servers most of the CPU aiosmtpd takes")
    parser.add_argument("--pin", action="store_true",
                        help="each server on a core of its own, the test Discord, the relay and this process on the "
                             "others (a core more than the servers needed): a phase closing on a quiet core")
    parser.add_argument("--no-memory-baseline", dest="baseline", action="store_false")
    parser.add_argument("--json", type=Path, help="also write the result as JSON here")
    parser.add_argument("--keep", type=Path, help="keep the servers' logs in this directory")
    parser.add_argument("--profile", type=Path, help="sample each server with py-spy from the start of the storm to "
                                                      "the last delivery; the stacks in this directory")
    parser.add_argument("--tree", type=Path, default=ROOT,
                        help="run the servers of this source tree (another version of the judge, e.g. main "
                             "'git archive'd into a directory), measured the same way")
    parser.add_argument("--restart", action="store_true",
                        help="stop the servers once started and start them again: the start-up of a server "
                             "whose games' archive pages are written already")
    parser.add_argument("--start-only", action="store_true",
                        help="stop once the servers have started (and, with --restart, started again): "
                             "only the start-up is measured, not the storm")
    args = parser.parse_args(argv)
    servers = args.servers or (2 if args.database else 1)
    with tempfile.TemporaryDirectory(prefix="crusader-storm-") as tmp:
        tmp = Path(tmp)
        try:
            if args.database:
                with scratch_database(args.database) as url:
                    result = storm(url, args.games, servers, args.site, args.lead, args.baseline, tmp, args.timeout,
                                   args.profile, args.tree, args.restart, args.start_only, args.spread, args.relay,
                                   args.pin)
            else:
                result = storm(f"sqlite:///{tmp / 'storm.db'}", args.games, servers, args.site, args.lead,
                               args.baseline, tmp, args.timeout, args.profile, args.tree, args.restart, args.start_only,
                               args.spread, args.relay, args.pin)
        finally:
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                for log in (tmp / "logs").glob("*.log"):
                    (args.keep / log.name).write_bytes(log.read_bytes())
    if args.baseline:
        result["armed_timer_bytes"] = round(armed_timer_bytes(), 0)
    if args.start_only:
        print(f"{result['games']} games, {result['servers']} server(s) on {result['database']}, site "
              f"{'on' if result['site'] else 'off'}: servers ready in {result['servers_ready_s']} s"
              + (f", started again in {result['servers_restarted_s']} s" if "servers_restarted_s" in result else "")
              + f"; from the first log line: {result['start']}; load {result['load_at_start'][0]:.1f}")
    else:
        print(report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
