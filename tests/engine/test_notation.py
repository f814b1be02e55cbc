"""The strict reader of the judge's own notation: it reads back every order ``canonical(order)``
writes and every unit ``str(unit)`` writes, in any case (``ENG: A LON - NTH``, as MILA's
``diplomacy`` package writes it, is ``ENG: A lon - nth``), and refuses anything written otherwise."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.errors import CrusaderError
from adjudicator.notation import NotationError, as_phase_order, read_order, read_unit
from adjudicator.orders import Build, Convoy, Disband, Hold, Move, Retreat, SupportHold, SupportMove, Waive, canonical
from adjudicator.prestige.orders import Bribe, Lend, Rebel, SecureLoyalty, SeizeFief, Vassal
from adjudicator.variant import get_variant
from adjudicator.vocab import Location, PhaseKind, Unit, UnitType

STANDARD = get_variant("standard")
LOCATIONS = sorted({Location(p) for p in STANDARD.provinces}
                   | {loc for p in STANDARD.provinces for loc in STANDARD.fleet_locations(p)}, key=str)
powers = st.sampled_from(["ENG", "FRA", "NEU"])
types = st.sampled_from([UnitType.ARMY, UnitType.FLEET, None])
unit_types = st.sampled_from([UnitType.ARMY, UnitType.FLEET])
places = st.sampled_from(LOCATIONS)
provinces = st.sampled_from(sorted(STANDARD.provinces))
amounts = st.integers(0, 120)

unit_orders = st.one_of(
    st.builds(Hold, powers, types, places),
    st.builds(Move, powers, types, places, places, st.booleans()),
    st.builds(SupportHold, powers, types, places, types, places),
    st.builds(SupportMove, powers, types, places, types, places, places),
    st.builds(Convoy, powers, types, places, types, places, places),
)


@st.composite
def bribes(draw):
    power = draw(powers)
    owner, unit_type = draw(st.one_of(st.tuples(st.none(), types), st.tuples(powers, unit_types)))
    order = draw(st.one_of(st.none(), unit_orders))
    if order is not None:
        order = type(order)(power, *[getattr(order, f) for f in order.__dataclass_fields__][1:])
    return Bribe(power, unit_type, draw(places), draw(amounts), owner, order)


orders = st.one_of(
    unit_orders,
    st.builds(Disband, powers, types, places),
    st.builds(Build, powers, types, places),
    st.builds(Waive, powers),
    st.builds(Vassal, powers, types, places, amounts),
    bribes(),
    st.builds(SeizeFief, powers, provinces),
    st.builds(Rebel, powers, provinces, amounts),
    st.builds(SecureLoyalty, powers, amounts),
    st.builds(Lend, powers, st.sampled_from(sorted(STANDARD.powers)), amounts),
)


@settings(max_examples=1500, deadline=None)
@given(orders)
def test_every_order_reads_back_from_its_canonical_text(order):
    assert read_order(canonical(order), STANDARD) == order


@settings(max_examples=300, deadline=None)
@given(st.builds(Retreat, powers, types, places, places))
def test_a_retreat_reads_back_in_a_retreat_phase(retreat):
    text = canonical(retreat)
    assert read_order(text, STANDARD, phase=PhaseKind.RETREAT) == retreat
    assert read_order(text, STANDARD) == Move(retreat.power, retreat.unit_type, retreat.location,
                                              retreat.destination)


def test_a_move_by_convoy_stays_a_move_in_a_retreat_phase():
    move = read_order("ENG: A lon - bel via convoy", STANDARD)
    assert as_phase_order(move, PhaseKind.RETREAT) is move


@pytest.mark.parametrize("text", [
    "ENG: A lon - bel",             # the prefix's space is ": "
])
def test_the_notation_itself(text):
    assert canonical(read_order(text, STANDARD)) == text


@pytest.mark.parametrize("text", [
    "ENG:A lon - bel", "ENG:  A lon - bel", "ENG: A lon  - bel", "ENG: A lon - bel ", " ENG: A lon - bel",
    "England: A lon - bel", "ENG: A London - bel", "ENG: A LON - BEL VIA CONVOY NOW",
    "ENG: A lon -> bel", "ENG: A lon to bel", "ENG: A lon - bel convoy", "ENG: A lon - bel by convoy",
    "ENG: A lon H.", "ENG: A lon holds", "ENG: A lon", "ENG: A lon - ", "ENG: A xyz H",
    "ENG: A spa(nc) H", "ENG: F lon/nc H", "ENG: F spa/xc H", "ENG: A lon S A yor - ", "ENG: A lon S",
    "ENG: F nth C A lon", "ENG: F nth C A lon - nwy H", "ENG: A lon R yor", "ENG: build A lon",
    "ENG: A lon build now", "ENG: waive build", "ENG: VASSAL A lon BID", "ENG: VASSAL A lon BID 02",
    "ENG: VASSAL A lon BID -1", "ENG: VASSAL A lon BID 2 prestige", "ENG: BRIBE FRA lon BID 1",
    "ENG: BRIBE A lon BID 1 A lon", "ENG: SEIZE FIEF lon/nc", "ENG: SEIZE lon", "ENG: REBEL lon BID x",
    "ENG: SECURE LOYALTY 2", "ENG: LEND NEU 3", "ENG: LEND England 3", "ENG: LEND 3 to FRA",
    "XYZ: A lon H", "A lon H", "", ": A lon H", "ENG: ", "ENG: A lon H\n",
])
def test_anything_else_is_refused(text):
    with pytest.raises(NotationError):
        read_order(text, STANDARD)


@pytest.mark.parametrize("value", [None, 3, ["ENG: A lon H"], b"ENG: A lon H"])
def test_what_is_no_text_is_refused(value):
    with pytest.raises(NotationError):
        read_order(value, STANDARD)
    with pytest.raises(NotationError):
        read_unit(value, STANDARD)


def test_its_errors_are_the_projects_and_value_errors():
    with pytest.raises(CrusaderError):
        read_order("ENG: A LON HOLDS", STANDARD)
    with pytest.raises(ValueError, match="'ENG: A LON HOLDS'"):
        read_order("ENG: A LON HOLDS", STANDARD)


def _recased(text: str, how: str, rnd) -> str:
    if how == "upper":
        return text.upper()
    if how == "lower":
        return text.lower()
    return "".join(c.upper() if rnd.random() < 0.5 else c.lower() for c in text)


@settings(max_examples=600, deadline=None)
@given(orders, st.sampled_from(["upper", "lower", "mixed"]), st.randoms(use_true_random=False))
def test_every_order_reads_back_from_its_canonical_text_in_any_case(order, how, rnd):
    # MILA's capitals (``ENG: F ENG - NTH``) and any other case: one notation, one reader
    assert read_order(_recased(canonical(order), how, rnd), STANDARD) == order


@pytest.mark.parametrize(("text", "expected"), [
    ("ENG: A LON - NTH", "ENG: A lon - nth"), ("ENG: F ENG - NTH", "ENG: F eng - nth"),
    ("eng: a lon s a yor - nth", "ENG: A lon S A yor - nth"), ("RUS: F STP/SC - BOT", "RUS: F stp/sc - bot"),
    ("ENG: F NTH C A LON - NWY", "ENG: F nth C A lon - nwy"), ("ENG: A LON - NWY VIA CONVOY",
                                                              "ENG: A lon - nwy via convoy"),
    ("ENG: A LON - NWY VIA", "ENG: A lon - nwy via convoy"), ("ENG: A lon - nwy via", "ENG: A lon - nwy via convoy"),
    ("ENG: BRIBE ENG F ENG BID 1", "ENG: BRIBE ENG F eng BID 1"), ("fra: lend eng 3", "FRA: LEND ENG 3"),
    ("ENG: Waive", "ENG: waive"), ("ENG: F LON BUILD", "ENG: F lon build"),
])
def test_the_notation_in_another_case(text, expected):
    assert canonical(read_order(text, STANDARD)) == expected


def test_a_crusader_code_that_is_also_a_province_reads_both_ways():
    crusader = get_variant("crusader")
    assert canonical(read_order("jer: lend ant 1", crusader)) == "JER: LEND ANT 1"
    assert canonical(read_order("ANT: A ANT H", crusader)) == "ANT: A ant H"


@pytest.mark.parametrize("name", ["standard", "crusader"])
def test_every_unit_that_may_stand_reads_back(name):
    variant = get_variant(name)
    count = 0
    for pid in variant.provinces:
        for location in {Location(pid), *variant.fleet_locations(pid)}:
            for unit_type in UnitType:
                if variant.can_hold(unit_type, location):
                    for power in (*variant.powers, "NEU"):
                        unit = Unit(power, unit_type, location)
                        assert read_unit(str(unit), variant) == unit
                        count += 1
    assert count > 500


@pytest.mark.parametrize("text", ["ENG: f lon", "ENG: F LON", "eng: f LON", "ENG: F STP/NC"])
def test_a_unit_reads_in_any_case(text):
    assert str(read_unit(text, STANDARD)) == f"ENG: {text[5].upper()} {text[7:].lower()}"


@pytest.mark.parametrize("text", ["ENG: F lon ", "ENG:F lon", "ENG: F spa",
                                  "ENG: F spa(nc)", "ENG: A nth", "ENG: F mun", "XYZ: A lon", "ENG: A lon/nc"])
def test_other_units_are_refused(text):
    with pytest.raises(NotationError):
        read_unit(text, STANDARD)
