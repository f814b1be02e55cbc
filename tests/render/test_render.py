"""The season pictures: what each draws (the scene, as values), what its legend says, and a look
at the pixels, for both maps, in seasons adjudicated by the engine: a movement with every kind
of order, an autumn that changes centres' owners, a retreat (chosen and at random), a winter with
builds, and a season with every prestige order."""

from __future__ import annotations

import io
import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image

from adjudicator.adjudicate import adjudicate
from adjudicator.opening import starting_position
from adjudicator.orders import Build, Convoy, Disband, Hold, Move, Retreat, SupportHold, SupportMove
from adjudicator.prestige.orders import Bribe, Lend, Rebel, SecureLoyalty, SeizeFief, Vassal
from adjudicator.variant import get_variant
from adjudicator.vocab import NEUTRAL, Location, Phase, Power, ProvinceId, Unit, UnitType
from adjudicator.prestige.state import put_state, state_of
from bot.render import DEFAULT_SIZE, palette, sprites
from bot.render.facts import FAILED, INVALID, PENDING, RANDOM, SUCCEEDED, board_facts, season_facts
from bot.render.geometry import geometry_for
from bot.render.legend import KEY, legend_words
from bot.render.scene import Badge, Dot, Line, Outcome, Ring, Tag, Token, scene
from bot.render.season import draw, orders_picture, render_png, season_picture

ROOT = Path(__file__).resolve().parents[2]
A, F = UnitType.ARMY, UnitType.FLEET
L = Location.parse
FRA, GER, ENG, ITA, RUS, AUS, TUR = (Power(p) for p in ("FRA", "GER", "ENG", "ITA", "RUS", "AUS", "TUR"))
RUM, JER, BYZ, ANT, FAT = (Power(p) for p in ("RUM", "JER", "BYZ", "ANT", "FAT"))


@pytest.fixture(scope="module")
def standard():
    return get_variant("standard")


@pytest.fixture(scope="module")
def crusader():
    return get_variant("crusader")


def marks(variant, facts, kind=None):
    out = scene(variant, geometry_for(variant.name), facts).marks
    return [m for m in out if kind is None or isinstance(m, kind)]


def places(variant):
    return geometry_for(variant.name).places


# -- a movement phase ------------------------------------------------------------------------

SPRING = [
    Move(FRA, A, L("par"), L("bur")), SupportMove(FRA, A, L("mar"), A, L("par"), L("bur")),
    Move(GER, A, L("mun"), L("bur")), Hold(GER, A, L("ber")), SupportHold(GER, F, L("kie"), A, L("ber")),
    Move(ENG, A, L("yor"), L("nwy"), True), Convoy(ENG, F, L("nth"), A, L("yor"), L("nwy")),
    Move(ENG, F, L("lon"), L("eng")), Move(RUS, F, L("stp/sc"), L("bot")), Move(ITA, A, L("ven"), L("tri")),
    Move(AUS, F, L("tri"), L("ven")), Move(TUR, A, L("con"), L("mos")),
]


@pytest.fixture(scope="module")
def spring(standard):
    """Spring 1901 with England's fleet already in the North Sea (a convoy to draw)."""
    start = starting_position(standard)
    units = tuple(u for u in start.units if u.province not in ("edi", "lvp")) + (Unit(ENG, F, L("nth")),
                                                                                Unit(ENG, A, L("yor")))
    position = start.with_changes(units=units)
    return position, adjudicate(standard, position, SPRING)


def test_every_unit_and_centre_is_drawn_where_the_map_puts_them(standard, crusader):
    for variant in (standard, crusader):
        position = starting_position(variant)
        facts = board_facts(variant, position)
        tokens = marks(variant, facts, Token)
        assert sorted((t.power, str(t.type), t.at) for t in tokens) == sorted(
            (u.power, str(u.type), geometry_for(variant.name).anchor(u.location)) for u in position.units)
        dots = marks(variant, facts, Dot)
        assert sorted(d.province for d in dots) == sorted(variant.supply_centers)
        for d in dots:
            assert d.at == places(variant)[d.province].centre
            owner = position.supply_centers.get(d.province)
            assert d.owner == (None if owner in (None, NEUTRAL) else owner)


