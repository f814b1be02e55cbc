"""A quick reader for the short notations most lines use, that either agrees or stands aside.

Most order lines are short and plain: ``FRA: A PAR - BUR``, ``F NTH C A LON - NWY``,
``A MUN S A BER - SIL H``, ``F STP/SC - BOT``, ``A LON - NWY VIA``, ``F stp/nc build``.
:func:`read_short` reads such a line with one regular expression and a few dictionary
look-ups, and builds exactly the :class:`~grammar.transform.Reading` the Lark grammar and
:class:`~grammar.transform.OrderBuilder` would build from it (the same name matching, the
same order values, the same spans).

:func:`read_plain` goes further for the commonest of them, lines of whole words found as
written (``AUS: A BUD S A VIE - GAL``): it answers the order itself, given by its power, as
the reading and :func:`~grammar.parser.settle_power` would give it together.

Both answer ``None`` for everything else: any character outside ASCII letters, spaces, tabs
and ``: / ( ) - ->``; a keyword where it does not expect one (so a word the grammar might
read as a keyword is never taken for a name); an owner's name before a unit; a name that
does not resolve. The grammar then reads the line, so every other notation and every error
message stay the grammar's own. ``tests/test_grammar_shortcut.py`` checks the agreement.
"""

from __future__ import annotations

import functools
import operator
import re
from typing import Callable, NamedTuple

from adjudicator.orders import (
    Bribe, Build, Convoy, Disband, Hold, Move, Order, Rebel, Retreat, SecureLoyalty, SeizeFief, SupportHold,
    SupportMove, Vassal, Waive,
)
from adjudicator.vocab import Location, Power, UnitType

from .errors import OrderError
from .names import _COASTS, _INNER_HYPHEN, NameIndex, resolve_location, resolve_power
from .transform import NO_POWER, Reading, Span

_PLAIN = re.compile(r"[A-Za-z \t:/()>\-.,;!]+").fullmatch
"""The only characters a line read here may hold."""
_TOKENS = re.compile(r"->|[-/()>:.,;!]|[A-Za-z]+(?:\.[A-Za-z]+)*\.?").findall
"""Punctuation, and words as the grammar's WORD reads them ("St.", "n.c.", "bur.")."""
_IGNORED = frozenset(".,;!")
"""What the grammar passes over between tokens."""
_PREFIX = re.compile(r"[ \t]*([A-Za-z]+(?:[ \t]+[A-Za-z]+)*)[ \t]*").fullmatch

# Token kinds: keywords and punctuation are small ints, a unit type is its UnitType, a
# word of a name is the word itself (a str).
HOLD, MOVE, SUPPORT, CONVOY, VIA, RETREAT, BUILD, DISBAND, WAIVE, AT, SLASH, LPAR, RPAR = range(13)
_PUNCTUATION = {"-": MOVE, "->": MOVE, "/": SLASH, "(": LPAR, ")": RPAR}

# The first word of every keyword of ``orders.lark``, lower-cased, and what it is here.
# ``None``: a keyword (or the start of one) this reader does not take; it stands aside.
_WORDS: dict[str, object] = {
    **dict.fromkeys(("a", "army"), UnitType.ARMY),
    **dict.fromkeys(("f", "fleet"), UnitType.FLEET),
    **dict.fromkeys(("h", "hold", "holds", "stand", "stands"), HOLD),
    **dict.fromkeys(("m", "to", "into", "move", "moves", "attack", "attacks", "go", "goes"), MOVE),
    **dict.fromkeys(("s", "sup", "supp", "support", "supports"), SUPPORT),
    **dict.fromkeys(("c", "convoy", "convoys", "transport", "transports"), CONVOY),
    **dict.fromkeys(("via", "by"), VIA),
    **dict.fromkeys(("r", "retreat", "retreats"), RETREAT),
    **dict.fromkeys(("b", "build", "builds", "place"), BUILD),
    **dict.fromkeys(("d", "disband", "disbands", "remove", "removes", "destroy", "destroys"), DISBAND),
    **dict.fromkeys(("waive", "waives"), WAIVE),
    **dict.fromkeys(("in", "at"), AT),
    **dict.fromkeys(("vassal", "bribe", "seize", "rebel", "secure", "lend", "lends", "bid",
                     "bids", "prestige"), None),
}
# Keywords of two words (any spacing between): the first word, and the second words that
# join it. "by" is VIA only as "by convoy"; alone it is a word the grammar reads as a name.
_JOINS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("move", "moves", "attack", "attacks", "go", "goes", "retreat", "retreats"),
                    frozenset({"to", "into"})),
    "via": frozenset({"convoy"}),
    "by": frozenset({"convoy"}),
    **dict.fromkeys(("waive", "waives"), frozenset({"build", "builds"})),
}


