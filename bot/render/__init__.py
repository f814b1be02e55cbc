"""Map pictures: a pure function from a position (and optional orders and results) to SVG.

``render_svg(variant, position, *, orders=None, results=None, controllers=None, legend=None,
size=800) -> str`` and ``render_png(...) -> bytes`` (the same arguments). Both maps are drawn
from their data (see :mod:`bot.render.geometry`); the shapes are computed once per variant.
"""

from .geometry import MapGeometry, geometry_for
from .png import render_png
from .svg import DEFAULT_SIZE, render_svg

__all__ = ["DEFAULT_SIZE", "MapGeometry", "geometry_for", "render_png", "render_svg"]
