"""The seven mails of a season, alone: the results of one season of a crusader-map game mailed to
its seven players (each mail with the season's picture, about 140 kB) by the mail front end's
notifier as the outbox has it deliver them (``recipients`` once, then ``deliver`` for each
address, all at once), over SMTP to a capturing relay (aiosmtpd) in a process of its own. Counted:
the CPU time of the judge's process (all its threads) for each announcement.

    python benchmarks/bench_mail.py                          # this tree
    python benchmarks/bench_mail.py --tree OLD --tree .      # another version's notifier, then this one's
    python benchmarks/bench_mail.py --tree OLD --tree . --repeat 3   # alternately, three times

``--compose`` measures the mail front end's own part alone, with no relay: for each announcement,
the season's picture made an attachment, the mail composed (the notifier's letter) and each of the
seven copies written out for the wire (``Mailer._wire``), the text they read written beforehand;
and it prints a digest of the first announcement's seven mails, their clock, MIME boundary and
the deadline in their text fixed, so that two trees' mails can be compared byte for byte. The
same seven players are mailed each time, as a game's are every season; with ``--new-addresses``
each announcement goes to seven addresses never mailed before (as in a storm of many games
closing at once).

    python benchmarks/bench_mail.py --compose --tree OLD --tree . --repeat 3

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
import re
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


def inner(announcements: int, *, compose: bool = False, new_addresses: bool = False) -> dict[str, Any]:
    """In this process, the judge of the tree on ``sys.path``: ``announcements`` results mailed
    (``compose``: composed and written out for the wire only, see :func:`composed`)."""
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
        if compose:
            out = composed(front, results, announcements, new_addresses=new_addresses)
            db.dispose()
            ours.send("done")
            ours.recv()
            relay.join(timeout=5)
            return out

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


def composed(front: Any, results: Any, announcements: int, *, new_addresses: bool = False) -> dict[str, Any]:
    """``announcements`` results (each a new one, the text they read written beforehand) composed
    and their seven copies written out for the wire as an 8BITMIME relay takes them: the CPU time
    of each; and a digest of the first one's seven mails (the clock, the MIME boundary and the
    deadline in the text fixed)."""
    import hashlib
    import secrets
    from datetime import UTC, datetime
    from email.message import MIMEPart

    from bot.frontends.mail import replies
    from bot.frontends.mail.notifier import Concerned

    notifier, mailer = front.notifier, front.mailer
    replies.utcnow = lambda: datetime(1101, 4, 1, 12, tzinfo=UTC)  # type: ignore[attr-defined]
    secrets.token_hex = lambda n=16: "0" * (2 * n)  # type: ignore[assignment,misc]
    season = notifier._season(results)
    if season is None or not season.picture:
        raise SystemExit("the season has no picture")
    body = notifier._body(results, "", Concerned(frozenset(), frozenset()))[0]
    body = re.sub(r"\w{3} \d\d? \w{3} \d{4} \d\d:\d\d UTC", "Sat 1 Apr 1101 12:00 UTC", body)  # the deadline: now
    name = f"{results.game}-{results.data.get('phase')}.png"
    spent, digest = [], ""
    for n in range(announcements + WARM_UP):
        a = replace(results, key=f"{results.key}:{n}")
        to = sorted(f"{name}{f'.{n}' if new_addresses and n else ''}@players.test" for name in PLAYERS.values())
        began = time.process_time()
        part: MIMEPart = replies.picture_part(season.picture, name)
        wires = []
        for address in to:
            message_id = notifier.message_id(a.key, address)
            letter = notifier._letter(a, address, message_id, body, part, kept=True)
            wires.append(mailer._wire(letter.to(address, message_id), utf8=False, eight_bit=True))
        took = time.process_time() - began
        if n == 0:
            digest = hashlib.sha256(b"".join(piece for wire in wires for piece in wire)).hexdigest()[:16]
        if n >= WARM_UP:
            spent.append(took * 1000)
    return {"announcements": announcements, "cpu_ms": {"median": round(statistics.median(spent), 2),
                                                       "mean": round(statistics.fmean(spent), 2),
                                                       "min": round(min(spent), 2)},
            "mails": len(to), "bytes_per_mail": round(sum(len(piece) for wire in wires for piece in wire) / len(wires)),
            "digest": digest}


def run_tree(tree: Path, announcements: int, *, compose: bool = False, new_addresses: bool = False) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--inner", "--announcements",
                           str(announcements), "--tree", str(tree), *(["--compose"] if compose else []),
                           *(["--new-addresses"] if new_addresses else [])],
                          cwd=str(tree), env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the run of {tree} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, action="append", help="a source tree to run (default: this one)")
    parser.add_argument("--announcements", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=1, help="run the trees alternately this many times")
    parser.add_argument("--compose", action="store_true",
                        help="the mail composed and written out for the wire only, with no relay")
    parser.add_argument("--new-addresses", action="store_true",
                        help="with --compose: each announcement to seven addresses not mailed before")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        sys.path.insert(0, str(args.tree[0]))
        from bot.app.logging import configure

        configure("INFO", "json")  # as a server logs (to stderr, which the run keeps apart)
        print(json.dumps(inner(args.announcements, compose=args.compose,
                               new_addresses=args.new_addresses)))
        return
    trees = [t.resolve() for t in (args.tree or [ROOT])]
    load = os.getloadavg()[0]
    for _ in range(args.repeat):
        for tree in trees:
            r = run_tree(tree, args.announcements, compose=args.compose, new_addresses=args.new_addresses)
            if args.compose:
                print(f"{tree}: a season's mail composed and its seven copies written out, CPU ms per announcement "
                      f"{r['cpu_ms']} over {r['announcements']} announcements; mails of {r['bytes_per_mail'] / 1000:.0f}"
                      f" kB, digest {r['digest']}; load {os.getloadavg()[0]:.1f}", flush=True)
                continue
            print(f"{tree}: seven mails of a season, CPU ms per announcement {r['cpu_ms']} over {r['announcements']} "
                  f"announcements; {r['mails']} mails of {r['bytes_per_mail'] / 1000:.0f} kB, "
                  f"{r['connections']} connection(s); load {os.getloadavg()[0]:.1f}", flush=True)
    print(f"(load {load:.1f} at the start)")


if __name__ == "__main__":
    threading.current_thread().name = "bench"
    main()