class _Decline(Exception):
    """The line is not one this reader takes."""


def read_short(line: str, index: NameIndex) -> Reading | None:
    """The reading of ``line`` (already respelled) if it is a short notation, else ``None``."""
    try:
        reading = _read_words(line, index)
    except OrderError:  # the line's shape is an order's, but a name names no place: the
        return None     # other readers would find the same, and the grammar says why
    return reading or read_one_word_names(line, index) or read_tokens(line, index)


def read_one_word_names(line: str, index: NameIndex) -> Reading | None:
    """:func:`read_short` for the lines where every name is one word (one regex match)."""
    m = _ONE_WORD_NAMES(line)
    if m is None:
        return None
    try:
        return _read_match(m, index)
    except (_Decline, OrderError):
        return None


def read_tokens(line: str, index: NameIndex) -> Reading | None:
    """:func:`read_short` for every line it takes, names of several words too (token by token)."""
    if not _PLAIN(line):
        return None
    head, colon, body = line.partition(":")
    try:
        if not colon:
            return Reading(_Reader(_kinds(_TOKENS(line)), index).line())
        order = _Reader(_kinds(_TOKENS(body)), index).line()
        m = _PREFIX(head)
        if m is None:
            return None
        words = m.group(1).split()
        for word in words:
            if word.lower() in _WORDS:
                return None
        power = resolve_power(index, " ".join(words))
    except (_Decline, OrderError):
        return None
    return Reading(order, power, Span(m.start(1), m.end(1)))


# The commonest lines, where every name is one word: ``FRA: A PAR - BUR``, ``F STP/SC - BOT
# VIA``, ``A MUN S A BER - SIL``, ``F NTH C A LON - NWY``, ``A VEN H``, ``A PAR R BUR``. One
# match takes the line apart; :func:`_read_match` then checks each word in its role, as the
# token reader would, and stands aside (to the token reader) at the first doubt.
_W, _S = r"[A-Za-z]+", r"[ \t]"


def _place_pattern(name: str) -> str:
    return rf"(?P<{name}>{_W})(?:{_S}*/{_S}*(?P<{name}_c>{_W})|{_S}*\({_S}*(?P<{name}_p>{_W}){_S}*\))?"


_ONE_WORD_NAMES = re.compile(rf"""
    {_S}*(?:(?P<power>{_W}){_S}*:{_S}*)?               # FRA:
    (?:(?P<type>{_W}){_S}+)?{_place_pattern('at')}      # A par, F stp/sc, F spa(nc)
    (?:
        {_S}*(?:->|-){_S}*{_place_pattern('to')}        # - bur
        (?:{_S}+(?P<via>{_W}))?                         #   via
      | {_S}+(?P<verb>{_W})                             # H, S, C, R, B, D...
        (?:{_S}+(?:(?P<other_type>{_W}){_S}+)?{_place_pattern('other')}   # ... A ber
            (?:{_S}*(?:->|-){_S}*{_place_pattern('other_to')}          # - sil
               (?:{_S}+(?P<other_via>{_W}))?)?)?                        #   via
    ){_S}*""", re.VERBOSE).fullmatch


class _Table(NamedTuple):
    """One-word names of one variant, lower-cased, that name exactly one thing and are no
    keyword: what :func:`~grammar.names.resolve_location` and
    :func:`~grammar.names.resolve_power` answer for them, looked up in one step."""

    places: dict[str, Location]
    coasts: dict[tuple[str, str], Location]
    powers: dict[str, str]


@functools.cache
def _table(index: NameIndex) -> _Table:
    places, coasts, powers = {}, {}, {}
    for key, pids in index.provinces.items():
        if len(pids) == 1 and key.isascii() and key.isalpha() and key not in _WORDS:
            pid = next(iter(pids))
            places[key] = Location(pid)
            for spelling, coast in _COASTS.items():
                if coast in index.variant.provinces[pid].coasts:
                    coasts[key, spelling] = Location(pid, coast)
    for key, codes in index.powers.items():
        if len(codes) == 1 and key.isascii() and key.isalpha() and key not in _WORDS:
            powers[key] = next(iter(codes))
    return _Table(places, coasts, powers)


