"""``crusader variant list`` and ``crusader variant show NAME``: the maps this judge knows."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import CommandError, Exit, dump


def variant_document(name: str) -> dict[str, Any]:
    """The map and starting position of variant ``name`` as the contract's JSON document."""
    from adjudicator.variant import UnknownVariantError, get_variant

    try:
        v = get_variant(name)
    except UnknownVariantError as exc:
        raise CommandError(str(exc)) from None
    army = sorted(sorted(e) for e in v.army_edges)
    fleet = sorted(sorted(str(x) for x in e) for e in v.fleet_edges)
    return {
        "name": v.name,
        "title": v.title,
        "powers": {
            code: {"name": p.name, "adjective": p.adjective, "home_centers": list(p.home_centers),
                   "units": [u.short for u in p.units], "colour": p.colour}
            for code, p in sorted(v.powers.items())
        },
        "provinces": {
            pid: {"name": p.name, "kind": p.kind.value, "supply_center": p.supply_center,
                  "coasts": list(p.coasts), "lat": p.lat, "lon": p.lon, "aliases": list(p.aliases)}
            for pid, p in sorted(v.provinces.items())
        },
        "adjacency": {"army": army, "fleet": fleet},
        "neutral_units": [u.short for u in v.neutral_units],
        "supply_center_owners": {p: o for p, o in sorted(v.starting_owners.items())},
        "victory_centers": v.victory_centers,
        "start_phase": str(v.start_phase),
        "rules": sorted(v.rules),
    }


def cmd_variant_show(args: argparse.Namespace) -> Exit:
    if args.format == "geojson":
        from adjudicator.drawn import NoDrawnMapError, drawn_map_text
        from adjudicator.variant import UnknownVariantError

        try:
            sys.stdout.write(drawn_map_text(args.name))
        except (UnknownVariantError, NoDrawnMapError) as exc:
            raise CommandError(str(exc)) from None
        return Exit.OK
    doc = variant_document(args.name)
    if args.format == "json":
        dump(doc, pretty=True)
        return Exit.OK
    out = [f"{doc['title']} ({doc['name']}): starts {doc['start_phase']}, "
           f"{doc['victory_centers']} centres to win, rules: {', '.join(doc['rules']) or 'classic'}", ""]
    for code, p in doc["powers"].items():
        out.append(f"{code}  {p['name']}: {', '.join(p['units'])} (home: {', '.join(p['home_centers'])})")
    if doc["neutral_units"]:
        out.append(f"NEU  neutral units: {', '.join(doc['neutral_units'])}")
    out.append("")
    centres = sum(1 for p in doc["provinces"].values() if p["supply_center"])
    out.append(f"{len(doc['provinces'])} provinces, {centres} supply centres, "
               f"{len(doc['adjacency']['army'])} army borders, {len(doc['adjacency']['fleet'])} fleet borders")
    for pid, p in doc["provinces"].items():
        coasts = f" coasts {'/'.join(p['coasts'])}" if p["coasts"] else ""
        sc = " *" if p["supply_center"] else ""
        out.append(f"  {pid:<5} {p['name']:<28} {p['kind']:<5}{sc}{coasts}")
    sys.stdout.write("\n".join(out) + "\n")
    return Exit.OK


def cmd_variant_list(args: argparse.Namespace) -> Exit:
    from adjudicator.variant import get_variant, variant_names

    for name in variant_names():
        try:
            v = get_variant(name)
        except (OSError, ValueError) as exc:  # a map file that does not load is reported, not hidden
            print(f"{name:<10} (cannot load: {exc})")
            continue
        print(f"{name:<10} {v.title}: {len(v.powers)} powers, {len(v.supply_centers)} centres, starts {v.start_phase}")
    return Exit.OK


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("variant", help="the maps this judge knows")
    sub = p.add_subparsers(dest="variant_command", metavar="SUBCOMMAND")
    sub.required = True
    q = sub.add_parser("show", help="a map and its starting position")
    q.add_argument("name", help="standard or crusader")
    q.add_argument("--format", choices=("json", "text", "geojson"), default="text",
                   help="text (default), json (the map as data) or geojson (the map as drawn)")
    q.set_defaults(func=cmd_variant_show)
    q = sub.add_parser("list", help="the variants")
    q.set_defaults(func=cmd_variant_list)
