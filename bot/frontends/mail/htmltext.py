"""HTML mail as plain text, with the standard library's parser: blocks become lines, quoted
replies (``<blockquote>``) and what is not shown (``<script>``, ``<style>``, ``<head>``) are dropped."""

from __future__ import annotations

from html.parser import HTMLParser

_BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table", "ul", "ol", "hr",
           "section", "article", "header", "footer", "dd", "dt"}
_HIDDEN = {"script", "style", "head", "title", "blockquote", "template"}
_VOID = {"br", "hr", "img", "meta", "link", "input", "area", "base", "col", "embed", "source", "wbr"}


class _TextCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden: list[str] = []

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in _HIDDEN:
            self.hidden.append(tag)
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_startendtag(self, tag: str, attrs) -> None:
        if tag in _BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            if tag in self.hidden:  # close up to the matching tag, forgiving unclosed ones inside
                while self.hidden and self.hidden.pop() != tag:
                    pass
        elif tag in _BLOCKS and tag not in _VOID:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data.replace("\r", " ").replace("\n", " "))


def html_to_text(html: str) -> str:
    """The visible text of ``html``, one line per block; never raises on malformed markup."""
    collector = _TextCollector()
    try:
        collector.feed(html)
        collector.close()
    except Exception:  # noqa: BLE001, S110 (html.parser is lenient; this is only a last guard)
        pass
    lines = (" ".join(line.replace("\xa0", " ").split()) for line in "".join(collector.parts).split("\n"))
    return "\n".join(line for line in lines if line) + "\n"