def _read_match(m: re.Match, index: NameIndex) -> Reading:
    power, unit_type, at, at_c, at_p, to, to_c, to_p, via, verb, other_type, other, other_c, other_p, \
        other_to, other_to_c, other_to_p, other_via = m.groups()
    table = _table(index)
    unit_type = _unit_type(unit_type)
    location = _one_word_place(table, index, at, at_c or at_p)
    if to is not None:
        destination = _one_word_place(table, index, to, to_c or to_p)
        if via is not None and via.lower() != "via":
            raise _Decline
        order = Move(NO_POWER, unit_type, location, destination, via is not None)
    else:
        kind = _WORDS.get(verb.lower(), verb)
        if other is None:
            if kind == HOLD:
                order = Hold(NO_POWER, unit_type, location)
            elif kind == BUILD:
                order = Build(NO_POWER, unit_type, location)
            elif kind == DISBAND:
                order = Disband(NO_POWER, unit_type, location)
            else:
                raise _Decline
        elif kind == SUPPORT or kind == CONVOY:
            target_type = _unit_type(other_type)
            target = _one_word_place(table, index, other, other_c or other_p)
            if other_via is not None and other_via.lower() != "via":
                raise _Decline
            if other_to is not None:
                destination = _one_word_place(table, index, other_to, other_to_c or other_to_p)
                cls = SupportMove if kind == SUPPORT else Convoy
                order = cls(NO_POWER, unit_type, location, target_type, target, destination)
            elif kind == SUPPORT:
                order = SupportHold(NO_POWER, unit_type, location, target_type, target)
            else:
                raise _Decline
        elif (kind == MOVE or kind == RETREAT) and other_type is None and other_to is None:
            destination = _one_word_place(table, index, other, other_c or other_p)
            order = (Move(NO_POWER, unit_type, location, destination, False) if kind == MOVE
                     else Retreat(NO_POWER, unit_type, location, destination))
        else:
            raise _Decline
    if power is None:
        return Reading(order)
    code = table.powers.get(power.lower())
    if code is None:
        if power.lower() in _WORDS:
            raise _Decline
        code = resolve_power(index, power)
    return Reading(order, code, Span(m.start("power"), m.end("power")))


_UNIT_WORDS = {spelling: kind for word, kind in _WORDS.items() if kind.__class__ is UnitType
               for spelling in (word, word.upper(), word.title())}


def _unit_type(word: str | None) -> UnitType | None:
    if word is None:
        return None
    unit_type = _UNIT_WORDS.get(word) or _WORDS.get(word.lower())
    if unit_type.__class__ is not UnitType:
        raise _Decline
    return unit_type


def _one_word_place(table: _Table, index: NameIndex, word: str, coast: str | None) -> Location:
    location = table.places.get(word.lower()) if coast is None else table.coasts.get((word.lower(), coast.lower()))
    if location is not None:
        return location
    if word.lower() in _WORDS or coast is not None and coast.lower() in _WORDS:
        raise _Decline
    return resolve_location(index, (word,), None if coast is None else (coast,))


def _kinds(tokens: list[str]) -> list:
    """Tokens as kinds, two-word keywords joined; :class:`_Decline` for what is not taken.

    As in the grammar, a keyword is a whole word, perhaps with one dot after it ("H."), never
    one with a dot inside ("s.c." is a word), and the two words of a keyword have only
    spaces between them ("via convoy", not "via. convoy").
    """
    out: list = []
    i, n = 0, len(tokens)
    while i < n:
        tok = tokens[i]
        i += 1
        kind = _PUNCTUATION.get(tok)
        if kind is not None:
            out.append(kind)
            continue
        if tok in _IGNORED:
            continue
        if tok == ">" or tok == ":":
            raise _Decline
        word = tok[:-1] if tok[-1] == "." else tok
        low = word.lower()
        if low not in _WORDS:
            out.append(tok)
            continue
        kind = _WORDS[low]
        if kind is None:
            raise _Decline
        joins = _JOINS.get(low)
        if joins is not None:
            after = tokens[i].lower() if i < n and word is tok else ""
            if after in joins or after[-1:] == "." and after[:-1] in joins:
                i += 1
            elif low == "by":
                raise _Decline
        out.append(kind)
    return out


