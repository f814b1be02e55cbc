"""The map picture as PNG bytes: the SVG of :mod:`bot.render.svg` rasterised by CairoSVG and
written by Pillow.

The rasteriser was chosen by measurement (``benchmarks/bench_render.py --rasterisers``): on the
same pictures CairoSVG took about half the time of resvg-py (74 against 118 ms for a whole
picture drawn as vectors; 27 against 54 ms for 300 circles), and resvg-py takes 65 ms to place
one pre-drawn layer where CairoSVG paints a surface it keeps. What never changes for a variant
(the ground, the lines, the labels) is drawn once per variant and size and kept as pixels;
a picture paints those and draws only the owners' tints, the units, the orders and the legend.
Pillow writes the PNG with a palette (about 13 ms and 115 kB, against 22 ms and 370 kB in full
colour, and CairoSVG's own 36 ms).

CairoSVG needs the cairo library (Debian's ``libcairo2``); nothing imports this module unless it
draws a picture.
"""

from __future__ import annotations

import functools
import io
from typing import Mapping, Sequence

import cairocffi as cairo
from cairosvg.parser import Tree
from cairosvg.surface import PNGSurface
from PIL import Image

from adjudicator.orders import Order
from adjudicator.position import Position
from adjudicator.results import OrderResult
from adjudicator.variant import Variant
from adjudicator.vocab import Power, ProvinceId

from .svg import DEFAULT_SIZE, Layers, _base, layers


COLOURS = 256
"""The picture is written with a palette of this many colours: a third of the bytes of a full-colour
PNG and a third of the time to write, with no difference the eye sees (flat colours, a few
hundred shades of anti-aliasing)."""


class _Onto(PNGSurface):
    """CairoSVG drawing an SVG document onto a surface that already holds a picture."""

    def __init__(self, svg: str, target: cairo.ImageSurface) -> None:
        self._target = target
        super().__init__(Tree(bytestring=svg.encode("utf-8")), None, 96)

    def _create_surface(self, width, height):
        return self._target, self._target.get_width(), self._target.get_height()

    def finish(self) -> None:  # the caller reads the pixels
        pass


def _document(head: str, body: str) -> str:
    return f"{head}{body}</svg>"


@functools.lru_cache(maxsize=8)
def _still_layers(variant_name: str, size: int) -> tuple[cairo.ImageSurface, cairo.ImageSurface, cairo.ImageSurface]:
    """The ground, the lines and the labels of a variant's map, as pixels ``size`` wide."""
    base = _base(variant_name)
    geo = base.geometry
    height = round(size * geo.height / geo.width) + 1
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{height}" '
            f'viewBox="0 0 {geo.width:g} {height * geo.width / size:.3f}">')
    out = []
    for body in (base.ground_svg, base.lines_svg, base.labels_svg):
        surface = cairo.ImageSurface(cairo.FORMAT_ARGB32, size, height)
        _Onto(_document(head, body), surface)
        surface.flush()
        out.append(surface)
    return tuple(out)  # type: ignore[return-value]


def _paint(context: cairo.Context, surface: cairo.ImageSurface) -> None:
    context.set_source_surface(surface, 0, 0)
    context.paint()


def rasterise(picture: Layers) -> bytes:
    """The PNG of a picture drawn by :func:`bot.render.svg.layers`."""
    width, height = picture.size
    ground, lines, labels = _still_layers(picture.variant, width)
    target = cairo.ImageSurface(cairo.FORMAT_ARGB32, width, height)
    context = cairo.Context(target)
    context.set_source_rgb(1, 1, 1)
    context.paint()
    _paint(context, ground)
    if picture.ownership:
        _Onto(_document(picture.head, picture.ownership), target)
    _paint(context, lines)
    _Onto(_document(picture.head, picture.marks + picture.legend), target)
    _paint(context, labels)
    target.flush()
    # cairo keeps premultiplied BGRA in native (little-endian) order; the picture is opaque
    image = Image.frombuffer("RGBA", (width, height), bytes(target.get_data()), "raw", "BGRA", 0, 1).convert("RGB")
    out = io.BytesIO()
    image.quantize(COLOURS, method=Image.Quantize.FASTOCTREE).save(out, "PNG", compress_level=3)
    return out.getvalue()


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
    """The picture :func:`~bot.render.svg.render_svg` draws (same options), as PNG bytes."""
    return rasterise(layers(variant, position, orders=orders, results=results, controllers=controllers,
                            legend=legend, size=size, raster=True))
