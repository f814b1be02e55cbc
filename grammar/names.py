"""Province, coast and power names as players write them, matched against a variant.

Matching is case-, accent-, space- and punctuation-insensitive ("St. Petersburg" is
"stpetersburg"), in this order: an exact id, name or alias; then a unique start of one
("Heligo", "gulf of alex"); otherwise an error. A misspelling is never guessed: it is an
:class:`UnknownNameError` whose suggestions come from rapidfuzz.

One :class:`NameIndex` is built per variant and kept (:func:`name_index`).
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from dataclasses import dataclass
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from rapidfuzz import fuzz, process

from adjudicator.variant import Variant
from adjudicator.vocab import NEUTRAL, Location, Power, ProvinceId

from .errors import AmbiguousNameError, UnknownNameError
from .lexer import WORD

_Code = TypeVar("_Code", bound=str)
"""A province id or a power code: the tables of names keep both alike."""

_WORDS = re.compile(WORD).findall

MIN_PREFIX = 3
"""A start of a name shorter than this is not matched ("n" would fit half the map)."""
STEM = 5
"""A word shorter than this is not matched as another form of a power's word."""
FUZZY_CUTOFF = 65
"""How alike (rapidfuzz ratio, 0-100) a spelling must be to be suggested..."""
FUZZY_SPREAD = 12
"""...and how far behind the best suggestion it may be."""

_COASTS: dict[str, str] = {}
for _code, _word in (("nc", "north"), ("sc", "south"), ("ec", "east"), ("wc", "west")):
    for _spelling in (_code, _word, f"{_word}coast", f"{_code[0]}coast", f"{_code}oast"):
        _COASTS[_spelling] = _code
COAST_NAMES = {"nc": "north coast", "sc": "south coast", "ec": "east coast", "wc": "west coast"}

_INNER_HYPHEN = re.compile(r"\w-\w").search

_POWER_STOPWORDS = frozenset(
    ["the", "of", "and", "kingdom", "empire", "principality", "county", "caliphate", "sultanate", "duchy", "republic"])
_NEUTRAL_NAMES = (NEUTRAL, "Neutral", "Neutrals")


