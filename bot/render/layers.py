"""What every picture of a map shares, drawn once per map and picture width, and kept on disk
between processes (:mod:`bot.render.cache`): the ground (land, sea, land off the board), the
lines (borders, coasts, rivers, the frame, the strait crossings) and the names, flattened into
the picture every season starts from; each province's shape as an anti-aliased mask; each
name alone (to draw again over an arrow that crosses it); the hatching; and the palette the
pictures are written with.

A season's picture copies the flattened base, pastes the owned provinces tinted and hatched
(:meth:`MapLayers.owned`: each drawn once per owner and kept), and draws its marks on top
(:mod:`bot.render.raster`). Drawn with Pillow (polygons four times larger, then reduced: their
edges come out smooth) and aggdraw (anti-aliased lines).

The base and each land kept are kept in the palette too (8-bit indexed): a picture is put in
the palette only where it was drawn on since (:func:`paste_indexed`), the rest is its land's.
"""

from __future__ import annotations

import functools
import math
import pickle
import threading
import zlib
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import itemgetter

import aggdraw
from PIL import Image, ImageChops, ImageDraw

from adjudicator.variant import Variant, get_variant
from adjudicator.vocab import NEUTRAL, ProvinceId

from . import cache, fonts, palette, sprites
from .geometry import MapGeometry, Ring, geometry_for
from .labels import baseline, text_width
from .layout import HALO, LABEL_SIZE
from .legend import band_height, sample_blocks
from .scene import ARROW_WIDTH, THIN_WIDTH, Line
from .strokes import CROSSING_WIDTH, Canvas, crossing_ends, crossing_line

SUPER = 4
"""Shapes are drawn this many times larger, then reduced: smooth edges."""
HATCH_SPACING = 7.0
HATCH_WIDTH = 1.6
"""Owned land's hatching: lines this far apart and this wide (picture units)."""
SEA_SLANT = 0.2
"""Sea names lean this much (a shear), as maps set water in italics."""

_LINE_STYLES = {   # colour, width in picture units
    "river": (palette.SEA_BORDER, 1.2),
    "border sea": (palette.SEA_BORDER, 1.2),
    "border land": (palette.BORDER, 1.3),
    "coastline": (palette.COAST, 2.2),
    "edge": (palette.FRAME, 1.6),
}


Box = tuple[int, int, int, int]
"""A part of a picture: left, top, right, bottom (pixels)."""


def paste_indexed(image: Image.Image, boxes: Iterable[Box], palette: Image.Image, into: Image.Image,
                  at: tuple[int, int] = (0, 0)) -> None:
    """Put the parts of ``image`` (RGB) in ``boxes`` in ``palette`` and paste them into ``into``
    (8-bit indexed), ``image``'s corner at ``at``: the boxes merged and clipped to the image
    (:func:`merged`), each cropped and put in the palette as ``Image.quantize(palette=palette,
    dither=NONE)`` does, by the same conversion of Pillow's core without its wrappers (a copy of
    the palette, a new image and paste's checks: about 9 µs of the 11 a part costs that way).

    Pillow gives a pixel the entry of the palette nearest the corner of the small cube of colours
    (4 a side) its colour lies in, from a table the palette keeps (filled the first time a colour
    near it comes): its colour alone decides, whatever else the part holds. Pasted into the rest
    of ``image`` in the palette, the parts make the whole of it in the palette."""
    if image.mode != "RGB":
        raise ValueError(f"only an RGB picture is put in the palette, not {image.mode}")
    palette.load()
    source, colours, target = image.im, palette.im, into.im
    whole = (0, 0, *image.size)
    for x0, y0, x1, y1 in merged(boxes, image.size):
        part = source if (x0, y0, x1, y1) == whole else source.crop((x0, y0, x1, y1))
        target.paste(part.convert("P", Image.Dither.NONE, colours), (x0 + at[0], y0 + at[1], x1 + at[0], y1 + at[1]))


QUANTIZE_CALL = 3000
"""What putting a part of a picture in the palette costs beyond its pixels, in pixels, for
:func:`merged`: about 3 µs a part (its crop, conversion and paste, and its merging), some 2,000
pixels at 1.4 ns each; taken a little higher, for fewer parts."""
MERGE_LOOKS = 4
"""How many of the last boxes begun :func:`merged` tries a box with."""


