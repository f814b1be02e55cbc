"""A test-only seam: ``CRUSADER_CRASH_AT=<point>`` makes the process kill itself (SIGKILL) there.

Points on a deadline run, in order:

- ``before_adjudication``: the game row is locked, nothing computed yet;
- ``after_results``: the season, the next position and the announcements are written but not
  committed;
- ``before_announce``: committed; the announcements are still in the outbox;
- ``after_announce``: a notifier has delivered, the outbox row is not yet marked delivered.

Unset in production. The crash tests start ``crusader serve`` with it, let it die, and start
it again without it.
"""

from __future__ import annotations

import os
import signal

POINTS = ("before_adjudication", "after_results", "before_announce", "after_announce")


def crash_point(name: str) -> None:
    """Die here, at once and without cleaning up, if ``CRUSADER_CRASH_AT`` names this point."""
    if name not in POINTS:
        raise ValueError(f"unknown crash point {name!r}; known: {', '.join(POINTS)}")
    if os.environ.get("CRUSADER_CRASH_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)
