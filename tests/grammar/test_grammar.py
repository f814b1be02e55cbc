"""The order grammar: every notation players use, and errors a player can act on."""

from __future__ import annotations

import pytest

from adjudicator.orders import Build, Convoy, Disband, Hold, Move, Retreat, SupportHold, SupportMove, Waive, canonical
from adjudicator.prestige.orders import Bribe, Lend, Rebel, SecureLoyalty, SeizeFief, Vassal
from adjudicator.variant import UnknownVariantError, get_variant
from adjudicator.vocab import Location, Phase, PhaseKind, UnitType
from grammar import (
    NO_POWER, AmbiguousNameError, OrderError, OrderSyntaxError, UnknownNameError, as_phase_order,
    parse_message, parse_order, parse_order_text, resolve_power_name, resolve_province, suggestions,
    with_power,
)

STANDARD = get_variant("standard")


def crusader():
    try:
        return get_variant("crusader")
    except (UnknownVariantError, FileNotFoundError):
        pytest.skip("the crusader map is not there yet")


# -- notations -> canonical order ------------------------------------------------------------

NOTATIONS = [
    # moves, in every spelling
    ("A par - bur", "A par - bur"),
    ("A Par - Bur", "A par - bur"),
    ("a par->bur", "A par - bur"),
    ("A par-bur", "A par - bur"),
    ("A par – bur", "A par - bur"),
    ("A par — bur", "A par - bur"),
    ("A par => bur", "A par - bur"),
    ("A par to bur", "A par - bur"),
    ("A par m bur", "A par - bur"),
    ("A par move bur", "A par - bur"),
    ("A par moves to bur", "A par - bur"),
    ("A par move to bur", "A par - bur"),
    ("A par into bur", "A par - bur"),
    ("A par -> bur.", "A par - bur"),
    ("par - bur", "par - bur"),
    ("Army Paris moves to Burgundy", "A par - bur"),
    ("army paris -> burgundy", "A par - bur"),
    ("ARMY PARIS - BURGUNDY", "A par - bur"),
    ("Army in Paris moves into Burgundy", "A par - bur"),
    ("F nth - nwy", "F nth - nwy"),
    ("Fleet North Sea - Norway", "F nth - nwy"),
    ("F North Sea -> Norwegian Sea", "F nth - nwg"),
    ("F Mid-Atlantic Ocean - Spain (north coast)", "F mao - spa/nc"),
    ("F Mid Atlantic - spa/sc", "F mao - spa/sc"),
    ("F mid-atlantic -> por", "F mao - por"),
    ("F St Petersburg (south coast) - Gulf of Bothnia", "F stp/sc - bot"),
    ("F St. Petersburg north coast - bar", "F stp/nc - bar"),
    ("F Saint Petersburg nc - bar", "F stp/nc - bar"),
    ("F stp(nc) - bar", "F stp/nc - bar"),
    ("F stp / nc - bar", "F stp/nc - bar"),
    ("F stp/n.c. - bar", "F stp/nc - bar"),
    ("F spa n.c. - mao", "F spa/nc - mao"),
    ("F spa s.c. S F mao - por", "F spa/sc S F mao - por"),
    ("F gas -> spa(nc)", "F gas - spa/nc"),
    ("F bla - bul ec", "F bla - bul/ec"),
    ("F con - bul (east coast)", "F con - bul/ec"),
    ("F Helgoland Bight - Heligoland", "F hel - hel"),
    ("F Heligo - den", "F hel - den"),
    ("A Marseille - Piedmont", "A mar - pie"),
    ("F eng - the North Sea", "F eng - nth"),
    ("A Nor - swe", "A nwy - swe"),
    ("A Zürich - mun".replace("Zürich", "Tyrol"), "A tyr - mun"),
    # convoyed moves
    ("A gas -> mar via Convoy", "A gas - mar via convoy"),
    ("A lon - bel via convoy", "A lon - bel via convoy"),
    ("A lon - bel by convoy", "A lon - bel via convoy"),
    ("A lon - bel via", "A lon - bel via convoy"),
    # holds
    ("A mun H", "A mun H"),
    ("A mun h", "A mun H"),
    ("A mun hold", "A mun H"),
    ("A mun holds", "A mun H"),
    ("A mun stands", "A mun H"),
    ("A mun stand", "A mun H"),
    ("A mun H.", "A mun H"),
    ("Army Munich holds", "A mun H"),
    # supports
    ("A mun S A ber - sil", "A mun S A ber - sil"),
    ("A mun supports A ber -> sil", "A mun S A ber - sil"),
    ("A mun Supports A ber -> sil", "A mun S A ber - sil"),
    ("A mun support A ber to sil", "A mun S A ber - sil"),
    ("A mun supp A ber - sil", "A mun S A ber - sil"),
    ("A mun s ber - sil", "A mun S ber - sil"),
    ("A mun S A ber", "A mun S A ber"),
    ("A mun S A ber H", "A mun S A ber"),
    ("A mun supports A ber holds", "A mun S A ber"),
    ("F tri supports F tri", "F tri S F tri"),
    ("A lvp supports A yor -> yor", "A lvp S A yor - yor"),
    ("Army Munich supports Army Berlin to Silesia", "A mun S A ber - sil"),
    ("F lyo Supports F por -> spa(nc)", "F lyo S F por - spa/nc"),
    ("F mao Supports F spa(sc) -> por", "F mao S F spa/sc - por"),
    ("A mun S German A ber - sil", "A mun S A ber - sil"),
    # convoys
    ("F nth C A lon - nwy", "F nth C A lon - nwy"),
    ("F nth convoys A lon -> nwy", "F nth C A lon - nwy"),
    ("F nth convoys yor -> yor", "F nth C yor - yor"),
    ("F nth Convoys A lon -> nwy", "F nth C A lon - nwy"),
    ("F nth transports A lon to nwy", "F nth C A lon - nwy"),
    ("F nth c lon - nwy", "F nth C lon - nwy"),
    ("Fleet in the North Sea convoys army London to Norway", "F nth C A lon - nwy"),
    # retreats
    ("A par r bur", "A par - bur"),
    ("A par R bur", "A par - bur"),
    ("F tri retreats to alb", "F tri - alb"),
    ("F tri retreat alb", "F tri - alb"),
    # builds and removals
    ("build A par", "A par build"),
    ("Build A Paris", "A par build"),
    ("b A par", "A par build"),
    ("A par b", "A par build"),
    ("place A par", "A par build"),
    ("A par build", "A par build"),
    ("GER: A ber build", "A ber build"),
    ("F stp(nc) build", "F stp/nc build"),
    ("F stp nc build", "F stp/nc build"),
    ("build fleet St Petersburg north coast", "F stp/nc build"),
    ("F stp build", "F stp build"),
    ("A par disband", "A par disband"),
    ("A par d", "A par disband"),
    ("disband A par", "A par disband"),
    ("remove A par", "A par disband"),
    ("Remove A Paris", "A par disband"),
    ("destroy F bre", "F bre disband"),
    ("d F bre", "F bre disband"),
    ("waive", "waive"),
    ("Waive build", "waive"),
    ("WAIVE", "waive"),
    # prestige orders, as in the rules text
    ("VASSAL A Norway BID 2", "VASSAL A nwy BID 2"),
    ("vassal a nwy bid 3", "VASSAL A nwy BID 3"),
    ("BRIBE A Rumania BID 1", "BRIBE A rum BID 1"),
    ("BRIBE A rum BID 1 A rum S A bud - ser", "BRIBE A rum BID 1 A rum S A bud - ser"),
    ("BRIBE English F English Channel BID 2 F English Channel S F North Sea – London",
     "BRIBE ENG F eng BID 2 F eng S F nth - lon"),
    ("SEIZE FIEF Greece", "SEIZE FIEF gre"),
    ("seize fief gre", "SEIZE FIEF gre"),
    ("REBEL Tunis BID 4", "REBEL tun BID 4"),
    ("SECURE LOYALTY BID 2", "SECURE LOYALTY BID 2"),
    ("LEND England 3 prestige", "LEND ENG 3"),
    ("LEND ENG 3", "LEND ENG 3"),
    ("lend 3 prestige to England", "LEND ENG 3"),
    ("LEND English 3", "LEND ENG 3"),
]


