"""The map picture: SVG structure (every unit and order drawn, failed orders dashed) and a
pixel-level look at the PNG, for both variants."""

from __future__ import annotations

import io
import math
import xml.etree.ElementTree as ET

import pytest
from PIL import Image, ImageChops

from adjudicator.orders import Build, Convoy, Disband, Hold, Move, Retreat, SupportHold, SupportMove
from adjudicator.prestige.orders import Lend, Vassal
from adjudicator.position import Dislodgement
from adjudicator.opening import starting_position
from adjudicator.prestige.state import PrestigeState
from adjudicator.results import OrderResult, Outcome
from adjudicator.variant import get_variant
from adjudicator.vocab import NEUTRAL, Location, Power, ProvinceId, Unit, UnitType
from bot.render import geometry_for, render_png, render_svg
from bot.render import palette
from bot.render.svg import DEFAULT_SIZE, LABEL_SIZE, MAX_NOTES, UNIT_R, _base, initials

SVG = "{http://www.w3.org/2000/svg}"
A, F = UnitType.ARMY, UnitType.FLEET
L = Location.parse
FRA, GER, ENG, ITA, RUS = (Power(p) for p in ("FRA", "GER", "ENG", "ITA", "RUS"))


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def by_id(root: ET.Element) -> dict[str, ET.Element]:
    return {el.get("id"): el for el in root.iter() if el.get("id")}


def dashed(group: ET.Element) -> bool:
    return any(el.get("stroke-dasharray") for el in group.iter())


@pytest.fixture(scope="module")
def standard():
    return get_variant("standard")


@pytest.fixture(scope="module")
def crusader():
    return get_variant("crusader")


MOVEMENT_ORDERS = [
    Move(FRA, A, L("par"), L("bur")),
    SupportMove(FRA, A, L("mar"), A, L("par"), L("bur")),
    Move(GER, A, L("mun"), L("bur")),
    Hold(GER, A, L("ber")),
    SupportHold(GER, F, L("kie"), A, L("ber")),
    Move(ENG, A, L("lvp"), L("nwy"), via_convoy=True),
    Convoy(ENG, F, L("edi"), A, L("lvp"), L("nwy")),
    Move(RUS, F, L("stp/sc"), L("bot")),
    Lend(ITA, FRA, 2),
]
FAILED = {MOVEMENT_ORDERS[2], MOVEMENT_ORDERS[3]}
EXPECTED_IDS = {
    "order-move-par-bur", "order-support-mar-par-bur", "order-move-mun-bur", "order-hold-ber",
    "order-support-kie-ber", "order-move-lvp-nwy", "order-convoy-edi-lvp-nwy", "order-move-stp-bot",
}


def movement_results():
    return [OrderResult(o, Outcome.FAILS if o in FAILED else Outcome.SUCCEEDS) for o in MOVEMENT_ORDERS]


def test_every_unit_and_centre_is_drawn_on_both_maps(standard, crusader):
    for variant in (standard, crusader):
        position = starting_position(variant)
        ids = by_id(parse(render_svg(variant, position)))
        for unit in position.units:
            group = ids[f"unit-{unit.province}"]
            classes = group.get("class").split()
            assert unit.type.noun in classes and f"power-{unit.power}" in classes
            assert ("neutral" in classes) == (unit.power == NEUTRAL)
        for pid in variant.supply_centers:
            assert f"owner-{position.supply_centers[pid]}" in ids[f"sc-{pid}"].get("class")
        for pid, province in variant.provinces.items():
            assert ids[f"province-{pid}"].get("class") == province.kind.value
            label = ids[f"label-{pid}"]
            assert label.text == (province.name if "full" in label.get("class").split() else pid.capitalize())


def test_sea_and_land_are_told_apart(standard):
    ids = by_id(parse(render_svg(standard, starting_position(standard))))
    assert ids["province-nth"].get("fill") != ids["province-par"].get("fill")
    assert ids["province-nth"].get("fill") == ids["province-eng"].get("fill")


