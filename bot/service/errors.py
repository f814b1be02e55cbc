"""What the service refuses, and why: every error is a ``ValueError`` with a sentence for the user."""

from __future__ import annotations


class ServiceError(ValueError):
    """A request the service cannot carry out; the message says what would be accepted."""


class NotFoundError(ServiceError):
    """No such game, player or power."""


class NotAllowedError(ServiceError):
    """The asker may not do this (not the game master, not a player of this game...)."""


class WrongStateError(ServiceError):
    """Not now: the game has not started, is paused, has ended..."""
