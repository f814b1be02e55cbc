"""The rules text's worked Examples 1 to 16, on the classic map with the prestige rules.

Each case is data: a board, then steps, each a list of orders (as a player writes them) and
what must hold after the engine adjudicated them. A step may start from a fresh board. The
numbers are the text's.
"""

from __future__ import annotations

import pytest

from adjudicator.adjudicate import adjudicate
from adjudicator.results import Outcome
from adjudicator.variant import get_variant
from adjudicator.prestige.state import state_of

STANDARD = get_variant("standard")

S, F, I = Outcome.SUCCEEDS, Outcome.FAILS, Outcome.INVALID  # noqa: E741 (the tables' initials)

EX1_CENTERS = {"swe": "RUS", "nwy": "RUS", "rum": "RUS", "spa": "FRA", "por": "FRA", "bel": "FRA", "lvp": "FRA",
               "bul": "TUR", "gre": "TUR", "den": "GER", "ser": "AUS", "hol": "NEU", "tun": "NEU"}
ONE_UNIT_EACH = ["RUS: A mos", "FRA: A par", "TUR: A ank", "GER: A kie", "AUS: A vie", "ITA: A rom", "ENG: F lon"]

CASES = [
    {"id": "example-01", "board": dict(phase="F1906M", units=ONE_UNIT_EACH, centers=EX1_CENTERS),
     "steps": [{"orders": [],
                "prestige": {"RUS": 3, "FRA": 3, "TUR": 2, "GER": 2, "AUS": 2, "ITA": 1, "ENG": 1}}]},

    {"id": "example-02",
     "board": dict(phase="F1906M",
                   units=["RUS: A pru", "RUS: F bal", "GER: A ber", "GER: A kie", "GER: A mun", "AUS: A sil",
                          "FRA: A par", "TUR: A ank", "ITA: A rom", "ENG: F lon"],
                   centers={**EX1_CENTERS, "rum": "NEU", "hol": "GER"}),
     "steps": [{"orders": ["RUS: A pru - ber", "RUS: F bal S A pru - ber", "AUS: A sil S A pru - ber"],
                "results": [S, S, S], "centers": {"ber": "RUS"},
                "prestige": {"RUS": 4, "GER": 1, "AUS": 2}}]},

    {"id": "example-03", "board": dict(units=["NEU: A nwy", "FRA: F nth"], prestige={"FRA": 2}),
     "steps": [{"orders": ["FRA: VASSAL A nwy BID 2", "FRA: A nwy - swe"], "results": [S, S],
                "units": ["NEU: A swe"], "vassals": {"nwy": "FRA"}, "prestige": {"FRA": 0},
                "neutral_homes": {"swe": "nwy"}}]},

    {"id": "example-04", "board": dict(units=["NEU: A nwy"], prestige={"RUS": 4, "FRA": 3}),
     "steps": [{"orders": ["RUS: VASSAL A nwy BID 2", "FRA: VASSAL A nwy BID 3"],
                "results": [(F, "outbid by France (3 against 2); 2 prestige spent"),
                            (S, "France takes A Norway as vassal until the end of the year, 3 against Russia's 2; "
                                "3 prestige spent")],
                "vassals": {"nwy": "FRA"}, "prestige": {"RUS": 2, "FRA": 0}}]},

    {"id": "example-04-tie", "board": dict(units=["NEU: A nwy"], prestige={"RUS": 4, "FRA": 3}),
     "steps": [{"orders": ["RUS: VASSAL A nwy BID 3", "FRA: VASSAL A nwy BID 3"],
                "results": [(F, "tied at 3 with France: nobody takes A Norway; 3 prestige spent"),
                            (F, "tied at 3 with Russia: nobody takes A Norway; 3 prestige spent")],
                "vassals": {}, "prestige": {"RUS": 1, "FRA": 0}}]},

    {"id": "example-05",
     "board": dict(phase="S1907M", units=["NEU: A nwy", "FRA: F nth", "FRA: A den", "RUS: F stp/nc"],
                   centers={"den": "FRA"}, prestige={"RUS": 4, "FRA": 3}),
     "steps": [
         {"orders": ["RUS: VASSAL A nwy BID 2", "FRA: VASSAL A nwy BID 3", "FRA: A nwy - swe"],
          "results": [F, S, S], "units": ["NEU: A swe"]},
         {"orders": ["FRA: A swe - den", "FRA: F nth - nwy"],
          "results": [(I, "a vassal may move only to its home centre Norway or a province next to it"), S],
          "centers": {"nwy": "NEU", "swe": "FRA"}, "vassals": {}},
         {"orders": [], "phase": "S1908M"},
         {"orders": [], "units": ["NEU: A swe", "FRA: F nwy"]},
         {"orders": [], "centers": {"nwy": "FRA", "swe": "NEU"}, "units": ["NEU: A swe"]},
         {"orders": [], "phase": "S1909M"},
         {"orders": ["RUS: F stp/nc S A swe - nwy", "FRA: A den - swe"], "results": [S, S],
          "units": ["NEU: A nwy", "FRA: A swe"], "phase": "S1909R"},
         {"orders": ["FRA: F nwy - nth"], "retreat": True, "results": [S], "units": ["FRA: F nth"]},
         {"orders": ["FRA: F nth - nwy", "FRA: A swe S F nth - nwy", "RUS: F stp/nc S A nwy"],
          "results": [F, S, S], "units": ["NEU: A nwy"], "centers": {"nwy": "NEU", "swe": "FRA"}},
     ]},

    {"id": "example-06",
     "board": dict(units=["NEU: A rum", "AUS: A bud", "TUR: A ser"], centers={"ser": "TUR"}, prestige={"AUS": 2}),
     "steps": [{"orders": ["AUS: BRIBE A rum BID 1 A rum S A bud - ser", "AUS: A bud - ser"],
                "results": [S, S], "units": ["AUS: A ser", "NEU: A rum"], "prestige": {"AUS": 1},
                "phase": "S1907R"}]},

    {"id": "example-07",
     "board": dict(phase="F1907M", units=["TUR: A bul"], centers={"gre": "TUR", "bul": "TUR"}),
     "steps": [{"orders": ["TUR: SEIZE FIEF gre"], "results": [(S, "Greece is now a home centre of Turkey")],
                "homes": {"TUR": ["ank", "con", "smy", "gre"]}, "prestige": {}, "phase": "W1907B"},
               {"orders": ["TUR: F gre build"], "results": [S], "units": ["TUR: F gre"]}]},

    {"id": "example-08",
     "board": dict(phase="F1906M", units=["ITA: A alb", "TUR: A ank"], centers={"gre": "TUR"},
                   homes={"TUR": ["ank", "con", "smy", "gre"]}),
     "steps": [
         {"orders": ["ITA: A alb - gre"], "results": [S], "centers": {"gre": "ITA"},
          "homes": {"TUR": ["ank", "con", "smy"]}},
         {"board": dict(phase="F1907M", units=["TUR: A bul", "ITA: A alb"], centers={"gre": "ITA", "bul": "TUR"}),
          "orders": ["TUR: A bul - gre"], "results": [S], "centers": {"gre": "TUR"},
          "homes": {"TUR": ["ank", "con", "smy"]}, "phase": "W1907B"},
         {"orders": ["TUR: F gre build"], "results": [I]},
         {"board": dict(phase="F1908M", units=["TUR: A bul", "ITA: A rom"], centers={"con": "ITA", "bul": "TUR"}),
          "orders": ["ITA: SEIZE FIEF con", "TUR: A bul - con"],
          "results": [(I, "starting home centre of Turkey, which is still in the game"), S],
          "centers": {"con": "TUR"}, "homes": {"TUR": ["ank", "con", "smy"]}},
         {"board": dict(phase="F1910M", units=["ITA: A rom"], centers={"con": "ITA", "ank": "ITA", "smy": "ITA"},
                        eliminated=("TUR",)),
          "orders": ["ITA: SEIZE FIEF con"], "results": [S], "homes": {"ITA": ["nap", "rom", "ven", "con"]},
          "phase": "W1910B"},
         {"orders": ["ITA: F con build"], "results": [S], "units": ["ITA: F con"]},
     ]},

    {"id": "example-09",
     "board": dict(units=["ITA: F tun"], centers={"tun": "ITA"}, prestige={"RUS": 4}, start={"ITA": 2}),
     "steps": [{"orders": ["RUS: REBEL tun BID 4"],
                "results": [(S, "Tunis rebels against Italy: 4 bid against a minimum of 4 (2 + Italy's 2 at the "
                                "start of the year); 4 prestige spent")],
                "centers": {"tun": "NEU"}, "units": ["NEU: F tun"], "prestige": {"RUS": 0}}]},

    {"id": "example-10",
     "board": dict(units=["ITA: F tun"], centers={"tun": "ITA"}, prestige={"RUS": 6, "TUR": 4, "ITA": 2},
                   start={"ITA": 2}),
     "steps": [{"orders": ["ITA: SECURE LOYALTY BID 2", "RUS: REBEL tun BID 5", "TUR: BRIBE F tun BID 4 F tun H"],
                "results": [S, (F, "minimum of 6 (2 + Italy's 2 at the start of the year + 2 secure loyalty)"),
                            (F, "minimum of 5 (1 + Italy's 2 at the start of the year + 2 secure loyalty)")],
                "centers": {"tun": "ITA"}, "prestige": {"ITA": 0, "RUS": 1, "TUR": 4}}]},

    {"id": "example-11",
     "board": dict(units=["ITA: F tun"], centers={"tun": "ITA"}, prestige={"RUS": 4, "TUR": 2, "ITA": 2},
                   start={"ITA": 2}),
     "steps": [{"orders": ["RUS: REBEL tun BID 4", "TUR: VASSAL F tun BID 2", "TUR: F tun - ion"],
                "results": [S, (F, "rule 2.7.4); 2 prestige spent"), I],
                "centers": {"tun": "NEU"}, "units": ["NEU: F tun"], "prestige": {"RUS": 0, "TUR": 0, "ITA": 2},
                "vassals": {}}]},

    {"id": "example-11-loyalty",
     "board": dict(units=["ITA: F tun"], centers={"tun": "ITA"}, prestige={"RUS": 4, "TUR": 3, "ITA": 2},
                   start={"ITA": 2}),
     "steps": [{"orders": ["RUS: REBEL tun BID 4", "ITA: SECURE LOYALTY BID 1", "TUR: BRIBE F tun BID 3 F tun H"],
                "results": [(F, "minimum of 5"), S, (F, "minimum of 4 (1 + Italy's 2 at the start of the year + "
                                                        "1 secure loyalty); nothing spent")],
                "centers": {"tun": "ITA"}, "units": ["ITA: F tun"], "prestige": {"RUS": 0, "ITA": 1, "TUR": 3}}]},

    {"id": "example-12",
     "board": dict(phase="S1906M", units=["ENG: F eng", "ENG: A lon", "FRA: F nth"], prestige={"FRA": 2, "ENG": 1},
                   start={"ENG": 1}),
     "steps": [{"orders": ["FRA: BRIBE ENG F eng BID 2 F eng S F nth - lon", "FRA: F nth - lon"],
                "results": [S, S], "units": ["FRA: F lon", "ENG: F eng"], "prestige": {"FRA": 0},
                "phase": "S1906R"}]},

    {"id": "example-13",
     "board": dict(phase="S1906M", units=["ENG: F eng", "ENG: A lon", "FRA: F nth"], prestige={"FRA": 2, "ENG": 1},
                   start={"ENG": 1}),
     "steps": [{"orders": ["FRA: BRIBE ENG F eng BID 2 F eng S F nth - lon", "FRA: F nth - lon",
                           "ENG: SECURE LOYALTY BID 1", "ENG: F eng S A lon"],
                "results": [(F, "minimum of 3"), F, S, S], "units": ["ENG: A lon", "FRA: F nth"],
                "prestige": {"FRA": 2, "ENG": 0}}]},

    {"id": "example-14", "board": dict(phase="S1905M", prestige={"RUS": 3, "ENG": 1}),
     "steps": [{"orders": ["RUS: LEND England 3 prestige"], "results": [S], "prestige": {"RUS": 0, "ENG": 4}}]},

    {"id": "example-15",
     "board": dict(phase="S1905M", units=["NEU: A rum", "RUS: A mos", "ENG: F lon"], prestige={"RUS": 3, "ENG": 1},
                   start={"ENG": 1}),
     "steps": [{"orders": ["RUS: LEND ENG 3", "ENG: SECURE LOYALTY BID 2"], "results": [S, S],
                "prestige": {"ENG": 2, "RUS": 0}},
               {"orders": ["ENG: VASSAL A rum BID 2", "ENG: A rum - sev"], "results": [S, S],
                "centers": {"sev": "ENG", "rum": "NEU"}, "units": ["NEU: A sev"]}]},

    {"id": "example-16",
     "board": dict(units=["RUS: A ank"], centers={"ank": "RUS"}, prestige={"RUS": 4, "GER": 3, "AUS": 3},
                   start={"RUS": 4}),
     "steps": [{"orders": ["GER: REBEL ank BID 3", "AUS: REBEL ank BID 3"],
                "results": [(S, "Germany 3 and Austria 3 pooled 6 against a minimum of 6"), S],
                "centers": {"ank": "NEU"}, "units": ["NEU: A ank"], "prestige": {"GER": 0, "AUS": 0}}]},
]


