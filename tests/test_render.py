"""The map picture: SVG structure (every unit and order drawn, failed orders dashed) and a
pixel-level look at the PNG, for both variants."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest
from PIL import Image, ImageChops

from adjudicator.orders import (
    Build, Convoy, Disband, Hold, Lend, Move, Retreat, SupportHold, SupportMove, Vassal,
)
from adjudicator.position import Dislodgement, PrestigeState, starting_position
from adjudicator.results import OrderResult, Outcome
from adjudicator.variant import get_variant
from adjudicator.vocab import NEUTRAL, Location, Power, ProvinceId, Unit, UnitType
from bot.render import geometry_for, render_png, render_svg

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
            assert ids[f"label-{pid}"].text.lower() == pid


def test_sea_and_land_are_told_apart(standard):
    ids = by_id(parse(render_svg(standard, starting_position(standard))))
    assert ids["province-nth"].get("fill") != ids["province-par"].get("fill")
    assert ids["province-nth"].get("fill") == ids["province-eng"].get("fill")


def test_every_order_is_drawn_and_failed_ones_are_dashed(standard):
    svg = render_svg(standard, starting_position(standard), results=movement_results(),
                     legend=["FRA won the bid for A bel"])
    root = parse(svg)
    orders = {el.get("id"): el for el in root.iter() if "order" in (el.get("class") or "").split()}
    assert set(orders) == EXPECTED_IDS
    for ident, group in orders.items():
        failed = ident in ("order-move-mun-bur", "order-hold-ber")
        assert ("failed" in group.get("class").split()) == failed, ident
        assert dashed(group) == failed, ident
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
    assert abs(x - float(away.get("cx"))) + abs(y - float(away.get("cy"))) < 20
    assert dashed(ids["order-disband-lon"])


def test_vassals_and_bribed_units_are_marked(crusader):
    position = starting_position(crusader)
    neutrals = [u for u in position.units if u.power == NEUTRAL]
    vassal, bribed = neutrals[0], neutrals[1]
    state = position.prestige
    position = position.with_changes(prestige=PrestigeState(
        prestige=state.prestige, prestige_start=state.prestige_start, home_centers=state.home_centers,
        vassals={vassal.province: Power("JER")}))
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


def test_size_is_the_width_in_pixels(standard):
    root = parse(render_svg(standard, starting_position(standard), size=640))
    assert root.get("width") == "640"
    with pytest.raises(ValueError, match="positive whole number of pixels"):
        render_svg(standard, starting_position(standard), size=0)


def _rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


@pytest.mark.parametrize("name", ["standard", "crusader"])
def test_png_has_the_size_and_the_owners_colours(name):
    variant = get_variant(name)
    png = render_png(variant, starting_position(variant), size=800)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.width == 800 and image.height > 500
    colours = {c for _, c in image.getcolors(maxcolors=1 << 20)}
    assert len(colours) > 50  # not blank
    for info in variant.powers.values():
        assert _rgb(info.colour) in colours, f"{info.name}'s colour {info.colour} is not in the picture"


def test_png_shows_the_arrows(standard):
    position = starting_position(standard)
    plain = Image.open(io.BytesIO(render_png(standard, position))).convert("RGB")
    drawn = Image.open(io.BytesIO(render_png(standard, position, results=movement_results()))).convert("RGB")
    changed = sum(ImageChops.difference(plain, drawn).convert("L").histogram()[1:])
    assert changed > 2000
