"""The adjudication pipeline: order checking, one order per unit, reasons, and the next position."""

from __future__ import annotations

import json
import pickle
from dataclasses import FrozenInstanceError

import pytest

from adjudicator.events import Annihilation, CentreChange

from adjudicator.adjudicate import adjudicate
from adjudicator.movement import resolve_movement
from adjudicator.orders import Build, Convoy, Disband, Hold, Move, Retreat, SupportHold, SupportMove, Waive
from adjudicator.prestige.orders import Bribe
from adjudicator.position import Dislodgement, Position
from adjudicator.opening import starting_position
from adjudicator.results import Outcome, Phrase, listed, parts_of
from adjudicator.turn import check_order
from adjudicator.variant import get_variant
from adjudicator.vocab import Location, Phase, Power, ProvinceId, Unit, UnitType

V = get_variant("standard")
A, F = UnitType.ARMY, UnitType.FLEET


def loc(text: str) -> Location:
    return Location.parse(text)


def board(phase: str, *units: str, centers: dict[str, str] | None = None, **changes) -> Position:
    owners = dict(V.starting_owners)
    owners.update({ProvinceId(k): Power(v) for k, v in (centers or {}).items()})
    return Position("standard", Phase.parse(phase), tuple(Unit.parse(u) for u in units), owners, **changes)


def move(power: str, t, src: str, dst: str, **kw) -> Move:
    return Move(Power(power), t, loc(src), loc(dst), **kw)


# -- the pipeline --------------------------------------------------------------------------------


def test_a_later_order_replaces_an_earlier_one():
    pos = board("S1901M", "FRA: A par")
    adj = adjudicate(V, pos, [move("FRA", A, "par", "bur"), move("FRA", A, "par", "pic")])
    first, second = adj.results
    assert first.outcome is Outcome.FAILS and first.reason == "replaced by a later order for A par"
    assert second.outcome is Outcome.SUCCEEDS
    assert adj.position.unit_at(ProvinceId("pic")) is not None


def test_an_illegal_later_order_does_not_replace_a_legal_one():
    pos = board("S1901M", "FRA: A par")
    adj = adjudicate(V, pos, [move("FRA", A, "par", "bur"), move("FRA", A, "par", "lon")])
    assert [r.outcome for r in adj.results] == [Outcome.SUCCEEDS, Outcome.INVALID]


def test_unit_type_left_out_is_taken_from_the_board():
    pos = board("S1901M", "ENG: F lon")
    adj = adjudicate(V, pos, [move("ENG", None, "lon", "nth")])
    assert adj.results[0].outcome is Outcome.SUCCEEDS
    assert adj.results[0].order.unit_type is F


def test_units_without_orders_hold_and_are_reported():
    pos = board("S1901M", "FRA: A par", "GER: A mun")
    adj = adjudicate(V, pos, [move("FRA", A, "par", "bur")])
    assert [str(r.order) for r in adj.implicit] == ["A mun H"]


def test_reasons_a_player_can_act_on():
    pos = board("S1901M", "GER: A mun", "AUS: A boh", "GER: A sil", "FRA: A bur")
    orders = [move("GER", A, "mun", "tyr"), SupportMove(Power("GER"), A, loc("sil"), A, loc("mun"), loc("boh")),
              move("FRA", A, "bur", "mun"), move("AUS", A, "boh", "mun")]
    adj = adjudicate(V, pos, orders)
    assert adj.results[1].reason == "A mun does not move to boh"
    assert adj.results[2].reason == "bounced with A boh, 1 against 1"
    pic = adjudicate(V, board("S1901M", "ENG: F nth"), [move("ENG", F, "nth", "pic")]).results[0]
    assert pic.outcome is Outcome.INVALID
    assert pic.reason == "not adjacent: Picardy is not adjacent to the North Sea"