def test_every_order_is_drawn_with_its_outcome(standard, spring):
    position, adjudication = spring
    facts = season_facts(standard, position, adjudication)
    assert {d.order: d.status for d in facts.orders} == {
        r.order: {"succeeds": SUCCEEDED, "fails": FAILED, "invalid": INVALID}[r.outcome.value]
        for r in adjudication.results}
    lines = marks(standard, facts, Line)
    moves = [m for m in lines if m.kind == "move"]
    assert len(moves) == sum(isinstance(o, Move) for o in SPRING)
    crosses = [m.at for m in marks(standard, facts, Outcome) if m.kind == "cross"]
    for line in moves:   # a failed move has a cross at its head, one that went none
        assert (line.points[-1] in crosses) == (line.status == FAILED)
        assert line.colour in {info.colour for info in standard.powers.values()}   # its power's colour
    nos = [m for m in marks(standard, facts, Outcome) if m.kind == "no"]
    assert len(nos) == sum(d.status == INVALID for d in facts.orders) == 1   # A con - mos
    assert sum(1 for m in lines if m.kind == "support") == 2 and sum(1 for m in lines if m.kind == "convoy") == 1
    assert {m.kind for m in marks(standard, facts, Ring)} >= {"hold", "support", "convoy"}


def test_orders_not_yet_adjudicated_are_drawn_plain(standard):
    facts = board_facts(standard, starting_position(standard), SPRING)
    assert {m.status for m in marks(standard, facts, Line)} == {PENDING}
    assert not marks(standard, facts, Outcome)


def test_a_support_ends_on_the_arrow_it_supports(standard, spring):
    facts = season_facts(standard, *spring)
    lines = marks(standard, facts, Line)
    (move,) = [m for m in lines if m.kind == "move" and m.colour == standard.powers[FRA].colour]
    support = next(m for m in lines if m.kind == "support" and m.colour == standard.powers[FRA].colour)
    (x1, y1), (x2, y2) = move.points
    px, py = support.points[-1]
    cross = abs((x2 - x1) * (py - y1) - (y2 - y1) * (px - x1)) / math.dist(move.points[0], move.points[1])
    assert cross < 0.5 and min(x1, x2) <= px <= max(x1, x2)


def test_the_arrows_of_a_head_to_head_stand_apart(standard, spring):
    facts = season_facts(standard, *spring)
    ven, tri = (next(m for m in marks(standard, facts, Line) if m.kind == "move" and m.colour == standard.powers[p].colour)
                for p in (ITA, AUS))
    gap = min(math.dist(a, b) for a in ven.points for b in tri.points)
    assert gap >= 8      # two arrows, each to its own right, not one arrow with two heads


def test_the_units_a_movement_dislodged_are_marked(standard):
    position = starting_position(standard).with_changes(units=(
        Unit(GER, A, L("mun")), Unit(AUS, A, L("boh")), Unit(AUS, A, L("tyr")), Unit(FRA, A, L("par"))))
    orders = [Move(AUS, A, L("boh"), L("mun")), SupportMove(AUS, A, L("tyr"), A, L("boh"), L("mun"))]
    adjudication = adjudicate(standard, position, orders)
    facts = season_facts(standard, position, adjudication)
    assert facts.dislodged == {ProvinceId("mun")}
    [ring] = [m for m in marks(standard, facts, Ring) if m.kind == "dislodged"]
    assert ring.centre == places(standard)["mun"].unit and ring.colour == palette.DISLODGED

    # the retreat phase: the dislodged unit drawn small at its own place in Munich, its retreat
    # arrow starting there
    retreat = adjudication.position
    assert str(retreat.phase) == "S1901R"
    result = adjudicate(standard, retreat, [Retreat(GER, A, L("mun"), L("ruh"))])
    facts = season_facts(standard, retreat, result)
    small = [t for t in marks(standard, facts, Token) if t.small]
    assert [(t.power, t.at) for t in small] == [(GER, places(standard)["mun"].dislodged)]
    [arrow] = [m for m in marks(standard, facts, Line) if m.kind == "retreat"]
    assert arrow.casing == palette.DISLODGED and arrow.head
    assert math.dist(arrow.points[0], places(standard)["mun"].dislodged) < 12
    assert not [m for m in marks(standard, facts, Ring) if m.kind == "dislodged" and m.centre == places(standard)["mun"].unit]


