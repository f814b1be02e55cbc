"""What the service refuses, and why: each a :class:`~adjudicator.errors.CrusaderError` whose
message is a sentence for the person who asked, saying what would be accepted.

A front end shows the message of a ``CrusaderError``; any other exception is a bug (logged with
its traceback, and the user gets an apology). The refusals are ``ValueError`` s too, as the
grammar's are, for code that reads them as bad values.
"""

from __future__ import annotations

from adjudicator.errors import CrusaderError


class ServiceError(CrusaderError, ValueError):
    """A request the service cannot carry out; the message says what would be accepted."""


class InputError(ServiceError):
    """A value as given cannot be read: a duration, a moment, a time zone, a player's name..."""


class NotFoundError(ServiceError):
    """No such game, player or power."""


class NoSuchGameError(NotFoundError):
    """No game by that name or number; the message gives the names that would do. A front end of
    the judge's operator names the database it looked in (:meth:`looked_in`)."""

    def __init__(self, ref: str | int, names: list[str]) -> None:
        self.ref, self.names = ref, names
        super().__init__(f"no game {ref!r}; games here: {', '.join(names) or 'none yet'}")

    def looked_in(self, database: str) -> str:
        """The message naming ``database``, where the game was looked for."""
        return f"no game {self.ref!r} in the judge's database {database}; games there: {', '.join(self.names) or 'none yet'}"


class NotAllowedError(ServiceError):
    """The asker may not do this (not the game master, not a player of this game...)."""


class WrongStateError(ServiceError):
    """Not now: the game has not started, is paused, has ended..."""


class UnplayedPowersError(WrongStateError):
    """A game cannot start while powers have no player, unless they are to start in civil disorder."""

    def __init__(self, message: str, unplayed: int) -> None:
        super().__init__(message)
        self.unplayed = unplayed
