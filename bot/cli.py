"""The ``crusader`` command. Its stable part is described in ``docs/cli.md``.

Subcommands: ``adjudicate``, ``variant``, ``parse``, ``position`` here; the service's
``serve``, ``game`` and ``verify`` come from ``bot.cli_game``, ``archive`` from ``bot.site.cli``.
"""

from __future__ import annotations

import argparse
import json
import sys

import orjson
from typing import IO, Any, Sequence

EXIT_OK, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 2, 3


class CommandError(Exception):
    """Bad input for a command: printed as one line, exit code 2."""


def _read_input(path: str | None) -> str:
    if path in (None, "-"):
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise CommandError(f"{path} is not UTF-8 text") from None


def _load_json(text: str, where: str = "input") -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(f"{where} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise CommandError(f"{where} is nested too deeply") from None


# Characters that some line readers (Python's str.splitlines, JavaScript) take as a line end.
# They can only stand inside a JSON string, where an escape means the same character.
_LINE_BREAKS = str.maketrans({c: f"\\u{ord(c):04x}" for c in "\x85\u2028\u2029"})


def json_text(doc: Any, *, pretty: bool = False) -> str:
    """``doc`` as JSON text: compact, or indented by two spaces; UTF-8 characters as they are.

    Written by orjson, several times faster than the standard library on result documents;
    what orjson refuses (an integer beyond 64 bits, a key that is not a string, a lone
    surrogate) is written by the standard library, as it writes everything else the same way.
    """
    try:
        return orjson.dumps(doc, option=orjson.OPT_INDENT_2 if pretty else 0).decode()
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(doc, ensure_ascii=False, indent=2 if pretty else None,
                          separators=None if pretty else (",", ":"))


def _dump(doc: Any, out: IO[str], *, pretty: bool) -> None:
    out.write(json_text(doc, pretty=pretty).translate(_LINE_BREAKS))
    out.write("\n")


# -- adjudicate ----------------------------------------------------------------------------


def cmd_adjudicate(args: argparse.Namespace) -> int:
    from .documents import DocumentError, adjudicate_document

    text = _read_input(args.file)
    if args.jsonl:
        for line in text.split("\n"):  # JSON Lines: only a newline ends a line
            line = line.removesuffix("\r")
            if not line.strip():
                continue
            try:
                result = adjudicate_document(_load_json(line, "line"))
            except (CommandError, DocumentError) as exc:
                result = {"error": str(exc)}
            _dump(result, sys.stdout, pretty=False)
        return EXIT_OK
    try:
        result = adjudicate_document(_load_json(text))
    except DocumentError as exc:
        raise CommandError(str(exc)) from None
    if args.format == "text":
        from .report import result_text

        sys.stdout.write(result_text(result))
    else:
        _dump(result, sys.stdout, pretty=args.pretty)
    return EXIT_OK


# -- variant -------------------------------------------------------------------------------


def variant_document(name: str) -> dict[str, Any]:
    from adjudicator.variant import UnknownVariantError, get_variant

    try:
        v = get_variant(name)
    except UnknownVariantError as exc:
        raise CommandError(str(exc)) from None
    army = sorted(sorted(e) for e in v.army_edges)
    fleet = sorted(sorted(str(x) for x in e) for e in v.fleet_edges)
    return {
        "name": v.name,
        "title": v.title,
        "powers": {
            code: {"name": p.name, "adjective": p.adjective, "home_centers": list(p.home_centers),
                   "units": [u.short for u in p.units], "colour": p.colour}
            for code, p in sorted(v.powers.items())
        },
        "provinces": {
            pid: {"name": p.name, "kind": p.kind.value, "supply_center": p.supply_center,
                  "coasts": list(p.coasts), "lat": p.lat, "lon": p.lon, "aliases": list(p.aliases)}
            for pid, p in sorted(v.provinces.items())
        },
        "adjacency": {"army": army, "fleet": fleet},
        "neutral_units": [u.short for u in v.neutral_units],
        "supply_center_owners": {p: o for p, o in sorted(v.starting_owners.items())},
        "victory_centers": v.victory_centers,
        "start_phase": str(v.start_phase),
        "rules": sorted(v.rules),
    }


def cmd_variant_show(args: argparse.Namespace) -> int:
    doc = variant_document(args.name)
    if args.format == "json":
        _dump(doc, sys.stdout, pretty=True)
        return EXIT_OK
    out = [f"{doc['title']} ({doc['name']}): starts {doc['start_phase']}, "
           f"{doc['victory_centers']} centres to win, rules: {', '.join(doc['rules']) or 'classic'}", ""]
    for code, p in doc["powers"].items():
        out.append(f"{code}  {p['name']}: {', '.join(p['units'])} (home: {', '.join(p['home_centers'])})")
    if doc["neutral_units"]:
        out.append(f"NEU  neutral units: {', '.join(doc['neutral_units'])}")
    out.append("")
    centres = sum(1 for p in doc["provinces"].values() if p["supply_center"])
    out.append(f"{len(doc['provinces'])} provinces, {centres} supply centres, "
               f"{len(doc['adjacency']['army'])} army borders, {len(doc['adjacency']['fleet'])} fleet borders")
    for pid, p in doc["provinces"].items():
        coasts = f" coasts {'/'.join(p['coasts'])}" if p["coasts"] else ""
        sc = " *" if p["supply_center"] else ""
        out.append(f"  {pid:<5} {p['name']:<28} {p['kind']:<5}{sc}{coasts}")
    sys.stdout.write("\n".join(out) + "\n")
    return EXIT_OK


def cmd_variant_list(args: argparse.Namespace) -> int:
    from adjudicator.variant import get_variant, variant_names

    for name in variant_names():
        try:
            v = get_variant(name)
        except (OSError, ValueError) as exc:  # a map file that does not load is reported, not hidden
            print(f"{name:<10} (cannot load: {exc})")
            continue
        print(f"{name:<10} {v.title}: {len(v.powers)} powers, {len(v.supply_centers)} centres, starts {v.start_phase}")
    return EXIT_OK


# -- position ------------------------------------------------------------------------------


def cmd_position_new(args: argparse.Namespace) -> int:
    from .documents import DocumentError, new_game_document

    try:
        doc = new_game_document(args.variant, args.rule or ())
    except DocumentError as exc:
        raise CommandError(str(exc)) from None
    _dump(doc, sys.stdout, pretty=True)
    return EXIT_OK


# -- parse ---------------------------------------------------------------------------------


def cmd_parse(args: argparse.Namespace) -> int:
    from adjudicator.variant import UnknownVariantError, get_variant
    from grammar import parse_message

    try:
        variant = get_variant(args.variant)
    except UnknownVariantError as exc:
        raise CommandError(str(exc)) from None
    power = args.power.upper() if args.power else None
    if power and power not in variant.powers:
        raise CommandError(f"unknown power {args.power!r}; {variant.name} has {', '.join(sorted(variant.powers))}")
    parsed = parse_message(_read_input(args.file), variant, power)
    if args.format == "json":
        _dump(parsed.to_dict(), sys.stdout, pretty=True)
    else:
        sys.stdout.write(parsed.to_text())
    return EXIT_OK if not parsed.errors else 1


# -- wiring --------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="crusader", description="Crusader Judge: a Diplomacy judge.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("adjudicate", help="adjudicate a position document (JSON) and print the result document")
    p.add_argument("file", nargs="?", help="the position document; standard input when absent or -")
    p.add_argument("--jsonl", action="store_true", help="one position document per line, one result per line")
    p.add_argument("--format", choices=("json", "text"), default="json", help="json (default) or a readable report")
    p.add_argument("--pretty", action="store_true", help="indent the JSON")
    p.set_defaults(func=cmd_adjudicate)

    p = sub.add_parser("variant", help="the maps this judge knows")
    vsub = p.add_subparsers(dest="variant_command", metavar="SUBCOMMAND")
    vsub.required = True
    q = vsub.add_parser("show", help="a map and its starting position")
    q.add_argument("name", help="standard or crusader")
    q.add_argument("--format", choices=("json", "text"), default="text")
    q.set_defaults(func=cmd_variant_show)
    q = vsub.add_parser("list", help="the variants")
    q.set_defaults(func=cmd_variant_list)

    p = sub.add_parser("position", help="position documents")
    psub = p.add_subparsers(dest="position_command", metavar="SUBCOMMAND")
    psub.required = True
    q = psub.add_parser("new", help="the opening position document of a variant")
    q.add_argument("variant", help="standard or crusader")
    q.add_argument("--rule", action="append", help="an extra rule module, e.g. prestige")
    q.set_defaults(func=cmd_position_new)

    p = sub.add_parser("parse", help="check written orders offline, as the judge would read them")
    p.add_argument("file", nargs="?", help="a file of orders, one per line; standard input when absent or -")
    p.add_argument("--variant", default="crusader", help="crusader (default) or standard")
    p.add_argument("--power", help="the power giving the orders, when the lines have no 'ENG:' prefix")
    p.add_argument("--format", choices=("json", "text"), default="text")
    p.set_defaults(func=cmd_parse)

    from .cli_game import add_game_parser, add_serve_parser
    from .site.cli import add_archive_parser

    add_serve_parser(sub)
    add_game_parser(sub)
    add_archive_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except CommandError as exc:
        print(f"crusader: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # never a traceback for a user; the message says where to look
        print(f"crusader: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
