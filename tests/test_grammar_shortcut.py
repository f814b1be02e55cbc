"""The quick reader of short notations agrees with the grammar, or stands aside.

For every generated line, :func:`grammar.shortcut.read_short` either answers ``None`` or
the very :class:`~grammar.transform.Reading` (order, prefix, spans) the Lark grammar reads;
and :func:`parse_order` gives the same order or the same error with the shortcut on and off.
"""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import grammar.parser as parser_module
from adjudicator.orders import Build, Convoy, Disband, Hold, Move, Retreat, SupportHold, SupportMove, Waive
from adjudicator.variant import get_variant
from adjudicator.vocab import Location, Phase, UnitType
from grammar import OrderError, parse_order, parse_order_text
from grammar.names import name_index
from grammar.parser import read_line
from grammar.shortcut import plain_pieces, read_one_word_names, read_plain, read_short, read_tokens
from grammar.transform import NO_POWER, Reading, Span

VARIANTS = {name: get_variant(name) for name in ("standard", "crusader")}
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@contextlib.contextmanager
def grammar_only():
    """Read lines with the Lark grammar alone."""
    saved = parser_module.SHORTCUT
    parser_module.SHORTCUT = False
    try:
        yield
    finally:
        parser_module.SHORTCUT = saved


def grammar_reading(line: str, variant) -> Reading | OrderError:
    with grammar_only():
        try:
            return read_line(line, name_index(variant))
        except OrderError as err:
            return err


def outcome(line: str, variant, power):
    """What parse_order answers: the order, or the error's kind, column and whole text."""
    try:
        return parse_order(line, variant, power)
    except OrderError as err:
        return (type(err).__name__, err.column, err.end_column, str(err))


def assert_agrees(line: str, variant_name: str = "standard", power: str | None = None) -> Reading | None:
    variant = VARIANTS[variant_name]
    index = name_index(variant)
    spelled = index.respell(line)
    quick = read_short(spelled, index)
    for reader in (read_one_word_names, read_tokens):  # each way on its own, too
        reading = reader(spelled, index)
        if reading is not None:
            assert reading == quick, (reader.__name__, line)
    if quick is not None:
        assert quick == grammar_reading(line, variant), line
    fast = outcome(line, variant, power)
    with grammar_only():
        slow = outcome(line, variant, power)
    assert fast == slow, line
    assert_plain_agrees(line, variant, power)
    return quick


def assert_plain_agrees(line: str, variant, power: str | None) -> None:
    """:func:`read_plain` answers ``None`` or what the grammar answers, for a caller's power
    and for none (as :func:`parse_order_text` reads a line)."""
    pieces = plain_pieces(name_index(variant))
    for given in (power, NO_POWER):
        plain = read_plain(line, pieces, given)
        if plain is None:
            continue
        with grammar_only():
            slow = parse_order(line, variant, power) if given else parse_order_text(line, variant)
        assert plain == slow and type(plain) is type(slow), line
        assert hash(plain) == hash(slow) and str(plain) == str(slow) and repr(plain) == repr(slow), line


# -- generated lines ------------------------------------------------------------------------


def _case(word: str) -> st.SearchStrategy[str]:
    return st.sampled_from([word, word.lower(), word.upper(), word.title()])


@st.composite
def places(draw, variant_name: str) -> str:
    variant = VARIANTS[variant_name]
    pid = draw(st.sampled_from(sorted(variant.provinces)))
    prov = variant.provinces[pid]
    name = draw(_case(draw(st.sampled_from((pid, prov.name, *prov.aliases)))))
    if not prov.coasts:  # mostly plain, now and then a coast it does not have
        return name + draw(st.sampled_from([""] * 12 + ["/nc", " nc"]))
    coast = draw(st.sampled_from(prov.coasts))
    form = draw(st.sampled_from(["", "/{c}", "/{c}", "({c})", " ({c})", " {c}", " / {c}", "/{C}",
                                 " (north coast)", " south coast", "(nc", "/xc"]))
    return name + form.format(c=coast, C=coast.upper())