def merged(boxes: Iterable[Box], size: tuple[int, int]) -> list[Box]:
    """``boxes`` merged where one box round two costs less than the two (their pixels, and
    :data:`QUANTIZE_CALL` each), then clipped to a picture of ``size``: from the top down, each
    box joins the first of the last :data:`MERGE_LOOKS` begun that it pays to join, or begins
    one. The 200 marks of a season's picture make a few tens."""
    call = QUANTIZE_CALL
    out: list[tuple[int, int, int, int, int]] = []
    for x0, y0, x1, y1 in sorted(boxes, key=itemgetter(1)):
        cost = (x1 - x0) * (y1 - y0) + call
        i = len(out)
        stop = max(i - MERGE_LOOKS, 0)
        while i > stop:
            i -= 1
            u0, v0, u1, v1, area = out[i]   # v0 <= y0: the boxes come from the top down
            # (not min and max: their calls take three times as long, for every box and those it tries)
            left, right, bottom = x0 if x0 < u0 else u0, x1 if x1 > u1 else u1, y1 if y1 > v1 else v1  # noqa: FURB136
            both = (right - left) * (bottom - v0)
            if both <= cost + area:
                out[i] = (left, v0, right, bottom, both)
                break
        else:
            out.append((x0, y0, x1, y1, cost - call))
    w, h = size
    clipped = [(max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)) for x0, y0, x1, y1, _ in out]
    return [box for box in clipped if box[0] < box[2] and box[1] < box[3]]


_CELL = 64


