"""The results report (bot/service/report.py): every order's outcome, prestige orders included,
annihilations and the year's awards with their rules, the next phase said once."""

from __future__ import annotations

import json
from pathlib import Path

from bot.codec.documents import adjudicate_position
from bot.service.report import phase_report, report_lines, report_text

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "documents.jsonl"


def _spring() -> dict:
    """The corpus's Outremer spring of 1102 where Edessa takes Harran."""
    return next(d for d in map(json.loads, GOLDEN.read_text(encoding="utf-8").splitlines())
                if isinstance(d, dict) and d.get("variant") == "crusader" and d.get("phase") == "S1102M"
                and "EDE: A ede - har" in d.get("orders", ()))


def _autumn() -> str:
    """An Outremer autumn: a neutral annihilated, a pooled bribe, a loan, loyalty secured, a bad
    REBEL, then the end of the year."""
    doc = _spring()
    doc["phase"] = "F1102M"
    doc["orders"] = ["ANT: BRIBE F Tyr BID 2 F Tyr H", "JER: BRIBE F tyr BID 1", "EDE: A ede - har",
                     "EDE: A tur S A ede - har", "EDE: A rab S A ede", "BYZ: REBEL BAG BID 3",
                     "RUM: SECURE LOYALTY BID 2", "SEL: LEND BYZ 1", "JER: A gal - dms", "SEL: A mos - meu"]
    variant, position, adjudication, _ = adjudicate_position(doc)
    report = phase_report(adjudication, variant, position, next_phase="Next phase: Winter 1102 Adjustment (W1102B)")
    return report_text(report)


def test_every_prestige_order_says_what_it_did_and_spent():
    text = _autumn()
    assert "  BRIBE F Tyre BID 2, then F Tyre H — won, 2 spent: F Tyre bribed for this season" in text
    assert "  F Tyre H (bribed, neutral) — succeeds (the order written with the BRIBE)" in text
    assert "  LEND 1 prestige to The Byzantine Empire — lent, 1 spent\n" in text
    assert "  SECURE LOYALTY BID 2 — secured, 2 spent: loyalty secured: " in text
    assert "  REBEL Baghdad BID 3 — invalid, nothing spent: Baghdad is a home centre" in text
    assert "Bids" not in text and "won" not in text.split("LEND")[1].splitlines()[0]


def test_an_annihilation_is_named_with_the_prestige_it_earns_and_the_award_gives_its_rules():
    text = _autumn()
    assert ("  Destroyed: A Harran (neutral), dislodged with nowhere to retreat (by The County of Edessa); "
            "+1 prestige to The County of Edessa at the year's end (rules 2.3.2, 2.3.3)\n") in text
    assert ("  The County of Edessa (EDE): 4 prestige for 1103 — 3 for 5 centres by rank (rule 2.3.1), "
            "+1 for annihilations (rule 2.3.2)\n") in text
    assert "The Byzantine Empire (BYZ): had 3, received 1, spent 0, 4 left" in text
    assert text.count("Winter 1102 Adjustment") == 1


def test_discord_lines_are_the_same_lines_with_bold_titles_and_the_bids_gathered():
    variant, position, adjudication, _ = adjudicate_position(_spring())
    report = phase_report(adjudication, variant, position)
    summary = report_lines(report, "**{}**", every_order=False)
    plain = report_text(report)
    assert "**Prestige orders**" in summary and "**What changed**" in summary
    bids = summary[summary.index("**Prestige orders**") + 1:summary.index("")]
    assert bids and all(line.split(": ", 1)[1] in plain for line in bids)


def test_the_rule_module_says_what_kind_each_of_its_orders_is():
    from adjudicator.modules import order_kind
    from adjudicator.notation import read_order
    from adjudicator.variant import get_variant

    crusader = get_variant("crusader")
    kinds = {text: order_kind(read_order(text, crusader)) for text in (
        "ANT: VASSAL A ale BID 2", "ANT: BRIBE A dms BID 1", "ANT: SEIZE FIEF sha", "ANT: REBEL tar BID 3",
        "ANT: LEND BYZ 1", "ANT: SECURE LOYALTY BID 1", "ANT: A ant H")}
    assert kinds == {"ANT: VASSAL A ale BID 2": "bid", "ANT: BRIBE A dms BID 1": "bid", "ANT: SEIZE FIEF sha": "bid",
                     "ANT: REBEL tar BID 3": "bid", "ANT: LEND BYZ 1": "loan", "ANT: SECURE LOYALTY BID 1": "pledge",
                     "ANT: A ant H": "unit"}
