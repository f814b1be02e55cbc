"""``crusader picture [FILE] [-o OUT.png]``: the picture the judge posts, from the contract's documents.

A position document alone draws its board with the orders it carries (not adjudicated); with
``--result`` (the result document of adjudicating it) the outcome the judge posts after the
deadline. The same code as the judge's own pictures (:mod:`bot.render.season`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .common import CommandError, Exit, load_json, read_input


def _board(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k != "orders"}


def draw(position_doc: Any, result_doc: Any = None, *, game: str | None = None, size: int = 1000) -> bytes:
    """The PNG of a position document (with its orders), or of its adjudication when the result
    document is given. Raises :class:`~bot.codec.documents.DocumentError` for a document that
    cannot be used."""
    from bot.codec.documents import DocumentError, position_from_dict, read_orders
    from bot.codec.season import season_from_document
    from bot.render.season import render_png, season_picture

    if not isinstance(position_doc, dict):
        raise DocumentError("a position document must be a JSON object")
    if result_doc is None:
        variant, position = position_from_dict(_board(position_doc))
        texts = position_doc.get("orders") or []
        if not isinstance(texts, list):
            raise DocumentError("orders must be a list of strings")
        orders, _ = read_orders(texts, variant, position.phase)   # a line that is no order is not drawn
        return render_png(variant, position, orders=orders, game=game, size=size)
    if not isinstance(result_doc, dict) or not isinstance(result_doc.get("results"), list) \
            or not isinstance(result_doc.get("position"), dict):
        raise DocumentError("a result document must be a JSON object with results and position")
    # the season as an export keeps it: lines that were no order have no canonical form to draw
    result = dict(result_doc, results=[e for e in result_doc["results"] if isinstance(e, dict) and e.get("canonical")])
    try:
        season = season_from_document({"position": _board(position_doc), "orders": [], "result": result,
                                       "version": 0, "nmr": [], "players": [], "seed": 0}, game or "")
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, DocumentError):
            raise
        raise DocumentError(f"the result document cannot be read: {type(exc).__name__}: {exc}") from None
    return season_picture(season.variant, season.position, season.adjudication, game=game, size=size)


def cmd_picture(args: argparse.Namespace) -> Exit:
    from bot.codec.documents import DocumentError

    text = read_input(args.file)
    if args.jsonl:
        if not args.out_dir:
            raise CommandError("--jsonl writes one picture per line into a directory: give --out-dir DIR")
        folder = Path(args.out_dir)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CommandError(f"cannot make {folder}: {exc.strerror}") from None
        number = 0
        for line in text.split("\n"):   # JSON Lines: only a newline ends a line
            line = line.removesuffix("\r")
            if not line.strip():
                continue
            number += 1
            try:
                doc = load_json(line, "line")
                if isinstance(doc, dict) and set(doc) <= {"position", "result"} and "position" in doc:
                    png = draw(doc["position"], doc.get("result"), game=args.game, size=args.size)
                else:
                    png = draw(doc, game=args.game, size=args.size)
                (folder / f"{number:06d}.png").write_bytes(png)
            except (CommandError, DocumentError, ValueError) as exc:
                print(json.dumps({"line": number, "error": str(exc)}, ensure_ascii=False), flush=True)
        return Exit.OK
    position = load_json(text)
    result = load_json(read_input(args.result), args.result) if args.result else None
    try:
        png = draw(position, result, game=args.game, size=args.size)
    except (DocumentError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    if args.output and args.output != "-":
        try:
            Path(args.output).write_bytes(png)
        except OSError as exc:
            raise CommandError(f"cannot write {args.output}: {exc.strerror}") from None
    elif sys.stdout.isatty():
        raise CommandError("the picture is a PNG: give -o FILE.png, or send standard output to a file")
    else:
        sys.stdout.buffer.write(png)
        sys.stdout.flush()
    return Exit.OK


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("picture", help="draw the picture the judge posts for a position (and its result)",
                              description="Draw the picture the judge posts: a position document's board with its "
                                          "orders, or, with --result, how they went.")
    p.add_argument("file", nargs="?", help="the position document; standard input when absent or -")
    p.add_argument("-o", "--output", metavar="OUT.png", help="where to write the PNG (standard output when absent)")
    p.add_argument("--result", metavar="RESULT.json",
                   help="the result document of adjudicating the position: draw the outcome")
    p.add_argument("--jsonl", action="store_true",
                   help="one document per line (a position, or {\"position\": ..., \"result\": ...}), "
                        "each drawn into --out-dir as 000001.png, 000002.png, ...")
    p.add_argument("--out-dir", metavar="DIR", help="with --jsonl: the directory the pictures go into")
    p.add_argument("--game", metavar="NAME", help="the game's name, for the picture's title")
    p.add_argument("--size", type=_size, default=1000, metavar="PIXELS", help="the width in pixels (default 1000)")
    p.set_defaults(func=cmd_picture)


def _size(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number of pixels, like 1000: {text!r}") from None
    if not 200 <= value <= 4000:
        raise argparse.ArgumentTypeError(f"from 200 to 4000 pixels: {value}")
    return value
