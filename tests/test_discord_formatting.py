"""What the Discord front end shows, as pure functions: full province names, Discord's size limits,
results with bids, centres and prestige."""

from __future__ import annotations

from adjudicator.variant import get_variant
from bot.discord.formatting import (CONTENT_LIMIT, EMBED_TOTAL, EMBEDS_PER_MESSAGE, chunks, embed_size, long_order,
                                    pack_embeds, results_embeds, submission_text)
from bot.discord.identity import mentionify, player_key, user_id
from bot.service import OrderLine, SubmissionReport

STANDARD = get_variant("standard")
CRUSADER = get_variant("crusader")


def test_orders_are_spelled_out_with_full_province_names_and_coasts():
    assert long_order("A par - bur", STANDARD) == "A Paris - Burgundy"
    assert long_order("F nth C A lon - nwy", STANDARD) == "F North Sea C A London - Norway"
    assert long_order("F stp/sc - bot", STANDARD) == "F St Petersburg (south coast) - Gulf of Bothnia"
    assert long_order("A par - bur via convoy", STANDARD).endswith("via convoy")
    assert long_order("VASSAL A ale BID 2", CRUSADER) == "VASSAL A Aleppo BID 2"


def test_long_answers_are_cut_at_line_ends_within_discords_limit_and_code_blocks_stay_closed():
    text = "\n".join(f"line {i} " + "x" * 50 for i in range(200))
    pieces = chunks(text)
    assert all(len(p) <= CONTENT_LIMIT for p in pieces) and len(pieces) > 3
    assert "\n".join(pieces) == text
    code = "head\n```\n" + "\n".join("y" * 90 for _ in range(60)) + "\n```\ntail"
    pieces = chunks(code)
    assert all(len(p) <= CONTENT_LIMIT and p.count("```") % 2 == 0 for p in pieces)
    assert chunks("x" * 5000)[0] and all(len(p) <= CONTENT_LIMIT for p in chunks("x" * 5000))


def test_an_answer_to_orders_says_what_was_understood_rejected_and_stands():
    report = SubmissionReport(
        game="g", phase="S1901M", power="FRA",
        accepted=(OrderLine("a par-bur", "FRA: A par - bur"),),
        rejected=(OrderLine("A xyz - bur", reason="'xyz' is not a province of this map\nA xyz - bur\n  ^^^"),),
        standing=(OrderLine("a par-bur", "FRA: A par - bur"), OrderLine("F bre - mao", "FRA: F bre - mao")))
    text = submission_text(report, STANDARD)
    assert "✅ A Paris - Burgundy" in text
    assert "❌ `A xyz - bur`\n```\n'xyz' is not a province of this map\nA xyz - bur\n  ^^^\n```" in text
    assert text.endswith("Your orders for S1901M now (2):\n• A Paris - Burgundy\n• F Brest - Mid-Atlantic Ocean")


def test_players_are_discord_users_by_id():
    class U:
        id = 123456789012345678

    assert player_key(U) == "discord:123456789012345678" and user_id(player_key(U)) == U.id
    assert user_id("flo@example.org") is None
    assert mentionify("FRA: discord:123456789012345678") == "FRA: <@123456789012345678>"


def _season(n_orders: int) -> dict:
    results = []
    powers = list(CRUSADER.powers)
    for i in range(n_orders):
        power = powers[i % len(powers)]
        results.append({"order": "x", "canonical": f"{power}: A ant - ale", "result": "fails" if i % 2 else "succeeds",
                        "reason": "bounced with A Damascus - Aleppo (strength 1 against 1) " * 2})
    results.append({"order": "ANT: VASSAL A ale BID 2", "canonical": "ANT: VASSAL A ale BID 2", "result": "succeeds",
                    "reason": "takes A Aleppo as vassal"})
    results.append({"order": "JER: VASSAL A ale BID 1", "canonical": "JER: VASSAL A ale BID 1", "result": "fails",
                    "reason": "outbid by ANT"})
    return {"game": "outremer", "phase": "F1101M", "version": 1, "nmr": ["SEL"], "result": {
        "results": results,
        "implicit": [{"canonical": "NEU: A mel H", "result": "succeeds", "reason": "holds"}],
        "events": {"centers": [{"province": "ale", "from": "NEU", "to": "ANT"}], "vassals": {"ale": "ANT"}},
        "position": {"phase": "W1101B", "prestige": {"ANT": 3, "JER": 1},
                     "supply_centers": {"ale": "ANT", "ant": "ANT", "jer": "JER", "mel": "NEU"}}}}


def test_results_show_every_order_bids_and_who_won_centre_changes_and_prestige():
    embeds = results_embeds(_season(10), CRUSADER, next_phase="W1101B", deadline=None)
    summary = embeds[0].description
    assert embeds[0].title == "outremer: results of Fall 1101 Movement (F1101M)"
    assert "Aleppo: NEU → ANT" in summary
    assert "ANT: VASSAL A Aleppo BID 2 — won" in summary and "JER: VASSAL A Aleppo BID 1 — lost (outbid by ANT)" in summary
    assert "Vassals: Aleppo → ANT" in summary
    assert "**Prestige for next year**: ANT 3, JER 1" in summary
    assert "No orders from: SEL" in summary and "Centres: ANT 2, JER 1" in summary
    by_title = {e.title: e.description for e in embeds}
    assert "❌ A Antioch - Aleppo — bounced with A Damascus - Aleppo" in by_title["The Principality of Antioch"]
    assert "▫️ A Melitene H (no order given)" in by_title["Neutral units"]


def test_a_huge_report_is_paginated_within_discords_embed_limits():
    embeds = results_embeds(_season(700), CRUSADER, next_phase=None, deadline=None)
    messages = pack_embeds(embeds)
    assert len(messages) > 1
    for group in messages:
        assert len(group) <= EMBEDS_PER_MESSAGE
        assert sum(embed_size(e) + 120 for e in group) <= EMBED_TOTAL
        assert all(len(e.description) <= 4096 and len(e.title) <= 256 for e in group)
    lines = sum(e.description.count("\n") + 1 for e in embeds)
    assert lines >= 700 + 2


def test_every_prestige_order_is_listed_with_the_bids_a_seized_fief_too():
    season = _season(2)
    season["result"]["results"] += [
        {"order": "SEIZE FIEF tyr", "canonical": "JER: SEIZE FIEF tyr", "result": "succeeds", "reason": ""},
        {"order": "LEND FAT 1", "canonical": "JER: LEND FAT 1", "result": "succeeds", "reason": ""}]
    summary = results_embeds(season, CRUSADER, next_phase=None, deadline=None)[0].description
    bids = summary.split("**Bids**\n", 1)[1]
    assert "JER: SEIZE FIEF Tyre — won" in bids and "JER: LEND FAT 1 — won" in bids
