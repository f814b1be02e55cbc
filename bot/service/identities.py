"""Who is who: the one way players and game masters are named, whichever front end they use.

A player (or game master) is a string the service stores as it is given, once read here:

- ``discord:<user id>``: a Discord user, by the number Discord gives every account (stable
  across renames; Developer Mode, then "Copy User ID"). A mention pasted from Discord
  (``<@123...>``) or the bare number (15 to 22 digits) is read as that user.
- an e-mail address (``ann@example.org``, kept in lower case): a player by mail.
- any other name (``anna``): a player the judge knows only from the shell.

At most :data:`MAX_LENGTH` characters, no control characters.
"""

from __future__ import annotations

import re

from .errors import InputError

MAX_LENGTH = 200
DISCORD = "discord:"
_MENTION_RE = re.compile(r"<@!?(\d{15,22})>")
_SNOWFLAKE_RE = re.compile(r"\d{15,22}")
_ADDRESS_RE = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
FORMS = "discord:<user id> for a Discord user, an e-mail address for a player by mail, or a plain name"


def identity(text: str, what: str = "a player") -> str:
    """``text`` as the service names a player or game master; a ``ValueError`` says what is accepted."""
    name = text.strip() if isinstance(text, str) else ""
    if not name:
        raise InputError(f"{what} is needed: {FORMS}")
    if len(name) > MAX_LENGTH:
        raise InputError(f"{what} is named in at most {MAX_LENGTH} characters, not {len(name)}: {FORMS}")
    if any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 or 0xD800 <= ord(c) < 0xE000 for c in name):
        raise InputError(f"{what} may not have control characters in its name: {name[:40]!r}")
    mention = _MENTION_RE.fullmatch(name)
    if mention or _SNOWFLAKE_RE.fullmatch(name):
        return DISCORD + (mention.group(1) if mention else name)
    if name.lower().startswith(DISCORD):
        uid = name[len(DISCORD):]
        if not (uid.isascii() and uid.isdigit() and len(uid) <= 22):
            raise InputError(f"{name[:40]!r} is not a Discord user: write discord: and the user's id, a number "
                             "(in Discord: Developer Mode, then Copy User ID)")
        return DISCORD + uid
    if _ADDRESS_RE.fullmatch(name):
        return name.lower()
    return name