def test_every_order_is_drawn_and_failed_ones_are_dashed_in_their_power_colour(standard):
    svg = render_svg(standard, starting_position(standard), results=movement_results(),
                     legend=["FRA won the bid for A bel"])
    root = parse(svg)
    orders = {el.get("id"): el for el in root.iter() if "order" in (el.get("class") or "").split()}
    assert set(orders) == EXPECTED_IDS
    for ident, group in orders.items():
        failed = ident in ("order-move-mun-bur", "order-hold-ber")
        assert ("failed" in group.get("class").split()) == failed, ident
        assert dashed(group) == failed, ident
        assert (group.find(f"{SVG}path[@class='cross']") is not None) == failed, ident
    # a failed order keeps its power's colour
    strokes = {el.get("stroke") for el in orders["order-move-mun-bur"].iter(f"{SVG}polyline")}
    assert standard.powers[GER].colour in strokes
    lines = [el.text for el in root.iter(f"{SVG}text") if "legend-line" in (el.get("class") or "")]
    assert lines == ["FRA won the bid for A bel", "ITA: LEND FRA 2 (succeeded)"]


def test_orders_without_results_are_drawn_plain(standard):
    root = parse(render_svg(standard, starting_position(standard), orders=MOVEMENT_ORDERS[:2]))
    ids = by_id(root)
    for ident in ("order-move-par-bur", "order-support-mar-par-bur"):
        assert not dashed(ids[ident]) and "failed" not in ids[ident].get("class")


