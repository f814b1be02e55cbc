"""Make the golden corpus of position documents (``documents.jsonl`` beside this file).

Seeded games on both maps (the classic map with and without the prestige rules, the Outremer
map), every kind of phase, each order written in one of the notations players and other
judges use (the canonical short notation, MILA's capitals, prose with names, coasts written
every way, prestige orders), with bad lines among them (misspellings, no verb, two orders on
one line, a unit of another power, prose), the DATC cases' own documents, and documents the
judge must refuse. Each game goes on from the position the judge's result document gives.

The expected output is what ``crusader adjudicate --jsonl`` writes for them::

    python tests/data/golden/make_corpus.py          # documents.jsonl (only when the corpus changes)
    crusader adjudicate --jsonl tests/data/golden/documents.jsonl > tests/data/golden/results.jsonl

``tests/test_golden_documents.py`` checks that the judge still writes exactly ``results.jsonl``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from adjudicator.variant import get_variant
from adjudicator.vocab import NEUTRAL, Location, UnitType
from adjudicator.prestige.state import has_state, state_of
from bot.codec.documents import adjudicate_document, new_game_document, position_from_dict

HERE = Path(__file__).parent
DATC = HERE.parent / "datc" / "datc.json"

BAD_LINES = [
    "{p}: A {a} - Burgandy", "{p}: A {a}", "{p}: {A} will", "Please hold the fleet in {A}",
    "{p}: The fleet in {A} holds", "{p}: A {a} suports A {b}", "{p}: Amry {A} - {B}",
    "{p}: A {a} - {b} A {c} - {a}", "{p}: A {a} mvoe {b}", "{p}: F {a}(nc - {b}", "", "   ",
    "{p}: hello there", "{p}:", "{p}: A {a} - - {b}", "{p}: A {a} -> ", "{p}: 42", "{p}: A {a} S",
    "{p}: F {a} C", "{p}: BRIBE A {a}", "{p}: LEND", "{p}: A {a} H H", "XYZ: A {a} H", "{p}: A {a} @ {b}",
    "{p}: {A} hält", "{p}: A {a} - {b} please", "> {p}: A {a} - {b}", "{p}: I'll move A {a} to {b}",
]


class Writer:
    """Writes an order given as parts in one of many notations."""

    def __init__(self, rng: random.Random, variant):
        self.rng, self.variant = rng, variant

    def power(self, code: str) -> str:
        info = self.variant.powers.get(code)
        roll = self.rng.random()
        if info is None or roll < 0.8:
            return code
        return info.name if roll < 0.9 else info.adjective

    def place(self, location: Location, style: str) -> str:
        prov = self.variant.provinces[location.province]
        if style == "canonical":
            return str(location)
        if style == "upper":
            return str(location).upper()
        name = prov.name if self.rng.random() < 0.7 or not prov.aliases else self.rng.choice(prov.aliases)
        if style == "mixed" and self.rng.random() < 0.5:
            name = location.province.capitalize()
        if location.coast:
            coast = self.rng.choice([f"/{location.coast}", f"({location.coast})", f" ({location.coast})",
                                     f" {location.coast}", {"nc": " north coast", "sc": " south coast",
                                                            "ec": " east coast", "wc": " west coast"}[location.coast]])
            name += coast
        return name

    def unit(self, unit_type: UnitType | None, location: Location, style: str) -> str:
        place = self.place(location, style)
        if unit_type is None or (style == "mixed" and self.rng.random() < 0.15):
            return place
        if style == "prose":
            word = "Army" if unit_type is UnitType.ARMY else "Fleet"
            return f"{word} {place}" if self.rng.random() < 0.7 else f"{word} in {place}"
        return f"{unit_type._value_} {place}"

    def style(self) -> str:
        return self.rng.choices(["canonical", "upper", "mixed", "prose"], [50, 20, 15, 15])[0]


def order_text(w: Writer, power: str, kind: str, parts: dict) -> str:
    style = w.style()
    up = style == "upper"

    def word(canonical: str, prose: str, upper: str | None = None) -> str:
        if style == "prose":
            return prose
        if up:
            return upper or canonical.upper()
        return canonical

    u = w.unit(parts.get("type"), parts["at"], style) if "at" in parts else ""
    move = word("-", w.rng.choice(["moves to", "->", "-", "to", "=>"]))
    if kind == "hold":
        body = f"{u} {word('H', w.rng.choice(['holds', 'hold', 'stands', 'H']))}"
    elif kind == "move":
        via = ""
        if parts.get("via"):
            via = " " + word("via convoy", w.rng.choice(["via convoy", "by convoy", "via"]), "VIA")
        body = f"{u} {move} {w.place(parts['to'], style)}{via}"
    elif kind == "support":
        target = w.unit(parts.get("ttype"), parts["target"], style)
        verb = word("S", w.rng.choice(["supports", "support", "S", "supp"]))
        body = f"{u} {verb} {target}"
        if "to" in parts:
            body += f" {move} {w.place(parts['to'], style)}"
    elif kind == "convoy":
        target = w.unit(parts.get("ttype"), parts["target"], style)
        verb = word("C", w.rng.choice(["convoys", "convoy", "C", "transports"]))
        body = f"{u} {verb} {target} {move} {w.place(parts['to'], style)}"
    elif kind == "retreat":
        verb = word("-", w.rng.choice(["retreats to", "R", "-", "->"]), w.rng.choice(["R", "-"]))
        body = f"{u} {verb} {w.place(parts['to'], style)}"
    elif kind == "disband":
        verb = word("disband", w.rng.choice(["disbands", "remove", "destroy", "D"]))
        body = f"{u} {verb}" if w.rng.random() < 0.8 else f"{verb.capitalize()} {u}"
    elif kind == "build":
        verb = word("build", w.rng.choice(["build", "builds", "B", "place"]))
        body = f"{u} {verb}" if w.rng.random() < 0.7 else f"{verb.capitalize()} {u}"
    elif kind == "waive":
        body = word("waive", w.rng.choice(["waive", "waive build", "Waives"]))
    elif kind == "vassal":
        body = f"{word('VASSAL', 'Vassal', 'VASSAL')} {u} {word('BID', 'bid')} {parts['bid']}"
    elif kind == "bribe":
        body = f"{word('BRIBE', 'Bribe')} {u} {word('BID', 'bid')} {parts['bid']}"
        if "hold" in parts:
            body += f" {w.unit(parts.get('type'), parts['at'], style)} {word('H', 'holds')}"
    elif kind == "fief":
        body = f"{word('SEIZE FIEF', 'Seize fief')} {w.place(Location(parts['province']), style)}"
    elif kind == "rebel":
        body = f"{word('REBEL', 'Rebel')} {w.place(Location(parts['province']), style)} {word('BID', 'bid')} {parts['bid']}"
    elif kind == "loyalty":
        body = f"{word('SECURE LOYALTY', 'Secure loyalty')} {word('BID', 'bid')} {parts['bid']}"
    elif kind == "lend":
        to = parts["to"] if style != "prose" else w.rng.choice(
            [parts["to"], f"3 to {w.variant.powers[parts['to']].name}".replace("3", str(parts["amount"]))])
        body = (f"LEND {to}" if to.startswith(str(parts["amount"])) else f"LEND {to} {parts['amount']}")
        if style == "prose" and w.rng.random() < 0.5:
            body += " prestige"
    else:
        raise AssertionError(kind)
    return f"{w.power(power)}: {body}"


def neighbours(variant, unit_type: UnitType, location: Location) -> list[Location]:
    if unit_type is UnitType.ARMY:
        return sorted(Location(p) for p in variant.army_neighbours(location.province))
    return sorted(variant.fleet_neighbours(location), key=str)


def movement(rng, w, variant, position, prestige: bool) -> list[str]:
    out = []
    units = list(position.units)
    by_province = {u.province: u for u in units}
    for unit in units:
        if unit.power == NEUTRAL:
            continue
        p, roll = unit.power, rng.random()
        near = neighbours(variant, unit.type, unit.location)
        t = unit.type if rng.random() < 0.9 else None
        if roll < 0.08:
            continue                                    # no order: the unit holds
        if roll < 0.45 and near:
            enemies = [loc for loc in near if loc.province in by_province and by_province[loc.province].power != p]
            dest = rng.choice(enemies if enemies and rng.random() < 0.6 else near)
            out.append(order_text(w, p, "move", {"type": t, "at": unit.location, "to": dest}))
            helpers = [h for h in units if h is not unit and h.power == p
                       and dest.province in {loc.province for loc in neighbours(variant, h.type, h.location)}]
            if helpers and rng.random() < 0.8:
                h = rng.choice(helpers)
                out.append(order_text(w, p, "support", {"type": h.type, "at": h.location, "ttype": unit.type,
                                                        "target": unit.location, "to": Location(dest.province)}))
        elif roll < 0.6:
            friends = [by_province[loc.province] for loc in near if loc.province in by_province]
            if friends:
                f = rng.choice(friends)
                out.append(order_text(w, p, "support", {"type": t, "at": unit.location, "ttype": f.type,
                                                        "target": f.location}))
        elif roll < 0.68 and unit.type is UnitType.FLEET and variant.provinces[unit.province].is_sea:
            armies = [by_province[loc.province] for loc in near
                      if loc.province in by_province and by_province[loc.province].type is UnitType.ARMY]
            coasts = [loc for loc in near if not variant.provinces[loc.province].is_sea]
            if armies and coasts:
                a, to = rng.choice(armies), Location(rng.choice(coasts).province)
                out.append(order_text(w, p, "convoy", {"type": t, "at": unit.location, "ttype": UnitType.ARMY,
                                                       "target": a.location, "to": to}))
                out.append(order_text(w, a.power, "move", {"type": UnitType.ARMY, "at": a.location, "to": to,
                                                           "via": rng.random() < 0.5}))
        elif roll < 0.72:
            far = rng.choice(sorted(variant.provinces))     # often not adjacent: invalid
            out.append(order_text(w, p, "move", {"type": t, "at": unit.location, "to": Location(far)}))
        else:
            out.append(order_text(w, p, "hold", {"type": t, "at": unit.location}))
    if prestige and has_state(position):
        out += prestige_orders(rng, w, variant, position)
    rng.shuffle(out)
    return out


def prestige_orders(rng, w, variant, position) -> list[str]:
    state = state_of(position)
    neutrals = [u for u in position.units if u.power == NEUTRAL]
    out = []
    for power in sorted(state.prestige):
        if state.prestige[power] <= 0 or power in position.eliminated:
            continue
        kind = rng.choice(["vassal", "bribe", "loyalty", "lend", "rebel", "fief", "none", "none"])
        if kind == "vassal" and neutrals:
            u = rng.choice(neutrals)
            out.append(order_text(w, power, "vassal", {"type": u.type, "at": u.location, "bid": rng.choice([1, 2, 3])}))
        elif kind == "bribe" and neutrals:
            u = rng.choice(neutrals)
            parts = {"type": u.type, "at": u.location, "bid": rng.choice([1, 2])}
            if rng.random() < 0.5:
                parts["hold"] = True
            out.append(order_text(w, power, "bribe", parts))
        elif kind == "loyalty":
            out.append(order_text(w, power, "loyalty", {"bid": rng.randint(1, 2)}))
        elif kind == "lend":
            to = rng.choice([p for p in sorted(state.prestige) if p != power])
            out.append(order_text(w, power, "lend", {"to": to, "amount": rng.randint(1, 2)}))
        elif kind == "rebel":
            targets = sorted(c for c, o in position.supply_centers.items() if o not in (NEUTRAL, power))
            if targets:
                out.append(order_text(w, power, "rebel", {"province": rng.choice(targets), "bid": rng.randint(1, 4)}))
        elif kind == "fief":
            mine = sorted(position.centers_of(power))
            if mine:
                out.append(order_text(w, power, "fief", {"province": rng.choice(mine)}))
    return out


def retreats(rng, w, variant, position) -> list[str]:
    out = []
    for d in position.dislodged:
        u = d.unit
        if u.power == NEUTRAL or rng.random() < 0.15:
            continue
        near = neighbours(variant, u.type, u.location)
        if near and rng.random() < 0.75:
            out.append(order_text(w, u.power, "retreat", {"type": u.type, "at": u.location, "to": rng.choice(near)}))
        else:
            out.append(order_text(w, u.power, "disband", {"type": u.type, "at": u.location}))
    return out


def adjustments(rng, w, variant, position) -> list[str]:
    out = []
    counts = position.center_counts()
    homes = state_of(position).home_centers if has_state(position) else {}
    for power in variant.powers:
        delta = counts.get(power, 0) - len(position.units_of(power))
        if delta > 0:
            sites = [p for p in homes.get(power, variant.home_centers(power))
                     if position.supply_centers.get(p) == power and position.unit_at(p) is None]
            for site in rng.sample(sites, min(len(sites), delta + (rng.random() < 0.3))):
                fleets = variant.fleet_locations(site) if variant.can_build_fleet(site) else ()
                if fleets and rng.random() < 0.5:
                    out.append(order_text(w, power, "build", {"type": UnitType.FLEET, "at": rng.choice(fleets)}))
                else:
                    out.append(order_text(w, power, "build", {"type": UnitType.ARMY, "at": Location(site)}))
            if rng.random() < 0.2:
                out.append(order_text(w, power, "waive", {}))
        elif delta < 0:
            units = position.units_of(power)
            for u in rng.sample(units, min(len(units), -delta - (rng.random() < 0.3))):
                out.append(order_text(w, power, "disband", {"type": u.type, "at": u.location}))
    return out


def bad_lines(rng, variant, position, n: int) -> list[str]:
    units = [u for u in position.units if u.power != NEUTRAL] or list(position.units)
    out = []
    for _ in range(n):
        u = rng.choice(units)
        pids = sorted(variant.provinces)
        a, b, c = u.province, rng.choice(pids), rng.choice(pids)
        template = rng.choice(BAD_LINES)
        out.append(template.format(p=u.power, a=a, b=b, c=c, A=variant.provinces[a].name,
                                   B=variant.provinces[b].name))
    return out


def play(seed: int, variant_name: str, rules: list[str], phases: int) -> list[dict]:
    rng = random.Random(seed)
    variant = get_variant(variant_name)
    w = Writer(rng, variant)
    doc = new_game_document(variant_name, rules)
    docs = []
    for _ in range(phases):
        _, position = position_from_dict(doc)
        kind = position.phase.kind._value_
        if kind == "M":
            orders = movement(rng, w, variant, position, prestige=has_state(position))
        elif kind == "R":
            orders = retreats(rng, w, variant, position)
        else:
            orders = adjustments(rng, w, variant, position)
        if rng.random() < 0.5:
            for line in bad_lines(rng, variant, position, rng.randint(1, 4)):
                orders.insert(rng.randint(0, len(orders)), line)
        doc = {**doc, "orders": orders}
        docs.append(doc)
        result = adjudicate_document(json.loads(json.dumps(doc)))
        doc = result["position"]
    return docs


def datc_documents() -> list[dict]:
    """The DATC cases of the movement phase as documents: the units named by the case."""
    from grammar import parse_order

    standard = get_variant("standard")
    out = []
    for case in json.loads(DATC.read_text(encoding="utf-8"))["cases"]:
        if case["phase"] != "Main":
            continue
        orders = list(case.get("orders", {})) + [line for line, _ in case.get("order_list", ())]
        if "starting_state" in case:
            units = [u.replace("(", "/").replace(")", "") for u in case["starting_state"]]
        else:
            seen = {}
            for line in orders:
                order = parse_order(line, standard)
                seen.setdefault(order.location.province,
                                f"{order.power}: {order.unit_type._value_} {order.location}")
            units = list(seen.values())
        out.append({"variant": "standard", "phase": "S1901M", "units": units, "orders": orders})
    return out


ODD_STANDARD = [
    "FRA: A par-bur", "FRA: a MAR->spa", "FRA: F Brest – Mid-Atlantic Ocean", "France: Army Paris moves to Burgundy",
    "RUS: F St. Petersburg (south coast) - Gulf of Bothnia", "RUS: F stp/sc -> bot", "RUS: F stp sc - bot",
    "RUS: F stp s.c. - bot", "RUS: F stp south coast - bot", "RUS: F stp(sc) - bot", "RUS: F sevastopol - black sea",
    "ENG: F London moves to the English Channel", "ENG: F Edinburgh - North Sea", "ENG: A Liverpool - Yorkshire",
    "English: F edi H", "ENG: F lon convoys A yor - bel", "ENG: Fleet in London holds.", "GER: A Munich stands",
    "GER: A mun supports A ber - sil", "GER: A ber S A mun H", "GER: F kie => den", "GER: Kiel - Holland",
    "AUS: A Vienna - Galicia.", "AUS: A bud - ser;", "AUS: F Trieste - Albania!", "ITA: A Venice h",
    "ITA: A rom - apu", "ITA: F nap - ion", "TUR: A con - bul", "TUR: F ank - bla", "TUR: A smy - syr",
    "TUR: A Smyrna m Syria", "TUR: A con to bul", "TUR: A Constantinople attacks Bulgaria", "ENG: F lon - Heligo",
    "ENG: F lon - Heligoland Bight", "FRA: F bre - Gulf of Lyon", "FRA: A par - Bur.", "RUS: A mos - Ukr",
    "RUS: A War - Galicia", "RUS: A Mosc - Sev", "ITA: A ven - tyr", "ITA: F Naples - Ionian",
    "AUS: A vie - bohemia", "FRA: A paris - ruhr", "GER: A Berlin - Prussia", "ENG: F lon - nth via convoy",
    "FRA: A mar - spa by convoy", "FRA: A Mar - Spain via", "TUR: A smy S A con - bul", "ENG: A lvp - Lvn",
    "FRA: F bre - Mid Atlantic", "FRA: F bre - mid-atlantic", "ENG: F LON - ENG", "ENG: f lon - eng",
    "TUR: F ank S A con", "ITA: A ven S F tri", "ITA: A ven supp F tri - alb", "AUS: F tri transports A ven - alb",
    "GER: A ber - Munich", "GER: A ber - Münich", "FRA: A par - Bourgogne", "FRA: A Paris – Picardie",
    "FRA: A Paris — Picardy", "FRA: A par → pic", "FRA: A par ⇒ pic", "FRA: A par => pic", "FRA: A par --> pic",
    "FRA: A par ==> pic", "waive", "ENG: waive", "FRA: A par - bur, A mar - spa",
]

ODD_CRUSADER = [
    "BYZ: LEND ANT 1", "BYZ: LEND Antioch 1", "BYZ: LEND 1 to Antioch", "BYZ: LEND Antiochene 1 prestige",
    "BYZ: SECURE LOYALTY BID 1", "BYZ: secure loyalty bid 2 prestige", "ANT: VASSAL A phr BID 2",
    "JER: BRIBE A phr BID 1 A phr H", "JER: Bribe A phr bid 1", "EDE: REBEL con BID 3", "FAT: SEIZE FIEF cai",
    "Fatimids: A Cairo H", "The Fatimids: A cai H", "Rum: A ico H", "RUM: A Iconium holds", "Damietta will",
    "FAT: Damietta will", "Please hold the fleet in Lattakieh", "ANT: The fleet in Lattakieh holds",
    "BYZ: The fleet in Smyrna holds", "ANT: LEND Byzantium 1", "ANT: Amry Antioch - Aleppo", "ANT: A ant suports A tar",
]


def odd_documents() -> list[dict]:
    """The starting positions, with orders in rarer notations (and some bad lines)."""
    out = []
    for name, lines in (("standard", ODD_STANDARD), ("crusader", ODD_CRUSADER)):
        doc = new_game_document(name)
        out.append({**doc, "orders": lines})
        out.append({**doc, "orders": [line.upper() for line in lines]})
        out.append({**doc, "orders": [line.lower() for line in lines]})
    return out


REFUSED = [
    {"variant": "standard", "phase": "S1901M", "units": ["ENG: F lon"], "orders": [12]},
    {"variant": "standard", "phase": "S1901M", "units": ["ENG: F xyz"], "orders": []},
    {"variant": "nowhere", "phase": "S1901M", "units": [], "orders": []},
    {"variant": "standard", "phase": "S1901X", "units": [], "orders": []},
    {"variant": "standard", "phase": "S1901M", "units": ["ENG: F lon"], "orders": ["ENG: F lon H"], "colour": 1},
    {"variant": "standard", "phase": "S1901M", "units": ["ENG: F lon", "FRA: A par"],
     "orders": ["ENG: F lon H", None]},
    {"variant": "standard", "phase": "S1901M", "units": ["ENG: F lon", "FRA: F spa(sc)", "RUS: f stp/NC"],
     "orders": ["ENG: F lon - eng", "FRA: F spa/sc - wes", "RUS: F stp/nc - bar"]},
]


def main() -> None:
    docs = []
    for seed in range(4):
        docs += play(100 + seed, "standard", [], 16)
        docs += play(200 + seed, "crusader", [], 16)
    docs += play(300, "standard", ["prestige"], 16)
    docs += datc_documents()
    docs += odd_documents()
    docs += REFUSED
    with open(HERE / "documents.jsonl", "w", encoding="utf-8") as out:
        out.writelines(json.dumps(doc, ensure_ascii=False) + "\n" for doc in docs)
    print(f"{len(docs)} documents")


if __name__ == "__main__":
    main()
