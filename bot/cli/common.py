"""What every ``crusader`` command shares: the exit codes, the one error a command raises, and
reading and writing its input and output."""

from __future__ import annotations

import json
import re
import sys
from enum import IntEnum
from typing import Any
from collections.abc import Iterator

from bot.codec.jsontext import json_text



class Exit(IntEnum):
    """The exit codes of every ``crusader`` command (``docs/cli.md``)."""

    OK = 0  # done
    FAILED = 1  # done, and the answer is no: a line not understood, an order or action refused, a mismatch
    BAD_INPUT = 2  # the command cannot be used as given: unreadable file, bad JSON, unknown name or key
    INTERNAL = 3  # the judge itself failed: a bug to report


class CommandError(Exception):
    """A command that cannot do what was asked: ``crusader: <message>`` on standard error, one line,
    and ``code`` as the exit code (bad input unless said otherwise)."""

    def __init__(self, message: str, code: Exit = Exit.BAD_INPUT) -> None:
        super().__init__(message)
        self.code = code


def read_input(path: str | None) -> str:
    """The text of the file ``path``, or of standard input when it is ``None`` or ``-`` (UTF-8 both)."""
    if path in (None, "-"):
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a text stream put in its place
            return sys.stdin.read()
        try:
            return stream.read().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CommandError(f"standard input is not UTF-8 text (byte {exc.start + 1})") from None
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise CommandError(f"{path} is not UTF-8 text") from None


def read_lines(path: str | None) -> Iterator[tuple[str | None, str | None]]:
    """The lines of the file ``path`` (or of standard input, as :func:`read_input`), JSON Lines
    style (only a newline ends a line, a carriage return before it is dropped), each decoded by
    itself: ``(line, None)``, or ``(None, why)`` for a line that is not UTF-8, so that one such
    line costs that line only."""
    if path in (None, "-"):
        stream = getattr(sys.stdin, "buffer", None)
        data = stream.read() if stream is not None else sys.stdin.read().encode("utf-8", "surrogatepass")
    else:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror}") from None
    for number, raw in enumerate(data.split(b"\n"), start=1):
        raw = raw.removesuffix(b"\r")
        try:
            yield raw.decode("utf-8"), None
        except UnicodeDecodeError as exc:
            yield None, f"line {number} is not UTF-8 text (byte {exc.start + 1})"


def load_json(text: str, where: str = "input") -> Any:
    """``text`` read as JSON; ``where`` names it in the error."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(f"{where} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise CommandError(f"{where} is nested too deeply") from None
    except ValueError as exc:  # an integer of more digits than Python converts (4300)
        raise CommandError(f"{where} has a number too long to read: {str(exc).split(';')[0]}") from None
    if "\\u" in text and _LONE_SURROGATE.search(text):
        try:
            json.dumps(doc, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise CommandError(f"{where} is not valid JSON text: {exc.object[exc.start]!r} is half of a UTF-16 "
                               f"surrogate pair, not a character") from None
    return doc


# a \uD800-\uDFFF escape, of which a lone one (a half pair) stands for no character
_LONE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def read_json(path: str) -> Any:
    """The JSON document in the file ``path`` (``-``: standard input)."""
    return load_json(read_input(path), "standard input" if path == "-" else path)


# Characters that some line readers (Python's str.splitlines, JavaScript) take as a line end.
# They can only stand inside a JSON string, where an escape means the same character.
_LINE_BREAKS = str.maketrans({c: f"\\u{ord(c):04x}" for c in "\x85\u2028\u2029"})


def dump(doc: Any, *, pretty: bool) -> None:
    """Write ``doc`` to standard output as one JSON line, or indented."""
    sys.stdout.write(json_text(doc, pretty=pretty).translate(_LINE_BREAKS))
    sys.stdout.write("\n")