def _neutral_attack(crusader):
    """A neutral army dislodged by two armies of Rum (one supporting), with places to retreat to."""
    position = starting_position(crusader)
    target = ProvinceId("phr")
    free = [p for p in crusader.province_neighbours(target)
            if crusader.army_adjacent(p, target) and not crusader.provinces[p].is_sea and position.unit_at(p) is None]
    attacker, helper = "ico", next(p for p in free if crusader.army_adjacent(p, "ico"))
    units = tuple(u for u in position.units if u.province not in (attacker, helper)) + (
        Unit(RUM, A, L(attacker)), Unit(RUM, A, L(helper)))
    position = position.with_changes(units=units)
    orders = [Move(RUM, A, L(attacker), L("phr")), SupportMove(RUM, A, L(helper), A, L(attacker), L("phr"))]
    return position, adjudicate(crusader, position, orders)


def test_a_neutral_retreating_at_random_is_drawn(crusader):
    _, attack = _neutral_attack(crusader)
    retreat = attack.position
    assert [d.unit.power for d in retreat.dislodged] == [NEUTRAL]
    result = adjudicate(crusader, retreat, [])
    facts = season_facts(crusader, retreat, result)
    [drawn] = [d for d in facts.orders if d.given_by == RANDOM]
    assert isinstance(drawn.order, (Retreat, Disband))
    sc = scene(crusader, geometry_for("crusader"), facts)
    if isinstance(drawn.order, Retreat):
        [arrow] = [m for m in sc.marks if isinstance(m, Line) and m.kind == "retreat"]
        assert arrow.colour == palette.NEUTRAL
        assert "random retreat" in sc.used and "random retreat" in KEY


def test_after_an_autumn_the_centres_show_their_new_owners_and_counts(standard):
    position = starting_position(standard).with_changes(phase=Phase.parse("F1901M"))
    adjudication = adjudicate(standard, position, [Move(FRA, A, L("mar"), L("spa")), Move(ENG, F, L("lon"), L("nth"))])
    facts = season_facts(standard, position, adjudication)
    assert facts.owners["spa"] == FRA
    [spain] = [d for d in marks(standard, facts, Dot) if d.province == "spa"]
    assert spain.owner == FRA and spain.changed
    assert not [d for d in marks(standard, facts, Dot) if d.changed and d.province != "spa"]
    france = next(s for s in facts.standings if s.power == FRA)
    assert (france.centres_before, france.centres) == (3, 4)
    words = legend_words(standard, facts, scene(standard, geometry_for("standard"), facts).used, "t", "s")
    assert "4 centres (+1)" in words and "centre taken this season" in words


def test_a_winter_draws_its_builds_and_removals(standard):
    position = starting_position(standard).with_changes(
        phase=Phase.parse("W1901B"),
        units=tuple(u for u in starting_position(standard).units if u.province != "par"),
        supply_centers={**starting_position(standard).supply_centers, ProvinceId("spa"): FRA})
    adjudication = adjudicate(standard, position, [Build(FRA, A, L("par")), Build(FRA, F, L("bre"))])
    facts = season_facts(standard, position, adjudication)
    builds = [m for m in marks(standard, facts, Ring) if m.kind == "build"]
    assert sorted(r.centre for r in builds) == sorted(places(standard)[p].unit for p in ("par", "bre"))
    statuses = {d.order.location.province: d.status for d in facts.orders}
    assert statuses["par"] == SUCCEEDED and statuses["bre"] == INVALID   # Brest is not empty
    assert Token(FRA, A, places(standard)["par"].unit) in marks(standard, facts, Token)


# -- prestige ----------------------------------------------------------------------------------


def test_every_prestige_order_is_drawn_with_a_symbol_not_a_letter(crusader):
    position = starting_position(crusader)
    neutral = position.unit_at(ProvinceId("tyr"))
    other = position.unit_at(ProvinceId("phr"))
    orders = [Vassal(JER, neutral.type, neutral.location, 2), Bribe(BYZ, other.type, other.location, 1),
              SeizeFief(RUM, ProvinceId("att")), Rebel(ANT, ProvinceId("ico"), 3), SecureLoyalty(FAT, 1),
              Lend(BYZ, RUM, 1)]
    facts = board_facts(crusader, position, orders)
    tags = {t.kind: t for t in marks(crusader, facts, Tag)}
    assert set(tags) == {"vassal", "bribe", "fief", "rebel"}
    assert tags["vassal"].colour == crusader.powers[JER].colour and tags["rebel"].amount == 3
    assert tags["fief"].amount is None
    assert all(not glyph.isalpha() for glyph in sprites.GLYPHS.values())   # no letter to read as A or F
    words = legend_words(crusader, facts, frozenset(), "t", "s")
    assert "SECURE LOYALTY 1" in words and "LEND 1 to RUM" in words