class _Reader:
    """Recursive descent over the kinds, building what OrderBuilder builds."""

    __slots__ = ("kinds", "pos", "index")

    def __init__(self, kinds: list, index: NameIndex) -> None:
        self.kinds = kinds
        self.pos = 0
        self.index = index

    def _peek(self):
        return self.kinds[self.pos] if self.pos < len(self.kinds) else None

    def _take(self, kind: int) -> bool:
        if self.pos < len(self.kinds) and self.kinds[self.pos] == kind:
            self.pos += 1
            return True
        return False

    def _end(self) -> None:
        if self.pos != len(self.kinds):
            raise _Decline

    def _words(self) -> tuple[str, ...]:
        kinds, start = self.kinds, self.pos
        pos = start
        while pos < len(kinds) and type(kinds[pos]) is str:
            pos += 1
        if pos == start:
            raise _Decline
        self.pos = pos
        return tuple(kinds[start:pos])

    def _place(self) -> Location:
        words = self._words()
        coast = None
        if self._take(SLASH):
            coast = self._words()
        elif self._take(LPAR):
            coast = self._words()
            if not self._take(RPAR):
                raise _Decline
        return resolve_location(self.index, words, coast)

    def _unit(self) -> tuple[UnitType | None, Location]:
        unit_type = self._peek()
        if type(unit_type) is UnitType:
            self.pos += 1
            self._take(AT)
        else:
            unit_type = None
        return unit_type, self._place()

    def _tail(self) -> Location:
        """``- place`` with an optional VIA (read and dropped, as the grammar does), to the end."""
        if not self._take(MOVE):
            raise _Decline
        destination = self._place()
        self._take(VIA)
        self._end()
        return destination

    def line(self) -> Order:
        first = self._peek()
        if first == BUILD or first == DISBAND:
            self.pos += 1
            unit_type, location = self._unit()
            self._end()
            return (Build if first == BUILD else Disband)(NO_POWER, unit_type, location)
        if first == WAIVE:
            self.pos += 1
            self._end()
            return Waive(NO_POWER)
        unit_type, location = self._unit()
        verb = self._peek()
        self.pos += 1
        if verb == HOLD or verb == BUILD or verb == DISBAND:
            self._end()
            cls = Hold if verb == HOLD else Build if verb == BUILD else Disband
            return cls(NO_POWER, unit_type, location)
        if verb == MOVE:
            destination = self._place()
            via = self._take(VIA)
            self._end()
            return Move(NO_POWER, unit_type, location, destination, via)
        if verb == SUPPORT:
            target_type, target = self._unit()
            if self._peek() == MOVE:
                destination = self._tail()
                return SupportMove(NO_POWER, unit_type, location, target_type, target, destination)
            self._take(HOLD)
            self._end()
            return SupportHold(NO_POWER, unit_type, location, target_type, target)
        if verb == CONVOY:
            target_type, target = self._unit()
            destination = self._tail()
            return Convoy(NO_POWER, unit_type, location, target_type, target, destination)
        if verb == RETREAT:
            destination = self._place()
            self._end()
            return Retreat(NO_POWER, unit_type, location, destination)
        raise _Decline


# -- lines of whole words -----------------------------------------------------------------
# Most lines, short or long, are words between spaces: ``AUS: A BUD S A VIE - GAL``,
# ``Army Vienna holds``, ``Fleet in the North Sea convoys army London to Norway``, ``BRIBE
# English F English Channel BID 2 F English Channel S F North Sea – London``. Split at the
# spaces, each piece is one thing the grammar reads whole (a keyword, a word of a name, a
# place with its coast, a power with its colon, an amount), found with one look-up in a table
# built once per variant; anything else (punctuation inside a piece, "(", a word with
# digits) and the reader stands aside.

VASSAL, BRIBE, SEIZE, REBEL, SECURE, BID, PRESTIGE, IGNORE = range(13, 21)


class _Amount(NamedTuple):
    """A number (a bid); a tuple, so that it never equals a keyword's small int."""

    value: int


class _Prefix(NamedTuple):
    """``ENG:``, the power whose order the line is."""

    power: str


_PRESTIGE_WORDS = {"vassal": VASSAL, "bribe": BRIBE, "seize": SEIZE, "rebel": REBEL, "secure": SECURE,
                   "bid": BID, "bids": BID, "prestige": PRESTIGE}
# The second words of two-word keywords, for the first words this reader takes: "moves to",
# "via convoy", "by convoy", "waive builds", "seize fief", "secure loyalty".
_WORD_JOINS: dict[str, frozenset[str]] = {
    **_JOINS, "seize": frozenset({"fief"}), "secure": frozenset({"loyalty"}),
}
_JOIN_REQUIRED = frozenset({"by", "secure"})
"""First words that are no keyword without their second word."""


@functools.cache
def _word_kinds(index: NameIndex) -> dict[str, object]:
    """Lower-cased piece -> kind: keywords (with one dot after them, as the grammar allows),
    the arrows of a move, places written with their coast (``stp/sc``, ``spa(nc)``), one-word powers
    with their colon (``aus:``) and the punctuation the grammar passes over."""
    table = _table(index)
    kinds: dict[str, object] = {}
    for word, kind in _WORDS.items():
        kind = _PRESTIGE_WORDS.get(word, kind)
        if kind is not None:
            kinds[word] = kind
            if word not in _JOIN_REQUIRED:  # "by." and "secure." are words, not keywords
                kinds[word + "."] = kind
    for arrow in ("-", "->", "-->", "=>", "==>", "–", "—", "→", "⇒"):
        kinds[arrow] = MOVE
    for mark in _IGNORED:
        kinds[mark] = IGNORE
    for (word, coast), location in table.coasts.items():
        kinds[f"{word}/{coast}"] = kinds[f"{word}({coast})"] = location
    for word, power in table.powers.items():
        kinds[f"{word}:"] = _Prefix(power)
    return kinds


