"""The error of an operator's set-up: the judge cannot run as configured."""

from __future__ import annotations

from adjudicator.errors import CrusaderError


class SetupError(CrusaderError):
    """The judge cannot run as configured (a database that does not answer, a port in use, a
    directory that cannot be made, a Discord token refused); the message names the setting to
    change. ``crusader`` prints it and exits 1: an operator's mistake, not a bug."""