UNIT_TYPES = ["", "", "A ", "F ", "a ", "f ", "Army ", "FLEET ", "army\t", "Fleet in ", "A at the ", "A. ", "F.",
              "in "]
MOVES = [" - ", "-", " -> ", "->", " – ", " to ", " m ", " moves to ", " MOVES ", " into ", " goes into ",
         " attacks ", " --> ", " - > ", " => ",
         " moves to. ", " moves. to ", " -. ", ", to "]
VIAS = ["", "", " via", " VIA", " via convoy", " by convoy", " by", " via convoys", " via. convoy", " via convoy.",
        " by convoy!", ".", " ,via"]
SPACE = st.sampled_from(["", " ", "  ", "\t"])


@st.composite
def units(draw, variant_name: str) -> str:
    return draw(st.sampled_from(UNIT_TYPES)) + draw(places(variant_name))


@st.composite
def canonical_lines(draw, variant_name: str) -> str:
    unit, place = units(variant_name), places(variant_name)
    kind = draw(st.sampled_from(["hold", "move", "support_hold", "support_move", "convoy", "retreat",
                                 "build", "disband", "waive"]))
    u = draw(unit)
    if kind == "hold":
        body = u + draw(st.sampled_from([" H", " h", " holds", " STANDS", "H"]))
    elif kind == "move":
        body = u + draw(st.sampled_from(MOVES)) + draw(place) + draw(st.sampled_from(VIAS))
    elif kind == "support_hold":
        body = (u + draw(st.sampled_from([" S ", " s ", " supports ", " SUPP "])) + draw(unit)
                + draw(st.sampled_from(["", " H", " hold"])))
    elif kind == "support_move":
        body = (u + draw(st.sampled_from([" S ", " supports "])) + draw(unit) + draw(st.sampled_from(MOVES))
                + draw(place) + draw(st.sampled_from(VIAS)))
    elif kind == "convoy":
        body = (u + draw(st.sampled_from([" C ", " c ", " convoys ", " transports "])) + draw(unit)
                + draw(st.sampled_from(MOVES)) + draw(place) + draw(st.sampled_from(VIAS)))
    elif kind == "retreat":
        body = u + draw(st.sampled_from([" R ", " r ", " retreats to ", " RETREAT "])) + draw(place)
    elif kind in ("build", "disband"):
        words = [" build", " B", " place"] if kind == "build" else [" disband", " D", " remove", " destroys"]
        word = draw(st.sampled_from(words))
        body = u + word if draw(st.booleans()) else word.strip() + " " + u
    else:
        body = draw(st.sampled_from(["waive", "WAIVE build", "waives  builds", "waive b"]))
    return draw(SPACE) + draw(prefixes(variant_name)) + body + draw(st.sampled_from(["", "", " ", ".", " .", ";"]))


@st.composite
def prefixes(draw, variant_name: str) -> str:
    variant = VARIANTS[variant_name]
    code = draw(st.sampled_from(sorted(variant.powers)))
    info = variant.powers[code]
    name = draw(_case(draw(st.sampled_from([code, info.name, info.adjective, "Neutral", "Nobody"]))))
    form = draw(st.sampled_from(["", "{p}: ", "{p}:", "{p} : ", " {p}:\t", "{p} ", ": "]))
    return form.format(p=name)


TOKENS = ["A", "F", "a", "army", "Fleet", "par", "Paris", "bur", "spa", "nc", "sc", "(", ")", "/", "stp",
          "St", "Petersburg", "north", "coast", "North", "Sea", "Mid-Atlantic", "Ocean", "-", "->", ">",
          "to", "m", "moves", "into", "H", "hold", "S", "supp", "C", "convoy", "via", "by", "R", "retreats",
          "b", "build", "place", "d", "remove", "waive", "VASSAL", "BRIBE", "BID", "in", "at", "ENG", "ENG:",
          "England", "English", ":", "Burgandy", "Gulf", "of", "Lyon", "the", "lon", "nth", "nwy", "FRA",
          "Russia", "nao", "mao", "bot", "lvp", "edi", "Heligo", "Den", "the", "Neutral", "go", "goes",
          "attack", "2", ".", "xyz", "St.", "n.c.", "H.", "bur.", ",", "via.", "to.", "s.c", "!", ";", "A.",
          "s.", "convoy.", "par.bur", "in."]
