"""The Crusader map (adjudicator/variants/crusader.toml) held to the rules text and to geography.

The province table, the starting positions and the neutral list of the rules text are copied
below as literals, so that the map file is checked against the text and not against itself.
"""

import math
import pathlib
import tomllib
from collections import defaultdict, deque
from itertools import combinations

import pytest

MAP_FILE = pathlib.Path(__file__).resolve().parents[2] / "adjudicator" / "variants" / "crusader.toml"

# The rules text's province table: name, abbreviation, supply centre.
PROVINCE_TABLE = [
    ("Acre", "Acr", True), ("Aegean Sea", "Aeg", False), ("Aila", "Ail", True),
    ("Alal", "Ala", False), ("Aleppo", "Ale", True), ("Alexandretta", "Ata", False),
    ("Alexandria", "Alx", True), ("Anarzabus", "Ana", False), ("Ancyra", "Anc", True),
    ("Antioch", "Ant", True), ("Anti-Taurus Mountains", "ATM", False), ("Arabian Desert", "Ara", False),
    ("Armenia", "Arm", True), ("Ascalon", "Asc", True), ("Attalia", "Att", True),
    ("Baalbek", "Baa", False), ("Baghdad", "Bag", True), ("Baku", "Bak", False),
    ("Basra", "Bas", True), ("Batumi", "Bat", False), ("Beirut", "Bei", True),
    ("Black Sea", "EBl", False), ("Bosra", "Bos", True), ("Caesarea", "Cae", True),
    ("Cairo", "Cai", True), ("Cappadocia", "Cap", False), ("Central Mediterranean Sea", "CMS", False),
    ("Constantinople", "Con", True), ("Cyprus", "Cyp", True), ("Damascus", "Dms", True),
    ("Damietta", "Dmt", True), ("Diarbekir", "Dia", False), ("Eastern Mediterranean Sea", "EMS", False),
    ("Edessa", "Ede", True), ("Egyptian Desert", "EgD", False), ("Erzerum", "Erz", False),
    ("Galilee", "Gal", True), ("Gulf of Alexandretta", "GAl", False), ("Gulf of Attalia", "GAt", False),
    ("Harran", "Har", True), ("Hebron", "Heb", False), ("Hejaz", "Hej", True),
    ("Homs", "Hom", True), ("Iconium", "Ico", True), ("Jaffa", "Jaf", False),
    ("Jerusalem", "Jer", True), ("Jezireh", "Jez", True), ("Kerak", "Ker", False),
    ("Lake Tatta", "LTa", False), ("Lake Van", "LVa", False), ("Lattakieh", "Lat", True),
    ("Lydia", "Lyd", False), ("Manzikert", "Man", True), ("Mardin", "Mar", False),
    ("Melitene", "Mel", True), ("Middle Euphrates", "MEu", False), ("Minya", "Min", True),
    ("Mosul", "Mos", True), ("Mount Sinai", "MSi", False), ("Myra", "Myr", True),
    ("Neocaesarea", "Neo", False), ("Nicaea", "Nic", True), ("North Levantine Coast", "NLC", False),
    ("Nafud Desert", "Naf", False), ("Oultrejordain", "Oul", False), ("Paphlagonia", "Pap", False),
    ("Phrygia", "Phr", True), ("Raban", "Rab", True), ("Ravendel", "Rav", False),
    ("Sebastea", "Seb", True), ("Seleucia", "Sel", False), ("Shaizar", "Sha", True),
    ("Sinai Desert", "SiD", False), ("Sinope", "Sin", True), ("Smyrna", "Smy", True),
    ("South Levantine Coast", "SLC", False), ("Syrian Desert", "SyD", False), ("Tabriz", "Tab", False),
    ("Tarsus", "Tar", True), ("Taurus Mountains", "TaM", False), ("Tiflis", "Tif", True),
    ("Tortosa", "Tor", False), ("Trebizond", "Tre", True), ("Tripoli", "Tri", True),
    ("Turbessel", "Tur", True), ("Tyre", "Tyr", True), ("Zagros Mountains", "ZaM", False),
]

