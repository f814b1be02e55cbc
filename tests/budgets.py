"""Budgets for fuzzing and the other randomised tests: a few examples in the default run,
many more with ``--slow`` (as ``.ci/run`` runs the suite). ``SLOW`` is set by ``conftest.py``
before the test modules are collected."""

from __future__ import annotations

SLOW = False


def examples(default: int, slow: int) -> int:
    """How many examples a property tries in this run."""
    return slow if SLOW else default