def test_a_season_with_bids_shows_prestige_after_it_and_the_bribed_units(crusader):
    import json

    from bot.codec.season import season_from_document

    doc = json.loads((ROOT / "tests" / "data" / "exports" / "crusader-three-years.json").read_text())
    season = season_from_document(doc["seasons"][0], "acre")
    facts = season_facts(crusader, season.position, season.adjudication)
    after = state_of(season.adjudication.position).prestige
    assert {s.power: s.column for s in facts.standings} == dict(after)
    assert {s.power: s.column_before for s in facts.standings} == dict(state_of(season.position).prestige)
    bribed = season.adjudication.events.rule.bribed
    badges = [b for b in marks(crusader, facts, Badge) if b.kind == "bribe"]
    assert len(badges) == len(bribed)
    tags = marks(crusader, facts, Tag)
    bids = [r for r in season.adjudication.results if isinstance(r.order, (Vassal, Bribe, SeizeFief, Rebel))]
    assert len(tags) == len(bids)
    # the board the season left, drawn in its retreat or next phase, carries no bribe: a bribe is
    # shown once, with the season it was won in
    later = season.adjudication.position
    bribed_state = replace(state_of(later), bribed={ProvinceId("tyr"): JER})
    assert board_facts(crusader, put_state(later, bribed_state)).bribed == {}


def test_vassals_are_marked_with_their_lord(crusader):
    position = starting_position(crusader)
    neutral = position.unit_at(ProvinceId("tri"))
    state = replace(state_of(position), vassals={neutral.location: JER})
    facts = board_facts(crusader, put_state(position, state))
    [badge] = marks(crusader, facts, Badge)
    assert badge.kind == "vassal" and badge.colour == crusader.powers[JER].colour


# -- units, patterns, the legend ----------------------------------------------------------------