def test_a_convoyed_move_says_why_it_has_no_path():
    # Two of the three fleets Tunis needs are ordered to convoy: none is dislodged, they just do not reach.
    pos = board("S1901M", "ENG: A lon", "ENG: F eng", "ENG: F mao", "ENG: F wes")
    orders = [move("ENG", A, "lon", "tun", via_convoy=True), Convoy(Power("ENG"), F, loc("eng"), A, loc("lon"), loc("tun")),
              Convoy(Power("ENG"), F, loc("wes"), A, loc("lon"), loc("tun"))]
    adj = adjudicate(V, pos, orders)
    assert [r.outcome for r in adj.results] == [Outcome.FAILS] * 3
    assert adj.results[0].reason == ("no convoy path: the fleets ordered to convoy A lon (F eng, F wes) do not "
                                     "reach Tunis from London")
    # The one fleet that carries it is dislodged: that is the reason, naming the fleet.
    pos = board("S1901M", "ENG: A lon", "ENG: F eng", "FRA: F bre", "FRA: F pic")
    orders = [move("ENG", A, "lon", "bel", via_convoy=True), Convoy(Power("ENG"), F, loc("eng"), A, loc("lon"), loc("bel")),
              move("FRA", F, "bre", "eng"), SupportMove(Power("FRA"), F, loc("pic"), F, loc("bre"), loc("eng"))]
    adj = adjudicate(V, pos, orders)
    assert adj.results[0].reason == "no convoy path: the convoying fleet F eng was dislodged"


def test_not_your_unit():
    refusal = check_order(V, board("S1901M", "ENG: F lon"), move("GER", F, "lon", "nth")).refusal
    assert (refusal.code, refusal.text) == ("not-your-unit", "not your unit: F lon is English")


def test_orders_of_the_wrong_phase_are_invalid():
    pos = board("S1901M", "FRA: A par")
    refusal = check_order(V, pos, Build(Power("FRA"), A, loc("par"))).refusal
    assert refusal.code == "wrong-phase" and "movement phase" in refusal.text
    retreat = board("S1901R", "FRA: A par")
    refusal = check_order(V, retreat, SupportHold(Power("FRA"), A, loc("par"), A, loc("par"))).refusal
    assert refusal.code == "wrong-phase" and "retreat phase" in refusal.text


def test_prestige_orders_need_the_prestige_rules_and_never_move_a_unit():
    pos = board("S1901M", "FRA: A par", "NEU: A bel")
    bribe = Bribe(Power("FRA"), A, loc("bel"), 3, order=Hold(Power("FRA"), A, loc("bel")))
    adj = adjudicate(V, pos, [bribe, move("FRA", A, "par", "bur")])
    assert adj.results[0].outcome is Outcome.INVALID
    assert adj.results[0].reason == "prestige orders need the prestige rules"
    assert adj.results[1].outcome is Outcome.SUCCEEDS


# -- the commander seam ---------------------------------------------------------------------------


def test_self_dislodgement_follows_who_commands_the_unit():
    units = tuple(Unit.parse(u) for u in ("ENG: A bel", "GER: A hol", "GER: A ruh", "FRA: A pic"))
    orders = {ProvinceId("bel"): Move(Power("GER"), A, loc("bel"), loc("pic")),
              ProvinceId("ruh"): SupportMove(Power("GER"), A, loc("ruh"), A, loc("hol"), loc("bel")),
              ProvinceId("hol"): Move(Power("GER"), A, loc("hol"), loc("bel"))}
    # the English army in Belgium is commanded by Germany this season: it cannot be dislodged by
    # German units... it moves away into the French army, bounces, and stays
    out = resolve_movement(V, units, orders, commander={ProvinceId("bel"): Power("GER")})
    assert ProvinceId("hol") not in out.moved
    out = resolve_movement(V, units, orders)
    assert out.moved[ProvinceId("hol")] == loc("bel")


def test_a_commanders_support_does_not_help_dislodge_its_own_unit():
    units = tuple(Unit.parse(u) for u in ("FRA: A mun", "ITA: A tyr", "ITA: A boh"))
    orders = {ProvinceId("tyr"): Move(Power("ITA"), A, loc("tyr"), loc("mun")),
              ProvinceId("boh"): SupportMove(Power("ITA"), A, loc("boh"), A, loc("tyr"), loc("mun"))}
    assert ProvinceId("tyr") in resolve_movement(V, units, orders).moved
    bribed = resolve_movement(V, units, orders, commander={ProvinceId("boh"): Power("FRA")})
    assert ProvinceId("tyr") not in bribed.moved


