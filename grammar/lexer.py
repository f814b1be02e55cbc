"""The lexer of the order grammar: one regular expression, one pass, a token per name.

A Lark custom lexer (``lexer=OrderLexer``). It reads the terminals of ``orders.lark`` and adds
the one the grammar declares, ``NAME``: a run of words none of which, after the first, is a
keyword ("Gulf of Lyon", "St. Petersburg north coast"), so that a name of any length is one
token and one step of the parser. All terminals are tried at once, in Lark's order (keywords,
which outrank names, first); the match is taken when the parser can take it here, which is
almost always. Otherwise the lexer does what Lark's contextual lexer does: the first terminal
the parser can take that matches here (a keyword where no keyword may stand is a name; "to"
after LEND's amount is TO). Nothing matched is an error for the parser to report.

A line is one line of text: tokens carry their columns on line 1.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple
from collections.abc import Collection, Iterator

from lark.common import LexerConf
from lark.exceptions import UnexpectedCharacters
from lark.lexer import Lexer, LexerState, Token

WORD = r"[^\W\d_][^\W_]*(?:['’.][^\W_]+)*\.?"
"""A word: a letter first; digits, apostrophes and inner dots ("St.", "n.c.") inside; a dot at the end."""
SKIP = r"[\s.,;!]*"
"""What is passed over between tokens (and between the words of a name)."""
_WORDS = re.compile(WORD).findall


class Line(NamedTuple):
    """A line for the parser: Lark hands input that is no ``str`` to a custom lexer as it is,
    without the line counting it does for text (a line is one line)."""

    text: str


def name_words(name: str) -> tuple[str, ...]:
    """The words of a NAME token: ``"St. Petersburg, nc"`` -> ``("St.", "Petersburg", "nc")``."""
    return tuple(_WORDS(name))


class OrderLexer(Lexer):
    """Lark lexer for ``orders.lark`` (see the module's documentation)."""

    __future_interface__ = 2

    def __init__(self, conf: LexerConf) -> None:
        terminals = sorted(conf.terminals, key=lambda t: (-t.priority, -t.pattern.max_width,
                                                           -len(t.pattern.value), t.name))
        keywords = "|".join(t.pattern.to_regexp() for t in terminals if t.priority > 0)
        patterns = {t.name: t.pattern.to_regexp() for t in terminals}
        patterns["NAME"] = rf"{WORD}(?:{SKIP}(?!{keywords}){WORD})*"
        order = [t.name for t in terminals if t.priority > 0] + ["NAME"] + [t.name for t in terminals
                                                                         if t.priority <= 0]
        flags = conf.g_regex_flags
        alternatives = "|".join(f"(?P<{name}>{patterns[name]})" for name in order)
        self._match = re.compile(rf"{SKIP}(?:{alternatives})", flags).match
        self._each = [(name, re.compile(rf"{SKIP}(?P<{name}>{patterns[name]})", flags).match) for name in order]
        self._rest = re.compile(SKIP, flags).match

    def lex(self, lexer_state: LexerState, parser_state: Any) -> Iterator[Token]:   # lark's LALR parser state
        text = lexer_state.text.text       # a Line (or a TextSlice)
        states = parser_state.parse_conf.states
        stack = parser_state.state_stack
        match, pos, end = self._match, 0, len(text)
        while True:
            m = match(text, pos)
            if m is None or m.lastgroup not in states[stack[-1]]:
                skipped = self._skipped(text, pos)
                if skipped == end:
                    return
                m = self._in_context(text, pos, states[stack[-1]]) or m
                if m is None:
                    raise UnexpectedCharacters(  # type: ignore[no-untyped-call]  # (lark's exceptions are not annotated)
                    text, skipped, 1, skipped + 1, state=parser_state,
                    allowed={t for t in states[stack[-1]] if t.isupper()})
            kind = m.lastgroup
            assert kind is not None, "every alternative of the pattern is a named group"
            start, pos = m.span(kind)
            yield Token(kind, m.group(kind), start, 1, start + 1, 1, pos + 1, pos)

    def _skipped(self, text: str, pos: int) -> int:
        """Where the text goes on after the spaces at ``pos``."""
        rest = self._rest(text, pos)
        assert rest is not None, "the pattern of spaces matches the empty string"
        return rest.end()

    def _in_context(self, text: str, pos: int, acceptable: Collection[str]) -> re.Match[str] | None:
        """The first terminal the parser can take that matches at ``pos``, as a match."""
        for name, match in self._each:
            if name in acceptable:
                m = match(text, pos)
                if m is not None:
                    return m
        return None
        return None
