"""The map projection shared by the drawn maps and the script that derives them.

A Lambert conformal conic projection on the sphere: shapes stay true to life at every scale a
map of a few thousand kilometres needs, and the formulas are a handful of lines of pure Python.
Coordinates come out in kilometres east and north of the projection's origin.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import functools
import math
from dataclasses import dataclass

EARTH_RADIUS_KM = 6371.0


@dataclass(frozen=True)
class Lambert:
    """Lambert conformal conic: standard parallels ``lat_1`` and ``lat_2``, origin at ``lat_0``,
    ``lon_0`` (degrees)."""

    lat_1: float
    lat_2: float
    lat_0: float
    lon_0: float

    @functools.cached_property
    def _constants(self) -> tuple[float, float, float]:
        p1, p2, p0 = (math.radians(x) for x in (self.lat_1, self.lat_2, self.lat_0))
        if abs(p1 - p2) < 1e-9:
            n = math.sin(p1)
        else:
            n = math.log(math.cos(p1) / math.cos(p2)) / math.log(
                math.tan(math.pi / 4 + p2 / 2) / math.tan(math.pi / 4 + p1 / 2))
        f = math.cos(p1) * math.tan(math.pi / 4 + p1 / 2) ** n / n
        rho0 = EARTH_RADIUS_KM * f / math.tan(math.pi / 4 + p0 / 2) ** n
        return n, f, rho0

    def forward(self, lon: float, lat: float) -> tuple[float, float]:
        """Kilometres east and north of the origin."""
        n, f, rho0 = self._constants
        rho = EARTH_RADIUS_KM * f / math.tan(math.pi / 4 + math.radians(lat) / 2) ** n
        theta = n * math.radians(lon - self.lon_0)
        return rho * math.sin(theta), rho0 - rho * math.cos(theta)

    def inverse(self, x: float, y: float) -> tuple[float, float]:
        """Longitude and latitude (degrees) of a point ``x``, ``y`` kilometres from the origin."""
        n, f, rho0 = self._constants
        dy = rho0 - y
        rho = math.copysign(math.hypot(x, dy), n)
        theta = math.atan2(x, dy) if n > 0 else math.atan2(-x, -dy)
        lat = 2 * math.atan((EARTH_RADIUS_KM * f / rho) ** (1 / n)) - math.pi / 2
        return self.lon_0 + math.degrees(theta / n), math.degrees(lat)

    def to_dict(self) -> dict[str, float | str]:
        return {"type": "lambert_conformal_conic", "lat_1": self.lat_1, "lat_2": self.lat_2,
                "lat_0": self.lat_0, "lon_0": self.lon_0}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Lambert:
        if data.get("type") != "lambert_conformal_conic":
            raise ValueError(f"unknown projection {data.get('type')!r}")
        return cls(float(data["lat_1"]), float(data["lat_2"]), float(data["lat_0"]), float(data["lon_0"]))


@dataclass(frozen=True)
class Lens:
    """A magnifying glass laid on the projected map: around the point ``lon``, ``lat`` distances
    grow by ``power`` at the centre, less and less out to ``radius_km``, beyond which nothing
    moves. Crowded country (the Levant) gets room for units and names without losing its shape.

    A point at distance ``r`` moves to ``R * g(r / R)`` with ``g(t) = t + (power - 1) t (1 - t)^2``:
    ``g`` rises steadily for a power below 4, so the lens never folds the map.
    """

    lon: float
    lat: float
    radius_km: float
    power: float

    def apply(self, centre: tuple[float, float], x: float, y: float) -> tuple[float, float]:
        dx, dy = x - centre[0], y - centre[1]
        r = math.hypot(dx, dy)
        if r == 0 or r >= self.radius_km:
            return x, y
        t = r / self.radius_km
        k = (t + (self.power - 1) * t * (1 - t) ** 2) / t
        return centre[0] + dx * k, centre[1] + dy * k

    def undo(self, centre: tuple[float, float], x: float, y: float) -> tuple[float, float]:
        dx, dy = x - centre[0], y - centre[1]
        r = math.hypot(dx, dy)
        if r == 0 or r >= self.radius_km:
            return x, y
        target = r / self.radius_km
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            if mid + (self.power - 1) * mid * (1 - mid) ** 2 < target:
                lo = mid
            else:
                hi = mid
        k = (lo + hi) / 2 / target
        return centre[0] + dx * k, centre[1] + dy * k


@dataclass(frozen=True)
class MapProjection:
    """From longitude/latitude to the picture's units and back: the Lambert projection, the
    lenses, and the frame (``x0, y0, x1, y1`` in kilometres after the lenses) scaled to ``width``."""

    lambert: Lambert
    lenses: tuple[Lens, ...]
    frame: tuple[float, float, float, float]
    width: float = 1000.0

    @functools.cached_property
    def _centres(self) -> tuple[tuple[float, float], ...]:
        return tuple(self.lambert.forward(lens.lon, lens.lat) for lens in self.lenses)

    @property
    def scale(self) -> float:
        return self.width / (self.frame[2] - self.frame[0])

    @property
    def height(self) -> float:
        return (self.frame[3] - self.frame[1]) * self.scale

    def to_km(self, lon: float, lat: float) -> tuple[float, float]:
        """Kilometres on the projected map, lenses applied."""
        x, y = self.lambert.forward(lon, lat)
        for lens, centre in zip(self.lenses, self._centres):
            x, y = lens.apply(centre, x, y)
        return x, y

    def from_km(self, x: float, y: float) -> tuple[float, float]:
        for lens, centre in reversed(list(zip(self.lenses, self._centres))):
            x, y = lens.undo(centre, x, y)
        return self.lambert.inverse(x, y)

    def to_picture(self, lon: float, lat: float) -> tuple[float, float]:
        """Picture units: x to the right from the left edge, y down from the top edge."""
        x, y = self.to_km(lon, lat)
        s = self.scale
        return (x - self.frame[0]) * s, (self.frame[3] - y) * s

    def to_dict(self) -> dict[str, Any]:
        return {"lambert": self.lambert.to_dict(),
                "lenses": [{"lon": lens.lon, "lat": lens.lat, "radius_km": lens.radius_km, "power": lens.power}
                           for lens in self.lenses],
                "frame_km": list(self.frame), "width": self.width}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MapProjection:
        x0, y0, x1, y1 = (float(v) for v in data["frame_km"])
        return cls(Lambert.from_dict(data["lambert"]),
                   tuple(Lens(float(lens["lon"]), float(lens["lat"]), float(lens["radius_km"]), float(lens["power"]))
                         for lens in data.get("lenses", ())),
                   (x0, y0, x1, y1), float(data.get("width", 1000.0)))
