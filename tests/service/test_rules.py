"""The service asks the engine every rules question: who commands which unit, who has anything to
decide, whether an order can be given. Played on the ``crusader`` map with a frozen clock."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from adjudicator.prestige.state import lord_of, neutral_home, state_of
from bot.service import DeadlinePolicy

PLAYERS = {"ANT": "anna", "BYZ": "basil", "EDE": "edda", "FAT": "fatima", "JER": "jerry", "RUM": "rum", "SEL": "selim"}
POLICY = DeadlinePolicy(movement=timedelta(hours=48), retreat=timedelta(hours=24), adjustment=timedelta(hours=24),
                        reminders=(), nmr_limit=0)


@pytest.fixture
def outremer(make_service, sqlite_db, clock):
    service, dispatcher, sink = make_service(sqlite_db)
    service.create_game("outremer", "crusader", "gm", policy=POLICY, seed=5)
    for power, player in PLAYERS.items():
        service.join("outremer", player, power)
    service.start("outremer", "gm")
    asyncio.run(dispatcher.flush())
    return service, dispatcher, sink


def test_a_retreat_phase_where_only_neutrals_are_dislodged_is_adjudicated_at_once(start, outremer, clock):
    service, dispatcher, sink = outremer
    service.submit_orders("outremer", "rum", "A ico - phr\nA anc S A ico - phr")
    clock.move_to(start + timedelta(hours=48, seconds=1))
    service.fire_due()
    asyncio.run(dispatcher.flush())

    view = service.status("outremer")
    assert view.phase == "F1101M" and view.version == 2
    assert view.deadline_at == start + timedelta(hours=96, seconds=1)
    retreat = service.season("outremer", 1)
    assert str(retreat.phase) == "S1101R" and retreat.orders == () and retreat.at_once
    spring, at_once = sink.of_kind("results")
    assert "The next phase is Spring 1101 Retreat (S1101R)." in spring.body
    assert "adjudicated at once" in at_once.body and "S1101R" in at_once.subject
    assert "orders are due by" in at_once.body and at_once.data["next_phase"] == "F1101M"
    [nmr] = sink.of_kind("nmr")      # the spring's, not the retreat's: nobody had to order there
    assert nmr.data["phase"] == "S1101M" and "RUM" not in nmr.powers


def test_a_rollback_undoes_the_phases_adjudicated_at_once_with_the_phase_before(outremer, clock):
    service, _, _ = outremer
    service.submit_orders("outremer", "rum", "A ico - phr\nA anc S A ico - phr")
    service.force_adjudicate("outremer", "gm")
    assert service.status("outremer").phase == "F1101M"
    view = service.rollback("outremer", "gm")
    assert view.phase == "S1101M" and "RUM" in view.must_order
    assert service.season("outremer", 0) is None and service.season("outremer", 1) is None
    assert [o.canonical for o in service.my_orders("outremer", "rum").orders] == \
        ["RUM: A ico - phr", "RUM: A anc S A ico - phr"]


def test_a_vassal_bought_in_spring_is_ordered_by_its_lord_in_autumn(outremer, clock):
    service, _, _ = outremer
    service.submit_orders("outremer", "anna", "VASSAL A ale BID 2\nA ale - ala")
    service.force_adjudicate("outremer", "gm")
    _, position = service.board("outremer")
    assert str(position.phase) == "F1101M" and position.unit_at("ala").power == "NEU"
    mine = service.my_orders("outremer", "anna")
    assert "vassal" in {c.by for c in mine.duty.units}       # what ANT must decide: its units and its vassal
    report = service.submit_orders("outremer", "anna", "A ala - ale")
    assert [line.canonical for line in report.accepted] == ["ANT: A ala - ale"] and not report.rejected
    service.force_adjudicate("outremer", "gm")
    _, position = service.board("outremer")
    assert position.unit_at("ale") is not None and position.unit_at("ale").power == "NEU"
    # the same order from a power that holds no vassaldom is refused, with the engine's reason
    report = service.submit_orders("outremer", "jerry", "A ale - ala")
    [refused] = report.rejected
    assert refused.refusal is not None and refused.refusal.code == "not-your-unit"
    assert refused.reason == "not your unit: A Aleppo is neutral"  # the engine's reason, its unit named
    assert str(refused.refusal.text) == "not your unit: A ale is neutral"  # the engine's value, as the engine writes it


def test_a_vassal_that_dislodges_a_free_neutral_keeps_its_lord_and_the_neutral_retreats_at_random(outremer, clock):
    """Edessa's new vassal from Mardin dislodges the free neutral army of Harran: during the
    retreats both stand in Harran. The dislodged one is nobody's: it retreats at random at once
    (nobody has anything to decide), keeps Harran as its home, and Edessa goes on commanding its
    own vassal, and only it."""
    service, dispatcher, sink = outremer
    report = service.submit_orders("outremer", "edda", "VASSAL A mar BID 2\nA mar - har\nA ede S A mar - har")
    assert not report.rejected
    service.force_adjudicate("outremer", "gm")
    asyncio.run(dispatcher.flush())

    assert service.status("outremer").phase == "F1101M"         # the retreat phase was nobody's to decide
    retreats = service.season("outremer", 1)
    assert str(retreats.phase) == "S1101R" and retreats.at_once and retreats.orders == ()
    [drawn] = retreats.adjudication.implicit
    assert drawn.order.power == "NEU" and drawn.order.location.province == "har" and drawn.outcome.value == "succeeds"
    landed = drawn.order.destination.province
    variant, position = service.board("outremer")
    state = state_of(position)
    vassal, freed = position.unit_at("har"), position.unit_at(landed)
    assert (neutral_home(state, vassal), lord_of(state, vassal)) == ("mar", "EDE")
    assert (neutral_home(state, freed), lord_of(state, freed)) == ("har", None)
    results = sink.of_kind("results")[-1]
    assert "S1101R" in results.subject and f"A Harran retreats to {variant.provinces[landed].name}" in results.body

    mine = service.my_orders("outremer", "edda")
    assert {c.unit.province for c in mine.duty.units if c.by == "vassal"} == {"har"}
    report = service.submit_orders("outremer", "edda", f"A har - mar\nA {landed} H")
    assert [line.canonical for line in report.accepted] == ["EDE: A har - mar"]
    [refused] = report.rejected
    assert refused.refusal.code == "not-your-unit"
    service.force_adjudicate("outremer", "gm")
    _, position = service.board("outremer")
    back = position.unit_at("mar")
    assert back is not None and back.power == "NEU" and neutral_home(state_of(position), back) == "mar"


def test_orders_that_cannot_succeed_are_refused_and_bids_that_may_lose_say_what_they_need(outremer):
    service, _, _ = outremer
    report = service.submit_orders("outremer", "anna",
                                   "VASSAL A ale BID 1\nREBEL ant BID 2\nSECURE LOYALTY BID 5\nA ant H")
    refused = {line.written: (line.refusal.code, line.reason) for line in report.rejected}
    assert refused == {"VASSAL A ale BID 1": ("bid-below-minimum", "the minimum bid for VASSAL is 2 (rule 2.4.1)"),
                       "REBEL ant BID 2": ("rebel-own-centre", "Antioch is your own centre")}
    [loyalty] = [line for line in report.accepted if line.written == "SECURE LOYALTY BID 5"]
    assert loyalty.note is not None and loyalty.note.code == "beyond-prestige"   # 5 asked, 2 held: a loan may come
    assert [line.canonical for line in report.standing] == ["ANT: SECURE LOYALTY BID 5", "ANT: A ant H"]
    text = report.to_text()
    assert "accepted: SECURE LOYALTY BID 5  ->  ANT: SECURE LOYALTY BID 5  (conditional: needs 5 prestige" in text


def test_what_a_power_must_decide_comes_from_the_engine(outremer, clock):
    service, _, _ = outremer
    mine = service.my_orders("outremer", "rum")
    assert mine.must_order and mine.duty.spendable == 2
    assert {str(c.unit) for c in mine.duty.units} == {str(u) for u in service.board("outremer")[1].units_of("RUM")}
    service.submit_orders("outremer", "rum", "A ico - phr\nA anc S A ico - phr")
    service.force_adjudicate("outremer", "gm")                      # the neutral in Phrygia retreats at random
    service.submit_orders("outremer", "rum", "A phr - nic\nA anc S A phr - nic")
    service.submit_orders("outremer", "basil", "A nic H")
    service.force_adjudicate("outremer", "gm")
    assert service.status("outremer").must_order == ("BYZ",)
    byzantium = service.my_orders("outremer", "basil")
    [(unit, options)] = byzantium.duty.retreats
    assert str(unit) == "BYZ: A nic" and options and all(str(o) != "phr" for o in options)
    from adjudicator.variant import get_variant
    from bot.codec.spelled import duty as spelled_duty
    [line] = spelled_duty(byzantium.duty, get_variant("crusader"))
    assert line.startswith("A Nicaea: retreat to ") and line.endswith(", or disband")
    assert not service.my_orders("outremer", "rum").must_order
    report = service.submit_orders("outremer", "basil", f"A nic - {options[0]}")
    assert not report.rejected and report.duty.retreats == () and not report.duty.must_decide  # nothing left
    after = service.my_orders("outremer", "basil")
    assert after.must_order and not after.duty.must_decide


def test_the_front_ends_spell_out_what_a_power_must_decide(outremer, clock):
    from adjudicator.variant import get_variant
    from bot.codec.spelled import duty as spelled_duty
    from bot.frontends.discord.formatting import my_orders_text
    from bot.frontends.mail.replies import _orders

    service, _, _ = outremer
    crusader = get_variant("crusader")
    mine = service.my_orders("outremer", "anna")
    assert spelled_duty(mine.duty, crusader) == ["Units to order: F Lattakieh, A Antioch, A Tarsus"]
    assert "To decide:\n· Units to order: " in my_orders_text(mine, crusader)
    assert "  Units to order: " in "\n".join(_orders(mine))
    service.submit_orders("outremer", "anna", "F lat H\nA ant - sha")   # what is ordered is no longer to decide
    mine = service.my_orders("outremer", "anna")
    assert spelled_duty(mine.duty, crusader) == ["Units to order: A Tarsus"]
    assert "· Units to order: A Tarsus" in my_orders_text(mine, crusader)
    service.submit_orders("outremer", "anna", "A tar H")
    mine = service.my_orders("outremer", "anna")
    assert mine.must_order and "To decide" not in my_orders_text(mine, crusader)
    assert "To decide" not in "\n".join(_orders(mine))


def test_the_units_to_remove_are_named_with_those_civil_disorder_would_take():
    from adjudicator.opening import starting_position
    from adjudicator.turn import duty
    from adjudicator.variant import get_variant
    from bot.codec.spelled import duty as spelled_duty

    crusader = get_variant("crusader")
    start = starting_position(crusader)
    p = start.with_changes(phase=start.phase.adjustment(),
                           supply_centers={c: o for c, o in start.supply_centers.items() if c != "tar"})
    [line] = spelled_duty(duty(crusader, p, "ANT"), crusader)
    assert line == "Units to remove: 1, of A Tarsus, F Lattakieh, A Antioch (with no order, civil disorder " \
                   "removes A Tarsus)"


def test_the_report_marks_a_bribed_units_order_and_names_the_neutrals_that_held_once(board, orders):
    from adjudicator.adjudicate import adjudicate
    from adjudicator.variant import get_variant
    from bot.service.report import phase_report, report_text

    standard = get_variant("standard")
    p = board("S1907M", units=["NEU: A hol", "NEU: A nwy", "NEU: A swe", "FRA: A bel", "GER: A mun"],
              prestige={"FRA": 3})
    adjudication = adjudicate(standard, p, orders("FRA: BRIBE A hol BID 1 A hol S A bel", "FRA: A bel H"))
    text = report_text(phase_report(adjudication, standard, p))
    assert "  A Holland S A Belgium (bribed, neutral) — succeeds (the order written with the BRIBE)\n" in text
    assert "  BRIBE A Holland BID 1, then A Holland S A Belgium — won, 1 spent: " in text
    assert "Neutral units:\n  held, nobody commands them: A Norway, A Sweden\n" in text
    assert "Germany (GER):\n  held, no order given: A Munich\n" in text
    assert text.count("no order given") == 1
    assert "Bribed: the unit in Holland obeys France this season" in text
