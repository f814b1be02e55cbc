"""The judge's own notation, read back strictly: the text ``canonical(order)`` and ``str(unit)`` write.

    >>> from adjudicator.variant import get_variant
    >>> read_order("FRA: A par - bur", get_variant("standard"))
    Move(power='FRA', unit_type=UnitType.ARMY, location=Location.parse('par'), destination=Location.parse('bur'), via_convoy=False)

Beside the order grammar (``grammar``), which reads every notation a player may write, this is
the one reader of the canonical short notation, as python-chess keeps ``Move.from_uci`` beside
``parse_san``: a few tables of the variant (its power codes, the location ids and the unit types),
and the order's shape read word by word. The notation is read in any case: ``ENG: A LON - NTH``
(MILA's ``diplomacy`` package writes its orders so) and ``eng: a lon - nth`` are the same order
as ``ENG: A lon - nth``. The text as the judge writes it is read first; only when that fails is
each word folded to its canonical case (:attr:`Tables.fold`: an id to lower case, a word of the
notation to its own case, any other word to capitals, as a power's code and a rule module's
words are) and the words read again; a word that is both a power's code and an id (``ENG`` and
the English Channel's ``eng``) is read as the id, then as the code. A move by convoy may end in
``via`` alone (``ENG: A LON - NWY VIA``, as MILA's package writes it) as well as ``via convoy``. Anything else that is not what the judge
writes (other spacing, a name for an id, an unknown id) is refused with :class:`NotationError`;
a caller that may be given other notations (a position document, a player's line) then asks the
grammar.

- :func:`read_order`: ``"ENG: F nth C A lon - nwy"``, ``"RUS: BRIBE TUR A rum BID 1 A rum H"``.
- :func:`read_unit`: ``"ENG: F stp/nc"``.
- :func:`as_phase_order`: a move read in a retreat phase is a retreat (the notation writes both
  as ``-``).
"""

from __future__ import annotations

import functools
import itertools
from typing import NamedTuple
from collections.abc import Callable

from .errors import CrusaderError
from .modules import all_rule_modules
from .orders import Build, Convoy, Disband, Hold, Move, MovementOrder, Order, Retreat, SupportHold, SupportMove, Waive
from .variant import Variant
from .vocab import NEUTRAL, Location, Phase, PhaseKind, Power, ProvinceId, Unit, UnitType


class NotationError(CrusaderError, ValueError):
    """Text that is not the judge's canonical notation (it may still be an order in another)."""


class Tables(NamedTuple):
    """What the notation's words mean on one variant."""

    powers: frozenset[str]
    """The codes that may give an order or own a unit: the powers' and ``NEU``."""
    lenders: frozenset[str]
    """The powers' codes (a power, not ``NEU``, is what some orders name: ``LEND ENG 3``)."""
    locations: dict[str, Location]
    """``str(location)`` -> location, for every province and every coast of a split coast."""
    provinces: frozenset[ProvinceId]
    units: dict[str, Unit]
    """``str(unit)`` -> unit, for every unit that may stand on the map."""
    fold: dict[str, str]
    """A word in lower case -> the word as the notation writes it, for every id and every word
    of the notation written in lower case or as one capital (``lon`` -> ``lon``, ``a`` -> ``A``,
    ``eng`` -> ``eng``); a word not here is written in capitals (a power's code, ``BID``)."""
    codes_too: frozenset[str]
    """The ids that are also a power's code (``eng`` on the classic map), in lower case."""


UNIT_TYPES = {"A": UnitType.ARMY, "F": UnitType.FLEET}
_WORDS = frozenset({"A", "F", "H", "S", "C", "-", "via", "convoy", "disband", "build", "waive"})
_WORD_CASE = {word.lower(): word for word in _WORDS}
"""The words of the notation in lower case: a province id spelled like one is left to the
grammar. (A rule module's words are in capitals, which no id is.)"""


@functools.cache
def _tables(variant: Variant) -> Tables:
    locations: dict[str, Location] = {}
    for pid, prov in variant.provinces.items():
        if pid in _WORDS:
            continue    # an id spelled like a word of the notation: left to the grammar
        locations[pid] = Location(pid)
        for coast in prov.coasts:
            locations[f"{pid}/{coast}"] = Location(pid, coast)
    owners = (*variant.powers, NEUTRAL)
    units = {}
    for location in locations.values():
        for unit_type in UnitType:
            if variant.can_hold(unit_type, location):
                for power in owners:
                    unit = Unit(power, unit_type, location)
                    units[str(unit)] = unit
    fold = {**{key: key for key in locations}, **_WORD_CASE}
    return Tables(frozenset(owners), frozenset(variant.powers), locations,
                   frozenset(loc.province for loc in locations.values()), units, fold,
                  frozenset(code.lower() for code in owners if code.lower() in locations))


def read_unit(text: str, variant: Variant) -> Unit:
    """The unit ``str(unit)`` wrote (``"ENG: F stp/nc"``, in any case: ``"ENG: F STP/NC"``), one
    that may stand where it is.

    Raises :class:`NotationError` for any other text.
    """
    units = _tables(variant).units
    if text.__class__ is str:
        unit = units.get(text)
        if unit is None:  # the same notation in another case?
            power, sep, rest = text.partition(": ")
            unit_type, space, where = rest.partition(" ")
            unit = units.get(f"{power.upper()}: {unit_type.upper()} {where.lower()}") if sep and space else None
        if unit is not None:
            return unit
    raise NotationError(f"not a unit as the judge writes it (like 'ENG: F lon'): {text!r}")


