"""Press by mail, in the e-mail judges' words, inside a signed-on message::

    PRESS TO BYZ EDE            (private press to those powers; GM: to the game master)
    The text, on as many lines as it takes.
    ENDPRESS
    BROADCAST                   (press to everyone)
    ...
    ENDPRESS
    PRESS TO BYZ GREY           (under grey press: the recipients are not told who sent it;
                                 ANONYMOUS does the same)
    HISTORY PRESS               (what your power sent and received, by phase)

The text runs to a line ``ENDPRESS`` (or the end of the message) and is never read as orders.
The service decides who may send what to whom; each block is answered with where it went, as
what, and what was refused and why. The game master, signed on as ``GM<game>``, writes press
too. Importing this module plugs the commands into the judge's table of commands
(:func:`bot.frontends.mail.commands.register`, :data:`bot.frontends.mail.conversation.HANDLERS`).
"""

from __future__ import annotations

from bot.service import ServiceError
from bot.service.press import history_lines, receipt_text
from .commands import PLAYER, Command, Keyword, register
from .accounts import GM
from .conversation import HANDLERS, Echo, _Session

ANONYMOUS = ("GREY", "GRAY", "ANONYMOUS", "ANON")
USAGE = "PRESS TO <powers> (GM: the game master), or BROADCAST; then the text; then ENDPRESS"


def _read(name: str):
    """How a PRESS or BROADCAST line is read: its recipients and whether it is anonymous (``args``:
    the recipients, then ``"anonymous"`` or ``""``); its text is the lines after it, up to ENDPRESS
    (:func:`bot.frontends.mail.commands.read_script`)."""

    def read(args: tuple[str, ...]) -> Command:
        words = [w.upper() for w in args]
        anonymous = any(w in ANONYMOUS for w in words)
        words = [w for w in words if w not in ANONYMOUS]
        grey = " GREY" if anonymous else ""
        if name == "BROADCAST":
            if words:
                return Command("broadcast", "BROADCAST ...", args,
                               error=f"BROADCAST takes nothing after it but GREY: {USAGE}")
            return Command("broadcast", "BROADCAST" + grey, ("ALL", "anonymous" if anonymous else ""))
        if words[:1] == ["TO"]:
            words = words[1:]
        if not words:
            return Command("press", "PRESS ...", args, error=f"say whom the press is for: {USAGE}")
        to = " ".join(words)
        return Command("press", f"PRESS TO {to}"[:120] + grey, (to, "anonymous" if anonymous else ""))

    return read


def send(session: _Session, command: Command) -> bool:
    """A block of press, sent for the power (or the game master) signed on; answered in the reply
    with where it went, as what, and what was refused and why."""
    lines = f" ({len(command.body)} line(s))"
    if session.me is None:  # a stranger's text is never mailed back, nor sent on
        session.unsigned += 1 + len(command.body)
        return True
    if session.me.power == GM:
        sender: str | None = session.service.status(session.me.game_id).gm
    elif session._played(command) and session.me.player is not None:
        sender = session.me.player
    else:
        return True
    to, anonymous = command.args
    try:
        receipt = session.service.send_press(session.me.game, sender, to, "\n".join(command.body),
                                             anonymous=bool(anonymous))
    except ServiceError as exc:
        session.talk.echoes.append(Echo(command.echo + lines, f"not sent: {exc}", ok=False))
        return True
    session.talk.echoes.append(Echo(command.echo + lines, receipt_text(receipt)))
    return True


def history(session: _Session, command: Command) -> bool:
    """``HISTORY PRESS``: the press of the power signed on, by phase (any other HISTORY: the game's seasons)."""
    if [a.upper() for a in command.args] != ["PRESS"]:
        return session._history(command)
    if session.me is not None and session.me.power == GM:
        asker = session.service.status(session.me.game_id).gm
    elif session._played(command) and session.me is not None and session.me.player is not None:
        asker = session.me.player
    else:
        return True
    assert session.me is not None
    try:
        found = session.service.press_history(session.me.game, asker)
    except ServiceError as exc:
        session.talk.echoes.append(Echo(command.echo, str(exc), ok=False))
        return True
    session.talk.echoes.append(Echo(command.echo, "\n".join(history_lines(found))))
    return True


register(Keyword("PRESS", "PRESS TO <powers>", "press to those powers (like PRESS TO BYZ EDE; GM: the game\n"
                 "master), the text on the lines after it, up to a line ENDPRESS;\n"
                 "PRESS TO BYZ GREY: anonymously, where the game has grey press", PLAYER, _read("PRESS")))
register(Keyword("BROADCAST", "BROADCAST", "press to everyone, the text up to a line ENDPRESS", PLAYER,
                 _read("BROADCAST")))
register(Keyword("HISTORY PRESS", "HISTORY PRESS", "the press your power sent and received, by phase", PLAYER,
                 help_only=True))
HANDLERS["press"] = HANDLERS["broadcast"] = send
HANDLERS["history"] = history

