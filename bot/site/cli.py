"""``crusader archive build GAME DIR``: write one game's archive site into a directory.

The database options are those of ``crusader game`` (``--data-dir``, ``--database``). The
game's pages are built afresh in a temporary directory renamed into place; the site index in
``DIR`` lists every game built there.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXIT_OK, EXIT_BAD_INPUT = 0, 2


def cmd_archive_build(args: argparse.Namespace) -> int:
    from ..archive import export_game
    from ..cli_game import _service
    from .writer import SiteWriter, game_slug

    try:
        _, db = _service(args)
        export = export_game(db, args.game)
    except ValueError as exc:
        print(f"crusader: {exc}; 'crusader game list' shows the games", file=sys.stderr)
        return EXIT_BAD_INPUT
    root = Path(args.dir)
    if root.exists() and not root.is_dir():
        print(f"crusader: {root} is a file, not a directory; give a directory to write the site into", file=sys.stderr)
        return EXIT_BAD_INPUT
    record = SiteWriter(root).build_game(export)
    print(f"{record.name}: {len(record.seasons)} season page(s) in {root / game_slug(record.name)}; "
          f"site index {root / 'index.html'}")
    return EXIT_OK


def add_archive_parser(subparsers) -> None:
    from ..cli_game import _db_options

    p = subparsers.add_parser("archive", help="the season archive site")
    sub = p.add_subparsers(dest="archive_command", metavar="SUBCOMMAND")
    sub.required = True
    q = sub.add_parser("build", help="write a game's archive pages (seasons, maps, orders, bids) into a directory")
    _db_options(q)
    q.add_argument("game", help="the game's name")
    q.add_argument("dir", help="the site's directory (created when missing); the game goes into DIR/<game>/")
    q.set_defaults(func=cmd_archive_build)
