"""Why a line could not be read, in words a player can act on, with examples of the player's map.

- :func:`examples`: orders of each kind written with the map's own names (``A vie - boh`` on
  the classic map, ``A ant - ale`` on the Outremer map), for the messages to quote: an example
  the judge would refuse on that map helps nobody.
- :func:`explain_name`: a run of words in a unit's place that names nothing. When a start of it
  is a place ("Damietta will", "ant suports"), the first word after is the fault: it is no word
  of an order here. When an end of it is a place ("Amry Antioch"), the words before are. When
  none of it is, and it is where the order's unit belongs ("Please hold the fleet in
  Lattakieh"), the line is not written as an order: it starts with something else.
- :func:`keyword_suggestions`: misspelt order words ("mvoe", "suports", "Amry").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from rapidfuzz import fuzz, process

from adjudicator.vocab import Location, UnitType

from .errors import OrderError, OrderSyntaxError
from .lexer import WORD
from .names import NameIndex, normalize, province_candidates, resolve_location

KEYWORDS = ("hold", "move", "moves", "support", "supports", "convoy", "convoys", "retreat",
            "build", "disband", "remove", "waive", "army", "fleet", "via convoy", "vassal",
            "bribe", "seize fief", "rebel", "secure loyalty", "lend", "bid", "prestige")
"""Order words a misspelling is compared with."""

_WORD_SPANS = re.compile(WORD).finditer
_UNIT_WORDS = {"a": "A", "army": "A", "f": "F", "fleet": "F"}


class Examples(NamedTuple):
    """Orders written with one map's names, for messages to quote."""

    hold: str
    move: str
    support: str
    support_move: str
    convoy: str
    prefixed: str
    vassal: str
    lend: str
    seize: str
    coast: str | None
    """A place on a split coast (``bul(ec)``), or ``None`` on a map without one."""


@functools.cache
def examples(index: NameIndex) -> Examples:
    """The examples of ``index``'s map: its first power's first army, a neighbour of it, its
    first sea with two coasts, and so on (the same on every run)."""
    variant = index.variant
    powers = list(variant.powers)
    power = powers[0]
    army = next((u for u in variant.powers[power].units if u.type is UnitType.ARMY),
                variant.powers[power].units[0])
    near = sorted(variant.army_neighbours(army.province)) or [army.province]
    unit = army.short
    sea, coasts = next(((pid, sorted({loc.province for loc in variant.fleet_neighbours(Location(pid))
                                      if not variant.provinces[loc.province].is_sea}))
                        for pid, prov in sorted(variant.provinces.items()) if prov.is_sea), (army.province, near))
    coasts = (coasts + near)[:2] if len(coasts) < 2 else coasts[:2]
    both = sorted(variant.army_neighbours(near[0]) & variant.army_neighbours(army.province))
    neutral = next(iter(variant.neutral_units), army)
    split = next(((pid, prov.coasts[0]) for pid, prov in sorted(variant.provinces.items()) if prov.coasts), None)
    return Examples(
        hold=f"{unit} H",
        move=f"{unit} - {near[0]}",
        support=f"{unit} S A {near[0]}",
        support_move=f"{unit} S A {near[0]} - {both[0] if both else army.province}",
        convoy=f"F {sea} C A {coasts[0]} - {coasts[1]}",
        prefixed=f"{power}: {unit} - {near[0]}",
        vassal=f"VASSAL {neutral.short} BID 2",
        lend=f"LEND {powers[1 % len(powers)]} 3",
        seize=f"SEIZE FIEF {variant.home_centers(power)[0] if variant.home_centers(power) else army.province}",
        coast=f"{split[0]}({split[1]})" if split else None,
    )


# -- names that name nothing ------------------------------------------------------------------


def explain_name(index: NameIndex, text: str, start: int, *, line: str = "", subject: bool = False,
                 after: tuple[str, ...] = ()) -> OrderError | None:
    """Why the words ``text`` (standing at ``start`` in the line) name no place, if a start or an
    end of them does: the first word that does not belong is no order word. With ``subject``
    (the words stand where the order's unit belongs), words none of which is a place are told
    as a line that does not start with its unit. ``after`` says what may follow a unit here.
    ``None`` when the words are simply an unknown name (the caller's error says so)."""
    spans = [(m.group(), m.start() + start, m.end() + start) for m in _WORD_SPANS(text)]
    words = [w for w, _, _ in spans]
    if len(words) > 1:
        for n in range(len(words) - 1, 0, -1):          # the longest start that is a place
            place = _place(index, words[:n])
            if place is not None:
                if _misspelt_in(index, place, words[n], after=words[:n]):
                    return None                         # "Norwegian Sae": a misspelt name
                word, begin, end = spans[n]
                if _place(index, words[n:]) is not None:    # "A par bur": two places, no verb
                    return OrderSyntaxError(
                        f"the order has no verb between {' '.join(words[:n])} and {' '.join(words[n:])}",
                        column=begin + 1, end_column=spans[-1][2] + 1, expected=after)
                return _not_an_order_word(index, word, begin, end, f"after {' '.join(words[:n])}", after)
        for n in range(1, len(words)):                   # the longest end that is a place
            place = _place(index, words[n:])
            if place is not None:
                if _misspelt_in(index, place, words[n - 1], before=words[n:]):
                    return None
                misspelt = n == 1 and keyword_suggestions(index, words[:1])     # "Amry Antioch"
                if subject and (is_order_word(words[0]) or not misspelt):
                    # "hold Antioch", "I'd like Tarsus to stay put": not written as an order
                    return not_a_unit(index, words[0], spans[0][1], spans[0][2], line)
                culprit, begin, end = " ".join(words[:n]), spans[0][1], spans[n - 1][2]
                if misspelt:
                    return _not_an_order_word(index, culprit, begin, end, f"before {' '.join(words[n:])}",
                                              ("a unit type (A or F)",))
                return OrderSyntaxError(f"{culprit!r} is not part of a unit", column=begin + 1, end_column=end + 1,
                                        expected=(f"the unit as {place} or with its type, as in A {place}",))
    if subject and not _close_to_a_place(index, text):
        word, begin, end = spans[0] if spans else (text, start, start + len(text))
        return not_a_unit(index, word, begin, end, line)
    return None