class _Word(NamedTuple):
    """A word that alone names one place (``bud``, ``Vienna``); with other words, it is a
    word of a longer name."""

    location: Location


class _Join(NamedTuple):
    """The first word of a keyword of two words: the keyword, its second words, and whether
    it is a keyword without them ("moves" is, "by" is not)."""

    kind: int
    joins: frozenset[str]
    required: bool


@functools.cache
def _shape_kinds(index: NameIndex) -> dict[str, object]:
    """:func:`_word_kinds` with the first words of two-word keywords as :class:`_Join`, and
    the one-word places as :class:`_Word`, each as written in lower case, upper case and
    title case (other spellings are looked up in lower case)."""
    kinds: dict[str, object] = {}
    for key, kind in _word_kinds(index).items():
        joins = _WORD_JOINS.get(key)
        kinds[key] = kind if joins is None else _Join(kind, joins, key in _JOIN_REQUIRED)
    for key, location in _table(index).places.items():
        kinds[key] = _Word(location)
    return {spelling: kind for key, kind in kinds.items() for spelling in (key, key.upper(), key.title())}


class _Symbols(dict):
    """Piece -> its symbol in a shape; a piece not listed is ``None``, a symbol no shape has,
    so that a line's pieces are looked up all at once without testing each."""

    def __missing__(self, piece: str) -> None:
        return None


class Pieces(NamedTuple):
    """What :func:`read_plain` reads one variant's lines with: the pieces of
    :func:`_shape_kinds` that are read alike wherever they stand (not the punctuation the
    grammar passes over or a keyword that needs its second word), each with its symbol in a
    shape and its value; a power with its colon (``AUS:``) is :data:`POWER`, which only the
    first piece of a shape may be.

    No piece here has a hyphen between two letters, so a line whose pieces are all here is
    one that :meth:`~grammar.names.NameIndex.respell` leaves alone, when the variant's
    hyphenated names have their hyphens between letters; ``respell`` is ``None`` then, else
    the index's (for a name such as "Foo -Bar")."""

    symbols: _Symbols
    values: dict[str, object]
    respell: Callable[[str], str] | None


@functools.cache
def plain_pieces(index: NameIndex) -> Pieces:
    """The :class:`Pieces` of the variant of ``index``, built on first use."""
    pieces = Pieces(_Symbols(), {}, None if index.hyphens_inside_words else index.respell)
    for spelling, kind in _shape_kinds(index).items():
        cls = kind.__class__
        if cls is int and kind != IGNORE:
            symbol, value = kind, kind
        elif cls is _Join and not kind.required:
            symbol, value = kind.kind, kind.kind
        elif cls is UnitType:
            symbol, value = UNIT, kind
        elif cls is Location:
            symbol, value = PLACE, kind
        elif cls is _Word:
            symbol, value = PLACE, kind.location
        elif cls is _Prefix:
            symbol, value = POWER, kind.power
        else:
            continue
        pieces.symbols[spelling], pieces.values[spelling] = symbol, value
    assert not any(_INNER_HYPHEN(spelling) for spelling in pieces.values)
    return pieces


def read_plain(line: str, pieces: Pieces, power: Power | None) -> Order | None:
    """The order of one of the commonest lines (``AUS: A BUD S A VIE - GAL``, ``F EDI - NTH``,
    ``RUS: F STP/SC - BOT``, ``A PAR H``) given by its power, exactly as the full reading
    (:func:`read_short`, then :func:`~grammar.parser.settle_power`) gives it, in a fraction
    of the time: no :class:`~grammar.transform.Reading` or span, and the order built once,
    with its power.

    Every piece between spaces must be found as written in ``pieces`` (of the line's
    variant) and their symbols make one of :data:`_SHAPES`; the line is then looked up whole
    (``itemgetter`` over its pieces), not piece by piece. Where two pieces make one keyword
    or one name ("moves to", "Black Sea") the shape is none of :data:`_SHAPES`.

    The power is the line's prefix, which must be ``power`` if that is given; without a
    prefix, ``power`` (``None``: the line must name one). The answer is ``None`` for a line
    of several lines or not a ``str``, for every line not read so, and where the powers do
    not settle: the full reading takes those, and says what is wrong.
    """
    if line.__class__ is not str or "\n" in line or "\r" in line:
        return None
    if pieces.respell is not None:
        line = pieces.respell(line)
    words = line.split()
    if len(words) < 2:  # ``itemgetter`` of one key answers the value, not a tuple
        return None
    pick = operator.itemgetter(*words)
    spec = _SHAPES.get(pick(pieces.symbols))
    if spec is None:
        return None
    values = pick(pieces.values)
    if spec.prefixed:
        if power and values[0] != power:
            return None
    elif power is None:
        return None
    return spec.cls(*spec.take(values + (None, False, True, power)))  # spec.build(values, power), inline


