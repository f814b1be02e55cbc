"""The seven mails of a season, alone: the results of one season of a crusader-map game mailed to
its seven players (each mail with the season's picture, about 140 kB) by the mail front end's
notifier as the outbox has it deliver them (``recipients`` once, then ``deliver`` for each
address, all at once), over SMTP to a capturing relay (aiosmtpd) in a process of its own. Counted:
the CPU time of the judge's process (all its threads) for each announcement.

    python benchmarks/bench_mail.py                          # this tree
    python benchmarks/bench_mail.py --tree OLD --tree .      # another version's notifier, then this one's
    python benchmarks/bench_mail.py --tree OLD --tree . --repeat 3   # alternately, three times

``--tree DIR`` runs the judge of that source tree (e.g. main ``git archive``d into a directory) in
a process of its own, measured the same way; with several trees, each in turn, ``--repeat`` times.
Each announcement is a new one (its own key, so nothing of the one before is reused), of the same
season; the first few are not counted (imports, the relay's connections).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = {"ANT": "ant", "BYZ": "byz", "EDE": "ede", "FAT": "fat", "JER": "jer", "RUM": "rum", "SEL": "sel"}
WARM_UP = 3


def relay_main(conn: Any) -> None:
    """A capturing SMTP relay in a process of its own: it counts the mails and their bytes."""
    import logging

    from aiosmtpd.smtp import SMTP

    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd's line for every command
    got = {"mails": 0, "bytes": 0}

    class Capture:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            got["mails"] += len(envelope.rcpt_tos)
            got["bytes"] += len(envelope.content)
            return "250 OK"

    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: SMTP(Capture(), enable_SMTPUTF8=True), "127.0.0.1", 0)
        conn.send(server.sockets[0].getsockname()[1])
        await loop.run_in_executor(None, conn.recv)  # until asked
        conn.send(got)
        server.close()

    asyncio.run(main())


def inner(announcements: int) -> dict[str, Any]:
    """In this process, the judge of the tree on ``sys.path``: ``announcements`` results mailed."""
    from bot.frontends.mail import passwords
    from bot.frontends.mail.config import MailSettings
    from bot.frontends.mail.listener import MailFrontEnd
    from bot.service import GameService
    from bot.store.database import Database, outbox_of
    from bot.store.outbox import Announcement, Delivery, OutboxDispatcher

    passwords.SCRYPT_N = 2**10  # the players' passwords are made at the start only
    ours, theirs = multiprocessing.Pipe()
    relay = multiprocessing.Process(target=relay_main, args=(theirs,), daemon=True)
    relay.start()
    port = ours.recv()
    with tempfile.TemporaryDirectory() as tmp:
        db = Database.sqlite_file(Path(tmp) / "judge.db")
        db.migrate()
        service = GameService(db)
        settings = MailSettings(address="judge@crusader.test", relay_host="127.0.0.1", relay_port=port,
                                attach_maps=True)
        front = MailFrontEnd(service, OutboxDispatcher(db), settings)
        service.create_game("storm", "crusader", "gm", seed=11)
        for power, name in PLAYERS.items():
            service.join("storm", f"{name}@players.test", power)
            front.accounts.register("storm", "gm", power, address=f"{name}@players.test", password=f"pw-{power}")
        service.start("storm", "gm", fill_civil_disorder=True)
        service.force_adjudicate("storm", "gm")
        with db.session() as session:
            [row] = [r for r in outbox_of(session) if r.kind == "results"]
            results = Announcement.from_row(row)

        async def mail_all() -> list[float]:
            notifier, out = front.notifier, []
            for n in range(announcements + WARM_UP):
                a = replace(results, key=f"{results.key}:{n}")
                began = time.process_time()
                to = await notifier.recipients(a)
                outcomes = await asyncio.gather(*(notifier.deliver(Delivery(a, address)) for address in to))
                spent = time.process_time() - began
                if len(to) != len(PLAYERS) or any(type(o).__name__ != "Delivered" for o in outcomes):
                    raise SystemExit(f"not every player mailed: {to} {outcomes}")
                if n >= WARM_UP:
                    out.append(spent * 1000)
            await front.mailer.close()
            return out

        spent = asyncio.run(mail_all())
        db.dispose()
    ours.send("done")
    got = ours.recv()
    relay.join(timeout=5)
    return {"announcements": announcements, "cpu_ms": {"median": round(statistics.median(spent), 2),
                                                       "mean": round(statistics.fmean(spent), 2),
                                                       "min": round(min(spent), 2)},
            "mails": got["mails"], "bytes_per_mail": round(got["bytes"] / max(got["mails"], 1)),
            "connections": front.mailer.connections}


def run_tree(tree: Path, announcements: int) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--inner", "--announcements",
                           str(announcements), "--tree", str(tree)], cwd=str(tree), env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the run of {tree} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, action="append", help="a source tree to run (default: this one)")
    parser.add_argument("--announcements", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=1, help="run the trees alternately this many times")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        sys.path.insert(0, str(args.tree[0]))
        from bot.app.logging import configure

        configure("INFO", "json")  # as a server logs (to stderr, which the run keeps apart)
        print(json.dumps(inner(args.announcements)))
        return
    trees = [t.resolve() for t in (args.tree or [ROOT])]
    load = os.getloadavg()[0]
    for _ in range(args.repeat):
        for tree in trees:
            r = run_tree(tree, args.announcements)
            print(f"{tree}: seven mails of a season, CPU ms per announcement {r['cpu_ms']} over {r['announcements']} "
                  f"announcements; {r['mails']} mails of {r['bytes_per_mail'] / 1000:.0f} kB, "
                  f"{r['connections']} connection(s); load {os.getloadavg()[0]:.1f}", flush=True)
    print(f"(load {load:.1f} at the start)")


if __name__ == "__main__":
    threading.current_thread().name = "bench"
    main()
