"""Game names: what a name may be, and the one key two names must not share.

Players write a game's name in many ways (``Outremer 1``, ``outremer-1``, ``OUTREMER_1``); the
judge takes them as one game. :func:`game_key` is that normalisation: Unicode compatibility
form, case folded, every run of characters other than letters and digits made one ``-``. A new
game whose key is taken is refused, whichever front end (Discord, mail, the shell, an import)
creates it, and a game is looked up by its key; the key is also its folder in the archive and
on the archive site.
"""

from __future__ import annotations

import re
import unicodedata

MAX_LENGTH = 100
_SEPARATORS = re.compile(r"[\W_]+")


def game_key(name: str) -> str:
    """The key of a game name: ``"Outremer 1"``, ``"outremer_1"`` and ``"OUTREMER-1"`` are all ``outremer-1``."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return _SEPARATORS.sub("-", folded).strip("-")


def check_game_name(text: str) -> str:
    """``text`` as a game's name (spaces at either end dropped); a ``ValueError`` says what is accepted."""
    name = " ".join(text.split()) if isinstance(text, str) else ""
    what = "a game name is 1 to 100 characters with at least one letter, not only digits"
    if not name or len(name) > MAX_LENGTH:
        raise ValueError(f"{what}: {name[:40]!r}{'...' if len(name) > 40 else ''} has {len(name)}")
    if any(unicodedata.category(c)[0] == "C" for c in name):
        raise ValueError(f"{what}, and no control characters: {name[:40]!r}")
    key = game_key(name)
    if not key or key.replace("-", "").isdigit():
        raise ValueError(f"{what}: {name!r}")
    return name


def name_taken(wanted: str, existing: str) -> str:
    """The refusal of a new game called ``wanted`` when ``existing`` has its key."""
    if wanted == existing:
        return f"there is already a game called {existing!r}; choose another name"
    return (f"there is already a game called {existing!r}, and {wanted!r} is the same name to the judge "
            f"(case, spaces and punctuation aside); choose another name")
