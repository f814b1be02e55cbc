"""``crusader game ...``: games in the judge's database, from a shell (options in :mod:`bot.cli.shell`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .common import CommandError, Exit, read_input, read_json
from .shell import add_database_options, open_service, refusals_are_command_errors
from bot.store.statuses import GameStatus, PlayerStatus


def _view_text(view, tz: str = "UTC") -> str:
    from bot.service.texts import when

    lines = [f"{view.name}  ({view.variant}{', ' + ', '.join(view.rules) if view.rules else ''})  GM {view.gm}",
             f"  status {view.status}, phase {view.phase}, deadline {when(view.deadline_at, tz)}"]
    for p in sorted(view.players, key=lambda p: (p.status == PlayerStatus.WAITING, p.power or "~")):
        flags = ([p.status.replace("_", " ")] + (["orders in"] if p.has_orders else [])
                 + ([f"NMR x{p.nmr_count}"] if p.nmr_count else []))
        power = p.power or ("(waiting list)" if p.status == PlayerStatus.WAITING else "(drawn at the start)")
        lines.append(f"  {power}  {p.player}  ({', '.join(flags)})")
    if view.status in (GameStatus.ACTIVE, GameStatus.PAUSED):
        played = {p.power for p in view.players if p.power}
        unplayed = [c for c in _powers(view.variant) if c not in played]
        if unplayed:
            lines.append(f"  no player (civil disorder): {', '.join(unplayed)}")
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


def _powers(variant: str) -> list[str]:
    from adjudicator.variant import get_variant

    return list(get_variant(variant).powers)


def _print(view, fmt: str = "text", service=None) -> None:
    """The game as the shell shows it, deadlines in the game's time zone (and UTC)."""
    if fmt == "json":
        sys.stdout.write(json.dumps(_view_json(view)) + "\n")
        return
    sys.stdout.write(_view_text(view, view.timezone))


def _policy(args: argparse.Namespace) -> dict:
    """The game settings the command's options give, as typed values (those left out: not there)."""
    from bot.service import parse_duration

    kw: dict = {}
    for key in ("movement", "retreat", "adjustment", "grace"):
        if getattr(args, key):
            kw[key] = parse_duration(getattr(args, key), what=f"--{key}", zero=key == "grace")
    if args.reminder is not None:
        kw["reminders"] = tuple(parse_duration(r, what="--reminder") for r in args.reminder if r != "none")
    if args.nmr_limit is not None:
        kw["nmr_limit"] = args.nmr_limit
    if args.early is not None:
        kw["early"] = args.early
    if args.timezone:
        kw["timezone"] = args.timezone
    for key in ("press", "press_all_phases", "press_published", "press_max_chars", "press_per_hour", "anonymous"):
        if getattr(args, key, None) is not None:
            kw[key] = getattr(args, key)
    return kw


def _add_policy_options(q: argparse.ArgumentParser, *, defaults: bool) -> None:
    """The options of a game's settings, for ``create`` (``defaults``: said in the help) and ``set``."""
    for key, default in (("movement", "48h"), ("retreat", "24h"), ("adjustment", "24h"), ("grace", "0s")):
        what = "period after a missed deadline" if key == "grace" else "phase (at least 1m)"
        q.add_argument(f"--{key}", help=f"length of the {key} {what}, like 36h, 2d, 90m or 1d12h"
                       + (f" (default {default})" if defaults else ""))
    q.add_argument("--reminder", action="append", help="a reminder this long before the deadline; repeat "
                   + ("(default 24h and 1h; 'none')" if defaults else "for several ('none': no reminders)"))
    q.add_argument("--nmr-limit", type=int, help="consecutive phases without orders before a power goes into civil "
                   "disorder" + (" (default 2; 0 never)" if defaults else " (0: never)"))
    if defaults:
        q.add_argument("--early", action="store_true", default=None,
                       help="adjudicate as soon as every power that must decide is ready (game ready)")
    else:
        q.add_argument("--early", action=argparse.BooleanOptionalAction,
                       help="adjudicate as soon as every power that must decide is ready (game ready; --no-early: "
                       "at the deadline only)")
    q.add_argument("--timezone", help="the game's time zone (IANA, e.g. Europe/Paris" + ("; default UTC" if defaults
                   else "") + "): how announcements show deadlines, and the zone of 'deadline --at' without one")
    q.add_argument("--press", choices=("full", "public", "grey", "none"),
                   help="what players may say to each other through the judge: full (private and to everyone), "
                   "public (to everyone only), grey (as full, and anonymously), none (only to the game master)"
                   + (" (default full)" if defaults else ""))
    flag = {"action": "store_true", "default": None} if defaults else {"action": argparse.BooleanOptionalAction}
    q.add_argument("--press-all-phases", **flag, help="press flows in retreat and adjustment phases too"
                   + (" (the default; see game set --no-press-all-phases)" if defaults else ""))
    q.add_argument("--press-published", **flag, help="the game's press goes on its archive site when the game ends")
    q.add_argument("--press-max-chars", type=int, help="the longest message of press, in characters"
                   + (" (default 4000)" if defaults else ""))
    q.add_argument("--press-per-hour", type=int, help="messages of press one power may send in an hour (0: no bound)"
                   + (" (default 30)" if defaults else ""))
    q.add_argument("--anonymous", **flag, help="nobody but the game master learns who plays which power until the "
                   "game ends (chosen before the start)")


