"""A picture is written with only the parts of it drawn on since its land put in the map's palette
(:func:`bot.render.raster.png`, :func:`bot.render.layers.paste_indexed`); the rest is its land's,
kept in the palette. Its PNG is, byte for byte, the one of the whole picture put in the palette:
for the classic map's opening and every season of a game on the Outremer map (the season's
picture, the board after it, and orders drawn on the board before it), at two widths, on land
drawn afresh and on land kept, and with pictures drawn in threads at once."""

from __future__ import annotations

import io
import json
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

import pytest
from PIL import Image

from benchmarks.bench_render import season as classic_opening
from bot.codec.season import season_from_document
from bot.render import season as pictures
from bot.render.layers import MapLayers, map_layers, merged
from bot.render.raster import Drawn, png

EXPORT = Path(__file__).resolve().parents[2] / "tests" / "data" / "exports" / "crusader-three-years.json"


@pytest.fixture(scope="module")
def seasons():
    """(name, variant, position, adjudication): the classic map's opening with 22 orders, and
    each season of a game of three years on the Outremer map."""
    doc = json.loads(EXPORT.read_text())
    found = [(s["phase"], season_from_document(s, "three years")) for s in doc["seasons"]]
    return [("opening", *classic_opening())] + [(phase, s.variant, s.position, s.adjudication) for phase, s in found]


def _pictures(name, variant, position, adjudication, size):
    """How a season's pictures are drawn: its own, the board after it, and its orders as a
    player's standing orders on the board before it."""
    orders = [result.order for result in adjudication.results]
    return [partial(pictures.season_picture, variant, position, adjudication, game=name, size=size),
            partial(pictures.render_png, variant, adjudication.position, game=name, size=size),
            partial(pictures.orders_picture, variant, position, orders, game=name, size=size)]


def _in_the_palette(image, layers) -> bytes:
    return image.quantize(palette=layers.palette, dither=Image.Dither.NONE).tobytes()


@pytest.fixture
def written(monkeypatch):
    """Every picture, as it is written, checked against the whole of it put in the palette, and
    every land, before it is drawn on, against the whole land in the palette; the list of the
    lands in the palette that the pictures written were drawn on."""
    lands = []
    land = MapLayers.land

    def writing(picture, layers):
        data = png(picture, layers)
        assert data == png(Drawn.whole(picture.image), layers)   # the whole picture, one box
        assert data == png(picture.image, layers)
        written_back = Image.open(io.BytesIO(data))
        assert written_back.mode == "P" and written_back.getpalette() == layers.palette.getpalette()
        assert written_back.tobytes() == _in_the_palette(picture.image, layers)
        assert 0 < len(merged(picture.boxes, picture.image.size)) <= 60     # a few tens of parts, at most
        lands.append(picture.land)
        return data

    def landing(self, owned):
        image, indexed = land(self, owned)
        assert indexed.size == image.size and indexed.tobytes() == _in_the_palette(image, self)
        return image, indexed

    monkeypatch.setattr(pictures, "png", writing)
    monkeypatch.setattr(MapLayers, "land", landing)
    return lands


@pytest.mark.parametrize("size", [1000, 550])
def test_a_picture_written_from_what_was_drawn_on_its_land_is_the_whole_picture_in_the_palette(seasons, written,
                                                                                                size):
    for name, variant, position, adjudication in seasons:
        layers = map_layers(variant.name, size)
        for draw in _pictures(name, variant, position, adjudication, size):
            layers._lands.clear()
            afresh = draw()
            assert draw() == afresh      # again, on the land kept
            assert written[-1] is written[-2] is not None   # the land in the palette, kept with the land
    assert len(written) == 2 * 3 * len(seasons)


def test_finished_pixels_alone_are_one_box_drawn_on_no_land(seasons):
    """A picture decoded (or drawn elsewhere) is written whole: its land nothing, its box the picture."""
    name, variant, position, adjudication = seasons[-1]
    data = pictures.season_picture(variant, position, adjudication, game=name, size=550)
    pixels = Image.open(io.BytesIO(data)).convert("RGB")
    layers = map_layers(variant.name, 550)
    assert Drawn.whole(pixels) == Drawn(pixels, None, [(0, 0, pixels.width, pixels.height)])
    again = png(pixels, layers)
    assert again == png(Drawn.whole(pixels), layers)
    assert Image.open(io.BytesIO(again)).tobytes() == _in_the_palette(pixels, layers)


def test_pictures_drawn_in_threads_at_once_are_those_drawn_one_by_one(seasons):
    draws = [draw for name, variant, position, adjudication in seasons
             for draw in _pictures(name, variant, position, adjudication, 550)[:2]]
    one_by_one = [draw() for draw in draws]
    with ThreadPoolExecutor(4) as pool:    # lands drawn, kept and let go while others draw on theirs
        at_once = list(pool.map(lambda draw: draw(), draws + draws[::-1]))
    assert at_once == one_by_one + one_by_one[::-1]


def test_merged_boxes_hold_every_box_within_the_picture():
    boxes = [(-5, -5, 10, 10), (12, 0, 20, 8), (500, 500, 520, 530), (990, 990, 1010, 1010), (2000, 5, 2010, 9),
             (0, 100, 1000, 130)]
    found = merged(boxes, (1000, 1000))
    assert all(0 <= x0 < x1 <= 1000 and 0 <= y0 < y1 <= 1000 for x0, y0, x1, y1 in found)
    for x0, y0, x1, y1 in boxes:
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, 1000), min(y1, 1000)
        if x0 < x1 and y0 < y1:
            assert any(a <= x0 and b <= y0 and x1 <= c and y1 <= d for a, b, c, d in found), (x0, y0, x1, y1)
    assert len(found) < len(boxes)    # the two boxes close together, one