def _cells(box) -> list[tuple[int, int]]:
    """The cells of a coarse grid over the picture (:data:`_CELL` pixels) that ``box`` meets."""
    return [(cx, cy) for cx in range(int(box[0]) // _CELL, int(box[2]) // _CELL + 1)
            for cy in range(int(box[1]) // _CELL, int(box[3]) // _CELL + 1)]


@dataclass
class MapLayers:
    """A map's shared layers at one width (see the module's docstring)."""

    variant: str
    width: int
    height: int
    """The map's height in pixels; the legend's band lies under it, ``band`` pixels high."""
    band: int
    scale: float
    """Pixels per picture unit."""
    base: Image.Image
    ground: Image.Image
    overlay: Image.Image
    """The lines and the names (RGBA), drawn over the ground (and over owned land)."""
    masks: dict[ProvinceId, tuple[Image.Image, tuple[int, int]]]
    names: dict[ProvinceId, tuple[Image.Image, tuple[int, int]]]
    hatching: dict[int, Image.Image]
    palette: Image.Image
    _owned: dict = field(default_factory=dict, repr=False)
    _lands: OrderedDict = field(default_factory=OrderedDict, repr=False)
    _lands_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _base_indexed: Image.Image | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._grid: dict[tuple[int, int], list[tuple[tuple[int, int, int, int], Image.Image, tuple[int, int]]]] = {}
        for sprite, at in (self.names[pid] for pid in sorted(self.names)):
            box = (at[0], at[1], at[0] + sprite.width, at[1] + sprite.height)
            for cell in _cells(box):
                self._grid.setdefault(cell, []).append((box, sprite, at))

    def names_over(self, boxes) -> list[tuple[Image.Image, tuple[int, int]]]:
        """The names (sprite, where) that meet any of ``boxes`` (left, top, right, bottom pixels)."""
        found: dict[tuple[int, int], tuple[Image.Image, tuple[int, int]]] = {}
        for t in boxes:
            for cell in _cells(t):
                for box, sprite, at in self._grid.get(cell, ()):
                    if at not in found and box[0] < t[2] and t[0] < box[2] and box[1] < t[3] and t[1] < box[3]:
                        found[at] = (sprite, at)
        return list(found.values())


    def owned(self, province: ProvinceId, colour: str, lines: str, lean: int) -> tuple[Image.Image, tuple[int, int], Image.Image]:
        """A province tinted ``colour`` and hatched with ``lines`` leaning ``lean`` (+1: rising to
        the right, -1: to the left), with the lines and names over it: the patch, where it goes,
        and the mask to paste it through."""
        key = (province, colour, lines, lean)
        patch = self._owned.get(key)
        mask, at = self.masks[province]
        if patch is None:
            box = (at[0], at[1], at[0] + mask.width, at[1] + mask.height)
            patch = self.ground.crop(box)
            patch.paste(palette.rgb(colour), (0, 0), mask)
            patch.paste(palette.rgb(lines), (0, 0), ImageChops.multiply(mask, self.hatching[lean].crop(box)))
            patch = patch.convert("RGBA")
            patch.alpha_composite(self.overlay.crop(box))
            patch = patch.convert("RGB")
            self._owned[key] = patch
        return patch, at, mask

    def land(self, owned: Iterable[tuple[ProvinceId, str, str, int]]) -> tuple[Image.Image, Image.Image]:
        """A copy of the base with the provinces ``owned`` (province, tint, hatching, lean: as
        :meth:`owned` takes them) pasted on it, and that land in the map's palette (shared by
        the pictures of that land: not to be drawn on): the base in the palette with only the
        boxes of the provinces pasted put in it (:func:`paste_indexed`: on the Outremer map, a
        fifth of the pixels in 0.5 ms, where the whole land took 1.7). The last
        :data:`LANDS_KEPT` such lands are kept, each with its pixels in the palette: a season's
        picture and the board after it show the same owners, and so do the seasons of a game
        between two autumns."""
        key = tuple(owned)
        with self._lands_lock:
            kept = self._lands.get(key)
            if kept is not None:
                self._lands.move_to_end(key)
        if kept is None:
            land = self.base.copy()
            boxes = []
            for province, colour, lines, lean in key:
                if province in self.masks:
                    patch, at, mask = self.owned(province, colour, lines, lean)
                    land.paste(patch, at, mask)
                    boxes.append((at[0], at[1], at[0] + mask.width, at[1] + mask.height))
            indexed = self._indexed_base().copy()
            paste_indexed(land, boxes, self.palette, indexed)
            kept = land, indexed
            with self._lands_lock:
                self._lands[key] = kept
                while len(self._lands) > LANDS_KEPT:
                    self._lands.popitem(last=False)
        return kept[0].copy(), kept[1]

    def _indexed_base(self) -> Image.Image:
        """The base in the map's palette, made once (the first time, under the lands' lock)."""
        with self._lands_lock:
            if self._base_indexed is None:
                indexed = Image.new("P", self.base.size)
                paste_indexed(self.base, [(0, 0, *self.base.size)], self.palette, indexed)
                self._base_indexed = indexed
            return self._base_indexed


LANDS_KEPT = 2
"""Bases with owned land kept by :meth:`MapLayers.land` (5.4 MB each at 1,000 pixels, and 1.35 MB
in the palette): the one a season's picture was drawn on, for the board after it, and one more."""

BLOCKS_KEPT = 4
"""Memory blocks Pillow keeps for its next images once they are freed (``PILLOW_BLOCKS_MAX``,
unless set higher: Pillow keeps none by default). A picture copies a base of 5.4 MB (at 1,000
pixels); with no block kept, each copy is memory the kernel maps afresh and faults in page by
page, about 1 ms a copy, once kept land makes a picture's copies outlive each other. At most
about 22 MB (four such blocks) kept between pictures."""
if Image.core.get_blocks_max() < BLOCKS_KEPT:
    Image.core.set_blocks_max(BLOCKS_KEPT)


def _even_rings(rings: tuple[Ring, ...]) -> list[tuple[Ring, bool]]:
    """The rings of a shape, largest first, each with whether it is filled (an outer ring) or
    cut out (a hole): holes wind the other way from the largest ring."""
    def signed(ring: Ring) -> float:
        return sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(ring, ring[1:] + ring[:1])) / 2

    areas = [(abs(signed(r)), signed(r) > 0, r) for r in rings]
    areas.sort(key=lambda a: -a[0])
    outer = areas[0][1] if areas else True
    return [(r, sign == outer) for _, sign, r in areas]


def _mask(rings: tuple[Ring, ...], scale: float, width: int, height: int) -> tuple[Image.Image, tuple[int, int]] | None:
    """A shape as an anti-aliased mask of its box (clipped to the picture), and the box's corner."""
    xs = [x for ring in rings for x, _ in ring]
    ys = [y for ring in rings for _, y in ring]
    x0, y0 = max(0, math.floor(min(xs) * scale) - 1), max(0, math.floor(min(ys) * scale) - 1)
    x1, y1 = min(width, math.ceil(max(xs) * scale) + 2), min(height, math.ceil(max(ys) * scale) + 2)
    if x1 <= x0 or y1 <= y0:
        return None
    big = Image.new("L", ((x1 - x0) * SUPER, (y1 - y0) * SUPER), 0)
    draw = ImageDraw.Draw(big)
    for ring, filled in _even_rings(rings):
        draw.polygon([((x * scale - x0) * SUPER, (y * scale - y0) * SUPER) for x, y in ring], fill=255 if filled else 0)
    return big.reduce(SUPER), (x0, y0)


def straight_alpha(image: Image.Image) -> Image.Image:
    """An RGBA image aggdraw drew on (its colours premultiplied by their alpha) as Pillow reads RGBA."""
    return Image.frombytes("RGBa", image.size, image.tobytes()).convert("RGBA")


def _lines(variant: Variant, geo: MapGeometry, overlay: Image.Image, scale: float) -> None:
    draw = aggdraw.Draw(overlay)
    strokes: dict[str, list] = {k: [] for k in _LINE_STYLES}
    strokes["edge"] += list(geo.edge)
    strokes["coastline"] += list(geo.shores)
    strokes["border sea"] += list(geo.sea_edges)
    strokes["river"] += list(geo.rivers)
    for a, b, line in geo.borders:
        sea_a, sea_b = variant.provinces[a].is_sea, variant.provinces[b].is_sea
        kind = "border sea" if sea_a and sea_b else "coastline" if sea_a or sea_b else "border land"
        strokes[kind].append(line)
    for kind in ("river", "border sea", "border land", "coastline", "edge"):
        colour, width = _LINE_STYLES[kind]
        pen = aggdraw.Pen(colour, width * scale)
        for line in strokes[kind]:
            draw.line([v * scale for point in line for v in point], pen)
    casing = aggdraw.Pen(palette.HALO, (CROSSING_WIDTH + 3) * scale)
    ink = aggdraw.Pen(palette.INK, CROSSING_WIDTH * scale)
    for _, _, p, q in geo.crossings:
        p, q = crossing_line(p, q)
        draw.line([v * scale for v in (*p, *q)], casing)
        for a, b in [(p, q), *crossing_ends(p, q)]:
            draw.line([v * scale for v in (*a, *b)], ink)
    w, h = overlay.size
    draw.rectangle((1.5 * scale, 1.5 * scale, w - 1.5 * scale, h - 1.5 * scale), aggdraw.Pen(palette.FRAME, 3 * scale))
    draw.flush()


def name_sprite(text: str, colour: str, scale: float, *, slant: float = 0.0) -> tuple[Image.Image, float, float]:
    """A province's name with its halo, as an RGBA sprite, and the point in it where its middle
    meets its baseline."""
    size = LABEL_SIZE * scale
    halo = max(1, round(HALO * scale))
    width = math.ceil(text_width(text, size) + 2 * halo + 4 + abs(slant) * size)
    height = math.ceil(1.4 * size + 2 * halo)
    sprite = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    middle, base = width / 2, halo + 1.05 * size     # room above the baseline for the tallest letter
    ImageDraw.Draw(sprite).text((middle, base), text, font=fonts.font(size), fill=colour, anchor="ms",
                                stroke_width=halo, stroke_fill=palette.HALO)
    if slant:   # leaning about the baseline
        sprite = sprite.transform(sprite.size, Image.Transform.AFFINE, (1, slant, -slant * base, 0, 1, 0),
                                  resample=Image.Resampling.BICUBIC)
    return sprite, middle, base


def _draw(variant: Variant, width: int) -> MapLayers:
    geo = geometry_for(variant.name)
    scale = width / geo.width
    height = round(geo.height * scale)
    ground = Image.new("RGB", (width, height), palette.SEA)
    masks = {}
    for pid, rings in sorted(geo.cells.items()):
        made = _mask(rings, scale, width, height)
        if made is None:
            continue
        masks[pid] = made
        if not variant.provinces[pid].is_sea:
            ground.paste(palette.rgb(palette.LAND), made[1], made[0])
    for rings, colour in ((geo.off_map, palette.OFF_MAP), (geo.water, palette.SEA)):
        if rings:
            made = _mask(rings, scale, width, height)
            if made is not None:
                ground.paste(palette.rgb(colour), made[1], made[0])
    overlay = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    _lines(variant, geo, overlay, scale)
    overlay = straight_alpha(overlay)
    names = {}
    for pid, place in sorted((geo.places or {}).items()):
        sea = variant.provinces[pid].is_sea
        sprite, middle, base = name_sprite(place.label_text, palette.SEA_LABEL if sea else palette.LAND_LABEL,
                                           scale, slant=SEA_SLANT if sea else 0.0)
        at = (round(place.label[0] * scale - middle), round(baseline(place.label[1]) * scale - base))
        names[pid] = (sprite, at)
        overlay.alpha_composite(sprite, (max(0, at[0]), max(0, at[1])),
                                (max(0, -at[0]), max(0, -at[1])))
    hatching = {lean: _hatching(width, height, scale, lean) for lean in (1, -1)}
    band = band_height(variant.name, width)
    composed = Image.new("RGBA", (width, height + band), palette.LEGEND_BG)
    composed.paste(ground, (0, 0))
    composed.alpha_composite(overlay, (0, 0))
    picture = composed.convert("RGB")
    ImageDraw.Draw(picture).line((0, height, width, height), fill=palette.FRAME, width=max(1, round(2 * scale)))
    return MapLayers(variant.name, width, height, band, scale, picture, ground, overlay, masks, names, hatching,
                     Image.new("P", (1, 1)))


def _hatching(width: int, height: int, scale: float, lean: int) -> Image.Image:
    """Parallel lines over the whole map at 45 degrees: one grid for every province, so that the
    lines run on across a border between two provinces of one owner."""
    image = Image.new("L", (width, height), 0)
    draw = aggdraw.Draw(image)
    pen = aggdraw.Pen(255, HATCH_WIDTH * scale)
    step = HATCH_SPACING * math.sqrt(2) * scale
    k: float = -height
    while k < width + height:
        x = k
        if lean > 0:     # rising to the right (y down)
            draw.line((x, height, x + height, 0), pen)
        else:
            draw.line((x, 0, x + height, height), pen)
        k += step
    draw.flush()
    return image


def sample_palette(variant: Variant, layers: MapLayers) -> Image.Image:
    """The palette of a map's pictures: 256 colours chosen from a picture of everything they
    may show (the base, every power's land, units, lines, dots and tags, the legend's text)."""

    s = layers.scale
    sample = layers.base.copy()
    provinces = [p for p in sorted(layers.masks) if not variant.provinces[p].is_sea]
    powers = list(variant.powers)
    angles = palette.hatch_leans(variant)
    for i, province in enumerate(provinces):
        owner = powers[i % len(powers)]
        colour = palette.power_colour(variant, owner)
        patch, at, mask = layers.owned(province, palette.owned_tint(colour), palette.hatch_colour(colour),
                                       angles.get(owner, 1))
        sample.paste(patch, at, mask)
    canvas = Canvas(sample, s)
    w, h = layers.width / s, layers.height / s
    colours = [palette.power_colour(variant, p) for p in powers] + [palette.NEUTRAL]
    patterns = palette.patterns(variant)
    for i, colour in enumerate(colours):
        y = h * (i + 1) / (len(colours) + 2)
        canvas.line(Line("move", ((w * 0.05, y), (w * 0.95, y + 40)), colour, ARROW_WIDTH, head=True))
        canvas.line(Line("support", ((w * 0.1, y + 15), (w * 0.9, y - 30)), colour, THIN_WIDTH, end=True))
        for j, fleet in enumerate((False, True)):
            power = powers[i] if i < len(powers) else NEUTRAL
            sprites.paste(sample, sprites.unit(colour, patterns.get(power, "plain"), fleet, s),
                          (w * (0.2 + 0.1 * j), y), s)
        sprites.paste(sample, sprites.dot(colour, True, s), (w * 0.5, y), s)
        sprites.paste(sample, sprites.tag("bribe", colour, 3, False, s), (w * 0.6, y), s)
    blocks = [sprites.sheet(sprites.prepare(variant, s), layers.width)] + sample_blocks(variant, layers.width)
    both = Image.new("RGB", (sample.width, sample.height + sum(b.height for b in blocks)))
    both.paste(sample, (0, 0))
    y = sample.height
    for block in blocks:
        both.paste(block, (0, y))
        y += block.height
    exact = _flat_colours(variant)
    quantized = both.quantize(256 - len(exact), method=Image.Quantize.FASTOCTREE).getpalette()
    assert quantized is not None  # (a quantized picture has a palette)
    found = quantized[:3 * (256 - len(exact))]
    entries = [c for colour in exact for c in palette.rgb(colour)] + found
    out = Image.new("P", (1, 1))
    out.putpalette(entries + [0] * (768 - len(entries)))
    out.load()   # the colours handed to Pillow's core now: the threads that draw pictures only read them
    return out


def _flat_colours(variant: Variant) -> list[str]:
    """The colours a picture paints flat (ground, lines, each power's own, tint and hatching):
    exact entries of the palette, so that no flat area shifts colour when written."""
    colours = [palette.LAND, palette.SEA, palette.OFF_MAP, palette.SEA_LABEL, palette.LAND_LABEL, palette.BORDER,
               palette.SEA_BORDER, palette.COAST, palette.FRAME, palette.INK, palette.NEUTRAL, palette.HALO,
               palette.DISLODGED, palette.LEGEND_BG, "#FFFFFF"]
    for power in variant.powers:
        colour = palette.power_colour(variant, power)
        colours += [colour, palette.owned_tint(colour), palette.hatch_colour(colour),
                    palette.mix(colour, "#FFFFFF", 0.55)]
    return list(dict.fromkeys(c.upper() for c in colours))


# -- kept between processes -------------------------------------------------------------------


def _pack(layers: MapLayers) -> bytes:
    def image(im: Image.Image) -> tuple:
        return im.mode, im.size, zlib.compress(im.tobytes(), 1)

    doc = {
        "variant": layers.variant, "width": layers.width, "height": layers.height, "band": layers.band,
        "scale": layers.scale,
        "base": image(layers.base), "ground": image(layers.ground), "overlay": image(layers.overlay),
        "masks": {k: (image(m), at) for k, (m, at) in layers.masks.items()},
        "names": {k: (image(m), at) for k, (m, at) in layers.names.items()},
        "hatching": {k: image(m) for k, m in layers.hatching.items()},
        "palette": layers.palette.getpalette(),
        "sprites": sprites.kept(layers.scale),
    }
    return pickle.dumps(doc, protocol=pickle.HIGHEST_PROTOCOL)


def _unpack(data: bytes) -> MapLayers:
    doc = pickle.loads(data)

    def image(entry) -> Image.Image:
        mode, size, raw = entry
        return Image.frombytes(mode, size, zlib.decompress(raw))

    pal = Image.new("P", (1, 1))
    pal.putpalette(doc["palette"])
    pal.load()   # (as sample_palette does)
    sprites.keep(doc["sprites"])
    return MapLayers(doc["variant"], doc["width"], doc["height"], doc["band"], doc["scale"], image(doc["base"]),
                     image(doc["ground"]), image(doc["overlay"]),
                     {k: (image(m), tuple(at)) for k, (m, at) in doc["masks"].items()},
                     {k: (image(m), tuple(at)) for k, (m, at) in doc["names"].items()},
                     {k: image(m) for k, m in doc["hatching"].items()}, pal)


@functools.lru_cache(maxsize=8)
def map_layers(variant_name: str, width: int) -> MapLayers:
    """A map's shared layers at ``width`` pixels: drawn once per process, and kept on disk
    between processes (:mod:`bot.render.cache`)."""
    variant = get_variant(variant_name)
    name = cache.entry_name(variant.name, f"layers-{width}", fonts.identity(), Image.__version__,
                            getattr(aggdraw, "VERSION", "aggdraw"))
    data = cache.load(name)
    if data is not None:
        try:
            return _unpack(data)
        except Exception:  # noqa: BLE001, S110 (an entry from elsewhere or damaged: drawn afresh and written again)
            pass
    layers = _draw(variant, width)
    layers.palette = sample_palette(variant, layers)
    cache.store(name, _pack(layers))
    return layers


__all__ = ["MapLayers", "map_layers", "name_sprite", "sample_palette", "straight_alpha"]
