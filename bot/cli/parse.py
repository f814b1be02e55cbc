"""``crusader parse [FILE]``: written orders read offline, as the judge would read them; exit 1
when a line was not understood."""

from __future__ import annotations

import argparse
import sys

from .common import CommandError, Exit, dump, read_input


def cmd_parse(args: argparse.Namespace) -> Exit:
    from adjudicator.variant import UnknownVariantError, get_variant
    from grammar import parse_message

    try:
        variant = get_variant(args.variant)
    except UnknownVariantError as exc:
        raise CommandError(str(exc)) from None
    power = args.power.upper() if args.power else None
    if power and power not in variant.powers:
        raise CommandError(f"unknown power {args.power!r}; {variant.name} has {', '.join(sorted(variant.powers))}")
    from bot.codec import limits

    bounded = limits.bounded_message(read_input(args.file))
    not_read = bounded.not_read
    parsed = parse_message(bounded.text, variant, power)
    if args.format == "json":
        doc = parsed.to_dict()
        if not_read:
            doc["not_read"] = [{"line": n.line_no, "text": n.written, "reason": n.reason} for n in not_read]
        dump(doc, pretty=True)
    else:
        sys.stdout.write(parsed.to_text())
        sys.stdout.writelines(f"line {n.line_no}: not read: {n.reason}: {n.written}\n" for n in not_read)
    return Exit.OK if not parsed.errors and not not_read else Exit.FAILED


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("parse", help="check written orders offline, as the judge would read them")
    p.add_argument("file", nargs="?", help="a file of orders, one per line; standard input when absent or -")
    p.add_argument("--variant", default="crusader", help="crusader (default) or standard")
    p.add_argument("--power", help="the power giving the orders, when the lines have no 'ENG:' prefix")
    p.add_argument("--format", choices=("json", "text"), default="text")
    p.set_defaults(func=cmd_parse)
