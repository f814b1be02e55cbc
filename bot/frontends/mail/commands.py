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
    PRESS TO BYZ EDE ... ENDPRESS  (press: bot.frontends.mail.press)
    SIGNOFF                        (anything after it is ignored)

``HELP``, ``LIST <game>``, ``JOIN <game> [power]`` and ``LEAVE <game>`` work without signing on.
Keywords are case-insensitive. Every command keeps the line to echo back, with any password
replaced by ``********`` and no more of a stranger's words than a typo needs.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.codec.limits import MAX_LINE
from . import press

MASK = "********"
SIGNON_USAGE = "SIGNON <power code><game name> <password>, for example SIGNON ANTcrusade1 secret"
KEYWORDS = ("SIGNON", "SIGNOFF", "LIST", "SET", "RESIGN", "PHASE", "HELP", "JOIN", "LEAVE", "CLEAR", "READY")


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


@dataclass(frozen=True)
class Script:
    commands: tuple[Command, ...]
    ignored_after_signoff: int = 0


def read_script(text: str) -> Script:
    """The commands of a message's text, up to and including ``SIGNOFF``."""
    commands: list[Command] = []
    lines = [line.strip() for line in text.splitlines()]
    after = 0  # the lines of a block of press are read with it
    for index, line in enumerate(lines):
        if not line or index < after:
            continue
        block = press.read_block(lines, index) if len(line) <= MAX_LINE else None
        if block is not None:
            found, after = block
            command = Command(found.kind, found.echo, found.args, found.error)
        else:
            command, after = read_line(line), index + 1
        commands.append(command)
        if command.kind == "signoff":
            rest = sum(1 for later in lines[index + 1:] if later)
            return Script(tuple(commands), rest)
    return Script(tuple(commands))


def read_line(line: str) -> Command:
    words = line.split()
    keyword = words[0].upper()
    args = tuple(words[1:])
    if len(line) > MAX_LINE:  # a command's words (a password among them) are not echoed
        kind, echo = (keyword.lower(), f"{keyword} ...") if keyword in KEYWORDS else ("order", line[:60] + " ...")
        return Command(kind, echo, (line,),
                       error=f"the line is {len(line)} characters long; a line has at most {MAX_LINE}")
    if keyword == "SIGNON":
        return _signon(args)
    if keyword == "SET":
        return _set(args)
    if keyword in ("SIGNOFF", "HELP"):  # words after them ("SIGNOFF thanks") are a remark, not an error
        return Command(keyword.lower(), keyword + (" ..." if args else ""), args)
    if keyword == "READY":
        if len(args) > 1 or (args and args[0].upper() not in ("OFF", "NO", "NOT")):
            return Command("ready", "READY ...", args, error="write READY when your orders are final, or READY OFF "
                                                             "when they are not any more")
        return Command("ready", "READY" + (f" {args[0].upper()}" if args else ""), args)
    if keyword == "RESIGN":
        if args:
            return Command(keyword.lower(), keyword, args,
                           error=f"{keyword} takes nothing after it; write just {keyword}")
        return Command(keyword.lower(), keyword)
    if keyword == "LIST":
        if len(args) > 1:
            return Command("list", "LIST ...", args, error="write LIST (once signed on) or LIST <game name>")
        return Command("list", "LIST" + "".join(f" {_short(a)}" for a in args), args)
    if keyword in ("JOIN", "LEAVE"):  # the game's name may have spaces: the session finds it
        if not args:
            return Command(keyword.lower(), keyword, args, error=f"write {keyword} and the game's name, like "
                                                                  f"{keyword} crusade1" + (" (or JOIN crusade1 ANT for a power)"
                                                                                           if keyword == "JOIN" else ""))
        return Command(keyword.lower(), f"{keyword} {_short(args[0])}" + (" ..." if len(args) > 1 else ""), args)
    if keyword == "CLEAR":
        if len(args) > 1:
            return Command("clear", "CLEAR ...", args, error="write CLEAR <province> for one order, or CLEAR for all")
        return Command("clear", "CLEAR" + "".join(f" {_short(a)}" for a in args), args)
    if keyword == "PHASE":
        if len(args) != 1:
            return Command("phase", "PHASE ...", args, error="write PHASE and one phase, like PHASE F1901M")
        return Command("phase", f"PHASE {_short(args[0])}", args)
    return Command("order", line, (line,))


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
    shown = f"SET {args[0]}" if args else "SET"
    return Command("set", shown + (" ..." if len(args) > 1 else ""), (),
                   error="the only setting that can be changed by mail is SET PASSWORD <new password>; "
                         "the game master changes the registered address")


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
