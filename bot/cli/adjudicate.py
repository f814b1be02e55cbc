"""``crusader adjudicate [FILE]``: a position document in, a result document out (the contract)."""

from __future__ import annotations

import argparse
import sys

from .common import CommandError, Exit, dump, load_json, read_input, read_lines


def cmd_adjudicate(args: argparse.Namespace) -> Exit:
    from bot.codec.documents import DocumentError, adjudicate_document, adjudicate_position

    if args.jsonl:
        for line, unread in read_lines(args.file):
            if line is not None and not line.strip():
                continue
            try:
                if unread is not None:
                    raise CommandError(unread)
                assert line is not None  # (read_lines gives each line, or why it could not read it)
                result = adjudicate_document(load_json(line, "line"))
            except (CommandError, DocumentError) as exc:
                result = {"error": str(exc)}
            dump(result, pretty=False)
        return Exit.OK
    doc = load_json(read_input(args.file))
    try:
        if args.format == "text":
            from bot.service.report import phase_report, report_text

            variant, position, adjudication, result = adjudicate_position(doc)
            not_read = [(*_whose(e["order"]), e["reason"]) for e in result["results"] if e["canonical"] is None]
            after = adjudication.position.phase
            report = phase_report(adjudication, variant, position, unread=not_read,
                                  next_phase=f"Next phase: {after.long_name} ({after})")
            sys.stdout.write(report_text(report))
        else:
            dump(adjudicate_document(doc), pretty=args.pretty)
    except DocumentError as exc:
        raise CommandError(str(exc)) from None
    return Exit.OK


def _whose(line: str) -> tuple[str, str]:
    """A line that is no order, as the report lists it: under the power it begins with, or ``?``."""
    power, sep, rest = line.partition(": ") if isinstance(line, str) else ("", "", "")
    return (power, rest) if sep else ("?", str(line))


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("adjudicate", help="adjudicate a position document (JSON) and print the result document")
    p.add_argument("file", nargs="?", help="the position document; standard input when absent or -")
    p.add_argument("--jsonl", action="store_true", help="one position document per line, one result per line")
    p.add_argument("--format", choices=("json", "text"), default="json", help="json (default) or a readable report")
    p.add_argument("--pretty", action="store_true", help="indent the JSON")
    p.set_defaults(func=cmd_adjudicate)
