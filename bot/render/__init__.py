"""Map pictures: pure functions from a position (and optional orders and results) to a picture.

``render_svg(variant, position, *, orders=None, results=None, controllers=None, legend=None,
size=1000) -> str`` and ``render_png(...) -> bytes`` (the same arguments);
:mod:`bot.render.season` draws the pictures the judge sends (a season with its orders and
outcomes, a player's own orders). Both maps are drawn from their committed drawn maps, real
geography (see :mod:`bot.render.geometry`). The PNG side needs CairoSVG and Pillow and is
imported only when a picture is drawn: ``render_png`` and the season pictures are loaded on
first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .geometry import MapGeometry, geometry_for
from .svg import DEFAULT_SIZE, render_svg

if TYPE_CHECKING:
    from .png import render_png

__all__ = ["DEFAULT_SIZE", "MapGeometry", "geometry_for", "render_png", "render_svg"]


def __getattr__(name: str) -> Any:
    if name == "render_png":
        from .png import render_png

        return render_png
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