@functools.lru_cache(maxsize=8192)
def normalize(text: str) -> str:
    """The key a name is matched by: ``"St. Petersburg"`` -> ``"stpetersburg"``."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return re.sub(r"[\W_]+", "", plain.casefold())


@dataclass(frozen=True, eq=False)
class NameIndex:
    """Every spelling of every province and power of one variant."""

    variant: Variant
    provinces: Mapping[str, frozenset[ProvinceId]]
    province_keys: tuple[str, ...]
    province_spellings: tuple[tuple[str, ProvinceId], ...]
    powers: Mapping[str, frozenset[Power]]
    power_keys: tuple[str, ...]
    power_spellings: tuple[tuple[str, Power], ...]
    hyphenated: re.Pattern[str] | None
    province_spelling_keys: tuple[str, ...] = ()
    """``normalize`` of each of ``province_spellings``, for the fuzzy suggestions."""
    power_spelling_keys: tuple[str, ...] = ()
    power_words: tuple[tuple[str, Power], ...] = ()
    """Each spelling of a power and each word of its name and adjective (normalized), with the
    power: "byzantine", "fatimid", "easternseldjuk"."""
    hyphens_inside_words: bool = False
    """Every hyphenated name has its hyphen between two word characters ("Mid-Atlantic")."""

    def respell(self, text: str) -> str:
        """Replace the hyphen of hyphenated names by a space ("Mid-Atlantic" stays one name
        while "par-bur" is a move). The text keeps its length, so columns stay right."""
        if self.hyphenated is None or "-" not in text:
            return text
        if self.hyphens_inside_words and _INNER_HYPHEN(text) is None:
            return text  # "A par - bur": no hyphenated name can stand here
        return self.hyphenated.sub(lambda m: m.group(0).replace("-", " "), text)

    def province_name(self, pid: ProvinceId) -> str:
        return self.variant.provinces[pid].name

    def power_name(self, power: Power) -> str:
        return self.variant.power_name(power)


@functools.cache
def name_index(variant: Variant) -> NameIndex:
    """The name index of ``variant``, built on first use."""
    provinces: dict[str, set[ProvinceId]] = {}
    spellings: list[tuple[str, ProvinceId]] = []
    powers: dict[str, set[Power]] = {}
    power_spellings: list[tuple[str, Power]] = []
    hyphenated: set[str] = set()

    def add(table: dict[str, set[_Code]], found: list[tuple[str, _Code]], spelling: str, code: _Code) -> None:
        key = normalize(spelling)
        if key:
            table.setdefault(key, set()).add(code)
            found.append((spelling, code))
        if "-" in spelling:
            hyphenated.add(spelling)

    def add_power(spelling: str, code: Power) -> None:
        add(powers, power_spellings, spelling, code)

    for pid, prov in variant.provinces.items():
        for spelling in (pid, prov.name, *prov.aliases):
            add(provinces, spellings, spelling, pid)

    words: dict[str, set[Power]] = {}
    for code, info in variant.powers.items():
        for spelling in (code, info.name, info.adjective):
            add_power(spelling, code)
            stripped = re.sub(r"(?i)\bthe\b", " ", spelling)
            if normalize(stripped) != normalize(spelling):
                add_power(" ".join(stripped.split()), code)
            for word in re.findall(r"[^\W\d_]+", spelling):
                if len(word) >= 3 and word.casefold() not in _POWER_STOPWORDS:
                    words.setdefault(normalize(word), set()).add(code)
    for word, codes in words.items():
        if len(codes) == 1 and word not in powers:
            powers[word] = set(codes)
    power_words = tuple(sorted({(word, code) for table in (words, powers) for word, codes in table.items()
                                for code in codes if len(word) >= STEM}))
    for spelling in _NEUTRAL_NAMES:
        add_power(spelling, NEUTRAL)

    pattern = None
    if hyphenated:
        alternatives = "|".join(re.escape(h) for h in sorted(hyphenated, key=len, reverse=True))
        pattern = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)
    return NameIndex(
        variant=variant,
        provinces={k: frozenset(v) for k, v in provinces.items()},
        province_keys=tuple(sorted(provinces)),
        province_spellings=tuple(spellings),
        powers={k: frozenset(v) for k, v in powers.items()},
        power_keys=tuple(sorted(powers)),
        power_spellings=tuple(power_spellings),
        hyphenated=pattern,
        province_spelling_keys=tuple(normalize(s) for s, _ in spellings),
        power_spelling_keys=tuple(normalize(s) for s, _ in power_spellings),
        power_words=power_words,
        hyphens_inside_words=all(_INNER_HYPHEN(h) for h in hyphenated),
    )


def _starting_with(keys: Sequence[str], table: Mapping[str, frozenset[_Code]], prefix: str) -> set[_Code]:
    found: set[_Code] = set()
    i = bisect.bisect_left(keys, prefix)
    while i < len(keys) and keys[i].startswith(prefix):
        found |= table[keys[i]]
        i += 1
    return found


def _fuzzy(query: str, spellings: Sequence[tuple[str, _Code]], keys: Sequence[str], names: Callable[[_Code], str],
           limit: int) -> tuple[str, ...]:
    """The names (deduplicated, best first) whose spellings look most like ``query``;
    ``keys`` are the spellings normalized."""
    return tuple(names(code) for code in _closest(query, spellings, keys, limit))


def _closest(query: str, spellings: Sequence[tuple[str, _Code]], keys: Sequence[str], limit: int) -> list[_Code]:
    key = normalize(query)
    if len(key) < 2:
        return []
    matches = process.extract(key, keys, scorer=fuzz.ratio,
                              limit=limit * 4, score_cutoff=FUZZY_CUTOFF)
    out: list[_Code] = []
    best = matches[0][1] if matches else 0
    for _, score, i in matches:
        code = spellings[i][1]
        if score >= best - FUZZY_SPREAD and code not in out:
            out.append(code)
    return out[:limit]


# -- provinces --------------------------------------------------------------------------


def province_candidates(index: NameIndex, text: str) -> tuple[frozenset[ProvinceId], bool]:
    """The provinces ``text`` names, and whether the match was exact (else a prefix)."""
    key = normalize(text)
    if not key:
        return frozenset(), True
    exact = index.provinces.get(key)
    if exact:
        return exact, True
    if len(key) < MIN_PREFIX:
        return frozenset(), False
    return frozenset(_starting_with(index.province_keys, index.provinces, key)), False


def suggest_provinces(index: NameIndex, text: str, limit: int = 3) -> tuple[str, ...]:
    """Province names close to ``text``, best first, for a "did you mean"."""
    return _fuzzy(text, index.province_spellings, index.province_spelling_keys, index.province_name, limit)


def _readings(words: Sequence[str]) -> list[tuple[tuple[str, ...], str | None]]:
    """Ways to read ``words`` as a name and a trailing coast: ``spa nc``, ``stp north coast``."""
    words = tuple(words)
    out: list[tuple[tuple[str, ...], str | None]] = [(words, None)]
    for n in (1, 2):
        if len(words) > n:
            coast = _COASTS.get(normalize("".join(words[-n:])))
            if coast:
                out.append((words[:-n], coast))
    for name, coast in list(out):
        if len(name) > 1 and name[0].casefold() == "the":
            out.append((name[1:], coast))
    return out


def resolve_location(index: NameIndex, words: Sequence[str], coast_words: Sequence[str] | None = None) -> Location:
    """The location named by ``words`` (and an explicit coast, when written "/nc" or "(nc)").

    Raises :class:`UnknownNameError` or :class:`AmbiguousNameError` (without column: the
    caller knows where the words stood). Answers are remembered; errors are made afresh.
    """
    return _resolve_location(index, tuple(words), None if coast_words is None else tuple(coast_words))


@functools.lru_cache(maxsize=8192)
def resolve_place(index: NameIndex, name: str, coast: str | None = None) -> Location:
    """:func:`resolve_location` of a name as the grammar's lexer reads it (``"St. Petersburg nc"``,
    coast ``"nc"``), its words found here: a line's places are matched by their text at once."""
    return _resolve_location(index, tuple(_WORDS(name)), None if coast is None else tuple(_WORDS(coast)))