# Starting locations as the text spells them ("Ceasarea" is the table's Caesarea).
STARTING_POSITIONS = {
    "ANT": ("The Principality of Antioch", ["F Lattakieh", "A Antioch", "A Tarsus"]),
    "BYZ": ("The Byzantine Empire", ["F Constantinople", "A Sinope", "F Smyrna", "A Nicaea"]),
    "EDE": ("The County of Edessa", ["A Edessa", "A Raban", "A Turbessel"]),
    "FAT": ("The Fatimid Caliphate", ["F Alexandria", "F Damietta", "A Cairo", "A Minya"]),
    "JER": ("The Kingdom of Jerusalem", ["A Jerusalem", "A Beirut", "A Galilee", "F Acre"]),
    "SEL": ("The Seldjuks of the East", ["A Baghdad", "A Basra", "A Mosul"]),
    "RUM": ("The Seldjuks of Rum", ["A Iconium", "A Ancyra", "A Sebastea", "A Ceasarea"]),
}

# Neutral supply centres; "A" an occupying army, "F" the fleet of Tyre, None unarmed.
NEUTRAL_CENTRES = {
    "Phrygia": "A", "Attalia": None, "Cyprus": None, "Melitene": "A", "Trebizond": None,
    "Tiflis": "A", "Armenia": None, "Manzikert": None, "Harran": "A", "Mardin": "A",
    "Jezireh": None, "Aleppo": "A", "Ascalon": "A", "Aila": None, "Hejaz": "A", "Shaizar": "A",
    "Tripoli": "A", "Homs": None, "Damascus": "A", "Bosra": "A", "Tyre": "F",
}

SPELLINGS = {"Ceasarea": "Caesarea"}

# "GAl" and "Gal" differ only in case: Galilee keeps "gal", the gulf becomes "gax".
RENAMED_IDS = {"GAl": "gax"}

# Where the map departs from the table (open question 2): Mardin is a centre (it has an army).
SC_OVERRIDES = {"Mardin": True}

# Straight segments between representative points may cross only for this link (rule 4.2).
STRAIT = frozenset({"con", "nic"})

MAX_BORDER_KM = 700

# Provinces whose only water is impassable (rule 4.1): they must not be able to hold fleets.
IMPASSABLE_SHORES = ["ail", "hej", "msi", "bas", "bak", "ker", "gal", "jer", "heb"]

# A few real positions (lat, lon) the representative points must match to within 0.15 degrees.
KNOWN_TOWNS = {
    "jer": (31.78, 35.23), "con": (41.01, 28.98), "ant": (36.20, 36.16), "ede": (37.16, 38.80),
    "alx": (31.20, 29.92), "bag": (33.31, 44.36), "dms": (33.51, 36.29), "acr": (32.93, 35.08),
    "ico": (37.87, 32.48), "tre": (41.00, 39.72), "tif": (41.72, 44.83), "bas": (30.51, 47.78),
}


def province_id(abbreviation: str) -> str:
    return RENAMED_IDS.get(abbreviation, abbreviation.lower())


NAME_TO_ID = {name: province_id(abbr) for name, abbr, _ in PROVINCE_TABLE}


def id_of_name(name: str) -> str:
    return NAME_TO_ID[SPELLINGS.get(name, name)]


@pytest.fixture(scope="module")
def data():
    with MAP_FILE.open("rb") as f:
        return tomllib.load(f)


@pytest.fixture(scope="module")
def provinces(data):
    return data["provinces"]


def unit_place(unit: str) -> str:
    """'F spa/nc' -> 'spa'."""
    return unit.split()[1].split("/")[0]


def pairs(data, kind):
    return [tuple(p.split("/")[0] for p in pair) for pair in data["adjacency"][kind]]


def neighbours(data, kinds=("army", "fleet")):
    graph = defaultdict(set)
    for kind in kinds:
        for a, b in pairs(data, kind):
            graph[a].add(b)
            graph[b].add(a)
    return graph


