"""The classic map file holds the classic board."""

import pytest

from adjudicator.variant import MapFileError, Variant, get_variant
from adjudicator.vocab import Location, UnitType


@pytest.fixture(scope="module")
def v():
    return get_variant("standard")


def test_counts(v):
    assert len(v.provinces) == 76  # 75 and impassable Switzerland
    assert len(v.supply_centers) == 34
    assert len(v.powers) == 7 and sum(len(p.units) for p in v.powers.values()) == 22
    assert v.victory_centers == 18


@pytest.mark.parametrize("unit_type, a, b", [
    ("F", "bot", "swe"), ("F", "bot", "fin"), ("F", "bot", "lvn"), ("F", "bot", "stp/sc"),
    ("F", "mao", "spa/sc"), ("F", "mao", "spa/nc"), ("F", "tus", "tys"), ("F", "con", "smy"),
    ("F", "nwy", "stp/nc"), ("A", "gal", "ukr"), ("A", "nwy", "stp"), ("A", "lvn", "war"),
    ("F", "bul/ec", "bla"), ("F", "bul/sc", "aeg"), ("A", "bur", "mun"),
])
def test_borders_of_the_classic_board(v, unit_type, a, b):
    t = UnitType(unit_type)
    assert v.adjacent(t, Location.parse(a), Location.parse(b))
    assert v.adjacent(t, Location.parse(b), Location.parse(a))


@pytest.mark.parametrize("unit_type, a, b", [
    ("F", "spa/nc", "lyo"), ("F", "bul/ec", "aeg"), ("F", "rom", "ven"), ("A", "lon", "nth"),
    ("F", "kie", "mun"), ("A", "swi", "mun"),
])
def test_no_such_border(v, unit_type, a, b):
    assert not v.adjacent(UnitType(unit_type), Location.parse(a), Location.parse(b))


def test_loader_rejects_a_fleet_border_on_land():
    text = """
[variant]
name = "t"
start_phase = "S1901M"
victory_centers = 1
[powers]
[provinces.a]
name = "A"
kind = "land"
[provinces.b]
name = "B"
kind = "sea"
[adjacency]
fleet = [["a", "b"]]
"""
    with pytest.raises(MapFileError, match="land"):
        Variant.from_toml(text)


def test_a_variant_is_one_object_however_it_is_named():
    """Names in any case and spacing, and aliases, give the same object (the per-variant tables
    are keyed by it), and the spellings are not kept: a stream of documents each naming the
    variant differently does not grow the process."""
    from adjudicator import variant as variants
    from adjudicator.variant import UnknownVariantError
    from grammar import parse_order
    from grammar.parser import parser as order_parser

    standard = get_variant("standard")
    for i in range(200):
        spelling = " " * i + "Standard"
        assert get_variant(spelling) is standard
        assert parse_order("ENG: F lon - nth", spelling) == parse_order("ENG: F lon - nth", standard)
    assert get_variant("classic") is standard and get_variant(" OUTREMER") is get_variant("crusader")
    assert set(variants._LOADED) <= set(variants.VARIANT_FILES)
    assert order_parser.cache_info().currsize <= len(variants.VARIANT_FILES)   # one parser a map
    for bad in ("nope", 3, None, ["standard"]):
        with pytest.raises(UnknownVariantError, match="known variants: crusader, standard"):
            get_variant(bad)