@functools.lru_cache(maxsize=8192)
def _resolve_location(index: NameIndex, words: tuple[str, ...], coast_words: tuple[str, ...] | None) -> Location:
    text = " ".join(words)
    if coast_words is not None:
        pid, _ = _one_province(index, text, [(tuple(words), None)])
        return _with_coast(index, pid, " ".join(coast_words))
    pid, coast = _one_province(index, text, _readings(words))
    return Location(pid, None) if coast is None else _with_coast(index, pid, coast)


def _one_province(index: NameIndex, text: str, readings: Iterable[tuple[tuple[str, ...], str | None]]
                  ) -> tuple[ProvinceId, str | None]:
    ambiguous: frozenset[ProvinceId] = frozenset()
    for exact_pass in (True, False):
        for name, coast in readings:
            found, exact = province_candidates(index, " ".join(name))
            if exact != exact_pass or not found:
                continue
            if len(found) == 1:
                return next(iter(found)), coast
            ambiguous = ambiguous or found
        if ambiguous:
            raise _ambiguous(text, "province", ambiguous, index.province_name)
    raise UnknownNameError(
        f"{text!r} is not a province of this map",
        expected=("a province name, id or alias of this map",),
        suggestions=suggest_provinces(index, text))


def _ambiguous(text: str, what: str, found: Iterable[_Code], name_of: Callable[[_Code], str]) -> AmbiguousNameError:
    """``'x' could be more than one province``, with each of ``found`` by name and id."""
    names = sorted(f"{name_of(key)} ({key})" for key in found)
    return AmbiguousNameError(f"{text!r} could be more than one {what}", expected=("one of " + ", ".join(names),))


