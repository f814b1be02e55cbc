"""``crusader settings``: the settings in effect, or (``--reference``) the reference of every setting,
generated from the settings models (``docs/settings.md``)."""

from __future__ import annotations

import argparse
import sys

from .common import Exit


def cmd_settings(args: argparse.Namespace) -> Exit:
    from .reference import in_effect, reference

    sys.stdout.write(reference() if args.reference else in_effect())
    return Exit.OK


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("settings", help="the settings in effect (environment variables), or their reference",
                              description="Print every setting as this process reads it from the environment "
                              "(* marks those set; secrets hidden); exit 1 naming each variable with a bad value.")
    p.add_argument("--reference", action="store_true",
                   help="print the reference of every setting in Markdown (docs/settings.md)")
    p.set_defaults(func=cmd_settings)
