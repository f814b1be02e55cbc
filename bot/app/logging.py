"""Structured logs (structlog): JSON lines, or readable lines on a terminal.

The judge's own events and the libraries' standard-library log records (Alembic, APScheduler,
discord.py, aiosmtpd) go through the same renderer, so every line of the log has one format.
"""

from __future__ import annotations

import logging
import sys

import structlog

HANDLER_NAME = "crusader"

# Libraries whose routine INFO lines would drown the judge's own (every poll, every plugin).
QUIET = {"alembic": logging.WARNING, "alembic.runtime.migration": logging.INFO, "apscheduler": logging.WARNING}

# Lines that say nothing an operator can act on, shown only at DEBUG: (logger, how the line begins).
ROUTINE = (
    ("discord.client", "PyNaCl is not installed"),  # the judge has no voice
    ("discord.client", "davey is not installed"),
    ("alembic.runtime.migration", "Context impl"),  # every start; the upgrades themselves are kept
    ("alembic.runtime.migration", "Will assume"),
    ("apscheduler", "Execution of job"),  # a sweep still running when the next is due: skipped, by design
    ("apscheduler", "Run time of job"),  # a sweep late on a busy loop: it runs, late
)


class RoutineFilter(logging.Filter):
    """Keeps the :data:`ROUTINE` lines out of the log unless it is at DEBUG."""

    def __init__(self, level: int) -> None:
        super().__init__()
        self.level = level

    def filter(self, record: logging.LogRecord) -> bool:
        if self.level <= logging.DEBUG:
            return True
        name = record.name
        for logger, start in ROUTINE:
            if (name == logger or name.startswith(logger + ".")) and str(record.msg).startswith(start):
                return False
        return True


def configure(level: str = "INFO", fmt: str = "auto") -> None:
    if fmt == "auto":
        fmt = "console" if sys.stderr.isatty() else "json"
    renderer = structlog.dev.ConsoleRenderer() if fmt == "console" else structlog.processors.JSONRenderer()
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        from .errors import SetupError

        raise SetupError(f"CRUSADER_LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, not {level!r}")
    shared: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars, structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True)]

    handler = logging.StreamHandler(sys.stderr)
    handler.set_name(HANDLER_NAME)
    handler.addFilter(RoutineFilter(numeric))
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.processors.format_exc_info, renderer]))
    root = logging.getLogger()
    root.handlers[:] = [handler]  # one format for every line
    root.setLevel(numeric)
    for name, quiet in QUIET.items():
        logging.getLogger(name).setLevel(max(quiet, numeric))

    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.WriteLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
