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

from dataclasses import dataclass

from bot.service import GameService, ServiceError
from bot.service.press import history_lines, receipt_text

STARTS = ("PRESS", "BROADCAST")
ENDS = ("ENDPRESS", "END PRESS")
ANONYMOUS = ("GREY", "GRAY", "ANONYMOUS", "ANON")
USAGE = "PRESS TO <powers> (GM: the game master), or BROADCAST; then the text; then ENDPRESS"


@dataclass(frozen=True)
class Block:
    """A line (or block of lines) of press as written: ``kind`` ``press`` or ``press_history``, the
    echo, the arguments (recipients, text, ``"anonymous"`` or ``""``), and what is wrong with it."""

    kind: str
    echo: str
    args: tuple[str, ...] = ()
    error: str | None = None


def read_block(lines: list[str], index: int) -> tuple[Block, int] | None:
    """The press block starting at ``lines[index]``, and the index after it; ``None`` when that line
    starts none (``HISTORY PRESS`` is a block of one line)."""
    words = lines[index].split()
    keyword = words[0].upper() if words else ""
    if keyword == "HISTORY" and len(words) == 2 and words[1].upper() == "PRESS":
        return Block("press_history", "HISTORY PRESS"), index + 1
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
            return Block("press", "BROADCAST ...", error=f"BROADCAST takes nothing after it but GREY: {USAGE}"), after
        to = "ALL"
    else:
        if rest[:1] == ["TO"]:
            rest = rest[1:]
        if not rest:
            return Block("press", "PRESS ...", error=f"say whom the press is for: {USAGE}"), after
        to = " ".join(rest)
    echo = f"{keyword} {to if keyword == 'PRESS' else ''}".strip() + (" GREY" if anonymous else "") + count
    return Block("press", echo[:200], (to, text, "anonymous" if anonymous else "")), after


def send(service: GameService, game: str, player: str, args: tuple[str, ...]) -> tuple[str, bool]:
    """Send the press of a block (its ``args``) for ``player`` in ``game``: the answer, and whether it went."""
    to, text, anonymous = args
    try:
        receipt = service.send_press(game, player, to, text, anonymous=bool(anonymous))
    except ServiceError as exc:
        return f"not sent: {exc}", False
    return receipt_text(receipt), True


def history(service: GameService, game: str, player: str) -> tuple[str, bool]:
    """The press of ``player``'s power in ``game``, by phase: the answer, and whether it could be read."""
    try:
        return "\n".join(history_lines(service.press_history(game, player))), True
    except ServiceError as exc:
        return str(exc), False


HELP = """\
  PRESS TO <powers>         press to those powers (like PRESS TO BYZ EDE; GM for the game
  ...text...                master), the text on the lines after it, to a line ENDPRESS;
  ENDPRESS                  PRESS TO BYZ GREY: anonymously, where the game allows grey press
  BROADCAST ... ENDPRESS    press to everyone
  HISTORY PRESS             the press your power sent and received, by phase
"""
"""The press commands in the mail's list of commands (HELP)."""