@pytest.mark.parametrize("text,expected", NOTATIONS, ids=[t for t, _ in NOTATIONS])
def test_notation_reads_as_canonical_order(text, expected):
    order = parse_order(text, STANDARD, "FRA" if ":" not in text and "English" not in text[:8] else None)
    assert str(order) == expected


def test_orders_are_the_right_values():
    assert parse_order("ENG: F nth C A lon - nwy", STANDARD) == Convoy(
        "ENG", UnitType.FLEET, Location("nth"), UnitType.ARMY, Location("lon"), Location("nwy"))
    assert parse_order("A par - bur", STANDARD, "FRA") == Move("FRA", UnitType.ARMY, Location("par"), Location("bur"))
    assert parse_order("par h", STANDARD, "FRA") == Hold("FRA", None, Location("par"))
    assert parse_order("F tri S F tri", STANDARD, "AUS") == SupportHold(
        "AUS", UnitType.FLEET, Location("tri"), UnitType.FLEET, Location("tri"))
    assert parse_order("A mun S ber - sil", STANDARD, "GER") == SupportMove(
        "GER", UnitType.ARMY, Location("mun"), None, Location("ber"), Location("sil"))
    assert parse_order("A par r bur", STANDARD, "FRA") == Retreat(
        "FRA", UnitType.ARMY, Location("par"), Location("bur"))
    assert parse_order("F stp/nc build", STANDARD, "RUS") == Build("RUS", UnitType.FLEET, Location("stp", "nc"))
    assert parse_order("remove A par", STANDARD, "FRA") == Disband("FRA", UnitType.ARMY, Location("par"))
    assert parse_order("waive", STANDARD, "FRA") == Waive("FRA")
    assert parse_order("A lon - bel via convoy", STANDARD, "ENG").via_convoy is True