def read_order(text: str, variant: Variant, *, phase: Phase | PhaseKind | None = None) -> Order:
    """The order ``canonical(order)`` wrote (``"ENG: F nth - pic"``), given by its power.

    With ``phase``, a move read in a retreat phase is a :class:`Retreat` (:func:`as_phase_order`).
    Raises :class:`NotationError` for any other text.
    """
    tables = _tables(variant)
    power, sep, body = text.partition(": ") if text.__class__ is str else ("", "", "")
    if sep:
        words = body.split(" ")
        order = _read_words(tables, power, words)
        if order is None:  # the same notation in another case?
            order = _read_folded(tables, power, words)
        if order is not None:
            return as_phase_order(order, phase) if phase is not None else order
    raise NotationError(f"not an order as the judge writes it (like 'ENG: F nth - nwy'): {text!r}")


def _read_folded(tables: Tables, power: str, words: list[str]) -> Order | None:
    """The order ``words`` write in the canonical notation in another case than the judge's: each
    word folded to its case (:attr:`Tables.fold`), and a word that is both an id and a power's code
    (``ENG``, ``eng``) read as the one and then, if the order cannot be read so, as the other."""
    fold, given, power = tables.fold.get, power, power.upper()
    folded = [fold(word.lower()) or word.upper() for word in words]
    order = _read_words(tables, power, folded) if folded != words or power != given else None
    if order is None:
        both = [i for i, word in enumerate(folded) if word in tables.codes_too][:_MOST_BOTH]
        for choice in itertools.islice(itertools.product((False, True), repeat=len(both)), 1, None):
            for i, code in zip(both, choice):
                folded[i] = folded[i].upper() if code else folded[i].lower()
            order = _read_words(tables, power, folded)
            if order is not None:
                break
    return order


_MOST_BOTH = 4
"""At most this many words of an order that are both an id and a code are tried both ways."""


def _read_words(tables: Tables, power: str, words: list[str]) -> Order | None:
    """The order of ``power`` that ``words`` (the text after ``"ENG: "``, split at each space)
    write in the canonical notation, its case as the judge writes it; ``None`` if not one."""
    if power not in tables.powers:
        return None
    try:
        reader: Reader = _heads().get(words[0], unit_order)
        return reader(tables, Power(power), words)
    except (KeyError, IndexError, ValueError):
        return None


def as_phase_order(order: Order, phase: Phase | PhaseKind) -> Order:
    """The order as meant in ``phase``: in a retreat phase, ``A par - bur`` is a retreat.

    Both notations write a retreat as a move; a move by convoy stays a move (a retreat can
    never be convoyed, validation says so).
    """
    if not isinstance(order, Move) or order.via_convoy:  # most orders: no need to look at the phase
        return order
    kind = phase.kind if isinstance(phase, Phase) else phase
    if kind is PhaseKind.RETREAT:
        return Retreat(order.power, order.unit_type, order.location, order.destination)
    return order


# -- the shapes of the notation -----------------------------------------------------------
# Each reader takes the words after the power and answers the order, or None (or raises
# KeyError, IndexError, ValueError) when the words are not that shape exactly.


def unit_at(tables: Tables, words: list[str], i: int) -> tuple[UnitType | None, Location, int]:
    """``A par``, ``F stp/nc`` or ``par`` (a unit whose type the player left out) at ``words[i]``."""
    unit_type = UNIT_TYPES.get(words[i])
    if unit_type is None:
        return None, tables.locations[words[i]], i + 1
    return unit_type, tables.locations[words[i + 1]], i + 2


def unit_order(tables: Tables, power: Power, words: list[str], i: int = 0) -> MovementOrder | Build | Disband | None:
    unit_type, location, i = unit_at(tables, words, i)
    verb, rest = words[i], len(words) - i - 1
    if verb == "-":
        destination = tables.locations[words[i + 1]]
        if rest == 1:
            return Move(power, unit_type, location, destination)
        if (rest == 3 and words[i + 2] == "via" and words[i + 3] == "convoy") or (rest == 2 and words[i + 2] == "via"):
            return Move(power, unit_type, location, destination, True)  # MILA's package writes ``VIA`` alone
        return None
    if verb == "S" or verb == "C":
        target_type, target, j = unit_at(tables, words, i + 1)
        if j == len(words) and verb == "S":
            return SupportHold(power, unit_type, location, target_type, target)
        if j + 2 != len(words) or words[j] != "-":
            return None
        destination = tables.locations[words[j + 1]]
        cls = SupportMove if verb == "S" else Convoy
        return cls(power, unit_type, location, target_type, target, destination)
    if rest:
        return None
    if verb == "H":
        return Hold(power, unit_type, location)
    if verb == "build":
        return Build(power, unit_type, location)
    if verb == "disband":
        return Disband(power, unit_type, location)
    return None


def amount(word: str) -> int:
    """A number as ``str(int)`` writes it (no sign, no leading zero)."""
    if not word.isdigit() or not word.isascii() or (word[0] == "0" and word != "0"):
        raise ValueError(word)
    return int(word)


def _waive(tables: Tables, power: Power, words: list[str]) -> Waive | None:
    return Waive(power) if len(words) == 1 else None


Reader = Callable[["Tables", Power, list[str]], "Order | None"]
"""A shape of the notation: the words after the power -> the order, or None (or KeyError,
IndexError, ValueError) when the words are not that shape exactly."""


@functools.cache
def _heads() -> dict[str, Reader]:
    """The reader of each order that starts with a word of its own: the classic game's, and each
    rule module's (``RuleModule.notation``)."""
    heads: dict[str, Reader] = {"waive": _waive}
    for module in all_rule_modules():
        heads.update(module.notation)
    return heads