# -- the next position ---------------------------------------------------------------------------


def test_spring_without_dislodgement_goes_to_fall():
    adj = adjudicate(V, starting_position(V), [])
    assert str(adj.position.phase) == "F1901M"


def test_a_dislodgement_makes_a_retreat_phase():
    pos = board("S1901M", "AUS: A vie", "AUS: A bud", "ITA: A gal", "GER: A mun", "GER: A sil")
    orders = [move("AUS", A, "vie", "gal"), SupportMove(Power("AUS"), A, loc("bud"), A, loc("vie"), loc("gal")),
              move("GER", A, "mun", "boh"), move("GER", A, "sil", "boh")]
    adj = adjudicate(V, pos, orders)
    nxt = adj.position
    assert str(nxt.phase) == "S1901R"
    assert nxt.dislodged == (Dislodgement(Unit.parse("ITA: A gal"), ProvinceId("vie")),)
    assert nxt.standoffs == {"boh"}
    assert adj.events.dislodged == (Dislodgement(Unit.parse("ITA: A gal"), "vie", False),)
    retreat = adjudicate(V, nxt, [Retreat(Power("ITA"), A, loc("gal"), loc("boh"))])
    assert retreat.results[0].outcome is Outcome.INVALID
    assert str(retreat.position.phase) == "F1901M"
    assert retreat.position.unit_at(ProvinceId("gal")) is not None   # the Austrian army
    assert retreat.events.disbanded == (Unit.parse("ITA: A gal"),)


def test_a_unit_with_nowhere_to_go_is_annihilated_at_once():
    pos = board("F1901M", "RUS: F con", "RUS: F bla", "TUR: F ank", "TUR: A arm", "TUR: A smy")
    orders = [SupportMove(Power("RUS"), F, loc("con"), F, loc("bla"), loc("ank")), move("RUS", F, "bla", "ank")]
    adj = adjudicate(V, pos, orders)
    assert adj.events.annihilated == (Annihilation(Unit.parse("TUR: F ank"), "RUS"),)
    assert adj.position.phase.kind.value != "R"
    assert adj.position.supply_centers[ProvinceId("ank")] == "RUS"


def test_fall_changes_owners_then_builds():
    pos = starting_position(V).with_changes(phase=Phase.parse("F1901M"))
    adj = adjudicate(V, pos, [move("FRA", A, "par", "bur"), move("FRA", F, "bre", "mao"),
                              move("GER", F, "kie", "den")])
    assert CentreChange("den", "NEU", "GER") in adj.events.centres
    assert str(adj.position.phase) == "W1901B"
    assert adj.position.supply_centers[ProvinceId("den")] == "GER"


def test_winter_is_skipped_when_nobody_can_adjust():
    adj = adjudicate(V, starting_position(V).with_changes(phase=Phase.parse("F1901M")), [])
    assert str(adj.position.phase) == "S1902M"
    assert adj.events.centres == ()


def test_builds_waives_and_civil_disorder():
    pos = board("W1901B", "GER: A ber", "GER: A hol", "FRA: A par", "FRA: A bur", "FRA: A pic",
                centers={"den": "GER"})
    orders = [Build(Power("GER"), A, loc("kie")), Build(Power("GER"), None, loc("mun")), Waive(Power("GER")),
              Waive(Power("GER"))]
    adj = adjudicate(V, pos, orders)
    assert [r.outcome for r in adj.results] == [Outcome.SUCCEEDS, Outcome.INVALID, Outcome.SUCCEEDS,
                                                Outcome.FAILS]
    assert adj.results[1].reason == "say which unit to build: A mun build or F mun build"
    assert [str(r.order) for r in adj.implicit] == []     # France: 3 centres, 3 units
    assert str(adj.position.phase) == "S1902M"
    assert adj.events.built == (Unit.parse("GER: A kie"),)