def read_words(line: str, index: NameIndex) -> Reading | None:
    """:func:`read_short` for the lines whose every piece between spaces is a whole token:
    the pieces' kinds make a shape (a name of several words is one place), and the shape,
    looked up in :data:`_SHAPES`, says which order it is and where its parts stand."""
    try:
        return _read_words(line, index)
    except OrderError:
        return None


def _read_words(line: str, index: NameIndex) -> Reading | None:
    """:func:`read_words`, raising the :class:`OrderError` of a name that names no place."""
    pieces = line.split()
    try:
        prefix, shape, values, names = _shape(pieces, _shape_kinds(index))
    except _Decline:
        return None
    spec = _SHAPES.get(shape)
    if spec is None:
        return None
    for at in names:
        values[at] = resolve_location(index, values[at])
    order = spec.build(tuple(values), NO_POWER)
    if prefix is None:
        return Reading(order)
    start = len(line) - len(line.lstrip())
    return Reading(order, prefix.power, Span(start, start + len(pieces[0]) - 1))


def _shape(pieces: list[str], table: dict[str, object]) -> tuple[_Prefix | None, tuple, list, list[int]]:
    """The power before the order, the symbols of the order (a keyword, :data:`UNIT`,
    :data:`PLACE`), their values (the unit type, the location, or the words of a name not
    yet resolved), and where those names stand in the values.
    As :func:`_piece_kinds` reads pieces, but a name of several words is one place, and a
    piece an order to a unit cannot hold (an amount, a second power) is :class:`_Decline`."""
    prefix = None
    shape: list = []
    values: list = []
    words: list[str] | None = None
    names: list[int] = []  # where the names of several words (or of unknown words) stand
    i, n = 0, len(pieces)
    while i < n:
        piece = pieces[i]
        i += 1
        kind = table.get(piece)
        if kind is None:
            low = piece.lower()
            kind = table.get(low)
            if kind is None:
                word = low[:-1] if low[-1:] == "." else low
                if word in _WORDS or not (word.isalpha() and word.isascii()):
                    raise _Decline
                kind = piece
        cls = kind.__class__
        if cls is str or cls is _Word:
            if words is None:  # a name starts
                words = [piece]
                shape.append(PLACE)
                if cls is str:
                    names.append(len(values))
                    values.append(words)
                else:
                    values.append(kind.location)
            else:
                if values[-1] is not words:
                    names.append(len(values) - 1)
                    values[-1] = words
                words.append(piece)
            continue
        words = None
        if cls is int:
            if kind == IGNORE:
                if i == 1:  # the power's column would be wrong
                    raise _Decline
                continue
            shape.append(kind)
        elif cls is _Join:
            if i < n and pieces[i].lower() in kind.joins:
                i += 1
            elif kind.required:
                raise _Decline
            kind = kind.kind
            shape.append(kind)
        elif cls is UnitType:
            shape.append(UNIT)
        elif cls is Location:
            shape.append(PLACE)
        elif cls is _Prefix and i == 1:
            prefix = kind
            continue
        else:
            raise _Decline
        values.append(kind)
    return prefix, tuple(shape), values, names


def read_prestige(line: str, index: NameIndex) -> Reading | None:
    """The reading of a prestige order (``VASSAL A nwy BID 2``, ``BRIBE English F eng BID 2
    F eng S F nth - lon``, ``SEIZE FIEF tun``, ``REBEL tun BID 1``, ``SECURE LOYALTY BID 1``)
    written in whole words, else ``None`` (``LEND`` is left to the grammar)."""
    pieces = line.split()
    try:
        kinds = _piece_kinds(pieces, _word_kinds(index))
        if kinds and kinds[0].__class__ is _Prefix:
            order = _PrestigeReader(kinds, index, 1).line()
            start = len(line) - len(line.lstrip())
            return Reading(order, kinds[0].power, Span(start, start + len(pieces[0]) - 1))
        return Reading(_PrestigeReader(kinds, index, 0).line())
    except (_Decline, OrderError):
        return None