def test_an_army_and_a_fleet_differ_in_outline_and_carry_no_letter():
    colour = "#0072B2"
    army, fleet = (sprites.unit(colour, "plain", fleet, 1.0)[0].getchannel("A").point(lambda v: 255 if v > 128 else 0)
                   for fleet in (False, True))
    size = (max(army.width, fleet.width), max(army.height, fleet.height))
    a, f = (Image.new("L", size) for _ in range(2))
    a.paste(army, ((size[0] - army.width) // 2, (size[1] - army.height) // 2))
    f.paste(fleet, ((size[0] - fleet.width) // 2, (size[1] - fleet.height) // 2))
    both = sum(1 for p, q in zip(a.tobytes(), f.tobytes()) if p and q)
    either = sum(1 for p, q in zip(a.tobytes(), f.tobytes()) if p or q)
    assert both / either < 0.72      # a disc and a ship, not two discs
    fleet_box = fleet.getbbox()
    assert fleet_box[2] - fleet_box[0] > 1.15 * (army.getbbox()[2] - army.getbbox()[0])   # the hull is wider


@pytest.mark.parametrize("name", ["standard", "crusader"])
def test_every_power_has_a_pattern_of_its_own(name):
    variant = get_variant(name)
    patterns = palette.patterns(variant)
    assert len(set(patterns.values())) == len(variant.powers)
    for code, info in variant.powers.items():   # the pattern reads against the power's colour
        sprite = sprites.unit(info.colour, patterns[code], False, 1.0)[0].convert("RGB")
        assert len(sprite.getcolors(4096)) > 3


@pytest.mark.parametrize("name", ["standard", "crusader"])
def test_there_is_a_key_for_every_symbol_drawn(name):
    variant = get_variant(name)
    position = starting_position(variant)
    facts = board_facts(variant, position)
    used = scene(variant, geometry_for(name), facts).used
    assert used and used <= set(KEY)


def test_the_title_names_the_game_and_the_season(standard, spring):
    position, adjudication = spring
    facts = season_facts(standard, position, adjudication)
    image = draw(standard, facts, title="lemberg \u00b7 Spring 1901 Movement", subtitle="s").image
    assert image.width == DEFAULT_SIZE
    words = legend_words(standard, facts, frozenset(), "lemberg \u00b7 Spring 1901 Movement", "s")
    assert words[0] == "lemberg \u00b7 Spring 1901 Movement"
    assert season_picture(standard, position, adjudication, game="lemberg") != \
        season_picture(standard, position, adjudication, game="kiev")


# -- pixels -------------------------------------------------------------------------------------


def _rgb(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


@pytest.mark.parametrize("name", ["standard", "crusader"])
def test_the_png_shows_each_unit_in_its_power_colour(name):
    variant = get_variant(name)
    position = starting_position(variant)
    image = _rgb(render_png(variant, position))
    assert image.width == DEFAULT_SIZE
    geo = geometry_for(name)
    for unit in position.units:
        x, y = geo.anchor(unit.location)
        colour = palette.rgb(palette.power_colour(variant, unit.power))
        box = image.crop((round(x) - 6, round(y) - 6, round(x) + 7, round(y) + 7))
        near = [c for n, c in box.getcolors(1024) for _ in range(n)
                if sum(abs(a - b) for a, b in zip(c, colour)) < 24]
        assert len(near) > 40, (unit, colour)


def test_owned_land_kept_between_pictures_is_the_land_of_their_owners(standard):
    """A season's picture and the board after it show the same owners: the base with their land
    is drawn once and kept. A picture drawn from kept land is the one drawn afresh, and land kept
    for other owners is never used."""
    from bot.render.layers import LANDS_KEPT, map_layers

    layers = map_layers(standard.name, DEFAULT_SIZE)
    before = starting_position(standard).with_changes(phase=Phase.parse("F1901M"))
    after = adjudicate(standard, before, [Move(FRA, A, L("mar"), L("spa"))]).position
    assert (before.supply_centers[ProvinceId("spa")], after.supply_centers[ProvinceId("spa")]) == (NEUTRAL, FRA)
    layers._lands.clear()
    fresh_before = render_png(standard, before)
    layers._lands.clear()
    fresh_after = render_png(standard, after)
    assert len(layers._lands) == 1
    assert render_png(standard, after) == fresh_after       # from the land kept
    assert render_png(standard, before) == fresh_before     # other owners: drawn, not taken from the land kept
    assert len(layers._lands) == 2
    for n in range(LANDS_KEPT + 1):   # no more than LANDS_KEPT are kept
        owners = dict(list(after.supply_centers.items())[: n + 1])
        render_png(standard, after.with_changes(supply_centers=owners))
    assert len(layers._lands) == LANDS_KEPT


def test_the_size_is_the_width_in_pixels(standard):
    small = _rgb(render_png(standard, starting_position(standard), size=500))
    big = _rgb(render_png(standard, starting_position(standard)))
    assert small.width == 500 and big.width == 1000
    assert abs(small.height / small.width - big.height / big.width) < 0.01
    with pytest.raises(ValueError, match="whole number of pixels"):
        render_png(standard, starting_position(standard), size=0)



@pytest.mark.parametrize("size", [200, 1000, 1333])
def test_the_png_is_the_drawn_picture_in_the_maps_palette_chunk_by_chunk(crusader, size):
    """The judge writes the PNG itself (its pixels deflated by ISA-L): a well-formed file, every
    chunk's checksum right, its pixels the drawn picture's, in the map's palette, as Pillow's own
    writer would have written them."""
    import struct
    import zlib

    from bot.render.layers import map_layers
    from bot.render.raster import png

    position = starting_position(crusader)
    picture = draw(crusader, board_facts(crusader, position), title="A game", subtitle="the board", size=size)
    image = picture.image
    layers = map_layers(crusader.name, size)
    data = png(picture, layers)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = [], 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        assert struct.unpack(">I", data[at + 8 + length:at + 12 + length])[0] == zlib.crc32(kind + body), kind
        chunks.append((kind, body))
        at += 12 + length
    assert [kind for kind, _ in chunks] == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]
    assert struct.unpack(">IIBBBBB", chunks[0][1]) == (image.width, image.height, 8, 3, 0, 0, 0)
    rows = zlib.decompress(chunks[2][1])
    assert len(rows) == image.height * (image.width + 1)
    assert set(rows[::image.width + 1]) == {0}  # every row unfiltered

    expected = image.quantize(palette=layers.palette, dither=Image.Dither.NONE)
    written = io.BytesIO()
    expected.save(written, "PNG", compress_level=3)
    ours, pillows = Image.open(io.BytesIO(data)), Image.open(io.BytesIO(written.getvalue()))
    assert ours.mode == "P" and ours.getpalette() == pillows.getpalette() == layers.palette.getpalette()
    assert ours.tobytes() == pillows.tobytes()
    assert len(data) < 1.05 * len(written.getvalue())  # (as small as Pillow's writer at zlib's level 3)

def test_a_name_an_arrow_crosses_is_drawn_over_it(standard, spring):
    """Names lie above the orders' lines: an arrow never hides a letter."""
    from bot.render.layers import map_layers
    from bot.render.raster import draw_map
    from bot.render.scene import Scene

    position, adjudication = spring
    facts = season_facts(standard, position, adjudication)
    layers = map_layers("standard", DEFAULT_SIZE)
    lines = tuple(marks(standard, facts, Line))
    image = draw_map(standard, layers, Scene(lines), ()).image
    crossed = 0
    for sprite, (x0, y0) in layers.names.values():
        alpha, rgb = sprite.getchannel("A"), sprite.convert("RGB")
        letters = [(x, y) for y in range(sprite.height) for x in range(sprite.width) if alpha.getpixel((x, y)) == 255]
        box = (x0, y0, x0 + sprite.width, y0 + sprite.height)
        crossed += any(_segment_hits_box(a, b, box) for m in lines for a, b in zip(m.points, m.points[1:]))
        assert all(image.getpixel((x0 + x, y0 + y)) == rgb.getpixel((x, y)) for x, y in letters)
    assert crossed >= 2     # some of the season's lines do run across names


def _segment_hits_box(a, b, box) -> bool:
    return any(box[0] <= a[0] + (b[0] - a[0]) * t / 20 <= box[2] and box[1] <= a[1] + (b[1] - a[1]) * t / 20 <= box[3]
               for t in range(21))


def test_orders_picture_draws_a_players_standing_orders(standard):
    data = orders_picture(standard, starting_position(standard), SPRING[:2], game="lemberg")
    assert data.startswith(b"\x89PNG") and _rgb(data).width == DEFAULT_SIZE


def test_composing_a_picture_imports_no_cairo_and_no_svg(tmp_path):
    probe = (
        "import sys\n"
        "from bot.render import cache\n"
        f"cache.FOLDER = __import__('pathlib').Path({str(tmp_path)!r})\n"
        "from benchmarks.bench_render import season\n"
        "from bot.render.season import season_picture\n"
        "variant, position, adjudication = season()\n"
        "season_picture(variant, position, adjudication)\n"
        "print(sorted(m for m in sys.modules if 'cairo' in m or 'svg' in m.lower()))\n"
    )
    for _ in range(2):    # the layers drawn and kept, then read
        result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == "[]"


def test_a_legends_columns_stand_apart_however_long_a_rows_counts(crusader):
    """A power's centres and units, with their changes, never run into its prestige, nor its
    prestige into its pledges: every row's columns move right together when one row's words
    would reach them, and stay where they are for ordinary words."""
    from bot.render.facts import Standing
    from bot.render.legend import COLUMN_X, GAP, PLEDGES_X, columns, row_block, row_words

    powers = list(crusader.powers)
    ordinary = [Standing(p, 4, 4, 4, 2, 2, "prestige") for p in powers]
    wide = [Standing(powers[0], 12, 2, 12, 14, 3, "prestige")] + ordinary[1:]
    assert columns([row_words(crusader, s, "", True) for s in ordinary], 1.0) == (COLUMN_X, PLEDGES_X)
    rows = [row_words(crusader, s, "SECURE LOYALTY 2 \u2713", True) for s in wide]
    assert rows[0][1:] == ("12 centres (+10)", "\u00b7 12 units", "14 prestige (+11)")
    at = columns(rows, 1.0)
    assert at[0] > COLUMN_X and at[1] > PLEDGES_X
    for standing in wide[:2]:    # the wide row and an ordinary one: the same columns, blank between
        image = row_block(crusader.name, standing, "SECURE LOYALTY 2 \u2713", True, DEFAULT_SIZE, at).image
        background = image.getpixel((0, 0))
        ink = [x for x in range(image.width)
               if any(image.getpixel((x, y)) != background for y in range(image.height))]
        for column in at:    # nothing drawn in the gap before each column, something just after it
            assert not [x for x in ink if column - GAP + 4 <= x < column - 1], (standing, column)
            assert [x for x in ink if column <= x < column + 12], (standing, column)