@refusals_are_command_errors
def cmd_create(args: argparse.Namespace) -> Exit:
    from dataclasses import replace

    from bot.service import DeadlinePolicy

    kw = _policy(args)
    extra = {}
    if args.discord_channel:  # where the Discord front end posts, as /game new would have set it
        extra = {"discord": {"channel": args.discord_channel, "archive": args.discord_archive or args.discord_channel,
                                   **({"guild": args.discord_server} if args.discord_server else {})}}
    elif args.discord_archive or args.discord_server:
        raise CommandError("--discord-archive and --discord-server go with --discord-channel")
    service, _ = open_service(args, create=True)
    policy = replace(DeadlinePolicy().changed(kw), extra=extra)
    view = service.create_game(args.name, args.variant, args.gm, policy=policy, rules=args.rule or (), seed=args.seed)
    _print(view, args.format, service)
    return Exit.OK


@refusals_are_command_errors
def cmd_set(args: argparse.Namespace) -> Exit:
    """Change the game's settings; say what changed and every setting as it now is."""
    from bot.service import texts

    changes = _policy(args)
    if not changes:
        raise CommandError("say what to change: --movement, --retreat, --adjustment, --grace, --reminder, "
                           "--nmr-limit, --early or --no-early, --timezone, --press, --press-all-phases, "
                           "--press-published, --press-max-chars, --press-per-hour, --anonymous")
    service, _ = open_service(args)
    change = service.set_policy(args.name, None, changes)
    if change.changed:
        when = "; from the next deadline" if change.game.status != GameStatus.FORMING else ""
        print(f"{change.game.name}: changed " + ", ".join(texts.SETTING_NAMES[k] for k in change.changed)
              + f" (announced to the players{when})")
    else:
        print(f"{change.game.name}: nothing to change; the settings were already so")
    sys.stdout.write("\n".join(texts.settings(change.after)) + "\n")
    return Exit.OK


@refusals_are_command_errors
def cmd_list(args: argparse.Namespace) -> Exit:
    service, _ = open_service(args)
    games = service.games(status=args.status)
    if args.format == "json":
        print(json.dumps([_view_json(v) for v in games]))
    else:
        for v in games:
            print(f"{v.name:24} {v.variant:10} {v.status:8} {v.phase or '-':8} {len(v.players)} players")
    return Exit.OK


@refusals_are_command_errors
def cmd_status(args: argparse.Namespace) -> Exit:
    service, _ = open_service(args)
    view = service.status(args.name)
    _print(view, args.format, service)
    if args.format == "text":
        from bot.service import texts

        sys.stdout.write("  settings:\n" + "\n".join("  " + line for line in texts.settings(service.policy_of(view.id)))
                         + "\n")
    return Exit.OK


@refusals_are_command_errors
def cmd_join(args: argparse.Namespace) -> Exit:
    from bot.service.identities import identity

    service, _ = open_service(args)
    view = service.join(args.name, args.player, args.power)
    _print(view, "text", service)
    me = next(p for p in view.players if p.player == identity(args.player))
    if me.status == PlayerStatus.WAITING:
        why = "the game has started" if view.status != GameStatus.FORMING else "every power has a player"
        print(f"{me.player} is on the waiting list ({why}); 'crusader game replace' or 'assign' gives them a power")
    return Exit.OK


@refusals_are_command_errors
def cmd_leave(args: argparse.Namespace) -> Exit:
    service, _ = open_service(args)
    _print(service.leave(args.name, args.player), "text", service)
    return Exit.OK


