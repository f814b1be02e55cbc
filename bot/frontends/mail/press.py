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

The text runs to a line ``ENDPRESS`` (or ``SIGNOFF``, or the end of the message). The service
decides who may send what to whom; each block is answered with where it went, as what, and what
was refused and why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.service import ServiceError
from bot.service.press import history_lines, receipt_text
from .commands import Command

if TYPE_CHECKING:  # pragma: no cover
    from .conversation import _Session

STARTS = ("PRESS", "BROADCAST")
ENDS = ("ENDPRESS", "END PRESS")
ANONYMOUS = ("GREY", "GRAY", "ANONYMOUS", "ANON")
USAGE = "PRESS TO <powers> (GM: the game master), or BROADCAST; then the text; then ENDPRESS"


def read_block(lines: list[str], index: int) -> tuple[Command, int] | None:
    """The press block starting at ``lines[index]`` as one command, and the index after it; ``None``
    when that line starts none (``HISTORY PRESS`` is a command of one line)."""
    words = lines[index].split()
    keyword = words[0].upper() if words else ""
    if keyword == "HISTORY" and len(words) == 2 and words[1].upper() == "PRESS":
        return Command("press_history", "HISTORY PRESS"), index + 1
    if keyword not in STARTS:
        return None
    rest = [w.upper() for w in words[1:]]
    anonymous = any(w in ANONYMOUS for w in rest)
    rest = [w for w in rest if w not in ANONYMOUS]
    end = index + 1
    while end < len(lines) and lines[end].strip().upper() not in ENDS and lines[end].split()[:1] != ["SIGNOFF"]:
        end += 1
    text = "\n".join(lines[index + 1:end]).strip()
    after = end + 1 if end < len(lines) and lines[end].strip().upper() in ENDS else end
    count = f" ({len(text.splitlines())} line(s) of press)"
    if keyword == "BROADCAST":
        if rest:
            return Command("press", "BROADCAST ...", (), error=f"BROADCAST takes nothing after it but GREY: {USAGE}"), after
        to = "ALL"
    else:
        if rest[:1] == ["TO"]:
            rest = rest[1:]
        if not rest:
            return Command("press", "PRESS ...", (), error=f"say whom the press is for: {USAGE}"), after
        to = " ".join(rest)
    echo = (f"{keyword} {to if keyword == 'PRESS' else ''}".strip() + (" GREY" if anonymous else "") + count)
    return Command("press", echo[:200], (to, text, "anonymous" if anonymous else "")), after


def take(session: _Session, command: Command) -> bool:
    """Send the press of ``command`` for the power signed on; answered in the reply."""
    from .conversation import Echo

    if session.me is None:  # a stranger's text is never mailed back, nor sent on
        session.unsigned += 1
        return True
    if not session._played(command):
        return True
    to, text, anonymous = command.args
    try:
        receipt = session.service.send_press(session.me.game, session.me.player, to, text, anonymous=bool(anonymous))
    except ServiceError as exc:
        session.talk.echoes.append(Echo(command.echo, f"not sent: {exc}", ok=False))
        return True
    session.talk.echoes.append(Echo(command.echo, receipt_text(receipt)))
    return True


def history(session: _Session, command: Command) -> bool:
    """The press of the power signed on, by phase, in the reply."""
    from .conversation import Echo

    if not session._played(command):
        return True
    try:
        found = session.service.press_history(session.me.game, session.me.player)
    except ServiceError as exc:
        session.talk.echoes.append(Echo(command.echo, str(exc), ok=False))
        return True
    session.talk.echoes.append(Echo(command.echo, "\n".join(history_lines(found))))
    return True


HELP = """\
  PRESS TO <powers>         press to those powers (like PRESS TO BYZ EDE; GM for the game
  ...text...                master), the text on the lines after it, to a line ENDPRESS;
  ENDPRESS                  PRESS TO BYZ GREY: anonymously, where the game allows grey press
  BROADCAST ... ENDPRESS    press to everyone
  HISTORY PRESS             the press your power sent and received, by phase
"""
"""The press commands in the mail's list of commands (HELP)."""