def _piece_kinds(pieces: list[str], table: dict[str, object]) -> list:
    """The pieces as kinds (see :func:`_kinds`); :class:`_Decline` for a piece not taken."""
    out: list = []
    i, n = 0, len(pieces)
    while i < n:
        piece = pieces[i]
        i += 1
        low = piece.lower()
        kind = table.get(low)
        if kind is None:
            if low.isdigit() and low.isascii():
                out.append(_Amount(int(low)))
                continue
            word = low[:-1] if low[-1:] == "." else low
            if word in _WORDS or not (word.isalpha() and word.isascii()):
                raise _Decline
            out.append(piece)
            continue
        if kind.__class__ is int and kind == IGNORE:
            if not out:  # the power's column would be wrong
                raise _Decline
            continue
        joins = _WORD_JOINS.get(low)
        if joins is not None:
            if i < n and pieces[i].lower() in joins:
                i += 1
            elif low in _JOIN_REQUIRED:
                raise _Decline
        out.append(kind)
    return out


class _PrestigeReader(_Reader):
    """:class:`_Reader` over pieces (where places may come whole, ``stp/sc``) for the
    prestige orders: ``VASSAL``, ``BRIBE``, ``SEIZE FIEF``, ``REBEL``, ``SECURE LOYALTY``."""

    __slots__ = ("places",)

    def __init__(self, kinds: list, index: NameIndex, pos: int) -> None:
        super().__init__(kinds, index)
        self.pos = pos
        self.places = _table(index).places

    def _place(self) -> Location:
        kind = self._peek()
        if kind.__class__ is Location:
            self.pos += 1
            return kind
        words = self._words()
        if len(words) == 1:
            location = self.places.get(words[0].lower())
            if location is not None:
                return location
        return resolve_location(self.index, words)

    def _amount(self) -> int:
        """``BID 2`` (``prestige`` after it or not)."""
        if not self._take(BID):
            raise _Decline
        amount = self._peek()
        if amount.__class__ is not _Amount:
            raise _Decline
        self.pos += 1
        self._take(PRESTIGE)
        return amount.value

    def _owned_unit(self) -> tuple[str | None, UnitType | None, Location]:
        """A unit with its owner's name before it, or without."""
        start = self.pos
        kinds = self.kinds
        while self.pos < len(kinds) and kinds[self.pos].__class__ is str:
            self.pos += 1
        if self.pos > start and self.pos < len(kinds) and kinds[self.pos].__class__ is UnitType:
            owner = resolve_power(self.index, " ".join(kinds[start:self.pos]))
            unit_type = kinds[self.pos]
            self.pos += 1
            self._take(AT)
            return owner, unit_type, self._place()
        self.pos = start
        return (None, *self._unit())

    def line(self) -> Order:
        first = self._peek()
        if first == VASSAL:
            self.pos += 1
            unit_type, location = self._unit()
            amount = self._amount()
            self._end()
            return Vassal(NO_POWER, unit_type, location, amount)
        if first == BRIBE:
            self.pos += 1
            owner, unit_type, location = self._owned_unit()
            amount = self._amount()
            order = None
            if self.pos < len(self.kinds):
                order = _Reader.line(self)
                if not isinstance(order, _UNIT_ORDERS):
                    raise _Decline
            return Bribe(NO_POWER, unit_type, location, amount, owner=owner, order=order)
        if first == SEIZE:
            self.pos += 1
            province = resolve_location(self.index, self._words()).province
            self._end()
            return SeizeFief(NO_POWER, province)
        if first == REBEL:
            self.pos += 1
            province = resolve_location(self.index, self._words()).province
            amount = self._amount()
            self._end()
            return Rebel(NO_POWER, province, amount)
        if first == SECURE:
            self.pos += 1
            amount = self._amount()
            self._end()
            return SecureLoyalty(NO_POWER, amount)
        raise _Decline


_UNIT_ORDERS = (Hold, Move, SupportHold, SupportMove, Convoy, Retreat)
"""The orders that may follow a BRIBE on its line (the grammar's ``unit_order``)."""

# -- the shapes of the orders to units ------------------------------------------------------
# A shape is the symbols of a line: keywords (their small ints), UNIT (a unit type) and PLACE
# (a place, of one word or several), with POWER (the power's prefix) first or not. Each shape
# the grammar reads as an order to a unit is listed with the order's class and, for each of
# its fields, where its value stands in the line's values; the constants after the values
# stand for a field the line leaves out, and for the power when the line has no prefix.

UNIT, PLACE, POWER = "unit", "place", "power"
_NONE, _FALSE, _TRUE, _POWER = -4, -3, -2, -1
"""Indexes of what :meth:`_Spec.build` puts after the values: ``None``, ``False``, ``True``
and the power."""