@refusals_are_command_errors
def cmd_assign(args: argparse.Namespace) -> Exit:
    service, _ = open_service(args)
    _print(service.assign(args.name, None, args.player, args.power), "text", service)
    return Exit.OK


@refusals_are_command_errors
def cmd_remove(args: argparse.Namespace) -> Exit:
    service, _ = open_service(args)
    _print(service.remove_player(args.name, None, args.power, player=args.player), "text", service)
    return Exit.OK


@refusals_are_command_errors
def cmd_replace(args: argparse.Namespace) -> Exit:
    service, _ = open_service(args)
    _print(service.replace_player(args.name, None, args.power, args.player), "text", service)
    return Exit.OK


@refusals_are_command_errors
def cmd_restore(args: argparse.Namespace) -> Exit:
    service, _ = open_service(args)
    _print(service.restore_player(args.name, None, args.power), "text", service)
    return Exit.OK


@refusals_are_command_errors
def cmd_start(args: argparse.Namespace) -> Exit:
    from bot.service import UnplayedPowersError

    service, _ = open_service(args)
    try:
        view = service.start(args.name, None, fill_civil_disorder=args.fill_civil_disorder)
    except UnplayedPowersError as exc:
        raise CommandError(f"{exc}: crusader game start {args.name} --fill-civil-disorder", Exit.FAILED) from None
    _print(view, "text", service)
    return Exit.OK


@refusals_are_command_errors
def cmd_orders(args: argparse.Namespace) -> Exit:
    service, _ = open_service(args)
    text = read_input(args.file)
    report = service.submit_orders(args.name, args.player, text)
    sys.stdout.write(report.to_text())
    return Exit.OK if not report.rejected else Exit.FAILED


@refusals_are_command_errors
def cmd_adjudicate(args: argparse.Namespace) -> Exit:
    """Adjudicate now and print the season's report, as the players get it."""
    from bot.service import texts

    service, _ = open_service(args)
    before = service.status(args.name)
    outcome = service.force_adjudicate(before.id, None)
    if outcome != "adjudicated":
        print(f"{before.name}: {before.phase} was not adjudicated ({outcome}); try again", file=sys.stderr)
        return Exit.FAILED
    after = service.status(before.id)
    tz = service.policy_of(after.id).timezone
    running = after.status in (GameStatus.ACTIVE, GameStatus.PAUSED)
    # the phase asked for, then any the judge ran at once after it (nobody had anything to decide)
    seasons = [s for s in (service.season(after.id, v) for v in range(before.version, after.version)) if s]
    for i, season in enumerate(seasons):
        last = i == len(seasons) - 1
        following = str(seasons[i + 1].phase) if not last else (after.phase if running else None)
        sys.stdout.write(("" if i == 0 else "\n") + texts.results(
            season, following, after.deadline_at if last else None, after.outcome if last else None, tz))
    return Exit.OK


@refusals_are_command_errors
def cmd_vote(args: argparse.Namespace) -> Exit:
    """A player's vote to end the game by agreement: a draw, or a concession to a power."""
    from bot.service import texts

    service, _ = open_service(args)
    if args.vote == "draw":
        view = service.vote_draw(args.name, args.player, not args.withdraw)
        said = "withdraws the vote for a draw" if args.withdraw else "votes for a draw"
    else:
        if (args.to is None) == (not args.withdraw):
            raise CommandError("say which power the game is conceded to (--to POWER), or --withdraw")
        view = service.concede(args.name, args.player, None if args.withdraw else args.to)
        said = "withdraws the concession" if args.withdraw else f"concedes the game to {args.to.strip().upper()}"
    me = next(p for p in view.players if p.player == service.context.identity(args.player))
    print(f"{me.player} ({me.power}) {said} in '{view.name}'")
    if view.status == GameStatus.ENDED:
        sys.stdout.write(texts.ending(view.outcome))
    else:
        voters = [p for p in view.players if p.power and p.status == PlayerStatus.ACTIVE]
        draw = [p.power for p in voters if p.draw_vote]
        conceded = {p.power: p.concede_to for p in voters if p.concede_to}
        print(f"  for a draw: {', '.join(draw) or 'nobody yet'} (of {', '.join(p.power for p in voters)})")
        if conceded:
            print("  concessions: " + ", ".join(f"{power} to {to}" for power, to in sorted(conceded.items())))
    return Exit.OK


