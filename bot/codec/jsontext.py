"""JSON text as the standard library writes it, written by orjson (several times faster on the
judge's documents: a season's archive, a command's result)."""

from __future__ import annotations

import json
from typing import Any


def json_text(doc: Any, *, pretty: bool = False, sort_keys: bool = False) -> str:
    """``doc`` as JSON text: compact, or indented by two spaces; UTF-8 characters as they are;
    its objects' keys sorted with ``sort_keys``.

    Byte for byte what ``json.dumps`` writes with those settings; what orjson refuses (an integer
    beyond 64 bits, a key that is not a string, a lone surrogate) is written by the standard
    library itself.
    """
    import orjson  # (only where JSON is written: not by every command)

    option = (orjson.OPT_INDENT_2 if pretty else 0) | (orjson.OPT_SORT_KEYS if sort_keys else 0)
    try:
        return orjson.dumps(doc, option=option).decode()
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(doc, ensure_ascii=False, indent=2 if pretty else None,
                          separators=None if pretty else (",", ":"), sort_keys=sort_keys)
