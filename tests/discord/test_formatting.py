"""What the Discord front end shows, as pure functions: full province names, Discord's size limits,
results with bids, centres and prestige."""

from __future__ import annotations

from dataclasses import replace

from adjudicator.notation import read_order
from adjudicator.variant import get_variant
from adjudicator.vocab import Phase
from bot.codec.documents import adjudicate_position, new_game_document, position_to_dict
from bot.codec.season import GivenOrder, Season
from bot.frontends.discord.formatting import (summary_lines, CONTENT_LIMIT, EMBED_TOTAL, EMBEDS_PER_MESSAGE, chunks, embed_size,
                                              file_name, long_order, pack_embeds, results_detail, results_summary,
                                              submission_reply, submission_text)
from bot.frontends.discord.identity import mentionify, player_key, user_id
from bot.service import OrderLine, SubmissionReport

STANDARD = get_variant("standard")
CRUSADER = get_variant("crusader")


def _order(text: str, phase: str = "S1901M"):
    """An order value as the service hands it on (``FRA: A par - bur``)."""
    variant = CRUSADER if text[:3] in CRUSADER.powers else STANDARD
    return read_order(text, variant, phase=Phase.parse(phase))


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
        accepted=(OrderLine("a par-bur", read_order("FRA: A par - bur", STANDARD)),),
        rejected=(OrderLine("A xyz - bur", reason="'xyz' is not a province of this map\nA xyz - bur\n  ^^^"),),
        standing=(OrderLine("a par-bur", read_order("FRA: A par - bur", STANDARD)),
                  OrderLine("F bre - mao", read_order("FRA: F bre - mao", STANDARD))))
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


def _season(doc: dict, orders: list[str], *, game: str = "outremer", version: int = 0, nmr=()) -> Season:
    """A season as the service archives it: the position it started from, the orders, the adjudication."""
    variant, before, adjudication, _ = adjudicate_position({**doc, "orders": orders})
    given = tuple(GivenOrder(r.order.power, text, r.order) for text, r in zip(orders, adjudication.results))
    return Season(game=game, version=version, variant=variant, position=before, orders=given,
                  adjudication=adjudication, nmr=tuple(nmr))


def _next(season: Season) -> dict:
    """The position document of the phase after ``season``."""
    return position_to_dict(season.after)


def _spring() -> Season:
    return _season(new_game_document("crusader", ["prestige"]),
                   ["ANT: VASSAL A ale BID 2", "JER: VASSAL A ale BID 1", "RUM: A ico - phr", "RUM: A anc S A ico - phr",
                    "ANT: A ant - sha", "FAT: LEND JER 1"], nmr=["SEL"])


def test_the_summary_fits_one_screen_changes_bids_every_powers_centres_units_and_prestige_left():
    [embed] = results_summary(_spring(), CRUSADER, next_phase="F1101M", deadline=None)
    summary = embed.description
    assert embed.title == "outremer: Spring 1101 Movement (S1101M)"
    assert "Dislodged: A Phrygia (neutral), attacked from Iconium" in summary
    assert "Vassal: the neutral army of Aleppo obeys The Principality of Antioch until the year's end" in summary
    assert "ANT: VASSAL A Aleppo BID 2 — won, 2 spent: The Principality of Antioch takes A Aleppo as vassal" in summary
    assert "JER: VASSAL A Aleppo BID 1 — invalid, nothing spent: the minimum bid for VASSAL is 2" in summary
    # a loan is no bid: lent, never "won"
    assert "FAT: LEND 1 prestige to The Kingdom of Jerusalem — lent, 1 spent" in summary and "Bids" not in summary
    assert "The Principality of Antioch (ANT): had 2, spent 2, 0 left" in summary
    # every power, even those nothing happened to: centres, units, prestige left this year
    assert "**Centres · units · prestige left for 1101**" in summary
    assert "The Principality of Antioch (ANT): 3 · 3 · 0" in summary
    assert "The Seldjuks of the East (SEL): 3 · 3 · 2" in summary
    assert summary.count(" · ") >= 14
    assert "No orders from: The Seldjuks of the East (SEL)" in summary
    assert summary.count("Fall 1101 Movement") == 1 and "Next: Fall 1101 Movement (F1101M)" in summary
    assert "Held" not in summary and "no order given" not in summary  # the orders are in the archive
    assert len(summary) < 1500


