"""The e-mail judges' conventions, line by line: text in, commands out (nothing is executed here).

A message reads::

    SIGNON ANTcrusade1 secret      (power code, game name run together, then the password)
    A ant - ale                    (orders, one per line)
    LIST                           (the game's status and your orders)
    CLEAR ant                      (withdraw the order for the unit or build at ant; CLEAR: all)
    READY                          (your orders are final; READY OFF: not any more)
    SET PASSWORD newsecret
    PHASE F1101M                   (orders for a later phase: refused until the service supports it)
    RESIGN
    SIGNOFF                        (anything after it is ignored)

``HELP``, ``LIST [game]``, ``JOIN <game> [power]``, ``LEAVE <game>``, ``HISTORY``, ``SUMMARY`` and
``GET`` work without signing on; the game master signs on as ``GM<game>`` for ``START``, ``PAUSE``,
``RESUME``, ``EXTEND``, ``ADJUDICATE`` and ``SET <setting>``. The commands are a table
(:data:`KEYWORDS`, :func:`register`): each keyword with its usage, its help text (HELP is made
from it), who it is for and how its line is read; the session carries each out with its handler.
A word of another e-mail judge's (``WHOGAME``) is answered as a command this judge lacks; any other
line is an order. Keywords are case-insensitive. Every command keeps the line to echo back, with any password
replaced by ``********`` and no more of a stranger's words than a typo needs.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from collections.abc import Callable

from bot.codec.limits import MAX_LINE

MASK = "********"
SIGNON_USAGE = "SIGNON <power code><game name> <password>, for example SIGNON ANTcrusade1 secret"
GM_SIGNON = "GM"
"""What the game master writes for a power code to sign on for the game (``SIGNON GMcrusade1 secret``)."""

ANYONE, PLAYER, MASTER = "anyone", "player", "gm"
"""Who a command is for: anyone (no sign-on), a signed-on player, the signed-on game master."""


@dataclass(frozen=True)
class Command:
    """One line of a message. ``kind``: a keyword in lower case, or ``order``.

    ``args`` are what follows the keyword (for ``order``, the line itself); ``error`` is set when
    the keyword is recognised but the line is not well formed, and says what would be.
    """

    kind: str
    echo: str
    args: tuple[str, ...] = ()
    error: str | None = None
    body: tuple[str, ...] = ()
    """The lines a PRESS or BROADCAST carries, up to its ENDPRESS (not read as commands or orders)."""


@dataclass(frozen=True)
class Keyword:
    """A judge command: its keyword, how it is written, what it does (the HELP text), who it is for,
    and how its line is read (``read``: the words after the keyword to a :class:`Command`; ``None``:
    any words, echoed shortened). The session carries it out with the handler registered for its
    ``kind`` (:data:`bot.frontends.mail.conversation.HANDLERS`), by default its ``_<kind>`` method."""

    name: str
    usage: str
    help: str
    section: str = PLAYER
    read: Callable[[tuple[str, ...]], Command] | None = None
    changes_game: bool = False
    """Whether it changes a game without a password (JOIN, LEAVE): refused when the message's
    envelope sender is not its From address (see :mod:`bot.frontends.mail.conversation`)."""
    help_only: bool = False
    """Another use of a keyword listed separately in HELP (the game master's SET), read by that keyword."""

    @property
    def kind(self) -> str:
        return self.name.lower()


KEYWORDS: dict[str, Keyword] = {}
"""Every command the judge reads, by keyword, in the order HELP lists them."""

OTHER_JUDGES = {
    "WHOGAME": "LIST <game>", "WHOIS": None, "CREATE": None, "OBSERVE": None, "WATCH": None, "REGISTER": None,
    "IAMALSO": None, "DIARY": None, "POSTAL": None, "SEND": None, "PROMOTE": None, "EJECT": None, "MANUAL": None,
    "PREDICT": None, "MOVE": None, "BECOME": None, "ENDPRESS": "PRESS ... ENDPRESS", "FORCE": "ADJUDICATE", "PROCESS": "ADJUDICATE",
    "ABSENCE": None, "WAIT": None, "NOWAIT": "READY", "DEDICATION": None, "RECORD": None, "VERSION": None,
    "MAP": "GET MAP", "QUIT": "LEAVE <game>", "SIGNUP": "JOIN <game>", "UNSIGNON": "SIGNOFF",
}
"""Commands of other e-mail judges that this one does not have, and the nearest of its own."""


def register(keyword: Keyword) -> Keyword:
    """Add (or replace) a judge command; its handler is registered with the session's."""
    KEYWORDS[keyword.name] = keyword
    return keyword


def help_text() -> str:
    """The list of commands, from the table."""
    width = max(len(k.usage) for k in KEYWORDS.values()) + 2
    width = min(width, 30)
    out = ["How to play by mail: write to this address, one command or order per line.", "",
           f"  {SIGNON_USAGE}", "      the first line; the judge mails you the password when you get a power", ""]
    titles = {PLAYER: "Signed on as a player (the first line SIGNON ...):",
              MASTER: f"Signed on as the game master (SIGNON {GM_SIGNON}<game name> <password>):",
              ANYONE: "Without signing on:"}
    for section in (PLAYER, MASTER, ANYONE):
        out.append(titles[section])
        if section == PLAYER:
            out.append("  A ant - ale" + " " * max(width - 11, 1) + "an order; later orders for the same unit "
                       "replace earlier ones")
        for k in KEYWORDS.values():
            if k.section != section or k.name == "SIGNON":
                continue
            lines = k.help.splitlines() or [""]
            pad = width - len(k.usage)
            if pad < 1:
                out.append(f"  {k.usage}")
                out.extend(f"  {' ' * width}{line}" for line in lines)
            else:
                out.append(f"  {k.usage}{' ' * pad}{lines[0]}")
                out.extend(f"  {' ' * width}{line}" for line in lines[1:])
        out.append("")
    return "\n".join(out)


def suggestion(word: str) -> str | None:
    """The judge command ``word`` is probably a typo of (JION: JOIN), if any."""
    word = word.upper()
    if len(word) < 4:
        return None
    close = difflib.get_close_matches(word, [k for k in KEYWORDS if len(k) >= 4], n=1, cutoff=0.75)
    return close[0] if close else None


def read_script(text: str) -> Script:
    """The commands of a message's text, up to and including ``SIGNOFF``."""
    commands: list[Command] = []
    lines = [line.strip() for line in text.splitlines()]
    body_of: Command | None = None
    body: list[str] = []
    for index, line in enumerate(lines):
        if body_of is not None:  # a PRESS's lines, up to its ENDPRESS, are its text
            if line.upper() != "ENDPRESS":
                body.append(line)
                continue
            commands[-1] = _with_body(body_of, body)
            body_of, body = None, []
            continue
        if not line:
            continue
        command = read_line(line)
        commands.append(command)
        if command.kind in PRESS_KINDS and not command.error:
            body_of = command
        if command.kind == "signoff":
            rest = sum(1 for later in lines[index + 1:] if later)
            return Script(tuple(commands), rest)
    if body_of is not None:  # no ENDPRESS: the rest of the message was the press
        commands[-1] = _with_body(body_of, body)
    return Script(tuple(commands))


PRESS_KINDS = ("press", "broadcast")
"""Commands whose following lines, up to ENDPRESS, are a text (read by :func:`read_script`)."""


def _with_body(command: Command, body: list[str]) -> Command:
    while body and not body[-1]:
        body.pop()
    return Command(command.kind, command.echo, command.args, command.error, tuple(body))


@dataclass(frozen=True)
class Script:
    commands: tuple[Command, ...]
    ignored_after_signoff: int = 0


def read_line(line: str) -> Command:
    words = line.split()
    keyword = words[0].upper()
    args = tuple(words[1:])
    if len(line) > MAX_LINE:  # a command's words (a password among them) are not echoed
        kind, echo = (KEYWORDS[keyword].kind, f"{keyword} ...") if keyword in KEYWORDS else ("order", line[:60] + " ...")
        return Command(kind, echo, (line,),
                       error=f"the line is {len(line)} characters long; a line has at most {MAX_LINE}")
    if keyword in OTHER_JUDGES:
        nearest = OTHER_JUDGES[keyword]
        return Command("unknown", keyword + (" ..." if args else ""), args,
                       error=f"{keyword} is a command of other e-mail judges that this judge does not have"
                             + (f"; the nearest here is {nearest}" if nearest else "")
                             + "; HELP lists the commands it has")
    found = KEYWORDS.get(keyword)
    if found is None or found.help_only:
        return Command("order", line, (line,))
    if found.read is not None:
        return found.read(args)
    return Command(found.kind, keyword + "".join(f" {_short(a)}" for a in args[:3]) + (" ..." if len(args) > 3 else ""),
                   args)


def _plain(name: str) -> Callable[[tuple[str, ...]], Command]:
    """A keyword whose words after it are a remark, not an error (SIGNOFF thanks)."""
    return lambda args: Command(name.lower(), name + (" ..." if args else ""), args)


def _alone(name: str) -> Callable[[tuple[str, ...]], Command]:
    """A keyword written alone."""
    def read(args: tuple[str, ...]) -> Command:
        if args:
            return Command(name.lower(), name, args, error=f"{name} takes nothing after it; write just {name}")
        return Command(name.lower(), name)
    return read


def _ready(args: tuple[str, ...]) -> Command:
    if len(args) > 1 or (args and args[0].upper() not in ("OFF", "NO", "NOT")):
        return Command("ready", "READY ...", args, error="write READY when your orders are final, or READY OFF "
                                                         "when they are not any more")
    return Command("ready", "READY" + (f" {args[0].upper()}" if args else ""), args)


def _list(args: tuple[str, ...]) -> Command:
    return Command("list", "LIST" + "".join(f" {_short(a)}" for a in args[:3]) + (" ..." if len(args) > 3 else ""),
                   args)


def _game_command(name: str, example: str) -> Callable[[tuple[str, ...]], Command]:
    """JOIN and LEAVE: the game's name may have spaces (the session finds it)."""
    def read(args: tuple[str, ...]) -> Command:
        if not args:
            return Command(name.lower(), name, args, error=f"write {name} and the game's name, like {example}")
        return Command(name.lower(), f"{name} {_short(args[0])}" + (" ..." if len(args) > 1 else ""), args)
    return read


def _clear(args: tuple[str, ...]) -> Command:
    if len(args) > 1:
        return Command("clear", "CLEAR ...", args, error="write CLEAR <province> for one order, or CLEAR for all")
    return Command("clear", "CLEAR" + "".join(f" {_short(a)}" for a in args), args)


def _phase(args: tuple[str, ...]) -> Command:
    if len(args) != 1:
        return Command("phase", "PHASE ...", args, error="write PHASE and one phase, like PHASE F1101M")
    return Command("phase", f"PHASE {_short(args[0])}", args)


def _extend(args: tuple[str, ...]) -> Command:
    if len(args) != 1:
        return Command("extend", "EXTEND ...", args, error="write EXTEND and how long, like EXTEND 24h or EXTEND 2d")
    return Command("extend", f"EXTEND {_short(args[0])}", args)


def _get(args: tuple[str, ...]) -> Command:
    what = args[0].upper() if args else ""
    if what not in ("RULES", "MAP") or len(args) > 2:
        return Command("get", "GET" + (f" {_short(args[0])}" if args else "") + (" ..." if len(args) > 1 else ""),
                       args, error="write GET RULES, or GET MAP <game> (once signed on: GET MAP)")
    return Command("get", "GET " + what + "".join(f" {_short(a)}" for a in args[1:]), (what, *args[1:]))


def _confirm(args: tuple[str, ...]) -> Command:
    if len(args) != 1:
        return Command("confirm", "CONFIRM" + (f" {MASK}" if args else ""), (),
                       error="write CONFIRM and the token the judge mailed you, like CONFIRM abcd-efgh-ijkl")
    return Command("confirm", f"CONFIRM {MASK}", args)


def _press(name: str) -> Callable[[tuple[str, ...]], Command]:
    return lambda args: Command(name.lower(), name + (" ..." if args else ""), args)


def _short(word: str) -> str:
    """A word as echoed before anyone signed on: no more of a stranger's text than a typo needs."""
    return word if len(word) <= 40 else word[:40] + "..."


def _signon(args: tuple[str, ...]) -> Command:
    """``args``: every word after SIGNON. Which of them name the power and game, and which are the
    password, is known only against the judge's games (``ANTcrusade1 secret`` or ``ANT crusade1
    secret``, and a password may have been written with a space): the echo shows the first word
    alone until the session has found them (:func:`signon_echo`)."""
    if len(args) < 2:
        shown = f"SIGNON {_short(args[0])} {MASK}" if args else "SIGNON"
        return Command("signon", shown, (), error=f"a sign-on line reads {SIGNON_USAGE}")
    return Command("signon", f"SIGNON {_short(args[0])} {MASK}", args)


def signon_echo(names: tuple[str, ...]) -> str:
    """The SIGNON line as echoed: the words that named the power and game, then the mask for
    everything after them (the password, however many words it was written in)."""
    return " ".join(["SIGNON", *(_short(n) for n in names), MASK])


def _set(args: tuple[str, ...]) -> Command:
    if args and args[0].upper() == "PASSWORD":
        if len(args) != 2:
            return Command("set_password", f"SET PASSWORD {MASK}", (),
                           error="write SET PASSWORD and the new password, without spaces in it")
        return Command("set_password", f"SET PASSWORD {MASK}", (args[1],))
    if len(args) < 2:
        shown = f"SET {_short(args[0])}" if args else "SET"
        return Command("set", shown, args, error="write SET PASSWORD <new password>, or (the game master) SET "
                                                 "<setting> <value>, like SET movement 48h")
    return Command("set", f"SET {_short(args[0])} " + " ".join(_short(a) for a in args[1:4]), args)


def split_signon(token: str, game_names: list[str], powers_of: dict[str, list[str]]) -> tuple[str, str] | None:
    """``ANTcrusade1`` -> ``("ANT", "crusade1")`` given the games' names and their powers.

    An exact game name is preferred to one that differs only in case.
    """
    candidates = []
    for name in game_names:
        for exact in (True, False):
            suffix = token[len(token) - len(name):] if len(name) < len(token) else None
            if suffix is None or (suffix != name if exact else suffix.lower() != name.lower()):
                continue
            power = token[: len(token) - len(name)].upper()
            if power in powers_of.get(name, ()):
                candidates.append((0 if exact else 1, -len(name), power, name))
    if not candidates:
        return None
    _, _, power, name = min(candidates)
    return power, name


for _keyword in (
    Keyword("SIGNON", "SIGNON <power><game> <password>",
            "the first line; the judge mails you the password when you get a power", ANYONE, _signon),
    Keyword("LIST", "LIST", "the game's status and your orders as they stand", PLAYER, _list),
    Keyword("CLEAR", "CLEAR <province>", "withdraw your order for the unit (or build) there;\n"
            "CLEAR alone withdraws all your orders for the phase", PLAYER, _clear),
    Keyword("READY", "READY", "your orders for the phase are final (a later order takes it back;\n"
            "READY OFF too); with early adjudication the phase ends once every\n"
            "power that must decide is ready", PLAYER, _ready),
    Keyword("DRAW", "DRAW", "vote for a draw shared by every surviving power (DRAW OFF: no more)", PLAYER),
    Keyword("CONCEDE", "CONCEDE <power>", "concede the game to that power (CONCEDE OFF: no more)", PLAYER),
    Keyword("SET", "SET PASSWORD <new>", "change your password", PLAYER, _set),
    Keyword("PHASE", "PHASE <phase>", "orders for a later phase (not accepted by this judge yet: the\n"
            "lines after it are not read)", PLAYER, _phase),
    Keyword("RESIGN", "RESIGN", "leave the game: your orders are withdrawn, your power goes into civil\n"
            "disorder (its units hold) and your password stops working", PLAYER, _alone("RESIGN")),
    Keyword("PRESS", "PRESS", "a message to other powers (not available on this judge yet)", PLAYER, _press("PRESS")),
    Keyword("BROADCAST", "BROADCAST", "a message to every power (not available on this judge yet)", PLAYER,
            _press("BROADCAST")),
    Keyword("SIGNOFF", "SIGNOFF", "the end; anything after it is ignored", PLAYER, _plain("SIGNOFF")),
    Keyword("START", "START", "start the game (every power needs a player; START ANYWAY: the\n"
            "powers without one start in civil disorder)", MASTER),
    Keyword("PAUSE", "PAUSE", "pause the game: the deadline is suspended", MASTER, _alone("PAUSE")),
    Keyword("RESUME", "RESUME", "resume a paused game", MASTER, _alone("RESUME")),
    Keyword("EXTEND", "EXTEND <duration>", "move this phase's deadline later, like EXTEND 24h", MASTER, _extend),
    Keyword("ADJUDICATE", "ADJUDICATE", "adjudicate the phase now", MASTER, _alone("ADJUDICATE")),
    Keyword("SET SETTING", "SET <setting> <value>", "change a setting: movement, retreat, adjustment, grace,\n"
            "nmr_limit, early (on/off), timezone, reminders (like 24h,2h)", MASTER, help_only=True),
    Keyword("JOIN", "JOIN <game> [power]", "join a game that is forming (your power is drawn at the start,\n"
            "or ask for one); in a game under way, take over a power nobody plays", ANYONE,
            _game_command("JOIN", "JOIN crusade1 (or JOIN crusade1 ANT for a power)"), changes_game=True),
    Keyword("LEAVE", "LEAVE <game>", "leave a game before it starts, or its waiting list", ANYONE,
            _game_command("LEAVE", "LEAVE crusade1"), changes_game=True),
    Keyword("CONFIRM", "CONFIRM <token>", "carry out a JOIN or LEAVE sent in your name from another mail\n"
            "system (the judge mails you the token when one comes)", ANYONE, _confirm),
    Keyword("HISTORY", "HISTORY <game>", "the game's seasons, with each power's supply centres", ANYONE),
    Keyword("SUMMARY", "SUMMARY <game> [power]", "the game at a glance: its players and each power's\n"
            "supply centres year by year (with a power: that power's seasons)", ANYONE),
    Keyword("GET", "GET RULES | GET MAP <game>", "the rules of the game, or the game's map picture", ANYONE, _get),
    Keyword("HELP", "HELP", "this list", ANYONE, _plain("HELP")),
):
    register(_keyword)