def check_step(step, adj, given, lords):
    pos = adj.position
    for k, want in enumerate(step.get("results", [])):
        outcome, words = want if isinstance(want, tuple) else (want, "")
        got = adj.results[k]
        assert got.outcome is outcome and words in got.reason, (given[k], got)
    state = state_of(pos)
    for power, n in step.get("prestige", {}).items():
        assert state.prestige.get(power, 0) == n, (power, dict(state.prestige))
    for prov, owner in step.get("centers", {}).items():
        assert pos.supply_centers[prov] == owner, (prov, pos.supply_centers[prov])
    on_board = {str(u) for u in pos.units}
    for unit in step.get("units", []):
        assert unit in on_board, (unit, sorted(on_board))
    if "vassals" in step:
        assert lords(pos) == step["vassals"]
    for power, homes in step.get("homes", {}).items():
        assert sorted(state.home_centers[power]) == sorted(homes)
    if "neutral_homes" in step:
        assert {str(k): v for k, v in state.neutral_homes.items()} == step["neutral_homes"]
    if "phase" in step:
        assert str(pos.phase) == step["phase"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_worked_example(board, orders, lords, case):
    position = board(**case["board"])
    for step in case["steps"]:
        if "board" in step:
            position = board(**step["board"])
        given = orders(*step["orders"], retreat=step.get("retreat", False))
        adj = adjudicate(STANDARD, position, given)
        assert len(adj.results) == len(given)
        check_step(step, adj, given, lords)
        position = adj.position