# A unit is a place, with its type before it or not ("A par", "Army in Paris", "par"); its
# slots are filled with the index of its type and of its place.
_UNIT_FORMS = (((PLACE,), None, 0), ((UNIT, PLACE), 0, 1), ((UNIT, AT, PLACE), 0, 2))
_OPTIONAL = "optional"

# (class, its elements, the fields): an element is a keyword, ``(UNIT, n)`` (unit n), ``(PLACE,
# n)`` (place n) or ``(_OPTIONAL, keyword)``; a field names a slot ("t1", "p1": type and place
# of unit 1, "p2": place 2, "via") or is None.
_ORDER_FORMS = (
    (Hold, ((UNIT, 1), HOLD), ("t1", "p1")),
    (Move, ((UNIT, 1), MOVE, (PLACE, 2), (_OPTIONAL, VIA)), ("t1", "p1", "p2", "via")),
    (SupportHold, ((UNIT, 1), SUPPORT, (UNIT, 2), (_OPTIONAL, HOLD)), ("t1", "p1", "t2", "p2")),
    (SupportMove, ((UNIT, 1), SUPPORT, (UNIT, 2), MOVE, (PLACE, 3), (_OPTIONAL, VIA)), ("t1", "p1", "t2", "p2", "p3")),
    (Convoy, ((UNIT, 1), CONVOY, (UNIT, 2), MOVE, (PLACE, 3), (_OPTIONAL, VIA)), ("t1", "p1", "t2", "p2", "p3")),
    (Retreat, ((UNIT, 1), RETREAT, (PLACE, 2)), ("t1", "p1", "p2")),
    (Build, ((UNIT, 1), BUILD), ("t1", "p1")),
    (Build, (BUILD, (UNIT, 1)), ("t1", "p1")),
    (Disband, ((UNIT, 1), DISBAND), ("t1", "p1")),
    (Disband, (DISBAND, (UNIT, 1)), ("t1", "p1")),
    (Waive, (WAIVE,), ()),
)


def _expand(elements: tuple) -> list[tuple[tuple, dict[str, int]]]:
    """Every shape ``elements`` may take, with the index of each slot in it."""
    if not elements:
        return [((), {"via": _FALSE})]
    first, rest = elements[0], _expand(elements[1:])
    if first.__class__ is int:
        heads = [((first,), {})]
    elif first[0] == UNIT:
        heads = [(form, {f"t{first[1]}": _NONE if t is None else t, f"p{first[1]}": p}) for form, t, p in _UNIT_FORMS]
    elif first[0] == PLACE:
        heads = [((PLACE,), {f"p{first[1]}": 0})]
    else:
        heads = [((), {}), ((first[1],), {"via": _TRUE} if first[1] == VIA else {})]
    out = []
    for head, head_slots in heads:
        for tail, tail_slots in rest:
            slots = {k: v if v < 0 else v + len(head) for k, v in tail_slots.items()}
            slots.update(head_slots)
            out.append((head + tail, slots))
    return out


class _Spec(NamedTuple):
    """What a shape reads as: the order's class, and where each of its fields' values stands
    (the power's first) in the values then what :meth:`build` adds after them."""

    cls: type
    fields: tuple[int, ...]
    prefixed: bool
    """The shape starts with :data:`POWER`: the power is the first value."""
    take: Callable[[tuple], tuple]
    """The values at ``fields`` (``operator.itemgetter``, in one call)."""

    def build(self, values: tuple, power: Power) -> Order:
        """The order, given by ``power`` unless the shape has its own, built by its class (so
        that it is laid out in memory as every other order is)."""
        return self.cls(*self.take(values + (None, False, True, power)))


def _spec(cls: type, fields: tuple[int, ...], prefixed: bool) -> _Spec:
    if len(fields) == 1:  # ``itemgetter`` of one index answers the value, not a tuple
        return _Spec(cls, fields, prefixed, lambda values: (values[fields[0]],))
    return _Spec(cls, fields, prefixed, operator.itemgetter(*fields))


def _shapes() -> dict[tuple, _Spec]:
    """Each shape of :data:`_ORDER_FORMS`, and the same after a :data:`POWER`."""
    shapes: dict[tuple, _Spec] = {}
    for cls, elements, fields in _ORDER_FORMS:
        for shape, slots in _expand(elements):
            at = tuple(slots[f] for f in fields)
            after_power = tuple(i if i < 0 else i + 1 for i in at)
            for key, spec in ((shape, _spec(cls, (_POWER, *at), False)),
                              ((POWER, *shape), _spec(cls, (0, *after_power), True))):
                assert shapes.setdefault(key, spec)[:3] == spec[:3], key
    return shapes


_SHAPES = _shapes()
"""Shape -> what it reads as."""
