"""The map picture as PNG bytes: the SVG of :mod:`bot.render.svg` rasterised by CairoSVG and
written by Pillow.

The rasteriser was chosen by measurement (``benchmarks/bench_render.py --rasterisers``): on the
same pictures CairoSVG took about half the time of resvg-py (74 against 118 ms for a whole
picture drawn as vectors; 27 against 54 ms for 300 circles), and resvg-py takes 65 ms to place
one pre-drawn layer where CairoSVG paints a surface it keeps. What never changes for a variant
(the ground, the lines, the labels) is drawn once per variant and size and kept as pixels, and
so is each province's shape and hatching as an alpha mask (drawn with cairo directly the first
time an owner needs it); a picture paints those, tints the owned land through the masks, and
draws only the units, the orders and the legend as SVG.
Pillow writes the PNG with a palette (about 13 ms and 115 kB, against 22 ms and 370 kB in full
colour, and CairoSVG's own 36 ms).

CairoSVG needs the cairo library (Debian's ``libcairo2``); nothing imports this module unless it
draws a picture.
"""

from __future__ import annotations

import functools
import io
import math
import struct
import zlib
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

from . import cache
from .svg import DEFAULT_SIZE, HATCH_SPACING, HATCH_WIDTH, Layers, _base, layers


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
    """The ground, the lines and the labels of a variant's map, as pixels ``size`` wide: drawn
    once per process, and kept on disk between processes (:mod:`bot.render.cache`)."""
    import cairosvg

    name = cache.entry_name(variant_name, f"layers-{size}", cairo.cairo_version_string(), cairosvg.__version__)
    data = cache.load(name)
    if data is not None:
        try:
            return _unpack(data)
        except (ValueError, zlib.error, struct.error):
            pass
    layers = _draw_still_layers(variant_name, size)
    cache.store(name, _pack(layers))
    return layers


def _pack(surfaces: Sequence[cairo.ImageSurface]) -> bytes:
    out = [struct.pack("<I", len(surfaces))]
    for surface in surfaces:
        surface.flush()
        pixels = zlib.compress(bytes(surface.get_data()), 1)
        out.append(struct.pack("<IIII", surface.get_width(), surface.get_height(), surface.get_stride(), len(pixels)))
        out.append(pixels)
    return b"".join(out)


def _unpack(data: bytes) -> tuple:
    (count,), at = struct.unpack_from("<I", data), 4
    surfaces = []
    for _ in range(count):
        width, height, stride, length = struct.unpack_from("<IIII", data, at)
        at += 16
        pixels = bytearray(zlib.decompress(data[at:at + length]))
        at += length
        if len(pixels) != stride * height:
            raise ValueError("a damaged entry")
        surface = cairo.ImageSurface.create_for_data(pixels, cairo.FORMAT_ARGB32, width, height, stride)
        surface.mark_dirty()
        surfaces.append(surface)
    return tuple(surfaces)


def _draw_still_layers(variant_name: str, size: int) -> tuple[cairo.ImageSurface, cairo.ImageSurface, cairo.ImageSurface]:
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


class _Masks:
    """Each province's shape as an alpha mask of the province's box at one picture size, drawn
    with cairo the first time a picture needs it, and each owner's hatching as a repeated tile: a
    picture paints an owner's tint and hatching through the masks, where drawing the shapes as
    SVG paths took most of a picture's time."""

    def __init__(self, variant_name: str, size: int) -> None:
        base = _base(variant_name)
        self.geometry = base.geometry
        self.scale = size / self.geometry.width
        self._masks: dict[tuple, object] = {}

    def _surface(self, pid) -> tuple[cairo.ImageSurface, cairo.Context, int, int]:
        rings = self.geometry.cells[pid]
        s = self.scale
        xs = [x for ring in rings for x, _ in ring]
        ys = [y for ring in rings for _, y in ring]
        x0, y0 = math.floor(min(xs) * s) - 2, math.floor(min(ys) * s) - 2
        width, height = math.ceil(max(xs) * s) + 2 - x0, math.ceil(max(ys) * s) + 2 - y0
        surface = cairo.ImageSurface(cairo.FORMAT_A8, width, height)
        context = cairo.Context(surface)
        context.translate(-x0, -y0)
        context.scale(s, s)
        for ring in rings:  # outer rings and holes wound opposite ways: the nonzero rule, as the SVG
            context.move_to(*ring[0])
            for point in ring[1:]:
                context.line_to(*point)
            context.close_path()
        return surface, context, x0, y0

    def shape(self, pid) -> tuple[cairo.ImageSurface, int, int]:
        key = (pid,)
        if key not in self._masks:
            surface, context, x0, y0 = self._surface(pid)
            context.fill()
            surface.flush()
            self._masks[key] = (surface, x0, y0)
        return self._masks[key]

    def hatching(self, colour: str, angle: float) -> cairo.SurfacePattern:
        """The owner's hatching as a pattern repeated over the whole picture (so that the lines
        run on from one province to the next): a tile a line's period wide and high, with the
        line across it corner to corner."""
        key = (colour, angle)
        if key not in self._masks:
            period = max(4, round(HATCH_SPACING * math.sqrt(2) * self.scale))
            tile = cairo.ImageSurface(cairo.FORMAT_ARGB32, period, period)
            context = cairo.Context(tile)
            context.set_source_rgb(*_rgb(colour))
            context.set_line_width(HATCH_WIDTH * self.scale)
            for shift in (-period, 0, period):  # the line and the ends of its neighbours in the corners
                if angle >= 0:   # rising to the right (y down)
                    context.move_to(shift, period)
                    context.line_to(shift + period, 0)
                else:
                    context.move_to(shift, 0)
                    context.line_to(shift + period, period)
            context.stroke()
            tile.flush()
            pattern = cairo.SurfacePattern(tile)
            pattern.set_extend(cairo.EXTEND_REPEAT)
            self._masks[key] = pattern
        return self._masks[key]


@functools.lru_cache(maxsize=8)
def _masks(variant_name: str, size: int) -> _Masks:
    return _Masks(variant_name, size)


def _rgb(colour: str) -> tuple[float, float, float]:
    c = colour.lstrip("#")
    return int(c[0:2], 16) / 255, int(c[2:4], 16) / 255, int(c[4:6], 16) / 255


def _tint(context: cairo.Context, picture: Layers) -> None:
    """The owners' tints and hatching, painted through the provinces' masks."""
    masks = _masks(picture.variant, picture.size[0])
    for owned in picture.owned:
        surface, x, y = masks.shape(owned.province)
        context.set_source_rgb(*_rgb(owned.tint))
        context.mask_surface(surface, x, y)
        context.set_source(masks.hatching(owned.lines, owned.angle))
        context.mask_surface(surface, x, y)


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
    _tint(context, picture)
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