def _with_coast(index: NameIndex, pid: ProvinceId, coast_text: str) -> Location:
    prov = index.variant.provinces[pid]
    coast = _COASTS.get(normalize(coast_text))
    if coast and coast in prov.coasts:
        return Location(pid, coast)
    if not prov.coasts:
        raise UnknownNameError(f"{prov.name} has no separate coasts, so {coast_text!r} names none",
                               expected=(f"{prov.name} without a coast",))
    accepted = tuple(f"{c} ({COAST_NAMES.get(c, c)})" for c in prov.coasts)
    raise UnknownNameError(f"{coast_text!r} is not a coast of {prov.name}", expected=accepted)


def parse_location_text(index: NameIndex, text: str) -> Location:
    """``"spa/nc"``, ``"Spain (north coast)"``, ``"St Petersburg nc"`` -> a location."""
    text = index.respell(text)
    m = re.fullmatch(r"\s*(.*?)\s*(?:/\s*(.+?)|\((.+?)\))\s*", text)
    if m and m.group(1):
        coast = m.group(2) or m.group(3)
        return resolve_location(index, m.group(1).split(), coast.split())
    words = text.replace("/", " ").split()
    if not words:
        raise UnknownNameError("no province named", expected=("a province name, id or alias of this map",))
    return resolve_location(index, words)


# -- powers -----------------------------------------------------------------------------


def find_powers(index: NameIndex, text: str) -> frozenset[Power]:
    """The powers ``text`` may name: exactly, else by a start of at least three letters, else by a
    word that differs from one of a power's words only in its last two letters ("Byzantium" for
    the Byzantine Empire, "Fatimids"); an article before the name is passed over."""
    key = normalize(text)
    found = index.powers.get(key)
    if not found and len(key) >= MIN_PREFIX:
        found = frozenset(_starting_with(index.power_keys, index.powers, key))
    if not found and len(key) >= STEM:
        found = frozenset(code for word, code in index.power_words
                          if abs(len(word) - len(key)) <= 2 and _stem(word, key) == _stem(key, word))
    if not found:
        words = text.split()
        if len(words) > 1 and words[0].casefold() == "the":
            return find_powers(index, " ".join(words[1:]))
    return found or frozenset()


def _stem(word: str, other: str) -> str:
    """The start two words must share to be one word in two forms: all but the last two letters
    of the longer."""
    return word[:max(len(word), len(other)) - 2]


def resolve_power(index: NameIndex, text: str) -> Power:
    """The power named ``text``: code, name, adjective, or a word only its name has."""
    found = find_powers(index, text)
    if found and len(found) == 1:
        return next(iter(found))
    if found:
        raise _ambiguous(text, "power", found, index.power_name)
    raise UnknownNameError(
        f"{text!r} is not a power of this map",
        expected=(_power_list(index),),
        suggestions=_fuzzy(text, index.power_spellings, index.power_spelling_keys, index.power_name, 3))


def _power_list(index: NameIndex) -> str:
    codes = ", ".join(index.variant.powers)
    return f"a power's code, name or adjective ({codes})"


def province_suggestions(index: NameIndex, text: str, limit: int = 3) -> list[ProvinceId]:
    """Provinces a player may mean by ``text``: exact, then by prefix, then by likeness."""
    out: list[ProvinceId] = []

    def add(pids: Iterable[ProvinceId]) -> None:
        for pid in pids:
            if pid not in out and len(out) < limit:
                out.append(pid)

    found, _exact = province_candidates(index, text)
    add(sorted(found, key=lambda p: index.province_name(p)))
    if len(out) < limit:
        add(_closest(text, index.province_spellings, index.province_spelling_keys, limit))
    return out