@refusals_are_command_errors
def cmd_ready(args: argparse.Namespace) -> Exit:
    """A player's orders marked final (or no longer): who is still to be ready, whether the phase ended."""
    service, _ = open_service(args)
    answer = service.ready(args.name, args.player, not args.withdraw)
    said = "are final" if answer.ready else "are no longer marked final"
    print(f"{answer.power}'s orders for {answer.phase} in '{answer.game.name}' {said}")
    if answer.adjudicated:
        print(f"  every power was ready: {answer.phase} has been adjudicated; the game is at {answer.game.phase}")
    elif answer.ready:
        print(f"  not ready yet: {', '.join(answer.waiting_for) or 'nobody'}"
              + ("" if answer.early else " (early adjudication is off: the phase ends at its deadline)"))
    return Exit.OK


@refusals_are_command_errors
def cmd_deadline(args: argparse.Namespace) -> Exit:
    from bot.service import parse_duration, parse_moment

    service, _ = open_service(args)
    if args.at is not None:
        at = parse_moment(args.at, service.policy_of(args.name).timezone)
    else:
        at = service.now() + parse_duration(args.in_, what="--in")
    _print(service.set_deadline(args.name, None, at), "text", service)
    return Exit.OK


@refusals_are_command_errors
def cmd_gm(args: argparse.Namespace) -> Exit:
    from bot.service import parse_duration

    service, _ = open_service(args)
    action = args.gm_action
    if action == "extend":
        view = service.extend(args.name, None, parse_duration(args.by, what="--by"))
    elif action == "end":
        view = service.end_game(args.name, None, args.reason or "")
    else:
        view = getattr(service, action)(args.name, None)
    _print(view, "text", service)
    return Exit.OK


@refusals_are_command_errors
def cmd_export(args: argparse.Namespace) -> Exit:
    from bot.archive.games import export_game

    _, db = open_service(args)
    text = json.dumps(export_game(db, args.name), ensure_ascii=False, indent=1) + "\n"
    if args.output and args.output != "-":
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return Exit.OK


