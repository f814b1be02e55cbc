"""The root of every error this project raises on purpose.

Each package splits its errors by kind under :class:`CrusaderError` (``grammar.errors`` for
order text, ``adjudicator.variant`` for maps, the service's refusals, the documents of the
command line). A front end shows the message of a ``CrusaderError`` to the person who caused it;
any other exception that reaches a front end is a bug: it is logged with its traceback and the
user gets an apology, never "your input was wrong".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .orders import Order
    from .results import Reason


class CrusaderError(Exception):
    """Something a user or an operator did that the judge refuses, with a sentence saying why."""


class DocumentError(CrusaderError, ValueError):
    """A position document that cannot be used: bad JSON shape, unknown variant, unknown province...
    (its message is one line naming the field at fault)."""


class IllegalOrderError(CrusaderError, ValueError):
    """An order understood but not allowed in this position or phase (``reason``: a
    :class:`~adjudicator.results.Reason`, whose ``code`` a program may branch on)."""

    def __init__(self, reason: Reason, order: Order | None = None) -> None:
        super().__init__(reason.text)
        self.reason = reason
        self.order = order
