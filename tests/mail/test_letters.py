"""An announcement's mail is composed once (a :class:`Letter`) and each address's copy gives only
its own ``To`` and ``Message-ID``: each copy is, byte for byte, the mail the email package writes
for that address, and the seven mails of a season, sent over SMTP on loopback, differ in those
two headers and nothing else."""

from __future__ import annotations

import copy
import os
import re
from email import message_from_bytes, policy
from email.message import MIMEPart
from email.policy import SMTP, SMTPUTF8

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.frontends.mail import passwords
from bot.frontends.mail.config import MailSettings
from bot.frontends.mail.outbound import Letter, Mailer, on_the_wire, own_field
from bot.frontends.mail.replies import announcement_message, picture_part

from .conftest import Capture

POLICIES = {(False, True): SMTP, (True, True): SMTPUTF8, (False, False): SMTP.clone(cte_type="7bit"),
            (True, False): SMTPUTF8.clone(cte_type="7bit")}
PLAYERS = {"ANT": "ant@players.test", "BYZ": "byz@players.test", "EDE": "ede@players.test",
           "FAT": "fat@players.test", "JER": "jer.salem+judge@players.test", "RUM": "rum@players.test",
           "SEL": "sel@players.test"}


def _email_packages_field(pol, name: str, value: str) -> bytes:
    message = announcement_message("judge@crusader.test", "someone@players.test", "s", "b")
    del message[name]
    message[name] = value
    return next(line for line in _headers(message.as_bytes(policy=pol)) if line.lower().startswith(name.lower().encode()))


def _headers(raw: bytes) -> list[bytes]:
    """The fields of ``raw``'s headers, each with its folded lines."""
    head = raw[:raw.index(b"\r\n\r\n") + 2]
    return [field + b"\r\n" for field in re.split(rb"\r\n(?![ \t])", head) if field]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(POLICIES)),
       st.one_of(st.from_regex(r"[A-Za-z0-9._+-]{1,30}@[A-Za-z0-9.-]{1,30}", fullmatch=True),
                 st.from_regex(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[a-z0-9-]{1,63}(\.[a-z]{2,6}){1,3}",
                               fullmatch=True),
                 st.text(alphabet="ab.@<>\" éx", min_size=1, max_size=90)),
       st.sampled_from(["To", "Message-ID"]))
def test_a_copys_own_header_is_written_as_the_email_package_writes_it(kind, value, name):
    pol = POLICIES[kind]
    if name == "Message-ID" and not value.startswith("<"):
        value = f"<{value}>"
    try:
        expected = _email_packages_field(pol, name, value)
    except Exception as exc:  # noqa: BLE001 (what the email package will not write, own_field will not either)
        with pytest.raises(type(exc)):
            own_field(pol, name, value)
        return
    assert own_field(pol, name, value) == expected


@pytest.mark.parametrize("pictured", [True, False])
@pytest.mark.parametrize("kind", sorted(POLICIES))
def test_each_copy_of_a_letter_is_the_mail_the_email_package_writes_for_its_address(kind, pictured):
    utf8, eight_bit = kind
    png = b"\x89PNG\r\n\x1a\n" + os.urandom(30_000)
    body = "The results of S1101M:\n.a line that starts with a period\nThe Émirat holds.\n"
    subject = "outremer: results of S1101M, the Émirat's season, a subject long enough to be folded in two"
    first = announcement_message("judge@crusader.test", PLAYERS["ANT"], subject, body,
                                 picture=picture_part(png, "outremer-S1101M.png") if pictured else None,
                                 message_id="<first@crusader.test>")
    first["In-Reply-To"] = "<theirs@players.test>"
    letter = Letter(first)
    mailer = Mailer(MailSettings(address="judge@crusader.test"))
    long = "a-player-with-a-long-name." * 2 + "@" + "a-mail-system-with-a-long-name." * 2 + "test"
    named = "Ünal, the player with a long name who plays the Seljuks <unal@players.test>"  # folded
    others = [long, named, "ünal@players.test"] if utf8 else [long, named]
    for n, address in enumerate([*PLAYERS.values(), *others]):
        mine = f"<{n}.{'x' * 9 * n}@crusader.test>"  # the last ones too long for a line
        written = mailer._wire(letter.to(address, mine), utf8=utf8, eight_bit=eight_bit)
        expected = copy.deepcopy(first)  # the mail as composed for this address alone
        expected.replace_header("To", address)
        expected.replace_header("Message-ID", mine)
        assert b"".join(written) == on_the_wire(expected.as_bytes(policy=POLICIES[kind]))
    assert list(letter.written) == [kind]  # written out once


