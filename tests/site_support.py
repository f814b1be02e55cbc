"""A short Outremer game with the prestige rules, played through the service, for the archive site's tests.

Spring 1101 has a vassal bid that is won, one below the minimum, a bribe, a bounce and moves
into two neutral centres; Fall 1101 holds them, so Winter 1101 has builds; the game then
stands at Spring 1102.
"""

from __future__ import annotations

from pathlib import Path

from bot.service import GameService
from bot.storage import Database

GAME = "acre"
PLAYERS = {"ANT": "antoine", "BYZ": "basil", "EDE": "eudes", "FAT": "faiz", "JER": "joscelin", "SEL": "sanjar",
           "RUM": "rukn"}
SEASONS = [
    ("S1101M", {"JER": "VASSAL F tyr BID 2\nA jer - jaf", "FAT": "VASSAL F tyr BID 1\nA cai - sid\nF dmt - sid",
                "BYZ": "BRIBE A phr BID 1\nA phr - myr", "RUM": "A ico - att\nA seb - tre", "SEL": "A mos - jez"}),
    ("F1101M", {"RUM": "A att H\nA tre H", "SEL": "A jez H", "JER": "A jaf - asc", "FAT": "A cai - sid"}),
    ("W1101B", {"RUM": "build A ico\nbuild A seb", "SEL": "build A mos"}),
]
NEXT_SEASON = ("S1102M", {"RUM": "A att - myr", "JER": "A jaf H"})


def new_game(db: Database) -> GameService:
    service = GameService(db)
    service.create_game(GAME, "crusader", "gm", rules=("prestige",), seed=11)
    for power, player in PLAYERS.items():
        service.join(GAME, player, power)
    service.start(GAME, "gm")
    return service


def play(service: GameService, phase: str, orders: dict[str, str]) -> None:
    assert service.status(GAME).phase == phase, f"the game is at {service.status(GAME).phase}, not {phase}"
    for power, text in orders.items():
        report = service.submit_orders(GAME, PLAYERS[power], text)
        assert not report.rejected, report.to_text()
    assert service.force_adjudicate(GAME, "gm") == "adjudicated"


def played_game(path: Path) -> tuple[Database, GameService]:
    """A SQLite judge at ``path`` holding the game after its first three seasons."""
    db = Database.sqlite_file(path)
    db.migrate()
    service = new_game(db)
    for phase, orders in SEASONS:
        play(service, phase, orders)
    return db, service


# -- reading the pages back with the standard library's HTML parser ---------------------------

VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})


class Element:
    def __init__(self, tag: str, attrs: dict[str, str | None], parent: "Element | None" = None) -> None:
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

    def find_all(self, tag: str | None = None, *, cls: str | None = None, **attrs: str) -> list["Element"]:
        return [e for e in self.iter() if (tag is None or e.tag == tag) and (cls is None or cls in e.classes)
                and all(e.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())]

    def find(self, tag: str | None = None, **kw) -> "Element":
        found = self.find_all(tag, **kw)
        assert found, f"no <{tag or '*'}> with {kw} in the page"
        return found[0]

    def by_id(self, ident: str) -> "Element":
        return self.find(None, id=ident)

    def rows(self) -> list[list[str]]:
        """The text of each body row's cells, for a <table>."""
        return [[td.text() for td in tr.find_all("td")] for tr in self.find_all("tr") if tr.find_all("td")]


def parse_html(text: str) -> Element:
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
