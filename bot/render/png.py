"""The map picture as PNG bytes, through CairoSVG."""

from __future__ import annotations

import cairosvg

from typing import Mapping, Sequence

from adjudicator.orders import Order
from adjudicator.position import Position
from adjudicator.results import OrderResult
from adjudicator.variant import Variant
from adjudicator.vocab import Power, ProvinceId

from .svg import DEFAULT_SIZE, _render


def render_png(
    variant: Variant | str,
    position: Position,
    *,
    orders: Sequence[Order] | None = None,
    results: Sequence[OrderResult] | None = None,
    controllers: Mapping[ProvinceId, Power] | None = None,
    legend: Sequence[str] | None = None,
    size: int = DEFAULT_SIZE,
) -> bytes:
    """The picture :func:`~bot.render.svg.render_svg` draws (same options), as PNG bytes.

    The map's unchanging layers (province shapes, labels) are rasterised once per variant and
    size and embedded as images, so that a render costs only the units and orders.
    """
    svg = _render(variant, position, orders=orders, results=results, controllers=controllers,
                  legend=legend, size=size, raster=True)
    return cairosvg.svg2png(bytestring=svg.encode("utf-8"))
