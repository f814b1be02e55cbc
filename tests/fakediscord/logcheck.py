"""Failing tests on ERROR log records: discord.py only logs exceptions raised in handlers."""

from __future__ import annotations

import logging

WATCHED_LOGGERS = ("discord", "tests.fakediscord")


class ErrorLogCollector(logging.Handler):
    """Collects ERROR (and worse) records from the loggers it is attached to."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def problems(self) -> list[str]:
        out = []
        for r in self.records:
            text = f"{r.name}: {r.getMessage()}"
            if r.exc_info and r.exc_info[1] is not None:
                text += f" ({r.exc_info[0].__name__}: {r.exc_info[1]})"
            out.append(text)
        return out

    def check(self) -> None:
        problems = self.problems()
        if problems:
            raise AssertionError("ERROR records were logged:\n  " + "\n  ".join(problems))


def install_error_collector(names: tuple[str, ...] = WATCHED_LOGGERS) -> ErrorLogCollector:
    collector = ErrorLogCollector()
    for name in names:
        logging.getLogger(name).addHandler(collector)
    return collector


def remove_error_collector(collector: ErrorLogCollector, names: tuple[str, ...] = WATCHED_LOGGERS) -> None:
    for name in names:
        logging.getLogger(name).removeHandler(collector)