def km(p, q):
    lat1, lon1, lat2, lon2 = map(math.radians, (p["lat"], p["lon"], q["lat"], q["lon"]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(h))


# ---------------------------------------------------------------------------------------------
# The rules text


def test_table_literal_is_complete():
    assert len(PROVINCE_TABLE) == 87
    assert len({province_id(abbr) for _, abbr, _ in PROVINCE_TABLE}) == 87


def test_every_province_of_the_table_is_on_the_map(provinces):
    assert set(provinces) == set(NAME_TO_ID.values())
    for name, abbr, _ in PROVINCE_TABLE:
        prov = provinces[province_id(abbr)]
        assert prov["name"] == name
        assert prov["kind"] in {"land", "coast", "sea"}


def test_supply_centres_follow_the_table(provinces):
    for name, abbr, sc in PROVINCE_TABLE:
        expected = SC_OVERRIDES.get(name, sc)
        assert provinces[province_id(abbr)]["supply_center"] is expected, name


def test_47_centres_and_24_to_win(data, provinces):
    centres = {pid for pid, p in provinces.items() if p["supply_center"]}
    assert len(centres) == 47
    assert "mar" in centres and "myr" in centres
    assert data["variant"]["victory_centers"] == 24
    assert data["variant"]["victory_centers"] > len(centres) // 2


def test_variant_header(data):
    v = data["variant"]
    assert v["name"] == "crusader"
    assert v["title"] == "The Crusader Kingdoms of Outremer"
    assert v["start_phase"] == "S1101M"
    assert "prestige" in v["rules"]


def test_powers_and_starting_units(data, provinces):
    powers = data["powers"]
    assert set(powers) == set(STARTING_POSITIONS)
    for code, (name, units) in STARTING_POSITIONS.items():
        power = powers[code]
        expected = sorted(f"{u[0]} {id_of_name(u[2:])}" for u in units)
        assert power["name"] == name
        assert power["adjective"]
        assert sorted(power["units"]) == expected
        assert sorted(power["home_centers"]) == sorted(unit_place(u) for u in expected)
        for home in power["home_centers"]:
            assert provinces[home]["supply_center"], home
    assert sum(len(p["home_centers"]) for p in powers.values()) == 25


def test_power_colours_are_distinct(data):
    colours = [p["colour"].upper() for p in data["powers"].values()]
    assert len(set(colours)) == 7
    assert all(len(c) == 7 and c[0] == "#" and int(c[1:], 16) >= 0 for c in colours)


def test_neutral_units(data, provinces):
    expected = sorted(f"{kind} {id_of_name(name)}" for name, kind in NEUTRAL_CENTRES.items() if kind)
    units = data["neutral"]["units"]
    assert sorted(units) == expected
    assert len(units) == 13
    assert sum(u.startswith("A ") for u in units) == 12
    assert "F tyr" in units
    for unit in units:
        assert provinces[unit_place(unit)]["supply_center"], unit


def test_neutral_and_home_centres_make_up_all_centres(data, provinces):
    homes = {h for p in data["powers"].values() for h in p["home_centers"]}
    neutral = {id_of_name(n) for n in NEUTRAL_CENTRES} | {"myr"}   # Myra: unarmed neutral
    centres = {pid for pid, p in provinces.items() if p["supply_center"]}
    assert homes.isdisjoint(neutral)
    assert homes | neutral == centres


def test_no_two_units_in_one_province(data):
    places = [unit_place(u) for p in data["powers"].values() for u in p["units"]]
    places += [unit_place(u) for u in data["neutral"]["units"]]
    assert len(places) == len(set(places)) == 25 + 13


def test_fleets_start_on_coasts_and_armies_off_the_sea(data, provinces):
    units = [u for p in data["powers"].values() for u in p["units"]] + data["neutral"]["units"]
    for unit in units:
        kind = provinces[unit_place(unit)]["kind"]
        assert kind == ("coast" if unit.startswith("F ") else kind) and kind != "sea", unit


# ---------------------------------------------------------------------------------------------
# Ids, names and aliases


def test_ids_and_aliases_are_unambiguous(provinces):
    owner = {}
    for pid, prov in provinces.items():
        assert pid == pid.lower() and pid.isalnum()
        for spelling in [pid, prov["name"], *prov["aliases"]]:
            key = spelling.lower()
            assert owner.setdefault(key, pid) == pid, f"{spelling!r}: {owner[key]} and {pid}"


def test_galilee_and_the_gulf_of_alexandretta(provinces):
    assert provinces["gal"]["name"] == "Galilee"
    assert provinces["gax"]["name"] == "Gulf of Alexandretta"
    every_alias = {a for p in provinces.values() for a in p["aliases"]}
    assert "GAl" not in every_alias


def test_text_spellings_are_aliases(provinces):
    assert "Ceasarea" in provinces["cae"]["aliases"]
    assert {"bla", "Black", "EBl"} <= set(provinces["ebl"]["aliases"])
    assert {"Lattakia", "Latakia"} <= set(provinces["lat"]["aliases"])
    assert "Trapezus" in provinces["tre"]["aliases"]


def test_no_split_coasts(provinces):
    assert all(p["coasts"] == [] for p in provinces.values())


# ---------------------------------------------------------------------------------------------
# The adjacency lists


def test_pairs_are_well_formed(data, provinces):
    seen = set()
    for kind in ("army", "fleet"):
        for a, b in pairs(data, kind):
            assert a in provinces and b in provinces, (a, b)
            assert a != b
            key = (kind, frozenset((a, b)))
            assert key not in seen, f"{kind} pair {a}-{b} listed twice"
            seen.add(key)


def test_army_pairs_join_land_and_coast(data, provinces):
    for a, b in pairs(data, "army"):
        assert provinces[a]["kind"] != "sea" and provinces[b]["kind"] != "sea", (a, b)


def test_fleet_pairs_avoid_land(data, provinces):
    for a, b in pairs(data, "fleet"):
        assert provinces[a]["kind"] != "land" and provinces[b]["kind"] != "land", (a, b)


def test_fleet_shore_pairs_share_a_sea_and_a_land_border(data, provinces):
    fleet = neighbours(data, ("fleet",))
    army = neighbours(data, ("army",))
    for a, b in pairs(data, "fleet"):
        if provinces[a]["kind"] == provinces[b]["kind"] == "coast" and {a, b} != STRAIT:
            shared = {s for s in fleet[a] & fleet[b] if provinces[s]["kind"] == "sea"}
            assert shared, f"{a}-{b} share no sea"
            assert b in army[a], f"{a}-{b} shore without a land border"


def test_graph_is_symmetric(data):
    for kind in ("army", "fleet"):
        graph = neighbours(data, (kind,))
        for a, near in graph.items():
            for b in near:
                assert a in graph[b]


def test_graph_is_connected(data, provinces):
    graph = neighbours(data)
    start = next(iter(provinces))
    seen, queue = {start}, deque([start])
    while queue:
        for nxt in graph[queue.popleft()]:
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    assert seen == set(provinces)


def test_land_provinces_connected_for_armies_except_islands(data, provinces):
    graph = neighbours(data, ("army",))
    landed = {pid for pid, p in provinces.items() if p["kind"] != "sea"}
    seen, queue = {"jer"}, deque(["jer"])
    while queue:
        for nxt in graph[queue.popleft()]:
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    assert landed - seen == {"cyp"}


def test_constantinople_nicaea_strait(data):
    assert frozenset(STRAIT) in {frozenset(p) for p in pairs(data, "army")}
    assert frozenset(STRAIT) in {frozenset(p) for p in pairs(data, "fleet")}


def test_black_sea_and_aegean_not_adjacent(data):
    assert "aeg" not in neighbours(data)["ebl"]


def test_every_sea_touches_a_coast(data, provinces):
    graph = neighbours(data, ("fleet",))
    for pid, prov in provinces.items():
        if prov["kind"] == "sea":
            assert any(provinces[n]["kind"] == "coast" for n in graph[pid]), pid


def test_every_coast_touches_a_sea(data, provinces):
    graph = neighbours(data, ("fleet",))
    for pid, prov in provinces.items():
        if prov["kind"] == "coast":
            assert any(provinces[n]["kind"] == "sea" for n in graph[pid]), pid


def test_impassable_shores_are_land(provinces):
    for pid in IMPASSABLE_SHORES:
        assert provinces[pid]["kind"] == "land", pid


def test_every_centre_reachable(data, provinces):
    army, fleet = neighbours(data, ("army",)), neighbours(data, ("fleet",))
    reached = set()
    units = [u for p in data["powers"].values() for u in p["units"]]
    for unit in units:
        graph = fleet if unit.startswith("F ") else army
        start = unit_place(unit)
        seen, queue = {start}, deque([start])
        while queue:
            for nxt in graph[queue.popleft()]:
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        reached |= seen
    for pid, prov in provinces.items():
        if prov["supply_center"]:
            assert pid in reached, pid


# ---------------------------------------------------------------------------------------------
# Geography


def test_points_lie_on_the_map(provinces):
    for pid, p in provinces.items():
        assert 27.0 <= p["lat"] <= 44.0 and 24.0 <= p["lon"] <= 51.0, pid


def test_known_towns(provinces):
    for pid, (lat, lon) in KNOWN_TOWNS.items():
        assert abs(provinces[pid]["lat"] - lat) < 0.15 and abs(provinces[pid]["lon"] - lon) < 0.15, pid


def test_no_border_longer_than_700_km(data, provinces):
    for kind in ("army", "fleet"):
        for a, b in pairs(data, kind):
            assert km(provinces[a], provinces[b]) <= MAX_BORDER_KM, (a, b)


def _cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _on_segment(p, q, r):
    return min(p[0], r[0]) <= q[0] <= max(p[0], r[0]) and min(p[1], r[1]) <= q[1] <= max(p[1], r[1])


def segments_cross(p1, p2, p3, p4):
    """True when the closed segments p1p2 and p3p4 meet (touching and overlapping count)."""
    d1, d2 = _cross(p3, p4, p1), _cross(p3, p4, p2)
    d3, d4 = _cross(p1, p2, p3), _cross(p1, p2, p4)
    if ((d1 > 0 > d2) or (d1 < 0 < d2)) and ((d3 > 0 > d4) or (d3 < 0 < d4)):
        return True
    return any(d == 0 and _on_segment(a, c, b)
               for d, a, c, b in ((d1, p3, p1, p4), (d2, p3, p2, p4), (d3, p1, p3, p2), (d4, p1, p4, p2)))


def test_segment_check_itself():
    assert segments_cross((0, 0), (2, 2), (0, 2), (2, 0))
    assert not segments_cross((0, 0), (1, 1), (2, 2), (3, 0))
    assert segments_cross((0, 0), (2, 0), (1, 0), (3, 0))   # overlapping collinear
    assert not segments_cross((0, 0), (1, 0), (0, 1), (1, 1))


def test_drawn_planar_except_the_strait(data, provinces):
    """Straight borders between representative points never cross (a stronger property than planarity).

    Equirectangular projection with longitudes scaled by the cosine of the map's mean latitude.
    """
    mean_lat = sum(p["lat"] for p in provinces.values()) / len(provinces)
    scale = math.cos(math.radians(mean_lat))
    point = {pid: (p["lon"] * scale, p["lat"]) for pid, p in provinces.items()}
    edges = {frozenset(p) for kind in ("army", "fleet") for p in pairs(data, kind)} - {STRAIT}
    crossings = []
    for e, f in combinations(sorted(edges, key=sorted), 2):
        if e & f:
            continue
        (a, b), (c, d) = sorted(e), sorted(f)
        if segments_cross(point[a], point[b], point[c], point[d]):
            crossings.append((a, b, c, d))
    assert crossings == []


def test_representative_points_are_distinct(provinces):
    points = [(round(p["lat"], 2), round(p["lon"], 2)) for p in provinces.values()]
    assert len(set(points)) == len(points)


# ---------------------------------------------------------------------------------------------
# The loader


def test_the_loader_reads_the_map(data):
    from adjudicator.variant import get_variant

    variant = get_variant("crusader")
    assert len(variant.provinces) == 87
    assert len(variant.supply_centers) == 47
    assert variant.victory_centers == 24
    assert str(variant.start_phase) == "S1101M"
    assert set(variant.powers) == set(STARTING_POSITIONS)
    assert len(variant.neutral_units) == 13
    assert len(variant.army_edges) == len(data["adjacency"]["army"])
    assert len(variant.fleet_edges) == len(data["adjacency"]["fleet"])
    assert variant.provinces["gal"].kind.value == "land"
    assert variant.provinces["gax"].kind.value == "sea"
    assert variant.army_adjacent("con", "nic")
    for pid in IMPASSABLE_SHORES:
        assert not variant.can_build_fleet(pid), pid


def test_ancyra_and_sinope_do_not_border(data):
    """docs/rules.md, section 1: Paphlagonia and Amaseia lie between Ancyra and Sinope; the
    lower Halys joins Paphlagonia to Neocaesarea instead."""
    army = {frozenset(p) for p in pairs(data, "army")}
    every = army | {frozenset(p) for p in pairs(data, "fleet")}
    assert frozenset(("anc", "sin")) not in every
    assert frozenset(("pap", "neo")) in army
    assert len(army) == 190