def not_a_unit(index: NameIndex, word: str, begin: int, end: int, line: str = "",
               example: str | None = None) -> OrderSyntaxError:
    """The error for a line that starts with ``word`` where its unit belongs: an order word
    ("hold Antioch", "move A ant to ale") or other words ("Please hold the fleet ..."). The
    example order is ``example``, else one with the unit the line names."""
    if is_order_word(word):
        reason = f"{word!r} comes after the unit: an order starts with the unit it is for"
    else:
        reason = f"{word!r} is not a unit: an order starts with the unit it is for"
    return OrderSyntaxError(reason, column=begin + 1, end_column=end + 1,
                            expected=(f"the unit first, as in {example or prose_example(index, line[end:])}",))


def is_order_word(word: str) -> bool:
    """Is ``word`` one of the order words (a verb, a unit type, a prestige order's word)?"""
    return normalize(word) in _ORDER_WORDS


_ORDER_WORDS = frozenset(normalize(w) for k in KEYWORDS for w in k.split()) | {
    "holds", "stand", "stands", "go", "goes", "attack", "attacks", "transport", "transports", "retreats",
    "builds", "place", "disbands", "removes", "destroy", "destroys", "waives", "lends", "bids"}


def _close_to_a_place(index: NameIndex, text: str) -> bool:
    """Is ``text`` a likely misspelling of a place (rather than words that are no place)?"""
    key = normalize(text)
    return bool(key) and process.extractOne(key, index.province_spelling_keys, scorer=fuzz.ratio,
                                            score_cutoff=80) is not None


def prose_example(index: NameIndex, line: str) -> str:
    """An order with the unit a line of prose names ("the fleet in Lattakieh" -> ``F lat H``),
    or the map's example when it names none."""
    words = [m.group() for m in _WORD_SPANS(line)]
    letter = next((_UNIT_WORDS[w.casefold()] for w in words if w.casefold() in _UNIT_WORDS), None)
    for size in (3, 2, 1):
        for i in range(len(words) - size + 1):
            found, exact = province_candidates(index, " ".join(words[i:i + size]))
            if exact and len(found) == 1:
                pid = next(iter(found))
                return f"{letter} {pid} H" if letter else f"{pid} H"
    return examples(index).hold


def _place(index: NameIndex, words: list[str]) -> Location | None:
    try:
        return resolve_location(index, words)
    except OrderError:
        return None


def _misspelt_in(index: NameIndex, place: Location, word: str, *, after: Sequence[str] = (),
                 before: Sequence[str] = ()) -> bool:
    """Is ``word`` a misspelling of the word that follows ``after`` (or comes before ``before``)
    in a spelling of ``place``'s province ("Sae" in "Norwegian Sae")?"""
    prov = index.variant.provinces[place.province]
    key = normalize(word)
    for spelling in (prov.name, *prov.aliases):
        names = [normalize(w) for w in re.findall(r"[^\W_]+", spelling)]
        if after:
            n = len(after)
            if len(names) > n and fuzz.ratio(key, names[n]) >= 60:
                return True
        elif len(names) > len(before) and fuzz.ratio(key, names[-len(before) - 1]) >= 60:
            return True
    return False


def _not_an_order_word(index: NameIndex, word: str, begin: int, end: int, where: str,
                       after: tuple[str, ...]) -> OrderSyntaxError:
    return OrderSyntaxError(f"{word!r} is not an order word {where}", column=begin + 1, end_column=end + 1,
                            expected=after, suggestions=tuple(keyword_suggestions(index, word.split())))


def keyword_suggestions(index: NameIndex, words: Iterable[str]) -> list[str]:
    """Misspelt order words among ``words``: each neither a name nor an order word, but close
    to an order word (``'move' for 'mvoe'``)."""
    out: list[str] = []
    for word in words:
        key = normalize(word)
        if len(key) < 3 or key in index.powers or province_candidates(index, word)[0]:
            continue
        if key in _ORDER_WORDS:
            continue
        match = process.extractOne(key, KEYWORDS, scorer=fuzz.ratio, score_cutoff=72)
        if match:
            out.append(f"{match[0]!r} for {word!r}")
    return out[:3]