token_lines = st.lists(st.tuples(st.sampled_from(TOKENS), SPACE), max_size=12).map(
    lambda parts: "".join(tok + (sep or " ") for tok, sep in parts))


@SETTINGS
@given(canonical_lines("standard"), st.sampled_from([None, "ENG", "FRA", "RUS"]))
def test_shortcut_agrees_on_standard_notations(line, power):
    assert_agrees(line, "standard", power)


@SETTINGS
@given(canonical_lines("crusader"), st.sampled_from([None, "ANT", "BYZ"]))
def test_shortcut_agrees_on_crusader_notations(line, power):
    assert_agrees(line, "crusader", power)


@SETTINGS
@given(token_lines, st.sampled_from([None, "ENG"]))
def test_shortcut_agrees_on_lines_built_from_tokens(line, power):
    assert_agrees(line, "standard", power)


def change_one_token(draw, words: list[str], tokens: list[str]) -> list[str]:
    """``words`` with one word replaced by one of ``tokens``, or one of them put in, somewhere."""
    words = list(words)
    at = draw(st.integers(0, len(words)))
    token = draw(st.sampled_from(tokens))
    if at < len(words) and draw(st.booleans()):
        words[at] = token
    else:
        words.insert(at, token)
    return words


@st.composite
def mutated_lines(draw) -> str:
    """A standard line with one word replaced, or one token put in, somewhere."""
    words = change_one_token(draw, draw(canonical_lines("standard")).split(" "), TOKENS)
    return draw(st.sampled_from([" ", "", "\t"])).join(words) if draw(st.booleans()) else " ".join(words)


@SETTINGS
@given(mutated_lines(), st.sampled_from([None, "ENG"]))
def test_shortcut_agrees_on_lines_with_a_token_changed(line, power):
    assert_agrees(line, "standard", power)


@SETTINGS
@given(st.text(alphabet="AFSCHRBDafmsp -:/()>\t", max_size=30))
def test_shortcut_agrees_on_scrambled_short_lines(line):
    assert_agrees(line, "standard", "ENG")


# -- the shortcut does take the common lines --------------------------------------------------

A, F = UnitType.ARMY, UnitType.FLEET


def loc(text: str) -> Location:
    return Location.parse(text)


COMMON = [
    ("FRA: A PAR - BUR", Move(NO_POWER, A, loc("par"), loc("bur"), False), "FRA"),
    ("ENG: F NTH C A LON - NWY", Convoy(NO_POWER, F, loc("nth"), A, loc("lon"), loc("nwy")), "ENG"),
    ("GER: A MUN S A BER - SIL", SupportMove(NO_POWER, A, loc("mun"), A, loc("ber"), loc("sil")), "GER"),
    ("RUS: F STP/SC - BOT", Move(NO_POWER, F, loc("stp/sc"), loc("bot"), False), "RUS"),
    ("ENG: A LON - NWY VIA", Move(NO_POWER, A, loc("lon"), loc("nwy"), True), "ENG"),
    ("ITA: A VEN H", Hold(NO_POWER, A, loc("ven")), "ITA"),
    ("TUR: A CON S A BUL", SupportHold(NO_POWER, A, loc("con"), A, loc("bul")), "TUR"),
    ("AUS: A VIE R BOH", Retreat(NO_POWER, A, loc("vie"), loc("boh")), "AUS"),
    ("RUS: F STP/NC B", Build(NO_POWER, F, loc("stp/nc")), "RUS"),
    ("FRA: A PAR D", Disband(NO_POWER, A, loc("par")), "FRA"),
    ("A par-bur", Move(NO_POWER, A, loc("par"), loc("bur"), False), None),
    ("F spa(sc) - wes", Move(NO_POWER, F, loc("spa/sc"), loc("wes"), False), None),
    ("England: F North Sea convoys A Yorkshire to Norway via convoy",
     Convoy(NO_POWER, F, loc("nth"), A, loc("yor"), loc("nwy")), "ENG"),
    ("build F stp nc", Build(NO_POWER, F, loc("stp/nc")), None),
    ("F Mid-Atlantic Ocean - Spain (north coast)", Move(NO_POWER, F, loc("mao"), loc("spa/nc"), False), None),
    ("waive", Waive(NO_POWER), None),
    ("Fleet in the North Sea convoys army London to Norway.",
     Convoy(NO_POWER, F, loc("nth"), A, loc("lon"), loc("nwy")), None),
    ("F St. Petersburg north coast - Barents Sea", Move(NO_POWER, F, loc("stp/nc"), loc("bar"), False), None),
    ("A par H.", Hold(NO_POWER, A, loc("par")), None),
]