def test_civil_disorder_removes_the_farthest_unit():
    pos = board("W1905B", "ITA: A war", "ITA: A tus", centers={"ven": "AUS", "rom": "FRA", "nap": "AUS",
                                                                 "war": "ITA"})
    adj = adjudicate(V, pos, [])
    assert [str(r.order) for r in adj.implicit] == ["A tus disband"]
    assert "civil disorder" in adj.implicit[0].reason


def test_a_power_without_units_or_centres_is_eliminated():
    pos = board("W1905B", "FRA: A par", "ITA: A rom", centers={"par": "ITA"} | {c: "ITA" for c in ("bre", "mar")})
    adj = adjudicate(V, pos, [Disband(Power("FRA"), A, loc("par"))])
    assert adj.results[0].outcome is Outcome.SUCCEEDS
    assert "FRA" in adj.position.eliminated
    assert adj.events.eliminated == ("FRA",)


def test_victory():
    owners = {c: "FRA" for c in sorted(V.supply_centers)[:18]}
    pos = board("F1910M", "FRA: A par", centers=owners)
    adj = adjudicate(V, pos, [])
    assert adj.events.victory == ("FRA",)


# -- reasons as values ---------------------------------------------------------------------------


def test_a_reason_that_names_units_keeps_them_as_values_beside_its_text():
    pos = board("S1901M", "GER: A mun", "AUS: A boh", "GER: A sil", "FRA: A bur", "AUS: A tyr", "ITA: A ven")
    orders = [move("GER", A, "mun", "tyr"), SupportMove(Power("GER"), A, loc("sil"), A, loc("mun"), loc("boh")),
              move("FRA", A, "bur", "mun"), move("AUS", A, "boh", "mun"),
              SupportMove(Power("AUS"), A, loc("tyr"), A, loc("boh"), loc("mun")), move("ITA", A, "ven", "tyr")]
    adj = adjudicate(V, pos, orders)
    support, bounce = adj.results[1].reason, adj.results[2].reason
    assert isinstance(support, Phrase) and support == "A mun does not move to boh"
    assert support.parts == (Unit.parse("GER: A mun"), " does not move to ", loc("boh"))
    assert isinstance(bounce, Phrase) and bounce.parts == ("bounced with ", Unit.parse("AUS: A boh"),
                                                           ", 1 against 1")
    cut = adj.results[4].reason
    assert cut == "support cut by A ven" and cut.parts == ("support cut by ", Unit.parse("ITA: A ven"))
    held = adjudicate(V, board("S1901M", "FRA: A par"), [])
    assert held.implicit[0].reason == "holds" and not isinstance(held.implicit[0].reason, Phrase)


def test_a_phrase_is_its_text_frozen_and_said_again_in_another_reason():
    unit = Unit.parse("RUS: F stp/sc")
    phrase = Phrase("dislodged by ", unit, " (2 against 1)")
    assert str(phrase) == phrase == "dislodged by F stp/sc (2 against 1)" and json.dumps(phrase) == f'"{phrase}"'
    with pytest.raises(FrozenInstanceError):
        phrase.parts = ()       # type: ignore[misc]
    assert pickle.loads(pickle.dumps(phrase)).parts == phrase.parts
    cut = Phrase("support cut: ", *parts_of(phrase))
    assert cut == "support cut: dislodged by F stp/sc (2 against 1)" and cut.parts[1:] == phrase.parts
    assert parts_of("holds") == ("holds",) and type(f"{phrase}; more") is str
    assert Phrase("support cut: ", phrase).parts == cut.parts       # a phrase within gives its parts
    assert Phrase(*listed([unit, Unit.parse("ENG: F eng")])) == "F stp/sc, F eng"


def test_an_invalid_order_and_a_replaced_order_name_their_units_as_values():
    pos = board("S1901M", "FRA: A par", "GER: A mun")
    adj = adjudicate(V, pos, [move("FRA", A, "par", "bur"), move("FRA", A, "par", "pic"), move("FRA", A, "mun", "ruh")])
    assert adj.results[0].reason.parts == ("replaced by a later order for ", Unit.parse("FRA: A par"))
    assert adj.results[2].outcome is Outcome.INVALID and adj.results[2].reason == "not your unit: A mun is German"
    assert adj.results[2].reason.parts == ("not your unit: ", Unit.parse("GER: A mun"), " is German")