def test_the_year_end_says_who_changed_hands_the_award_and_prestige_for_next_year():
    spring = _spring()
    neutral_retreat = _season(_next(spring), [])
    fall = _season(_next(neutral_retreat), ["RUM: A phr - nic", "RUM: A anc S A phr - nic", "BYZ: A nic H"], version=1)
    fall_doc = _next(fall)
    assert str(fall.after.phase) == "F1101R"
    retreat = _season(fall_doc, ["BYZ: A nic - lyd"], version=2)
    [embed] = results_summary(retreat, CRUSADER, next_phase="W1101B", deadline=None)
    summary = embed.description
    assert "Retreated: A Nicaea (The Byzantine Empire) to Lydia" in summary and "retreats to" not in summary
    assert "Nicaea: The Byzantine Empire → The Seldjuks of Rum" in summary
    assert "**The end of 1101**" in summary
    assert "The Seldjuks of Rum (RUM): 3 prestige for 1102 — 3 for 5 centres by rank (rule 2.3.1)" in summary
    assert "**Centres · units · prestige for 1102**" in summary
    assert "The Seldjuks of Rum (RUM): 5 (+1) · 4 · 3" in summary
    assert "The Byzantine Empire (BYZ): 3 (-1) · 4 · 2" in summary


def test_the_detail_lists_every_order_with_its_outcome_a_power_to_an_embed_and_units_left_holding_on_one_line():
    embeds = results_detail(_spring(), CRUSADER)
    by_title = {e.title: e.description for e in embeds}
    assert "❌ A Antioch - Shaizar — fails: bounced" in by_title["The Principality of Antioch (ANT)"]
    assert "✅ held, no order given: F Lattakieh, A Tarsus, A Aleppo (vassal)" in by_title["The Principality of Antioch (ANT)"]
    assert "✅ A Iconium - Phrygia — succeeds" in by_title["The Seldjuks of Rum (RUM)"]
    assert "⛔ VASSAL A Aleppo BID 1 — invalid, nothing spent: the minimum bid" in by_title["The Kingdom of Jerusalem (JER)"]
    neutral = by_title["Neutral units"]
    assert neutral.count("held, nobody commands them:") == 1 and "A Melitene" in neutral and "F Tyre" in neutral
    assert "no order given" not in neutral
    assert "A Phrygia H — fails (neutral, nobody commands it): dislodged" in neutral
    assert list(by_title)[-1] == "Neutral units"


def test_a_huge_report_is_paginated_within_discords_embed_limits():
    doc = new_game_document("standard")
    season = _season(doc, ["FRA: A par - bur" for _ in range(700)], game="big")
    reason = "bounced with A Munich - Burgundy (strength 1 against 1) " * 2
    season = replace(season, adjudication=replace(
        season.adjudication, results=tuple(replace(r, reason=reason) for r in season.results)))
    embeds = results_detail(season, STANDARD)
    messages = pack_embeds(embeds)
    assert len(messages) > 1
    for group in messages:
        assert len(group) <= EMBEDS_PER_MESSAGE
        assert sum(embed_size(e) + 120 for e in group) <= EMBED_TOTAL
        assert all(len(e.description) <= 4096 and len(e.title) <= 256 for e in group)
    lines = sum(e.description.count("\n") + 1 for e in embeds)
    assert lines >= 700


def test_file_names_are_safe_whatever_the_game_is_called():
    assert file_name("@everyone party/ü 🎲-S1101M", "png") == "everyone_party_-S1101M.png"
    assert file_name("...", "txt") == "game.txt"
    assert len(file_name("x" * 300, "json")) <= 100


def test_a_line_written_twice_is_listed_once_and_an_order_a_later_line_replaced_says_so():
    report = SubmissionReport(
        game="g", phase="S1901M", power="FRA",
        accepted=(OrderLine("A par H", _order("FRA: A par H")), OrderLine("A par H", _order("FRA: A par H")),
                  OrderLine("A mar - spa", _order("FRA: A mar - spa")), OrderLine("A mar - bur", _order("FRA: A mar - bur"))),
        rejected=(OrderLine("A xyz H", reason="'xyz' is not a province"),) * 3,
        standing=(OrderLine("A par H", _order("FRA: A par H")), OrderLine("A mar - bur", _order("FRA: A mar - bur"))))
    text = submission_text(report, STANDARD)
    assert text.count("✅ A Paris H") == 1 and "✅ A Paris H (written 2 times)" in text
    assert "✅ A Marseilles - Spain (replaced by a later line)" in text
    assert "Not accepted (1):\n❌ `A xyz H` (written 3 times)" in text


