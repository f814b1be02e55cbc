"""``crusader serve``, ``crusader game ...`` and ``crusader verify``: the service from a shell.

The database is ``--database URL``, else ``$CRUSADER_DATABASE_URL``, else SQLite under
``--data-dir`` / ``$CRUSADER_DATA_DIR`` / ``./data``. The shell operator acts as the judge
itself: every game-master action is allowed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from .cli import _load_json, _read_input

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


def _settings(args: argparse.Namespace):
    from .settings import Settings

    overrides = {}
    if getattr(args, "data_dir", None):
        overrides["data_dir"] = Path(args.data_dir)
    if getattr(args, "database", None):
        overrides["database_url"] = args.database
    return Settings(**overrides)


def _service(args: argparse.Namespace):
    from .service import GameService
    from .storage import Database

    from .logging import configure

    settings = _settings(args)
    configure("WARNING" if settings.log_level.upper() == "INFO" else settings.log_level, settings.log_format)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    db = Database(settings.url)
    db.migrate()
    return GameService(db, node="shell"), db


def _fail(message: str) -> int:
    print(f"crusader: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _guarded(func):
    def run(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except ValueError as exc:  # ServiceError, DocumentError, bad durations: all say what to do
            return _fail(str(exc))
    return run


def _view_text(view) -> str:
    from .service.texts import when

    lines = [f"{view.name}  ({view.variant}{', ' + ', '.join(view.rules) if view.rules else ''})  GM {view.gm}",
             f"  status {view.status}, phase {view.phase}, deadline {when(view.deadline_at)}"]
    for p in view.players:
        flags = [p.status] + (["orders in"] if p.has_orders else []) + ([f"NMR x{p.nmr_count}"] if p.nmr_count else [])
        lines.append(f"  {p.power or '---'}  {p.player}  ({', '.join(flags)})")
    if view.outcome:
        lines.append(f"  outcome: {json.dumps(view.outcome)}")
    return "\n".join(lines) + "\n"


def _view_json(view) -> dict:
    return {"name": view.name, "variant": view.variant, "rules": list(view.rules), "gm": view.gm,
            "status": view.status, "phase": view.phase, "version": view.version,
            "deadline_at": view.deadline_at.isoformat() if view.deadline_at else None,
            "players": [{"player": p.player, "power": p.power, "status": p.status, "nmr_count": p.nmr_count,
                         "has_orders": p.has_orders} for p in view.players],
            "centers": view.centers, "must_order": list(view.must_order), "outcome": view.outcome}


def _print(view, fmt: str) -> None:
    sys.stdout.write(json.dumps(_view_json(view)) + "\n" if fmt == "json" else _view_text(view))


# -- commands ------------------------------------------------------------------------------------


def cmd_serve(args: argparse.Namespace) -> int:
    from .serve import serve

    asyncio.run(serve(_settings(args)))
    return EXIT_OK


@_guarded
def cmd_migrate(args: argparse.Namespace) -> int:
    """Bring the database schema up to date (``serve`` does this too, at start)."""
    _, db = _service(args)
    print(f"database schema up to date: {db.engine.url.render_as_string(hide_password=True)}")
    return EXIT_OK


def cmd_health(args: argparse.Namespace) -> int:
    """Exit 0 when the database answers and its schema is the newest; for container healthchecks."""
    from alembic.migration import MigrationContext
    from alembic.script import ScriptDirectory

    from .migrations import alembic_config
    from .storage import Database

    try:
        db = Database(_settings(args).url)
        with db.engine.connect() as connection:
            current = set(MigrationContext.configure(connection).get_current_heads())
        heads = set(ScriptDirectory.from_config(alembic_config()).get_heads())
    except Exception as exc:
        print(f"crusader: unhealthy: the database does not answer: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if current != heads:
        print(f"crusader: unhealthy: schema at {sorted(current)}, expected {sorted(heads)}; run 'crusader migrate'",
              file=sys.stderr)
        return EXIT_FAILED
    print("healthy")
    return EXIT_OK


@_guarded
def cmd_create(args: argparse.Namespace) -> int:
    from .service import DeadlinePolicy, parse_duration

    kw = {}
    for key in ("movement", "retreat", "adjustment", "grace"):
        if getattr(args, key):
            kw[key] = parse_duration(getattr(args, key))
    if args.reminder is not None:
        kw["reminders"] = tuple(sorted((parse_duration(r) for r in args.reminder if r != "none"), reverse=True))
    if args.nmr_limit is not None:
        kw["nmr_limit"] = args.nmr_limit
    kw["early"] = args.early
    if args.timezone:
        kw["timezone"] = args.timezone
    service, _ = _service(args)
    view = service.create_game(args.name, args.variant, args.gm, policy=DeadlinePolicy(**kw), rules=args.rule or (),
                               seed=args.seed)
    _print(view, args.format)
    return EXIT_OK


@_guarded
def cmd_list(args: argparse.Namespace) -> int:
    service, _ = _service(args)
    games = service.games(status=args.status)
    if args.format == "json":
        print(json.dumps([_view_json(v) for v in games]))
    else:
        for v in games:
            print(f"{v.name:24} {v.variant:10} {v.status:8} {v.phase or '-':8} {len(v.players)} players")
    return EXIT_OK


@_guarded
def cmd_status(args: argparse.Namespace) -> int:
    service, _ = _service(args)
    _print(service.status(args.name), args.format)
    return EXIT_OK


@_guarded
def cmd_join(args: argparse.Namespace) -> int:
    service, _ = _service(args)
    _print(service.join(args.name, args.player, args.power), "text")
    return EXIT_OK


@_guarded
def cmd_start(args: argparse.Namespace) -> int:
    service, _ = _service(args)
    _print(service.start(args.name, None), "text")
    return EXIT_OK


@_guarded
def cmd_orders(args: argparse.Namespace) -> int:
    service, _ = _service(args)
    text = _read_input(args.file)
    report = service.submit_orders(args.name, args.player, text)
    sys.stdout.write(report.to_text())
    return EXIT_OK if not report.rejected else EXIT_FAILED


@_guarded
def cmd_adjudicate(args: argparse.Namespace) -> int:
    service, _ = _service(args)
    outcome = service.force_adjudicate(args.name, None)
    print(f"{args.name}: {outcome}")
    return EXIT_OK if outcome == "adjudicated" else EXIT_FAILED


@_guarded
def cmd_gm(args: argparse.Namespace) -> int:
    from .service import parse_duration

    service, _ = _service(args)
    action = args.gm_action
    if action == "extend":
        view = service.extend(args.name, None, parse_duration(args.by))
    elif action == "end":
        view = service.end_game(args.name, None, args.reason or "")
    else:
        view = getattr(service, action)(args.name, None)
    _print(view, "text")
    return EXIT_OK


@_guarded
def cmd_export(args: argparse.Namespace) -> int:
    from .archive import export_game

    _, db = _service(args)
    text = json.dumps(export_game(db, args.name), ensure_ascii=False, indent=1) + "\n"
    if args.output and args.output != "-":
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK


@_guarded
def cmd_import(args: argparse.Namespace) -> int:
    from .archive import import_game

    _, db = _service(args)
    doc = _read_json(args.file)
    print(f"imported as {import_game(db, doc, name=args.name)!r}")
    return EXIT_OK


def _read_json(path: str):
    return _load_json(_read_input(path), "standard input" if path == "-" else path)


@_guarded
def cmd_verify(args: argparse.Namespace) -> int:
    from .archive import verify_export

    checks = verify_export(_read_json(args.file))
    for c in checks:
        print(f"{c.phase}: {'identical' if c.identical else 'DIFFERENT: ' + c.detail}")
    bad = [c for c in checks if not c.identical]
    print(f"{len(checks) - len(bad)} of {len(checks)} seasons identical")
    return EXIT_OK if not bad else EXIT_FAILED


# -- parsers ------------------------------------------------------------------------------------


def _db_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data-dir", help="data directory (default $CRUSADER_DATA_DIR or ./data)")
    p.add_argument("--database", help="database URL (default $CRUSADER_DATABASE_URL or SQLite in the data directory)")


def add_serve_parser(subparsers) -> None:
    p = subparsers.add_parser("serve", help="run the judge: deadlines, adjudication, announcements, front ends")
    _db_options(p)
    p.set_defaults(func=cmd_serve)
    p = subparsers.add_parser("migrate", help="bring the database schema up to date")
    _db_options(p)
    p.set_defaults(func=cmd_migrate)
    p = subparsers.add_parser("health", help="exit 0 when the database answers with the newest schema")
    _db_options(p)
    p.set_defaults(func=cmd_health)
    p = subparsers.add_parser("verify", help="re-adjudicate an exported game and confirm every season is identical")
    p.add_argument("file", help="a file written by 'crusader game export' (- for standard input)")
    p.set_defaults(func=cmd_verify)


def add_game_parser(subparsers) -> None:
    p = subparsers.add_parser("game", help="games in the judge's database, from a shell")
    sub = p.add_subparsers(dest="game_command", metavar="SUBCOMMAND")
    sub.required = True

    def cmd(name, func, help, *, fmt=False):
        q = sub.add_parser(name, help=help)
        _db_options(q)
        if fmt:
            q.add_argument("--format", choices=("text", "json"), default="text")
        q.set_defaults(func=func)
        return q

    q = cmd("create", cmd_create, "create a game", fmt=True)
    q.add_argument("name")
    q.add_argument("--variant", default="crusader", help="crusader (default) or standard")
    q.add_argument("--gm", required=True, help="the game master (an id the front ends know)")
    q.add_argument("--rule", action="append", help="an extra rule module, e.g. prestige")
    for key, default in (("movement", "48h"), ("retreat", "24h"), ("adjustment", "24h"), ("grace", "0s")):
        q.add_argument(f"--{key}", help=f"length of the {key} {'period' if key == 'grace' else 'phase'} (default {default})")
    q.add_argument("--reminder", action="append", help="a reminder this long before the deadline; repeat (default 24h and 1h; 'none')")
    q.add_argument("--nmr-limit", type=int, help="consecutive NMRs before civil disorder (default 2; 0 never)")
    q.add_argument("--early", action="store_true", help="adjudicate as soon as every power has orders in")
    q.add_argument("--timezone", help="how announcements show deadlines, e.g. Europe/Paris (default UTC)")
    q.add_argument("--seed", type=int, help="the game's random seed")
    q = cmd("list", cmd_list, "list the games", fmt=True)
    q.add_argument("--status", choices=("forming", "active", "paused", "ended"))
    cmd("status", cmd_status, "a game's phase, deadline and players", fmt=True).add_argument("name")
    q = cmd("join", cmd_join, "add a player to a forming game")
    q.add_argument("name")
    q.add_argument("player")
    q.add_argument("--power", help="the power to play (default: given at random at the start)")
    cmd("start", cmd_start, "start a forming game").add_argument("name")
    q = cmd("orders", cmd_orders, "submit a player's orders (one per line) from a file or standard input")
    q.add_argument("name")
    q.add_argument("--player", required=True)
    q.add_argument("file", nargs="?")
    cmd("adjudicate", cmd_adjudicate, "adjudicate the current phase now").add_argument("name")
    for action, help in (("pause", "pause the clock"), ("resume", "resume the clock"),
                         ("rollback", "undo the last adjudication"), ("extend", "move the deadline later"),
                         ("end", "end the game")):
        q = cmd(action, cmd_gm, help)
        q.add_argument("name")
        q.set_defaults(gm_action=action)
        if action == "extend":
            q.add_argument("--by", required=True, help="how much later, like 24h")
        if action == "end":
            q.add_argument("--reason")
    q = cmd("export", cmd_export, "write a whole game as one JSON file")
    q.add_argument("name")
    q.add_argument("-o", "--output", help="the file (default standard output)")
    q = cmd("import", cmd_import, "load a game from an export")
    q.add_argument("file")
    q.add_argument("--name", help="import under another name")