@pytest.mark.parametrize("line,order,prefix", COMMON, ids=[c[0] for c in COMMON])
def test_shortcut_reads_the_common_notations(line, order, prefix):
    quick = assert_agrees(line, "standard")
    assert quick is not None, f"the shortcut stood aside for {line!r}"
    assert quick.order == order
    assert quick.prefix == prefix
    if prefix:
        assert quick.prefix_span == Span(0, line.index(":"))


@pytest.mark.parametrize("line,order,prefix", COMMON, ids=[c[0] for c in COMMON])
def test_the_token_reader_reads_the_common_notations_on_its_own(line, order, prefix):
    index = name_index(VARIANTS["standard"])
    assert read_tokens(index.respell(line), index) == read_short(index.respell(line), index)


@pytest.mark.parametrize("line,order,prefix", COMMON[:12], ids=[c[0] for c in COMMON[:12]])
def test_lines_of_one_word_names_take_one_match(line, order, prefix):
    index = name_index(VARIANTS["standard"])
    assert read_one_word_names(line, index) == read_short(line, index) is not None


@pytest.mark.parametrize("line", [
    "A par at bur", "English A lon - nth", "A par - bur via .convoy", "A.par H", "A lon - nwy by", "A par R bur via",
    "F nth C A lon", "A par -- bur", "A par - Burgandy", "A par", "ENG: FRA: A par H", "A paris - bür",
    "VASSAL A nwy BID 2", "F spa(nc - mao", "A to - bur",
])
def test_shortcut_stands_aside_for_other_lines(line):
    assert assert_agrees(line, "standard", "ENG") is None


@pytest.mark.parametrize("line,order,prefix", COMMON[:10], ids=[c[0] for c in COMMON[:10]])
def test_the_plain_reader_reads_the_lines_of_position_documents(line, order, prefix):
    from grammar import with_power

    pieces = plain_pieces(name_index(VARIANTS["standard"]))
    for written in (line, line.lower(), f"  {line.replace(' ', '  ')}\t"):
        assert read_plain(written, pieces, None) == with_power(order, prefix)
        assert read_plain(written, pieces, prefix) == with_power(order, prefix)
        assert read_plain(written, pieces, NO_POWER) == with_power(order, prefix)
        body = written.split(":", 1)[1]
        assert read_plain(body, pieces, prefix) == with_power(order, prefix)
        assert read_plain(body, pieces, NO_POWER) == order