def test_support_line_ends_at_the_supported_arrow(standard):
    ids = by_id(parse(render_svg(standard, starting_position(standard), orders=MOVEMENT_ORDERS[:2])))
    arrow = [tuple(map(float, p.split(","))) for p in
             ids["order-move-par-bur"].find(f"{SVG}polyline").get("points").split()]
    support = ids["order-support-mar-par-bur"].find(f"{SVG}circle")
    end = float(support.get("cx")), float(support.get("cy"))
    (x1, y1), (x2, y2) = arrow[0], arrow[-1]
    cross = abs((x2 - x1) * (end[1] - y1) - (y2 - y1) * (end[0] - x1)) / (((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5)
    assert cross < 3.0  # on the arrow's line


def test_convoyed_army_goes_through_the_fleet(standard):
    geo = geometry_for("standard")
    ids = by_id(parse(render_svg(standard, starting_position(standard), orders=MOVEMENT_ORDERS)))
    points = ids["order-move-lvp-nwy"].find(f"{SVG}polyline").get("points").split()
    assert f"{geo.anchor(L('edi'))[0]:g},{geo.anchor(L('edi'))[1]:g}" in points


def test_dislodged_unit_is_offset_with_its_retreat_arrow(standard):
    start = starting_position(standard)
    units = tuple(u for u in start.units if u.province not in ("mun", "par")) + (Unit.parse("FRA: A mun"),)
    position = start.with_changes(phase=start.phase.retreat(), units=units,
                                  dislodged=(Dislodgement(Unit.parse("GER: A mun"), ProvinceId("bur")),))
    retreat = Retreat(GER, A, L("mun"), L("ruh"))
    disband = Disband(ENG, F, L("lon"))
    root = parse(render_svg(standard, position, results=[OrderResult(retreat, Outcome.SUCCEEDS),
                                                          OrderResult(disband, Outcome.FAILS)]))
    ids = by_id(root)
    here = ids["unit-mun"].find(f"{SVG}circle")
    away = ids["dislodged-mun"].find(f"{SVG}circle")
    assert "dislodged" in ids["dislodged-mun"].get("class")
    assert (here.get("cx"), here.get("cy")) != (away.get("cx"), away.get("cy"))
    first = ids["order-retreat-mun-ruh"].find(f"{SVG}polyline").get("points").split()[0]
    x, y = map(float, first.split(","))
    assert math.hypot(x - float(away.get("cx")), y - float(away.get("cy"))) < 20   # starts at the unit
    assert dashed(ids["order-disband-lon"])


def test_vassals_and_bribed_units_are_marked(crusader):
    position = starting_position(crusader)
    neutrals = [u for u in position.units if u.power == NEUTRAL]
    vassal, bribed = neutrals[0], neutrals[1]
    state = position.prestige
    position = position.with_changes(prestige=PrestigeState(
        prestige=state.prestige, prestige_start=state.prestige_start, home_centers=state.home_centers,
        vassals={vassal.location: Power("JER")}))
    ids = by_id(parse(render_svg(crusader, position, controllers={bribed.province: Power("ANT")})))
    assert "vassal" in ids[f"unit-{vassal.province}"].get("class")
    assert ids[f"unit-{vassal.province}"].get("data-lord") == "JER"
    assert "bribed" in ids[f"unit-{bribed.province}"].get("class")
    assert ids[f"unit-{bribed.province}"].get("data-controller") == "ANT"


def test_prestige_bid_and_builds_are_drawn(crusader):
    position = starting_position(crusader)
    neutral = next(u for u in position.units if u.power == NEUTRAL)
    bid = Vassal(Power("JER"), neutral.type, neutral.location, 2)
    build = Build(Power("JER"), A, L("jer"))
    ids = by_id(parse(render_svg(crusader, position, results=[OrderResult(bid, Outcome.FAILS),
                                                               OrderResult(build, Outcome.SUCCEEDS)])))
    assert dashed(ids[f"order-vassal-{neutral.province}-JER"])
    assert "succeeded" in ids["order-build-jer"].get("class")


def test_invalid_orders_are_told_apart_from_failed_ones(standard):
    move, hold = MOVEMENT_ORDERS[0], MOVEMENT_ORDERS[3]
    ids = by_id(parse(render_svg(standard, starting_position(standard),
                                 results=[OrderResult(move, Outcome.INVALID), OrderResult(hold, Outcome.FAILS)])))
    invalid, failed = ids["order-move-par-bur"], ids["order-hold-ber"]
    assert "invalid" in invalid.get("class").split() and "failed" not in invalid.get("class").split()
    assert invalid.find(f".//{SVG}g[@class='no-sign']") is not None
    assert invalid.find(f"{SVG}path[@class='cross']") is None
    dashes = {el.get("stroke-dasharray") for el in invalid.iter() if el.get("stroke-dasharray")}
    assert dashes and dashes.isdisjoint({el.get("stroke-dasharray") for el in failed.iter()})
    assert standard.powers[FRA].colour in {el.get("stroke") for el in invalid.iter(f"{SVG}polyline")}


def test_the_arrows_of_a_head_to_head_stand_side_by_side(standard):
    there, back = Move(FRA, A, L("par"), L("bur")), Move(GER, A, L("mun"), L("bur"))
    position = starting_position(standard)
    units = tuple(u for u in position.units if u.province != "mun") + (Unit.parse("GER: A bur"),)
    position = position.with_changes(units=units)
    back = Move(GER, A, L("bur"), L("par"))
    ids = by_id(parse(render_svg(standard, position, orders=[there, back])))

    def line(ident):
        return [tuple(map(float, p.split(","))) for p in
                ids[ident].find(f"{SVG}polyline").get("points").split()]

    a, b = line("order-move-par-bur"), line("order-move-bur-par")
    (x1, y1), (x2, y2) = a[0], a[-1]
    for x, y in (b[0], b[-1]):  # both ends of the way back lie beside the way there, not on it
        apart = abs((x2 - x1) * (y - y1) - (y2 - y1) * (x - x1)) / ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5
        assert 8 <= apart <= 16
    # a move with no move back is drawn straight from unit to province
    single = by_id(parse(render_svg(standard, position, orders=[there])))["order-move-par-bur"]
    assert single.find(f"{SVG}polyline").get("points") != ids["order-move-par-bur"].find(f"{SVG}polyline").get("points")


def test_every_power_has_an_initial_on_its_units(standard, crusader):
    for variant in (standard, crusader):
        letters = initials(variant)
        assert len(set(letters.values())) == len(variant.powers)
        root = parse(render_svg(variant, starting_position(variant)))
        for group in root.iter(f"{SVG}g"):
            if "unit" not in (group.get("class") or "").split() or "neutral" in group.get("class"):
                continue
            power = next(c[6:] for c in group.get("class").split() if c.startswith("power-"))
            assert group.get("data-initial") == letters[power]
            assert [t.text for t in group.iter(f"{SVG}text")] == [letters[power]]


def test_there_is_a_key_for_every_symbol_drawn(standard):
    start = starting_position(standard)
    units = tuple(u for u in start.units if u.province not in ("mun", "par")) + (Unit.parse("FRA: A mun"),)
    retreat_phase = start.with_changes(phase=start.phase.retreat(), units=units,
                                       dislodged=(Dislodgement(Unit.parse("GER: A mun"), ProvinceId("bur")),))
    cases = [
        (start, movement_results() + [OrderResult(Move(ITA, A, L("ven"), L("tri")), Outcome.INVALID)]),
        (retreat_phase, [OrderResult(Retreat(GER, A, L("mun"), L("ruh")), Outcome.SUCCEEDS),
                         OrderResult(Disband(ENG, F, L("lon")), Outcome.FAILS)]),
    ]
    for position, results in cases:
        root = parse(render_svg(standard, position, results=results))
        keys = {c[7:] for el in root.iter(f"{SVG}g") for c in (el.get("class") or "").split() if c.startswith("symbol-")}
        drawn = {c for el in root.iter(f"{SVG}g") for c in (el.get("class") or "").split()}
        expected = {"army", "fleet", "centre"} | ({"move", "support", "convoy", "hold", "failed", "invalid"}
                                                  if position is start else {"retreat", "disband", "dislodged", "failed"})
        assert expected <= drawn | {"centre", "failed", "invalid"}
        assert root.find(f".//{SVG}path[@class='crossing']") is not None   # Denmark-Sweden
        assert keys == expected | {"crossing"}, keys ^ expected


def test_owned_land_is_hatched_in_its_owner_colour_leaning_by_power(crusader):
    """Owned land: a pale tint and lines in the owner's colour, EDE's and SEL's (the two blues)
    leaning opposite ways, so that neither reads as water nor as the other."""
    from bot.render.svg import HATCH_SPACING, hatch_angles

    position = starting_position(crusader)
    root = parse(render_svg(crusader, position))
    owned = root.find(f".//{SVG}g[@id='ownership']")
    paths = list(owned)
    hatches = [(tint, lines) for tint, lines in zip(paths[0::2], paths[1::2])]
    assert hatches and all(h.get("class") == "hatch" and h.get("d").startswith("M") for _, h in hatches)
    for tint, lines in hatches:
        owner = tint.get("class").split("owner-")[1]
        assert lines.get("stroke") == palette.hatch_colour(crusader.powers[Power(owner)].colour)
    angles = hatch_angles(crusader)
    assert angles[Power("EDE")] == -angles[Power("SEL")]
    # in the PNG, Baghdad (SEL's) shows the dark blue of its lines besides its pale tint
    image = Image.open(io.BytesIO(render_png(crusader, position))).convert("RGB")
    x, y = geometry_for("crusader").anchor(L("bag"))
    scale = image.width / 1000
    box = (round((x - 60) * scale), round((y + 25) * scale), round((x + 60) * scale), round((y + 60) * scale))
    line = palette.hatch_colour(crusader.powers[Power("SEL")].colour)
    crop = image.crop(box)
    near = sum(1 for px in crop.get_flattened_data() if _near(px, line, 40))
    assert near > crop.width * crop.height / (2 * HATCH_SPACING), near


@pytest.mark.parametrize("name", ["crusader", "standard"])
def test_labels_keep_clear_of_units(name):
    """A province's name keeps clear of its own unit and of the rings round it almost everywhere,
    and never lies nearer another province's unit point than its own."""
    from bot.render.labels import _box, _hits_disc
    from bot.render.svg import LABEL_CLEAR

    base = _base(name)
    geo = base.geometry
    points = {pid: geo.anchor(Location(pid)) for pid in geo.cells}
    hit = [pid for pid, label in base.labels.items() if _hits_disc(_box(label, LABEL_SIZE), points[pid], LABEL_CLEAR)]
    assert len(hit) <= 0.15 * len(points), hit
    for pid, label in base.labels.items():
        middle = (label.x, label.y - 0.35 * LABEL_SIZE)
        mine = math.dist(middle, points[pid])
        assert all(math.dist(middle, p) >= mine for q, p in points.items() if q != pid) or \
            _hits_disc(_box(label, LABEL_SIZE), points[pid], LABEL_CLEAR), pid


def test_the_strait_crossing_is_drawn_long_enough_to_see(crusader):
    from bot.render.svg import CROSSING_LENGTH

    root = parse(render_svg(crusader, starting_position(crusader)))
    crossing = root.find(f".//{SVG}path[@class='crossing']")
    first = crossing.get("d").split("M")[1]
    (x1, y1), (x2, y2) = (tuple(float(v) for v in p.strip().split(",")) for p in first.split("L"))
    assert math.dist((x1, y1), (x2, y2)) >= CROSSING_LENGTH - 0.2
    assert root.find(f".//{SVG}path[@class='crossing-casing']") is not None
    keys = {c for el in root.iter(f"{SVG}g") for c in (el.get("class") or "").split()}
    assert "symbol-crossing" in keys


def test_the_legend_is_bounded_and_points_to_the_report(crusader):
    position = starting_position(crusader)
    bids = [f"JER: VASSAL A x{i} BID {i % 5 + 1} - fails" for i in range(75)]
    root = parse(render_svg(crusader, position, legend=bids))
    few = parse(render_svg(crusader, position, legend=bids[:2]))
    lines = [el.text for el in root.iter(f"{SVG}text") if "legend-line" in (el.get("class") or "")]
    assert len(lines) == MAX_NOTES
    assert lines[-1] == f"... and {75 - MAX_NOTES + 1} more: see the season's report"
    assert int(root.get("height")) <= int(few.get("height")) + 5 * 30
    assert int(root.get("height")) < 1.35 * int(root.get("width"))


def test_size_is_the_width_in_pixels(standard):
    root = parse(render_svg(standard, starting_position(standard), size=640))
    assert root.get("width") == "640"
    with pytest.raises(ValueError, match="positive whole number of pixels"):
        render_svg(standard, starting_position(standard), size=0)


def _rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def _near(pixel, colour: str, tolerance: int = 8) -> bool:
    return max(abs(a - b) for a, b in zip(pixel, _rgb(colour))) <= tolerance


@pytest.mark.parametrize("name", ["standard", "crusader"])
def test_png_has_the_size_and_each_unit_in_its_power_colour(name):
    variant = get_variant(name)
    position = starting_position(variant)
    png = render_png(variant, position, size=800)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.width == 800 and 500 < image.height < 1100
    colours = image.getcolors(maxcolors=1 << 20)
    assert len(colours) > 50  # not blank
    geo, scale = geometry_for(name), 800 / geometry_for(name).width
    for unit in position.units:
        x, y = geo.anchor(unit.location)
        at = (round((x - 0.6 * UNIT_R) * scale), round(y * scale))  # inside the glyph, left of the letter
        colour = variant.powers[unit.power].colour if unit.power in variant.powers else palette.NEUTRAL
        assert _near(image.getpixel(at), colour), f"{unit} at {at}: {image.getpixel(at)} is not {colour}"


def test_png_labels_lie_on_a_halo_above_the_arrows(standard):
    """Where an arrow crosses a province's name, the name is drawn on top, dark on a pale halo."""
    position = starting_position(standard)
    base = _base("standard")
    label = base.labels["bur"]
    # an arrow straight through Burgundy's label, from the left of it to the right
    orders = [Move(FRA, A, L("par"), L("bur"))]
    image = Image.open(io.BytesIO(render_png(standard, position, orders=orders, size=1000))).convert("L")
    box = (round(label.x - label.width / 2), round(label.y - 0.8 * LABEL_SIZE),
           round(label.x + label.width / 2), round(label.y + 0.25 * LABEL_SIZE))
    crop = image.crop(box)
    histogram = crop.histogram()
    dark = sum(histogram[:90])
    light = sum(histogram[225:])
    assert dark > 0.06 * crop.width * crop.height, "no dark letters where the label is"
    assert light > 0.25 * crop.width * crop.height, "no pale halo round the label"


def test_png_of_a_long_season_stays_small(crusader):
    position = starting_position(crusader)
    bids = [f"JER: VASSAL A x{i} BID 2 - fails" for i in range(75)]
    image = Image.open(io.BytesIO(render_png(crusader, position, legend=bids))).convert("RGB")
    assert image.width == DEFAULT_SIZE and image.height < 1.35 * DEFAULT_SIZE


def test_png_shows_the_arrows(standard):
    position = starting_position(standard)
    plain = Image.open(io.BytesIO(render_png(standard, position))).convert("RGB")
    drawn = Image.open(io.BytesIO(render_png(standard, position, results=movement_results()))).convert("RGB")
    changed = sum(ImageChops.difference(plain, drawn).convert("L").histogram()[1:])
    assert changed > 2000


def test_commands_that_draw_nothing_import_no_picture_code():
    """`crusader --help` and `crusader adjudicate` work on a machine without the cairo library."""
    import subprocess
    import sys

    script = (
        "import io, json, sys\n"
        "from contextlib import redirect_stdout\n"
        "from bot.cli.main import main\n"
        "from bot.codec.documents import new_game_document\n"
        "with redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        main(['--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "    sys.stdin = io.StringIO(json.dumps(new_game_document('standard')))\n"
        "    main(['adjudicate'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('cairosvg', 'cairocffi', 'PIL', 'resvg_py')\n"
        "             or m in ('bot.render.png', 'bot.render.season')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
