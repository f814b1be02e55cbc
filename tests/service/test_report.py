"""The results report (bot/service/report.py): every order's outcome, prestige orders included,
annihilations and the year's awards with their rules, the next phase said once."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from adjudicator.results import Phrase
from bot.codec.documents import adjudicate_document, adjudicate_position
from bot.codec.season import GivenOrder, Season, season_columns, season_from_row, with_phrases
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


def test_the_report_names_the_units_of_the_judges_reasons_the_document_keeps_their_ids():
    doc = _spring()
    variant, position, adjudication, _ = adjudicate_position(doc)
    text = report_text(phase_report(adjudication, variant, position))
    assert "  A Harran H — fails (neutral, nobody commands it): dislodged by A Edessa (2 against 1)\n" in text
    assert "  A Taurus Mountains - Iconium — fails: bounced: A Iconium holds, 1 against 1\n" in text
    assert "  A Turbessel S A Harran — fails: replaced by a later order for A Turbessel\n" in text
    assert ("  A Sinope - Ancyra — invalid: not adjacent: Ancyra is not adjacent to Sinope, and no fleets at sea "
            "could convoy A Sinope there\n") in text
    assert " A ede " not in text and " A sin " not in text
    document = adjudicate_document(doc)
    reasons = {r["canonical"]: r["reason"] for r in (*document["results"], *document["implicit"])}
    assert reasons["NEU: A har H"] == "dislodged by A ede (2 against 1)"
    assert "bounced: A ico holds, 1 against 1" in reasons.values()


def test_a_season_stored_keeps_its_reasons_values_and_one_stored_with_their_text_alone_reads_as_it_was():
    doc = _spring()
    variant, position, adjudication, _ = adjudicate_position(doc)
    season = Season("g", 1, variant, position, tuple(GivenOrder(r.order.power, str(r.order), r.order)
                                                     for r in adjudication.results), adjudication)
    columns = season_columns(season)
    columns["result"] = json.loads(json.dumps(columns["result"]))     # as the tables keep it
    back = season_from_row(SimpleNamespace(**columns), "g")
    assert back.adjudication == adjudication
    assert [r.reason.parts for r in back.results if isinstance(r.reason, Phrase)] == \
        [r.reason.parts for r in adjudication.results if isinstance(r.reason, Phrase)]
    named_text = report_text(phase_report(back.adjudication, variant, position))
    assert "dislodged by A Edessa (2 against 1)" in named_text
    # a season the tables kept before they kept the parts: its text, as it was
    for entry in (*columns["result"]["results"], *columns["result"]["implicit"]):
        entry.pop("phrase", None)
    old = season_from_row(SimpleNamespace(**columns), "g")
    assert old.adjudication == adjudication
    assert not any(isinstance(r.reason, Phrase) for r in (*old.results, *old.adjudication.implicit))
    assert "dislodged by A ede (2 against 1)" in report_text(phase_report(old.adjudication, variant, position))
    # adjudicated again, as an import does, its reasons are values again
    again = with_phrases(old)
    assert again.adjudication == adjudication
    assert report_text(phase_report(again.adjudication, variant, position)) == named_text