def test_prestige_orders_are_the_right_values():
    assert parse_order("FRA: VASSAL A Norway BID 2", STANDARD) == Vassal("FRA", UnitType.ARMY, Location("nwy"), 2)
    bribe = parse_order("FRA: BRIBE English F English Channel BID 2 F English Channel S F North Sea – London",
                        STANDARD)
    assert bribe == Bribe("FRA", UnitType.FLEET, Location("eng"), 2, owner="ENG", order=SupportMove(
        "FRA", UnitType.FLEET, Location("eng"), UnitType.FLEET, Location("nth"), Location("lon")))
    assert parse_order("TUR: SEIZE FIEF Greece", STANDARD) == SeizeFief("TUR", "gre")
    assert parse_order("RUS: REBEL Tunis BID 4", STANDARD) == Rebel("RUS", "tun", 4)
    assert parse_order("ITA: SECURE LOYALTY BID 2", STANDARD) == SecureLoyalty("ITA", 2)
    assert parse_order("RUS: LEND England 3 prestige", STANDARD) == Lend("RUS", "ENG", 3)
    assert parse_order("Germany: REBEL Ankara BID 3", STANDARD) == Rebel("GER", "ank", 3)


# -- whose order -----------------------------------------------------------------------------

POWER_PREFIXES = [
    ("ENG: F lon - nth", "ENG"),
    ("eng: F lon - nth", "ENG"),
    ("England: F lon - nth", "ENG"),
    ("ENGLAND : F lon - nth", "ENG"),
    ("English: F lon - nth", "ENG"),
    ("English F lon - nth", "ENG"),
    ("Engl: F lon - nth", "ENG"),
]


@pytest.mark.parametrize("text,power", POWER_PREFIXES)
def test_power_prefix_names_the_power(text, power):
    order = parse_order(text, STANDARD)
    assert order.power == power
    assert canonical(order) == f"{power}: F lon - nth"


def test_power_argument_is_used_without_a_prefix():
    assert parse_order("F lon - nth", STANDARD, "ENG").power == "ENG"
    assert parse_order("ENG: F lon - nth", STANDARD, "ENG").power == "ENG"


