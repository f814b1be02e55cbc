"""A whole game year of negotiation through the judge, four players on Discord and three by mail
(real discord.py against the test Discord, real SMTP on loopback), under full press, then grey,
then none: every message reaches exactly its recipients, on their own front end; no recipient of
grey press can tell who sent it; no private message appears anywhere else (the game's channel and
archive thread, another power's history, the log at INFO)."""

from __future__ import annotations

import asyncio
import logging
import re
import smtplib
from email import policy
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from aiosmtpd.smtp import SMTP

from bot.frontends.mail import passwords
from bot.frontends.mail.config import MailSettings
from bot.frontends.mail.listener import MailFrontEnd
from bot.store.outbox import LogNotifier
from tests.mail.conftest import Capture

pytestmark = pytest.mark.timeout(600)

JUDGE = "judge@crusader.test"
GAME = "parley"
ON_DISCORD = ("AUS", "ENG", "FRA", "GER")
BY_MAIL = {"ITA": "ita@players.test", "RUS": "rus@players.test", "TUR": "tur@players.test"}
SPELLED = {"AUS": "Austria", "ENG": "England", "FRA": "France", "GER": "Germany"}
NAMES = {"AUS": "Austria", "ENG": "England", "FRA": "France", "GER": "Germany", "ITA": "Italy", "RUS": "Russia",
         "TUR": "Turkey"}


class Mailboxes:
    """The players by mail: the judge's listener, and the relay that keeps what the judge sends."""

    def __init__(self, world, capture: Capture) -> None:
        self.world, self.capture = world, capture

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.relay = await loop.create_server(lambda: SMTP(self.capture, enable_SMTPUTF8=True), "127.0.0.1", 0)
        settings = MailSettings(address=JUDGE, listen_host="127.0.0.1", listen_port=0, relay_host="127.0.0.1",
                                relay_port=self.relay.sockets[0].getsockname()[1], attach_maps=False)
        self.front = MailFrontEnd(self.world.service, self.world.dispatcher, settings)
        await self.front.start()

    async def stop(self) -> None:
        await self.front.stop()
        self.relay.close()

    async def ask(self, power: str, body: str) -> str:
        """``power``'s player mails the judge (signed on); the judge's reply."""
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = BY_MAIL[power], JUDGE, "press"
        msg["Message-ID"] = make_msgid(domain="players.test")
        msg.set_content(f"SIGNON {power}{GAME} pw-{power}\n{body}\nSIGNOFF\n")

        def send() -> None:
            with smtplib.SMTP("127.0.0.1", self.front.port, timeout=10) as client:
                client.sendmail(BY_MAIL[power], [JUDGE], msg.as_bytes(policy=policy.SMTP))

        await asyncio.to_thread(send)
        [reply] = await asyncio.to_thread(self.capture.wait, lambda m: m.message["In-Reply-To"] == msg["Message-ID"])
        return reply.text

    def press_to(self, power: str) -> list[str]:
        return [m.text for m in self.capture.to(BY_MAIL[power]) if "press in" in str(m.message["Subject"])]


def _tokens(text: str) -> set[str]:
    return set(re.findall(r"\[(\w+)\]", text))


