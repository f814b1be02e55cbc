"""Why a line of orders could not be read, split by the reason (as python-chess does).

- :class:`OrderSyntaxError`: not an order in any notation the judge knows.
- :class:`UnknownNameError`: a word where a province, coast or power belongs names none.
- :class:`AmbiguousNameError`: a name that fits more than one province or power.

All are :class:`OrderError`, a :class:`~adjudicator.errors.CrusaderError` and a
:class:`ValueError`. ``str(error)`` is the whole report a player reads: the reason, the line
with a caret under the offending column, what would be accepted, and a "did you mean" when
there is a near miss. (An order read but not allowed in a position is no error here: the
engine says why, as its result's reason.)
"""

from __future__ import annotations

from typing import Any

from adjudicator.errors import CrusaderError


class OrderError(CrusaderError, ValueError):
    """A line of orders that could not be read.

    Attributes: ``reason`` (one sentence), ``text`` (the line as written), ``column`` and
    ``end_column`` (1-based, the caret's span; ``None`` when the whole line is at fault),
    ``expected`` (what would be accepted there, in words), ``suggestions`` (near misses),
    ``line_no`` (1-based line of a message, ``None`` for a single order).
    """

    def __init__(
        self,
        reason: str,
        *,
        text: str = "",
        column: int | None = None,
        end_column: int | None = None,
        expected: tuple[str, ...] = (),
        suggestions: tuple[str, ...] = (),
        line_no: int | None = None,
        context: str | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.text = text
        self.column = column
        self.end_column = end_column
        self.expected = tuple(expected)
        self.suggestions = tuple(suggestions)
        self.line_no = line_no
        self._context = context

    @property
    def context(self) -> str:
        """The line and a caret line under the offending span (no trailing newline)."""
        if self._context is not None:
            return self._context
        if not self.text:
            return ""
        if self.column is None:
            return self.text
        start = max(self.column - 1, 0)
        width = max((self.end_column or self.column + 1) - self.column, 1)
        return f"{self.text}\n{' ' * start}{'^' * width}"

    def located(self, text: str, line_no: int | None = None) -> OrderError:
        """This error, told which line (and which line number) it is about."""
        self.text = text
        self.line_no = line_no
        return self

    def to_dict(self) -> dict[str, Any]:
        """As JSON-ready data (the CLI's ``parse --format json``)."""
        return {
            "kind": type(self).__name__,
            "line": self.line_no,
            "text": self.text,
            "column": self.column,
            "reason": self.reason,
            "expected": list(self.expected),
            "suggestions": list(self.suggestions),
            "message": str(self),
        }

    def __str__(self) -> str:
        where = f"line {self.line_no}: " if self.line_no is not None else ""
        parts = [f"{where}{self.reason}"]
        if self.context:
            parts.append(self.context)
        if self.expected:
            parts.append("Expected " + _or_list(self.expected) + ".")
        if self.suggestions:
            parts.append("Did you mean " + _or_list(self.suggestions) + "?")
        return "\n".join(parts)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.reason!r}, text={self.text!r}, column={self.column!r})"


class OrderSyntaxError(OrderError):
    """Not an order in any accepted notation."""


class UnknownNameError(OrderError):
    """A name that matches no province, coast or power of the map."""


class AmbiguousNameError(OrderError):
    """A name (or the start of one) that fits several provinces or powers."""


def _or_list(items: tuple[str, ...]) -> str:
    items = tuple(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]
