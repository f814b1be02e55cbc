"""The pictures the judge sends: a season as it was adjudicated, and a player's own orders.

:func:`season_picture` is drawn once, when the season is adjudicated, and stored with it; the
Discord and mail front ends send the stored bytes and the archive site links to them.
:func:`orders_picture` shows one player the orders they have standing before the deadline.
Both are pure functions of domain values, returning PNG bytes.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from adjudicator.orders import Order, canonical

from adjudicator.prestige.orders import PRESTIGE_ORDER_TYPES
from adjudicator.position import Position
from adjudicator.results import OrderResult
from adjudicator.variant import Variant
from adjudicator.vocab import Power, ProvinceId

from .svg import DEFAULT_SIZE


def bid_lines(results: Sequence[OrderResult]) -> list[str]:
    """Who bid for what and how it went, a line each, for the legend."""
    return [f"{canonical(r.order)} - {'won' if r.succeeded else r.outcome.value}"
            for r in results if isinstance(r.order, PRESTIGE_ORDER_TYPES)]


def season_picture(variant: Variant | str, before: Position, results: Sequence[OrderResult], *,
                   controllers: Mapping[ProvinceId, Power] | None = None, notes: Sequence[str] | None = None,
                   size: int = DEFAULT_SIZE) -> bytes:
    """A season as a PNG: the board it started from, every order players gave drawn with its
    outcome, the bids in the legend.

    :param before: the position the season started from.
    :param results: the results of the orders players gave (``Adjudication.results``); the
        judge's own orders (``Adjudication.implicit``: units nobody ordered hold) are left out,
        so that no unit nobody ordered gets a ring.
    :param controllers: province -> the power that bribed the unit there this season.
    :param notes: lines for the legend; by default one per bid (:func:`bid_lines`).
    :param size: width in pixels.
    """
    from .png import render_png

    return render_png(variant, before, results=results, controllers=controllers,
                      legend=bid_lines(results) if notes is None else notes, size=size)


def orders_picture(variant: Variant | str, position: Position, orders: Sequence[Order], *,
                   size: int = DEFAULT_SIZE) -> bytes:
    """The board with one player's standing orders drawn on it, before the deadline (no outcome)."""
    from .png import render_png

    return render_png(variant, position, orders=orders,
                      legend=[f"Orders standing for {position.phase.long_name}; not adjudicated yet."], size=size)


__all__ = ["bid_lines", "orders_picture", "season_picture"]
