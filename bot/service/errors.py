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


class NotPlayingError(NotAllowedError):
    """``player`` asked what only a game's players may (orders, a vote, ready) and plays no power in
    ``game``; ``why`` says what happened to them:

    - ``stranger``: never in the game (or left it before the start);
    - ``waiting``: on its waiting list, without a power yet;
    - ``removed``: the game master took them off ``power`` (in civil disorder since);
    - ``replaced``: the game master gave ``power``, theirs, to another player;
    - ``taken_out``: the game master took them out of the game before its start (or off its
      waiting list).

    ``str()`` says it of the player, for the judge's operator; :meth:`to_player` says it to them.
    ``power_name`` is the power's name in the game's variant."""

    WHYS = ("stranger", "waiting", "removed", "replaced", "taken_out")

    def __init__(self, game: str, player: str, why: str, power: str | None = None,
                 power_name: str | None = None) -> None:
        if why not in self.WHYS:
            raise ValueError(f"why is one of {', '.join(self.WHYS)}, not {why!r}")
        self.game, self.player, self.why, self.power = game, player, why, power
        self.power_name = power_name or power
        super().__init__({
            "stranger": f"{player!r} is not a player of game '{game}'",
            "waiting": f"{player!r} is on the waiting list of '{game}' and plays no power yet",
            "removed": f"{player!r} no longer plays a power in '{game}': the game master removed them from {power}",
            "replaced": f"{player!r} no longer plays in '{game}': the game master gave {power} to another player",
            "taken_out": f"{player!r} is not a player of game '{game}': the game master took them out of it",
        }[why])

    def to_player(self) -> str:
        """What happened, said to the player."""
        return {
            "stranger": f"You are not playing in '{self.game}'.",
            "waiting": f"You are on the waiting list of '{self.game}' and play no power yet; the game master may "
                       "give you one.",
            "removed": f"The game master removed you from {self.power_name} in '{self.game}': you no longer play "
                       f"in it, and {self.power_name} is in civil disorder until it has a new player.",
            "replaced": f"The game master gave {self.power_name} in '{self.game}' to another player: you no longer "
                        "play in it.",
            "taken_out": f"The game master took you out of '{self.game}': you are not playing in it.",
        }[self.why]
