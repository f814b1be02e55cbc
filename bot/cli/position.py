"""``crusader position new VARIANT [--rule R]``: the opening position document of a variant."""

from __future__ import annotations

import argparse

from .common import CommandError, Exit, dump


def cmd_position_new(args: argparse.Namespace) -> Exit:
    from bot.codec.documents import DocumentError, new_game_document

    try:
        doc = new_game_document(args.variant, args.rule or ())
    except DocumentError as exc:
        raise CommandError(str(exc)) from None
    dump(doc, pretty=True)
    return Exit.OK


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("position", help="position documents")
    sub = p.add_subparsers(dest="position_command", metavar="SUBCOMMAND")
    sub.required = True
    q = sub.add_parser("new", help="the opening position document of a variant")
    q.add_argument("variant", help="standard or crusader")
    q.add_argument("--rule", action="append", help="an extra rule module, e.g. prestige")
    q.set_defaults(func=cmd_position_new)
