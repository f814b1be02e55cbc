"""Fixtures of the archive site's tests: pages read back with the standard library's HTML parser."""

from __future__ import annotations

import pytest

VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})


class Element:
    def __init__(self, tag: str, attrs: dict[str, str | None], parent: Element | None = None) -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Element | str] = []

    def __repr__(self) -> str:
        return f"<{self.tag} {self.attrs}>"

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def text(self) -> str:
        return " ".join("".join(c if isinstance(c, str) else " " + c.text() + " " for c in self.children).split())

    def iter(self):
        yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.iter()

    def find_all(self, tag: str | None = None, *, cls: str | None = None, **attrs: str) -> list[Element]:
        return [e for e in self.iter() if (tag is None or e.tag == tag) and (cls is None or cls in e.classes)
                and all(e.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())]

    def find(self, tag: str | None = None, **kw) -> Element:
        found = self.find_all(tag, **kw)
        assert found, f"no <{tag or '*'}> with {kw} in the page"
        return found[0]

    def by_id(self, ident: str) -> Element:
        return self.find(None, id=ident)

    def rows(self) -> list[list[str]]:
        """The text of each body row's cells, for a <table>."""
        return [[td.text() for td in tr.find_all("td")] for tr in self.find_all("tr") if tr.find_all("td")]


def _parse_html(text: str) -> Element:
    from html.parser import HTMLParser

    root = Element("#document", {})

    class Builder(HTMLParser):
        current = root

        def handle_starttag(self, tag, attrs):
            element = Element(tag, dict(attrs), self.current)
            self.current.children.append(element)
            if tag not in VOID:
                self.current = element

        def handle_startendtag(self, tag, attrs):
            self.current.children.append(Element(tag, dict(attrs), self.current))

        def handle_endtag(self, tag):
            node = self.current
            while node is not root and node.tag != tag:
                node = node.parent
            if node is not root:
                self.current = node.parent

        def handle_data(self, data):
            self.current.children.append(data)

    builder = Builder(convert_charrefs=True)
    builder.feed(text)
    builder.close()
    return root


@pytest.fixture(scope="session")
def parse_html():
    """``parse_html(text)``: the page as a tree of :class:`Element` (``find``, ``find_all``, ``by_id``,
    ``rows``, ``text``)."""
    return _parse_html