async def test_a_year_of_press_between_discord_and_mail_under_full_grey_and_none_press(world, monkeypatch, caplog,
                                                                                           capsys, visible):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    caplog.set_level(logging.INFO)
    fake, service = world.fake, world.service
    world.dispatcher.register(LogNotifier())
    mail = Mailboxes(world, Capture())
    sent: dict[str, set[str]] = {}  # token -> the powers it was meant for ("GM": the game master)
    grey: dict[str, str] = {}  # token of anonymous press -> its sender

    async def by_discord(power: str, to: str, token: str, *, anonymous: bool = False, dm: bool = False) -> str:
        text = f"[{token}] a word in confidence"
        if dm:
            return await world.dm(power, f"{'anonymous ' if anonymous else ''}press to {to}: {text}")
        options = {"to": to, "text": text, **({"anonymous": True} if anonymous else {})}
        return (await world.answer(world.user(power), "press send", options))[1]

    async def by_mail(power: str, to: str, token: str, *, grey_: bool = False, broadcast: bool = False) -> str:
        head = "BROADCAST" if broadcast else f"PRESS TO {to}"
        return await mail.ask(power, f"{head}{' GREY' if grey_ else ''}\n[{token}] a word\nin confidence\nENDPRESS")

    async with world.running():
        await mail.start()
        try:
            _, text = await world.answer(world.gm, "game new", {"name": GAME, "variant": "standard",
                                                                  "channel": world.results, "nmr_limit": 0,
                                                                  "press": "full"})
            assert "created" in text, text
            for power in ON_DISCORD:
                _, text = await world.answer(world.user(power), "join", {"game": GAME, "power": SPELLED[power]})
                assert "joined" in text, text
            for power, address in BY_MAIL.items():
                service.join(GAME, address, power)
                mail.front.accounts.register(GAME, None, power, address=address, password=f"pw-{power}")
            _, text = await world.answer(world.gm, "game start", {"game": GAME})
            assert "active" in text, text
            await world.flush()

            # -- Spring 1901, full press ------------------------------------------------------------
            answer = await by_discord("ENG", "FRA, ITA", "s1")
            assert "to FRA, ITA, as ENG" in answer
            sent["s1"] = {"FRA", "ITA"}
            answer = await by_discord("GER", "RUS", "s2", dm=True)
            assert "to RUS, as GER" in answer
            sent["s2"] = {"RUS"}
            answer = await by_mail("RUS", "", "s3", broadcast=True)
            assert "to everyone, as RUS" in answer
            sent["s3"] = set(NAMES) - {"RUS"}
            answer = await by_mail("TUR", "AUS GM", "s4")
            assert "to AUS and the game master, as TUR" in answer
            sent["s4"] = {"AUS", "GM"}
            answer = await by_discord("AUS", "TUR", "x1", anonymous=True)
            assert "only under grey press" in answer  # refused: nothing sent
            await world.dm("GER", "A kie - hol")
            await mail.ask("TUR", "A con - bul")
            service.force_adjudicate(GAME, None)
            await world.flush()

            # -- Fall 1901, grey press ---------------------------------------------------------------
            _, text = await world.answer(world.gm, "game settings", {"game": GAME, "press": "grey"})
            assert "→ grey" in text, text
            answer = await by_discord("FRA", "ITA, TUR", "f1", anonymous=True)
            assert "anonymously" in answer
            sent["f1"], grey["f1"] = {"ITA", "TUR"}, "FRA"
            answer = await by_mail("ITA", "AUS ENG", "f2", grey_=True)
            assert "anonymously" in answer
            sent["f2"], grey["f2"] = {"AUS", "ENG"}, "ITA"
            answer = await by_discord("GER", "ALL", "f3", anonymous=True, dm=True)
            assert "to everyone, anonymously" in answer
            sent["f3"], grey["f3"] = set(NAMES) - {"GER"}, "GER"
            answer = await by_mail("RUS", "GER", "f4")
            assert "as RUS" in answer
            sent["f4"] = {"GER"}
            service.force_adjudicate(GAME, None)
            await world.flush()
            assert service.status(GAME).phase == "W1901B"

            # -- Winter 1901, no press -----------------------------------------------------------------
            _, text = await world.answer(world.gm, "game settings", {"game": GAME, "press": "none"})
            answer = await by_discord("AUS", "ENG", "x2")
            assert "no press between players" in answer
            answer = await by_mail("TUR", "RUS", "x3")
            assert "not sent:" in answer and "no press between players" in answer
            answer = await by_mail("TUR", "GM", "w1")
            assert "to the game master, as TUR" in answer
            sent["w1"] = {"GM"}
            answer = await by_discord("ENG", "GM, FRA", "w2")
            assert "Not sent to FRA" in answer
            sent["w2"] = {"GM"}
            await world.dm("GER", "build A kie")
            await mail.ask("TUR", "build A con")
            service.force_adjudicate(GAME, None)
            await world.flush()
            assert service.status(GAME).phase == "S1902M"
            await world.flush()
        finally:
            await mail.stop()

        # -- who got what ---------------------------------------------------------------------------
        got: dict[str, set[str]] = {}
        for power in ON_DISCORD:
            texts = [visible(m["content"]) for m in fake.bot_messages(world.user(power))
                     if "Press in 'parley'" in m["content"]]
            got[power] = set().union(*(_tokens(t) for t in texts)) if texts else set()
            for t in texts:
                for token in _tokens(t) & set(grey):
                    sender = grey[token]
                    assert "an anonymous power" in t and sender not in t and NAMES[sender] not in t
            assert len(texts) == len({tok for t in texts for tok in _tokens(t)})  # each once
        for power in BY_MAIL:
            texts = mail.press_to(power)
            got[power] = set().union(*(_tokens(t) for t in texts)) if texts else set()
            for t in texts:
                for token in _tokens(t) & set(grey):
                    sender = grey[token]
                    assert "an anonymous power" in t and sender not in t and NAMES[sender] not in t
                assert not any(address in t for address in BY_MAIL.values())
            assert len(texts) == len(got[power])
        gm_texts = [visible(m["content"]) for m in fake.bot_messages(world.gm) if "Press in 'parley'" in m["content"]]
        got["GM"] = set().union(*(_tokens(t) for t in gm_texts))
        expected = {who: {token for token, to in sent.items() if who in to} for who in [*NAMES, "GM"]}
        assert got == expected

        # -- and nowhere else -----------------------------------------------------------------------
        tokens = set(sent) | {"x1", "x2", "x3"}
        public = [m["content"] for m in fake.bot_messages(world.results)]
        for thread in fake.threads(world.results):
            public += [m["content"] for m in fake.bot_messages(thread)]
        assert public and not any(_tokens(c) & tokens for c in public)
        for power in NAMES:
            player = service.status(GAME).player_of(power).player
            seen = {tok for line in service.press_history(GAME, player).lines for tok in _tokens(line.text)}
            mine = {token for token, to in sent.items() if power in to}
            sent_by = {"s1": "ENG", "s2": "GER", "s3": "RUS", "s4": "TUR", "f1": "FRA", "f2": "ITA", "f3": "GER",
                       "f4": "RUS", "w1": "TUR", "w2": "ENG"}
            assert seen == mine | {token for token, who in sent_by.items() if who == power}
        logged = caplog.text + capsys.readouterr().out
        assert "parley: press in S1901M" in logged  # the log says press went, and never what it said
        assert not _tokens(logged) & tokens and "in confidence" not in logged
