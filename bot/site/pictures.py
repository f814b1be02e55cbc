"""The pictures of a season: the board before with its orders and outcomes, and the board after.

:func:`season_picture` is what goes out with the results (Discord attachments, e-mail):
a PNG of the board the season started from, every order drawn with its outcome, and the bids
in the legend. :func:`season_maps` gives the two SVG maps of a season's archive page.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from adjudicator.orders import PRESTIGE_ORDER_TYPES, canonical
from adjudicator.position import Position
from adjudicator.results import OrderResult
from adjudicator.variant import Variant, get_variant

from ..documents import position_from_dict, position_to_dict
from ..render import DEFAULT_SIZE, render_png, render_svg
from .model import SeasonRecord, season_record


def _bid_lines(results: Sequence[OrderResult]) -> list[str]:
    return [f"{canonical(r.order)} - {'won' if r.succeeded else r.outcome.value}"
            for r in results if isinstance(r.order, PRESTIGE_ORDER_TYPES)]


def season_picture(variant: Variant | str, position_before: Position | Mapping[str, Any],
                   results: Sequence[OrderResult] | Mapping[str, Any], *, size: int = DEFAULT_SIZE) -> bytes:
    """The season as a PNG: the board it started from, its orders with their outcomes, the bids.

    :param variant: the variant, or its name.
    :param position_before: the position the season started from: a :class:`Position`, or the
        position document the service stores (``GameService.season(...)["position"]``).
    :param results: the results: :class:`OrderResult` values, or the result document the
        service stores (``GameService.season(...)["result"]``, where the orders the judge
        supplied and the prestige spent are read from too).
    :param size: width in pixels (800, the default, is what Discord shows without a click).
    """
    variant = get_variant(variant) if isinstance(variant, str) else variant
    if isinstance(results, Mapping):
        document = (position_before if isinstance(position_before, Mapping)
                    else position_to_dict(position_before, variant))
        record = season_record({"position": document, "orders": [], "result": results})
        position_before, results = record.before, record.results
        legend, controllers = record.legend_lines(), record.controllers
    else:
        if isinstance(position_before, Mapping):
            _, position_before = position_from_dict({k: v for k, v in position_before.items() if k != "orders"})
        results = list(results)
        legend, controllers = _bid_lines(results), None
    return render_png(variant, position_before, results=results, controllers=controllers, legend=legend or None,
                      size=size)


_ID = re.compile(r'\bid="')


def _scoped(svg: str, prefix: str) -> str:
    """``svg`` with every ``id`` prefixed, so that two maps can sit in one HTML page.

    The renderer refers to no id from within the picture (no markers, no ``url(#...)``), so
    renaming them changes nothing drawn.
    """
    return _ID.sub(f'id="{prefix}-', svg)


def season_maps(season: SeasonRecord, *, size: int = DEFAULT_SIZE) -> tuple[str, str]:
    """The SVG maps of a season page: before (with the orders and outcomes) and after."""
    before = render_svg(season.variant, season.before, results=season.results, controllers=season.controllers,
                        legend=season.legend_lines() or None, size=size)
    after = render_svg(season.variant, season.after, size=size)
    return _scoped(before, "before"), _scoped(after, "after")
