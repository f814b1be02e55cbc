"""A test-only seam: ``CRUSADER_CRASH_AT=<point>`` makes the process kill itself (SIGKILL) there.

Points on a deadline run, in order:

- ``before_adjudication``: the game row is locked, nothing computed yet;
- ``after_results``: the season, the next position and the announcements are written but not
  committed;
- ``after_adjudication``: committed, and nothing done after it yet (the next deadline not armed);
- ``before_announce``: committed; the outbox has claimed deliveries of the announcements, none made;
- ``after_announce``: a notifier has delivered, the outbox row is not yet marked delivered.

``CRUSADER_CRASH_AFTER_WRITES=<n>`` kills it just after its ``n``-th committed transaction that
wrote something (whatever wrote it): the kill harness's kills "just after a commit".

Unset in production. The crash tests start ``crusader serve`` with them, let it die, and start
it again without them.
"""

from __future__ import annotations

import itertools
import os
import signal
import threading

POINTS = ("before_adjudication", "after_results", "after_adjudication", "before_announce", "after_announce")


def crash_point(name: str) -> None:
    """Die here, at once and without cleaning up, if ``CRUSADER_CRASH_AT`` names this point."""
    if name not in POINTS:
        raise ValueError(f"unknown crash point {name!r}; known: {', '.join(POINTS)}")
    if os.environ.get("CRUSADER_CRASH_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)


_local = threading.local()
_writes = itertools.count(1)


def watch_writes(engine) -> None:
    """Follow ``engine``'s transactions for :func:`after_commit` (only when
    ``CRUSADER_CRASH_AFTER_WRITES`` is set: otherwise nothing is added)."""
    if not os.environ.get("CRUSADER_CRASH_AFTER_WRITES"):
        return
    from sqlalchemy import event

    def executed(conn, cursor, statement, parameters, context, executemany) -> None:
        if statement.lstrip()[:6].upper() in ("INSERT", "UPDATE", "DELETE"):
            conn.info["wrote"] = True

    def committing(conn) -> None:
        _local.wrote = conn.info.pop("wrote", False)

    event.listen(engine, "after_cursor_execute", executed)
    event.listen(engine, "commit", committing)


def after_commit() -> None:
    """A transaction was just committed on this thread: die here if it is the ``n``-th that wrote."""
    limit = os.environ.get("CRUSADER_CRASH_AFTER_WRITES")
    if not limit or not getattr(_local, "wrote", False):
        return
    _local.wrote = False
    if next(_writes) == int(limit):
        os.kill(os.getpid(), signal.SIGKILL)