def test_no_power_at_all_is_an_error_that_says_how_to_give_one():
    with pytest.raises(OrderSyntaxError) as info:
        parse_order("F lon - nth", STANDARD)
    assert "which power" in str(info.value)
    assert "AUS: F lon - nth" in str(info.value)     # the line itself, with a power of the map


def test_parse_order_text_leaves_the_power_to_fill_in():
    order = parse_order_text("F lon - nth", STANDARD)
    assert order.power == NO_POWER == ""
    assert canonical(with_power(order, "ENG")) == "ENG: F lon - nth"
    bribe = parse_order_text("BRIBE A rum BID 1 A rum H", STANDARD)
    assert with_power(bribe, "RUS").order.power == "RUS"
    assert parse_order_text("TUR: F ank H", STANDARD).power == "TUR"


def test_prefix_for_another_power_is_refused():
    with pytest.raises(OrderSyntaxError) as info:
        parse_order("ENG: F lon - nth", STANDARD, "FRA")
    assert info.value.column == 1
    assert "England" in str(info.value) and "France" in str(info.value)


def test_unit_named_as_another_powers_is_refused():
    with pytest.raises(OrderSyntaxError) as info:
        parse_order("ENG: French A par - bur", STANDARD)
    assert info.value.column == 6
    assert "^^^^^^" in str(info.value)


def test_unknown_power_prefix_suggests_a_power():
    with pytest.raises(UnknownNameError) as info:
        parse_order("Gemrany: A ber - kie", STANDARD)
    assert "Germany" in info.value.suggestions
    assert "AUS, ENG, FRA" in str(info.value)


def test_power_names():
    assert resolve_power_name("Turkish", STANDARD) == "TUR"
    assert resolve_power_name("tur", STANDARD) == "TUR"
    assert resolve_power_name("Neutral", STANDARD) == "NEU"
    with pytest.raises(UnknownNameError):
        resolve_power_name("Prussia", STANDARD)


# -- phases ------------------------------------------------------------------------------------


def test_a_move_in_a_retreat_phase_is_a_retreat():
    move = parse_order("A par - bur", STANDARD, "FRA")
    assert isinstance(move, Move)
    retreat = as_phase_order(move, PhaseKind.RETREAT)
    assert retreat == Retreat("FRA", UnitType.ARMY, Location("par"), Location("bur"))
    assert as_phase_order(move, Phase.parse("F1901R")) == retreat
    assert as_phase_order(move, PhaseKind.MOVEMENT) is move
    assert parse_order("A par - bur", STANDARD, "FRA", phase=Phase.parse("S1902R")) == retreat
    convoyed = parse_order("A lon - bel via convoy", STANDARD, "ENG")
    assert as_phase_order(convoyed, PhaseKind.RETREAT) is convoyed


# -- errors a player can act on ---------------------------------------------------------------

ERRORS = [
    # text, error class, column of the caret, a word the message must contain, a suggestion
    ("A par - Burgandy", UnknownNameError, 9, "Burgandy", "Burgundy"),
    ("A Parsi - bur", UnknownNameError, 3, "Parsi", "Paris"),
    ("F nrth sea - nwy", UnknownNameError, 3, "nrth sea", "North Sea"),
    ("A Sweeden - nwy", UnknownNameError, 3, "Sweeden", "Sweden"),
    ("A gulf - bur", AmbiguousNameError, 3, "Gulf of Bothnia", None),
    ("F spa/wc - mao", UnknownNameError, 3, "nc (north coast)", None),
    ("F lon/nc - nth", UnknownNameError, 3, "no separate coasts", None),
    ("A par", OrderSyntaxError, 6, "no verb", None),
    ("A par bur", OrderSyntaxError, 7, "no verb between par and bur", None),
    ("A par -", OrderSyntaxError, 8, "where to", None),
    ("A par S", OrderSyntaxError, 8, "which unit", None),
    ("F nth C A lon", OrderSyntaxError, 14, "where the army goes", None),
    ("A par - bur A mar - spa", OrderSyntaxError, 13, "one order per line", None),
    ("VASSAL A nwy", OrderSyntaxError, 13, "BID", None),
    ("VASSAL A nwy BID", OrderSyntaxError, 17, "amount", None),
    ("F spa(nc - mao", OrderSyntaxError, 10, "not closed", None),
    ("A par - bur?", OrderSyntaxError, 12, "'?'", None),
    ("A par mvoe bur", OrderSyntaxError, 7, "'mvoe' is not an order word", "'move' for 'mvoe'"),
    ("A par suport A mar", OrderSyntaxError, 7, "'suport' is not an order word", "'support' for 'suport'"),
    ("42", OrderSyntaxError, 1, "'42'", None),
]


