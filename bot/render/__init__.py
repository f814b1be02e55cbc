"""Map pictures: pure functions from a position (and its orders, or a season's adjudication) to
a PNG.

:mod:`bot.render.season` draws the pictures the judge sends (a season with its outcome, a
player's own orders, the board); ``render_png(variant, position, *, orders=None, size=...)``
draws a board with orders. Importing this package imports nothing that draws: the drawing
code (Pillow, aggdraw) is loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .layout import DEFAULT_SIZE

if TYPE_CHECKING:
    from .season import render_png

__all__ = ["DEFAULT_SIZE", "render_png"]


def __getattr__(name: str) -> Any:
    if name == "render_png":
        from .season import render_png

        return render_png
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