def test_a_message_of_many_bad_lines_gets_one_reply_the_first_errors_a_count_and_a_file_with_all():
    bad = tuple(OrderLine(f"A xyz{i} - bur", reason=f"line {i}: 'xyz{i}' is not a province of this map\n"
                                                     f"A xyz{i} - bur\n  ^^^^\nExpected a province name.")
                for i in range(120))
    report = SubmissionReport(game="g", phase="S1901M", power="FRA", accepted=(), rejected=bad,
                              standing=(OrderLine("A par H", _order("FRA: A par H")),))
    reply = submission_reply(report, STANDARD)
    assert len(reply.text) <= CONTENT_LIMIT and len(chunks(reply.text)) == 1
    assert "Not accepted (120):" in reply.text and reply.text.count("❌") == 5
    assert "… and 115 more lines not accepted: every line and why is in the attached file" in reply.text
    assert reply.text.endswith("Your orders for S1901M now (1):\n• A Paris H")
    name, data = reply.attachment
    assert name == "g-S1901M-not-accepted.txt"
    assert data.decode().count("is not a province of this map") == 120


def test_retreats_builds_and_loans_read_as_what_they_are():
    report = SubmissionReport(game="o", phase="F1101R", power="BYZ", accepted=(OrderLine("A nic - lyd", _order("BYZ: A nic - lyd", "F1101R")),),
                              rejected=(), standing=(OrderLine("A nic - lyd", _order("BYZ: A nic - lyd", "F1101R")),))
    assert "✅ A Nicaea retreats to Lydia" in submission_text(report, CRUSADER)
    report = SubmissionReport(game="o", phase="S1102M", power="JER", accepted=(OrderLine("lend ant 1", _order("JER: LEND ANT 1")),),
                              rejected=(), standing=(OrderLine("lend ant 1", _order("JER: LEND ANT 1")),))
    assert "✅ LEND 1 prestige to The Principality of Antioch" in submission_text(report, CRUSADER)
    report = SubmissionReport(game="o", phase="W1101B", power="RUM", accepted=(OrderLine("build A ico", _order("RUM: A ico build", "W1101B")),),
                              rejected=(), standing=(OrderLine("build A ico", _order("RUM: A ico build", "W1101B")),))
    assert "✅ Build A Iconium" in submission_text(report, CRUSADER)


def test_a_message_reference_is_invisible_and_read_back_also_as_earlier_versions_wrote_it():
    from bot.frontends.discord import refs

    marked = refs.mark("**tannenberg: paused**", "12:7:paused:2031-03-01T12:00:00+00:00#1/2")
    assert marked.startswith("**tannenberg: paused**")
    hidden = marked[len("**tannenberg: paused**"):]
    assert all(c in (refs.START, refs.END, *refs.DIGITS) for c in hidden)  # nothing a reader sees
    assert refs.unmark(marked) == ("**tannenberg: paused**", "12:7:paused:2031-03-01T12:00:00+00:00#1/2")
    assert refs.read(marked) == "12:7:paused:2031-03-01T12:00:00+00:00#1/2"
    assert refs.read("old text\n-# ref 3:1:started#1/1") == "3:1:started#1/1"
    long = "1:0:reminder:86400:undeliverable:discord:discord:1574652123914699923:and-more-words-to-pass-100-bytes#1/1"
    assert refs.read(refs.mark("x", long)) == refs.key(long) != long and len(refs.key(long)) == 41
    assert refs.read("plain words") is None and refs.unmark("a" + refs.START + "b") == ("a" + refs.START + "b", None)


def test_a_unit_with_nowhere_to_retreat_is_reported_destroyed_and_who_did_it():
    doc = {"variant": "standard", "phase": "S1901M", "units": ["GER: A hol", "GER: A ruh", "FRA: A bel",
                                                                "ENG: A pic", "AUS: A bur"]}
    season = _season(doc, ["GER: A hol - bel", "GER: A ruh S A hol - bel"], game="lowlands")
    summary = "\n".join(summary_lines(season, STANDARD, next_phase=None, deadline=None))
    assert "Destroyed: A Belgium (France), dislodged with nowhere to retreat (by Germany)" in summary
    assert "Dislodged:" not in summary     # destroyed, said once
    assert "France (FRA): " in summary and " · 0" in summary.split("France (FRA): ")[1].splitlines()[0]