@pytest.mark.parametrize("text,cls,column,needle,suggestion", ERRORS, ids=[e[0] for e in ERRORS])
def test_error_names_the_problem_and_points_at_it(text, cls, column, needle, suggestion):
    with pytest.raises(cls) as info:
        parse_order(text, STANDARD, "FRA")
    err = info.value
    assert isinstance(err, OrderError) and isinstance(err, ValueError)
    assert err.column == column
    message = str(err)
    assert needle in message
    assert text in message.splitlines()
    caret_line = message.splitlines()[message.splitlines().index(text) + 1]
    assert caret_line.index("^") == column - 1
    if suggestion:
        assert suggestion in err.suggestions
        assert "Did you mean" in message
    if cls is OrderSyntaxError:
        assert "Expected" in message


def test_a_misspelt_name_is_never_guessed():
    for text in ("A par - Burgundyy", "A par - Brugundy", "A Parris - bur"):
        with pytest.raises(UnknownNameError):
            parse_order(text, STANDARD, "FRA")


def test_an_empty_line_or_several_lines_are_errors():
    with pytest.raises(OrderSyntaxError):
        parse_order("   ", STANDARD, "FRA")
    with pytest.raises(OrderSyntaxError, match="one order per line"):
        parse_order("A par H\nA mar H", STANDARD, "FRA")


def test_error_to_dict():
    with pytest.raises(OrderError) as info:
        parse_order("A par - Burgandy", STANDARD, "FRA")
    data = info.value.to_dict()
    assert data["kind"] == "UnknownNameError" and data["column"] == 9
    assert data["suggestions"] == ["Burgundy"]


# -- names -----------------------------------------------------------------------------------


@pytest.mark.parametrize("text,expected", [
    ("par", "par"), ("Paris", "par"), ("PARIS", "par"), ("St. Petersburg", "stp"),
    ("St Petersburg (north coast)", "stp/nc"), ("spa/sc", "spa/sc"), ("spa(sc)", "spa/sc"),
    ("Spain south coast", "spa/sc"), ("Mid-Atlantic", "mao"), ("mid atlantic ocean", "mao"),
    ("Helgo", "hel"), ("Gulf of Lyons", "lyo"), ("gol", "lyo"), ("Gulf of Both", "bot"),
])
def test_resolve_province(text, expected):
    assert str(resolve_province(text, STANDARD)) == expected


def test_resolve_province_errors():
    with pytest.raises(UnknownNameError) as info:
        resolve_province("Burgandy", STANDARD)
    assert info.value.suggestions == ("Burgundy",)
    with pytest.raises(AmbiguousNameError):
        resolve_province("Nor", get_variant("standard")) if False else resolve_province("Gulf", STANDARD)
    with pytest.raises(UnknownNameError):
        resolve_province("n", STANDARD)


def test_suggestions_for_autocomplete():
    assert suggestions("bur", STANDARD) == ["bur"]
    assert suggestions("Burgandy", STANDARD)[0] == "bur"
    assert set(suggestions("Gulf", STANDARD, limit=5)) >= {"bot", "lyo"}
    assert suggestions("xq", STANDARD) == []
    assert len(suggestions("North", STANDARD, limit=2)) == 2


# -- messages ----------------------------------------------------------------------------------

