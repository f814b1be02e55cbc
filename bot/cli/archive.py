"""``crusader verify FILE`` and ``crusader archive build GAME DIR``: what is done with a game's archive.

``verify`` re-adjudicates every season of an export (``crusader game export``) and says whether
each comes out the same. ``archive build`` writes one game's archive site into a directory, with
the database options of ``crusader game``: the game's pages are built afresh in a temporary
directory renamed into place; the site index in ``DIR`` lists every game built there.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .common import CommandError, Exit, read_json
from .shell import add_database_options, open_service, refusals_are_command_errors


@refusals_are_command_errors
def cmd_verify(args: argparse.Namespace) -> Exit:
    from bot.archive.games import verify_export

    checks = verify_export(read_json(args.file))
    for c in checks:
        print(f"{c.phase}: {'identical' if c.identical else 'DIFFERENT: ' + c.detail}")
    bad = [c for c in checks if not c.identical]
    print(f"{len(checks) - len(bad)} of {len(checks)} seasons identical")
    return Exit.OK if not bad else Exit.FAILED


@refusals_are_command_errors
def cmd_archive_build(args: argparse.Namespace) -> Exit:
    from bot.archive.games import game_archive
    from bot.frontends.site.writer import SiteWriter, game_slug

    _, db = open_service(args)
    archive = game_archive(db, args.game)
    root = Path(args.dir)
    if root.exists() and not root.is_dir():
        raise CommandError(f"{root} is a file, not a directory; give a directory to write the site into")
    record = SiteWriter(root).build_game(archive)
    print(f"{record.name}: {len(record.lines)} season page(s) in {root / game_slug(record.name)}; "
          f"site index {root / 'index.html'}")
    return Exit.OK


def add_verify_parser(subparsers) -> None:
    p = subparsers.add_parser("verify", help="re-adjudicate an exported game and confirm every season is identical")
    p.add_argument("file", help="a file written by 'crusader game export' (- for standard input)")
    p.set_defaults(func=cmd_verify)


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("archive", help="the season archive site")
    sub = p.add_subparsers(dest="archive_command", metavar="SUBCOMMAND")
    sub.required = True
    q = sub.add_parser("build", help="write a game's archive pages (seasons, maps, orders, bids) into a directory")
    add_database_options(q)
    q.add_argument("game", help="the game's name")
    q.add_argument("dir", help="the site's directory (created when missing); the game goes into DIR/<game>/")
    q.set_defaults(func=cmd_archive_build)