@pytest.mark.parametrize("line,power", [
    ("FRA: A PAR - BUR", "ENG"),  # the prefix is not the caller's power
    ("A PAR - BUR", None),  # no power at all
    ("FRA: A PAR - BUR\nFRA: A MAR H", None), ("FRA: A PAR\nH", None), ("FRA: A PAR H\r", None),
    ("FRA: A PAR - BUR; F BRE H", None), ("FRA: A PAR - BUR F BRE H", None), ("FRA: A PAR", None),
    ("FRA: A PAR moves to BUR", None), ("FRA: F Black Sea - ANK", None), ("fRA: A PAR H", None),
    ("FRA:", None), ("", NO_POWER), ("WAIVE", NO_POWER), ("English A lon - nth", "ENG"),
])
def test_the_plain_reader_stands_aside_for_other_lines(line, power):
    assert read_plain(line, plain_pieces(name_index(VARIANTS["standard"])), power) is None


@pytest.mark.parametrize("power", [None, "ENG", "GER"])
def test_messages_read_alike_with_and_without_the_shortcut(power):
    from grammar import parse_message

    message = ("England:\nF EDI - NTH\nFRA: A PAR H\nENG: A LVP - YOR\nA LVP - YOR\nGermany:\n"
               "GER: A BER H\nA MUN H\nENG: F LON H\nA KIE - HOL VIA\nGER: F KIE - DEN GER:")
    for phase in (None, "F1901R"):
        fast = parse_message(message, VARIANTS["standard"], power, phase=phase and Phase.parse(phase))
        with grammar_only():
            slow = parse_message(message, VARIANTS["standard"], power, phase=phase and Phase.parse(phase))
        assert fast.orders == slow.orders and [type(o) for o in fast.orders] == [type(o) for o in slow.orders]
        assert fast.to_text() == slow.to_text()


def test_the_plain_reader_stands_aside_for_what_is_not_a_line():
    pieces = plain_pieces(name_index(VARIANTS["standard"]))
    for text in (None, 7, b"FRA: A PAR H", ["FRA: A PAR H"]):
        assert read_plain(text, pieces, None) is None


def test_with_power_gives_what_dataclasses_replace_gives():
    import dataclasses

    from adjudicator.orders import Bribe, Lend, SecureLoyalty, Vassal
    from grammar import with_power

    orders = [order for _, order, _ in COMMON] + [
        Vassal(NO_POWER, A, loc("nwy"), 2), SecureLoyalty(NO_POWER, 1), Lend(NO_POWER, "ENG", 3),
        Bribe(NO_POWER, A, loc("rum"), 1, owner="RUS", order=Hold(NO_POWER, A, loc("rum"))),
    ]
    for order in orders:
        given = with_power(order, "TUR")
        expected = dataclasses.replace(order, power="TUR")
        if isinstance(order, Bribe):
            expected = dataclasses.replace(expected, order=dataclasses.replace(order.order, power="TUR"))
        assert given == expected and type(given) is type(order)
        assert hash(given) == hash(expected) and repr(given) == repr(expected)
        assert order.power == NO_POWER  # the original is untouched


@SETTINGS
@given(st.one_of(token_lines, st.text(alphabet="AFSCHRBDafmsp -:/()>\t.VIBnw2", max_size=30)))
def test_mistakes_are_named_as_lark_match_examples_names_them(line):
    from lark import UnexpectedInput

    from grammar.parser import MISTAKES, PARSER, _mistake

    try:
        PARSER.parse(name_index(VARIANTS["standard"]).respell(line))
    except UnexpectedInput as exc:
        try:
            expected = exc.match_examples(PARSER.parse, MISTAKES, use_accepts=False)
        except AssertionError:
            expected = None
        assert _mistake(exc) == expected


@pytest.mark.parametrize("variant_name", sorted(VARIANTS))
def test_the_one_word_table_answers_as_the_name_matching_does(variant_name):
    from grammar.names import resolve_location, resolve_power
    from grammar.shortcut import _table

    index = name_index(VARIANTS[variant_name])
    table = _table(index)
    assert table.places and table.powers
    for word, location in table.places.items():
        for spelling in (word, word.upper(), word.title()):
            assert resolve_location(index, (spelling,)) == location
    for (word, coast), location in table.coasts.items():
        assert resolve_location(index, (word,), (coast,)) == location
    for word, power in table.powers.items():
        assert resolve_power(index, word) == power