@refusals_are_command_errors
def cmd_import(args: argparse.Namespace) -> Exit:
    """Load an export, once every season re-adjudicates to what it stores (exit 1 when one does not,
    as ``crusader verify`` would say; ``--unverified`` loads it as it is, saying so)."""
    from bot.archive.games import ExportRejected, import_game

    doc = read_json(args.file)
    _, db = open_service(args, create=True)
    try:
        name = import_game(db, doc, name=args.name, verify=not args.unverified)
    except ExportRejected as exc:
        raise CommandError(str(exc), Exit.FAILED) from None
    print(f"imported as {name!r}" + (" (not verified)" if args.unverified else " (every season verified)"))
    return Exit.OK


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("game", help="games in the judge's database, from a shell",
                              description="Games in the judge's database. The shell acts as the judge's operator: "
                              "every game master action is allowed. Players and game masters are named "
                              "discord:<user id>, by an e-mail address, or by a plain name (docs/cli.md).")
    sub = p.add_subparsers(dest="game_command", metavar="SUBCOMMAND")
    sub.required = True

    def cmd(name, func, help, *, fmt=False):
        q = sub.add_parser(name, help=help, description=help)
        add_database_options(q)
        if fmt:
            q.add_argument("--format", choices=("text", "json"), default="text")
        q.set_defaults(func=func)
        return q

    q = cmd("create", cmd_create, "create a game", fmt=True)
    q.add_argument("name")
    q.add_argument("--variant", default="crusader", help="crusader (default) or standard")
    q.add_argument("--gm", required=True, help="the game master: discord:<user id>, an e-mail address or a name")
    q.add_argument("--rule", action="append", help="an extra rule module, e.g. prestige")
    _add_policy_options(q, defaults=True)
    q.add_argument("--seed", type=int, help="the game's random seed")
    q.add_argument("--discord-channel", type=int, metavar="CHANNEL_ID",
                   help="the Discord channel where the bot posts the game's results (as /game new does)")
    q.add_argument("--discord-archive", type=int, metavar="CHANNEL_ID",
                   help="the channel or thread for each season's full report (default: the results channel)")
    q.add_argument("--discord-server", type=int, metavar="SERVER_ID",
                   help="the server whose DISCORD_GM_ROLE holders may run the game (default: any server's)")
    q = cmd("set", cmd_set, "change a game's settings (phase lengths, grace, reminders, NMR limit, early "
            "adjudication, time zone) from the next deadline; the players are told")
    q.add_argument("name")
    _add_policy_options(q, defaults=False)
    q = cmd("list", cmd_list, "list the games", fmt=True)
    q.add_argument("--status", choices=[s.value for s in GameStatus])
    cmd("status", cmd_status, "a game's phase, deadline and players", fmt=True).add_argument("name")
    q = cmd("join", cmd_join, "add a player (once every power has one, or the game has started: to the waiting list)")
    q.add_argument("name")
    q.add_argument("player", help="discord:<user id>, an e-mail address or a name")
    q.add_argument("--power", help="the power to play (default: given at random at the start)")
    q = cmd("leave", cmd_leave, "take a player out of a game that has not started, or off its waiting list")
    q.add_argument("name")
    q.add_argument("player")
    q = cmd("assign", cmd_assign, "before the start: give a player a power (joining them, or moving them)")
    q.add_argument("name")
    q.add_argument("player")
    q.add_argument("power", nargs="?", help="the power; leave it out to have it drawn at the start")
    q = cmd("remove", cmd_remove, "remove a player: before the start they leave; after, the power goes into "
            "civil disorder without a player")
    q.add_argument("name")
    who = q.add_mutually_exclusive_group(required=True)
    who.add_argument("--power", help="the power whose player is removed")
    who.add_argument("--player", help="the player to remove")
    q = cmd("replace", cmd_replace, "give a power a new player (a removed or civil-disorder power too)")
    q.add_argument("name")
    q.add_argument("power")
    q.add_argument("player")
    q = cmd("restore", cmd_restore, "bring a power back from civil disorder: its player plays again")
    q.add_argument("name")
    q.add_argument("power")
    q = cmd("start", cmd_start, "start a forming game: powers are drawn, the clock starts")
    q.add_argument("name")
    q.add_argument("--fill-civil-disorder", action="store_true",
                   help="start even though some powers have no player: they start in civil disorder")
    q = cmd("orders", cmd_orders, "submit a player's orders (one per line) from a file or standard input")
    q.add_argument("name")
    q.add_argument("--player", required=True)
    q.add_argument("file", nargs="?")
    q = cmd("draw", cmd_vote, "a player votes for a draw (every surviving power's player agreeing ends the game "
            "in a draw); --withdraw takes the vote back")
    q.add_argument("name")
    q.add_argument("--player", required=True)
    q.add_argument("--withdraw", action="store_true")
    q.set_defaults(vote="draw")
    q = cmd("concede", cmd_vote, "a player concedes the game to a power (the players of every other surviving "
            "power conceding to it ends the game, that power the winner); --withdraw takes it back")
    q.add_argument("name")
    q.add_argument("--player", required=True)
    q.add_argument("--to", metavar="POWER", help="the power the game is conceded to")
    q.add_argument("--withdraw", action="store_true")
    q.set_defaults(vote="concede")
    q = cmd("ready", cmd_ready, "a player says their orders for the phase are final (with early adjudication the "
            "phase ends once every power that must decide is ready); --withdraw: not final any more")
    q.add_argument("name")
    q.add_argument("--player", required=True)
    q.add_argument("--withdraw", action="store_true")
    cmd("adjudicate", cmd_adjudicate, "adjudicate the current phase now and print the season's report").add_argument("name")
    q = cmd("deadline", cmd_deadline, "set this phase's deadline: after a duration, or at a date and time")
    q.add_argument("name")
    when = q.add_mutually_exclusive_group(required=True)
    when.add_argument("--in", dest="in_", metavar="DURATION", help="how long from now, like 36h, 2d, 90m or 1d12h")
    when.add_argument("--at", metavar="TIME", help="a date and time, like '2031-03-01 18:00' (in the game's time "
                      "zone) or '2031-03-01 18:00 Europe/Paris'")
    for action, help in (("pause", "pause the clock"), ("resume", "resume the clock"),
                         ("rollback", "undo the last adjudication"), ("extend", "move the deadline later"),
                         ("end", "end the game")):
        q = cmd(action, cmd_gm, help)
        q.add_argument("name")
        q.set_defaults(gm_action=action)
        if action == "extend":
            q.add_argument("--by", required=True, help="how much later, like 24h, 2d or 90m")
        if action == "end":
            q.add_argument("--reason")
    q = cmd("export", cmd_export, "write a whole game as one JSON file")
    q.add_argument("name")
    q.add_argument("-o", "--output", help="the file (default standard output)")
    q = cmd("import", cmd_import, "load a game from an export, once every season re-adjudicates to what it stores")
    q.add_argument("file")
    q.add_argument("--name", help="import under another name")
    q.add_argument("--unverified", action="store_true",
                   help="load it even when a season does not re-adjudicate to what the export stores")
