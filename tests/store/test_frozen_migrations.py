"""Migrations do what they did when they were written: they import nothing of the judge that can
change (what they need is copied into them, or into the frozen ``orders_0003``), and that copy
reads and writes every order type exactly as the judge did then."""

from __future__ import annotations

import ast
import pathlib

import pytest

from bot.store.migrations.orders_0003 import FrozenNotationError, order_json, order_text

MIGRATIONS = pathlib.Path(__file__).resolve().parents[2] / "bot" / "store" / "migrations"
FROZEN = {"bot.store.migrations.orders_0003"}


def _project_imports(path: pathlib.Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else []
        found |= {n for n in names if n.split(".")[0] in ("adjudicator", "grammar", "bot")}
        if isinstance(node, ast.ImportFrom) and node.level:
            found.add("." * node.level + (node.module or ""))
    return found


@pytest.mark.parametrize("path", sorted((MIGRATIONS / "versions").glob("*.py")), ids=lambda p: p.name)
def test_a_migration_imports_nothing_that_changes(path):
    assert _project_imports(path) <= FROZEN


def test_the_frozen_notation_imports_nothing_of_the_judge():
    assert _project_imports(MIGRATIONS / "orders_0003.py") == set()


# Every order type, in the notation the judge wrote then, and the JSON of its fields it kept.
CASES = [
    ("ENG: F nth - nwy", "F1901M", {"type": "Move", "power": "ENG", "unit_type": "F", "location": "nth",
                                    "destination": "nwy", "via_convoy": False}),
    ("ENG: A lon - nwy via convoy", "S1901M", {"type": "Move", "power": "ENG", "unit_type": "A", "location": "lon",
                                               "destination": "nwy", "via_convoy": True}),
    ("RUS: F stp/sc H", "S1901M", {"type": "Hold", "power": "RUS", "unit_type": "F", "location": "stp/sc"}),
    ("FRA: A par S A bur", "S1901M", {"type": "SupportHold", "power": "FRA", "unit_type": "A", "location": "par",
                                      "target_type": "A", "target": "bur"}),
    ("FRA: A par S bur - pic", "S1901M", {"type": "SupportMove", "power": "FRA", "unit_type": "A", "location": "par",
                                          "target_type": None, "target": "bur", "destination": "pic"}),
    ("ENG: F nth C A lon - nwy", "S1901M", {"type": "Convoy", "power": "ENG", "unit_type": "F", "location": "nth",
                                            "target_type": "A", "target": "lon", "destination": "nwy"}),
    ("SEL: A mel - dia", "F1101R", {"type": "Retreat", "power": "SEL", "unit_type": "A", "location": "mel",
                                    "destination": "dia"}),
    ("TUR: A con disband", "F1901R", {"type": "Disband", "power": "TUR", "unit_type": "A", "location": "con"}),
    ("TUR: F smy build", "W1901B", {"type": "Build", "power": "TUR", "unit_type": "F", "location": "smy"}),
    ("TUR: waive", "W1901B", {"type": "Waive", "power": "TUR"}),
    ("FRA: VASSAL A nwy BID 3", "S1901M", {"type": "Vassal", "power": "FRA", "unit_type": "A", "location": "nwy",
                                           "bid": 3}),
    ("RUS: BRIBE TUR A rum BID 1 A rum H", "S1901M", {
        "type": "Bribe", "power": "RUS", "unit_type": "A", "location": "rum", "bid": 1, "owner": "TUR",
        "order": {"type": "Hold", "power": "RUS", "unit_type": "A", "location": "rum"}}),
    ("RUM: BRIBE A phr BID 1", "S1101M", {"type": "Bribe", "power": "RUM", "unit_type": "A", "location": "phr",
                                          "bid": 1, "owner": None, "order": None}),
    ("ANT: SEIZE FIEF ale", "W1101B", {"type": "SeizeFief", "power": "ANT", "province": "ale"}),
    ("FAT: REBEL jer BID 4", "S1101M", {"type": "Rebel", "power": "FAT", "province": "jer", "bid": 4}),
    ("BYZ: SECURE LOYALTY BID 2", "S1101M", {"type": "SecureLoyalty", "power": "BYZ", "bid": 2}),
    ("EDE: LEND JER 3", "S1101M", {"type": "Lend", "power": "EDE", "to": "JER", "amount": 3}),
]


@pytest.mark.parametrize(("text", "phase", "value"), CASES, ids=[c[0] for c in CASES])
def test_the_frozen_notation_reads_and_writes_every_order_type(text, phase, value):
    assert order_json(text, phase) == value
    assert list(order_json(text, phase)) == list(value)   # the fields in the order the codec wrote them
    assert order_text(value) == text


@pytest.mark.parametrize("text", ["ENG F nth - nwy", "ENG: F nth -> nwy", "ENG: F nth - nwy via", "eng: F nth H",
                                  "FRA: VASSAL A nwy BID 03", "FRA: LEND fra 3", "ENG: F Nth H", ""])
def test_the_frozen_notation_refuses_what_the_judge_never_wrote(text):
    with pytest.raises(FrozenNotationError):
        order_json(text, "S1901M")
