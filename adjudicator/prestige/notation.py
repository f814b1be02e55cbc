"""The prestige orders in the judge's own notation (:mod:`adjudicator.notation`): one reader per
order, by its first word (``VASSAL``, ``BRIBE``, ``SEIZE``, ``REBEL``, ``SECURE``, ``LEND``),
registered with the module as ``RuleModule.notation``."""

from __future__ import annotations

from ..notation import UNIT_TYPES, Tables, amount, unit_at, unit_order
from ..vocab import Power, ProvinceId
from .orders import Bribe, Lend, Rebel, SecureLoyalty, SeizeFief, Vassal


def _vassal(tables: Tables, power: Power, words: list[str]) -> Vassal | None:
    unit_type, location, i = unit_at(tables, words, 1)
    if i + 2 != len(words) or words[i] != "BID":
        return None
    return Vassal(power, unit_type, location, amount(words[i + 1]))


def _bribe(tables: Tables, power: Power, words: list[str]) -> Bribe | None:
    owner: Power | None = None
    i = 1
    if words[1] in tables.powers and words[2] in UNIT_TYPES:   # BRIBE TUR A rum ...
        owner, i = Power(words[1]), 2
    unit_type, location, i = unit_at(tables, words, i)
    if words[i] != "BID":
        return None
    bid = amount(words[i + 1])
    order = None
    if i + 2 < len(words):
        order = unit_order(tables, power, words, i + 2)
        if order is None:
            return None
    return Bribe(power, unit_type, location, bid, owner, order)


def _seize_fief(tables: Tables, power: Power, words: list[str]) -> SeizeFief | None:
    if len(words) != 3 or words[1] != "FIEF" or words[2] not in tables.provinces:
        return None
    return SeizeFief(power, ProvinceId(words[2]))


def _rebel(tables: Tables, power: Power, words: list[str]) -> Rebel | None:
    if len(words) != 4 or words[1] not in tables.provinces or words[2] != "BID":
        return None
    return Rebel(power, ProvinceId(words[1]), amount(words[3]))


def _secure_loyalty(tables: Tables, power: Power, words: list[str]) -> SecureLoyalty | None:
    if len(words) != 4 or words[1:3] != ["LOYALTY", "BID"]:
        return None
    return SecureLoyalty(power, amount(words[3]))


def _lend(tables: Tables, power: Power, words: list[str]) -> Lend | None:
    if len(words) != 3 or words[1] not in tables.lenders:
        return None
    return Lend(power, Power(words[1]), amount(words[2]))


HEADS = {"VASSAL": _vassal, "BRIBE": _bribe, "SEIZE": _seize_fief, "REBEL": _rebel, "SECURE": _secure_loyalty,
         "LEND": _lend}