TEN_ORDERS = """\
A par - bur
A mar S A par - bur
F bre - mao
A mun - ruh
A ber - kie
F kie - den
F lon - nth
A lvp - yor
A ven - Tyrolea
F nap - ion
"""


def test_ten_orders_with_one_typo_give_nine_orders_and_one_precise_error():
    result = parse_message(TEN_ORDERS, STANDARD, "FRA")
    assert len(result.orders) == 9
    assert [str(o) for o in result.orders][:3] == ["A par - bur", "A mar S A par - bur", "F bre - mao"]
    assert all(o.power == "FRA" for o in result.orders)
    (err,) = result.errors
    assert isinstance(err, UnknownNameError)
    assert err.line_no == 9 and err.column == 9
    assert err.suggestions[0] == "Tyrolia"
    text = str(err)
    assert text.startswith("line 9: 'Tyrolea' is not a province")
    assert "A ven - Tyrolea\n        ^^^^^^^\n" in text
    assert "Did you mean Tyrolia" in text
    assert not result.ok


def test_each_bad_line_gets_its_own_error():
    result = parse_message("A par - bur\nA mar\nA Parsi H\nF bre H\n", STANDARD, "FRA")
    assert [str(o) for o in result.orders] == ["A par - bur", "F bre H"]
    assert [e.line_no for e in result.errors] == [2, 3]
    assert isinstance(result.errors[0], OrderSyntaxError)
    assert isinstance(result.errors[1], UnknownNameError)


def test_quoted_text_signature_and_greetings_are_passed_over():
    body = """\
Hi GM,

Spring 1901 orders:
- A par - bur
* `F bre - mao`
1. A mar H

Thanks,
Jean
A par - pic

On Mon, 1 Jan 2024 at 10:00, GM <gm@example.org> wrote:
> Please send your orders.
> A par - gas
"""
    result = parse_message(body, STANDARD, "FRA")
    assert result.ok, result.report()
    assert [str(o) for o in result.orders] == ["A par - bur", "F bre - mao", "A mar H"]


def test_quoted_reply_above_new_orders():
    body = """\
On Tue, 2 Jan 2024, GM wrote:
> Orders due Friday.
>
F bre - mao
-- 
Jean
A par - gas
"""
    result = parse_message(body, STANDARD, "FRA")
    assert [str(o) for o in result.orders] == ["F bre - mao"] and result.ok


def test_a_power_line_names_the_power_of_the_lines_after_it():
    body = "England:\nF lon - nth\nFrance:\nA par - bur\nGER: A mun H\n"
    result = parse_message(body, STANDARD)
    assert [canonical(o) for o in result.orders] == ["ENG: F lon - nth", "FRA: A par - bur", "GER: A mun H"]


def test_a_message_from_one_power_cannot_order_for_another():
    result = parse_message("A par H\nENG: F lon - nth\nEngland:\nF edi H\n", STANDARD, "FRA")
    assert [canonical(o) for o in result.orders] == ["FRA: A par H"]
    assert [e.line_no for e in result.errors] == [2, 3, 4]


def test_two_line_bribe_takes_the_units_order_and_vassal_does_not():
    body = """\
BRIBE A Rumania BID 1
A Rumania S A Budapest – Serbia
VASSAL A Norway BID 2
A Norway – Sweden
"""
    result = parse_message(body, STANDARD, "ENG")
    assert result.ok, result.report()
    assert [str(o) for o in result.orders] == [
        "BRIBE A rum BID 1 A rum S A bud - ser", "VASSAL A nwy BID 2", "A nwy - swe"]
    assert result.lines[1].joined_to == 1
    assert result.orders[0].order.power == "ENG"


def test_bribe_line_followed_by_another_units_order_stays_apart():
    result = parse_message("BRIBE A rum BID 1\nA bud - ser\n", STANDARD, "ENG")
    assert [str(o) for o in result.orders] == ["BRIBE A rum BID 1", "A bud - ser"]