@pytest.mark.parametrize("size", [0, 1, 56, 57, 58, 114, 30_001])
def test_a_picture_part_is_the_part_the_email_package_makes(size):
    png = os.urandom(size)
    made = MIMEPart()
    made.set_content(png, maintype="image", subtype="png", disposition="attachment", filename="acre-S1101M.png")
    part = picture_part(png, "acre-S1101M.png")
    for pol in POLICIES.values():
        assert part.as_bytes(policy=pol) == made.as_bytes(policy=pol)
    assert part.get_content() == png


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(POLICIES)), st.text(alphabet="ab .\r\n", max_size=200))
def test_a_letter_is_written_as_the_email_package_writes_it_whatever_its_line_ends(kind, text):
    message = announcement_message("judge@crusader.test", PLAYERS["ANT"], "s", "b",
                                   picture=picture_part(b"\x89PNG" + text.encode(), "p.png"),
                                   message_id="<m@crusader.test>")
    message.set_boundary("=_boundary")
    message.preamble, message.epilogue = text, text  # written as they are, their line ends the policy's
    utf8, eight_bit = kind
    written = Mailer(MailSettings(address="judge@crusader.test"))._wire(Letter(message).to(PLAYERS["ANT"],
                                                                                           "<m@crusader.test>"),
                                                                        utf8=utf8, eight_bit=eight_bit)
    assert b"".join(written) == on_the_wire(message.as_bytes(policy=POLICIES[kind]))


def test_a_letter_needs_the_headers_it_gives_each_copy():
    message = announcement_message("judge@crusader.test", "ant@players.test", "s", "b")
    del message["Message-ID"]
    with pytest.raises(ValueError, match="Message-ID"):
        Letter(message)


class RawCapture(Capture):
    """Keeps each message's bytes as the relay received them, too."""

    def __init__(self) -> None:
        super().__init__()
        self.raw: dict[str, bytes] = {}

    async def handle_DATA(self, server, session, envelope) -> str:
        [to] = envelope.rcpt_tos
        if b"results of" in envelope.original_content.partition(b"\r\n\r\n")[0]:
            self.raw[to] = envelope.original_content
        return await super().handle_DATA(server, session, envelope)


def test_the_seven_mails_of_a_season_differ_only_in_their_own_headers(sqlite_db, monkeypatch, open_rig):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    from bot.frontends.mail.notifier import MailNotifier

    written: list[str] = []  # the results' texts written, by address ("": what every address reads)
    body = MailNotifier._body

    def counted(self, a, address, concerned):
        if a.kind == "results":
            written.append(address)
        return body(self, a, address, concerned)

    monkeypatch.setattr(MailNotifier, "_body", counted)
    relay = RawCapture()
    with open_rig(sqlite_db, attach_maps=True, capture=relay) as rig:
        rig.register_game("outremer", PLAYERS)
        rig.flush()
        rig.service.force_adjudicate("outremer", "gm")
        rig.flush()
        results = rig.capture.wait(lambda m: "results of S1101M" in str(m.message["Subject"]), count=7)
        key, notifier = _results_key(rig), rig.front.notifier
    assert sorted(relay.raw) == sorted(PLAYERS.values()) and len(results) == 7
    without_own = set()
    for to, raw in relay.raw.items():
        mail = message_from_bytes(raw, policy=policy.default)
        assert mail["To"] == to and mail["Message-ID"] == notifier.message_id(key, to)
        assert "(S1101M) in game 'outremer'" in mail.get_body(("plain",)).get_content()
        [picture] = list(mail.iter_attachments())
        assert picture.get_content_type() == "image/png" and picture.get_filename() == "outremer-S1101M.png"
        assert picture.get_content().startswith(b"\x89PNG")
        without_own.add(b"".join(field for field in _headers(raw)
                                 if not field.lower().startswith((b"to:", b"message-id:")))
                        + raw.partition(b"\r\n\r\n")[2])
    assert len(without_own) == 1  # the same mail but for To and Message-ID
    assert written == [""]  # its text written once for the seven, none of whom reads a part of its own
    assert len({message_from_bytes(raw)["Message-ID"] for raw in relay.raw.values()}) == 7


def _results_key(rig) -> str:
    """The key of the announcement of the results of S1101M."""
    from bot.store.database import outbox_of

    with rig.db.session() as session:
        [row] = [r for r in outbox_of(session) if "results of S1101M" in r.subject]
        return row.key