def test_prestige_orders_of_the_rules_text_in_a_message():
    body = """\
VASSAL A Norway BID 2
A Norway – Sweden
BRIBE A Rumania BID 1
A Rumania S A Budapest – Serbia
SEIZE FIEF Greece
REBEL Tunis BID 4
SECURE LOYALTY BID 2
BRIBE English F English Channel BID 2 F English Channel S F North Sea – London
LEND England 3 prestige
"""
    result = parse_message(body, STANDARD, "RUS")
    assert result.ok, result.report()
    assert [str(o) for o in result.orders] == [
        "VASSAL A nwy BID 2", "A nwy - swe", "BRIBE A rum BID 1 A rum S A bud - ser", "SEIZE FIEF gre",
        "REBEL tun BID 4", "SECURE LOYALTY BID 2", "BRIBE ENG F eng BID 2 F eng S F nth - lon", "LEND ENG 3"]


def test_message_in_a_retreat_phase_gives_retreats():
    result = parse_message("A par - bur\nF bre disband\n", STANDARD, "FRA", phase=PhaseKind.RETREAT)
    assert [type(o) for o in result.orders] == [Retreat, Disband]


def test_message_to_dict_and_text():
    result = parse_message("A par - bur\nA mar - Burgandy\n", STANDARD, "FRA")
    data = result.to_dict()
    assert data["orders"] == ["FRA: A par - bur"]
    assert data["errors"][0]["line"] == 2
    assert result.to_text().startswith("FRA: A par - bur\n\nline 2:")


# -- the Outremer map --------------------------------------------------------------------------


def test_crusader_names():
    variant = crusader()
    gulf = parse_order("JER: F Gulf of Alexandretta - Alexandretta", variant)
    assert str(gulf.location) != "gal" and variant.provinces[gulf.location.province].name == "Gulf of Alexandretta"
    assert str(parse_order("JER: A Galilee - Acre", variant)) == "A gal - acr"
    assert parse_order("JER: A gal H", variant).location == Location("gal")
    assert str(parse_order("F Gulf of Alex - Cyprus", variant, "ANT").location) == "gax"
    assert str(parse_order("A Anti-Taurus Mountains - Melitene", variant, "RUM")) == "A atm - mel"
    assert str(parse_order("A anti-taurus - mel", variant, "RUM")) == "A atm - mel"
    assert str(parse_order("A Ra'ban H", variant, "EDE")) == "A rab H"
    assert str(parse_order("F Tyre - South Levantine Coast", variant, "JER")) == "F tyr - slc"


def test_crusader_powers():
    variant = crusader()
    assert parse_order("Rum: A ico - phr", variant).power == "RUM"
    assert parse_order("Seldjuks of Rum: A ico - phr", variant).power == "RUM"
    assert parse_order("Byzantine: F con - aeg", variant).power == "BYZ"
    assert parse_order("The Kingdom of Jerusalem: A jer H", variant).power == "JER"
    with pytest.raises(AmbiguousNameError):
        parse_order("Seldjuks: A ico H", variant)
    bribe = parse_order("BYZ: BRIBE Antiochene A ant BID 2 A ant H", variant)
    assert bribe.owner == "ANT"
    assert str(parse_order("JER: REBEL Tyre BID 3", variant)) == "REBEL tyr BID 3"
    assert str(parse_order("FAT: LEND Rum 2", variant)) == "LEND RUM 2"


def test_crusader_ambiguous_start_and_typo():
    variant = crusader()
    with pytest.raises(AmbiguousNameError) as info:
        parse_order("A Alexandr H", variant, "FAT")
    assert "Alexandria" in str(info.value) and "Alexandretta" in str(info.value)
    with pytest.raises(UnknownNameError) as info:
        parse_order("A Jerusalam H", variant, "JER")
    assert "Jerusalem" in info.value.suggestions


def test_crusader_message():
    variant = crusader()
    body = "Jerusalem:\nA Jerusalem - Hebron\nA Beirut S A Galilee - Damascus\nF Acre - SLC\nA Galilee - Damascus\n"
    result = parse_message(body, variant)
    assert result.ok, result.report()
    assert [canonical(o) for o in result.orders] == [
        "JER: A jer - heb", "JER: A bei S A gal - dms", "JER: F acr - slc", "JER: A gal - dms"]
