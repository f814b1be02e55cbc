"""The policies the judge's mail is written with are the email package's own, with a header
registry that makes each kind of header's class once: the same headers, the same text."""

from __future__ import annotations

import email.policy
from email.policy import SMTP, SMTPUTF8

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.frontends.mail import policies
from bot.frontends.mail.addresses import AddressError, normalise
from bot.frontends.mail.config import MailSettings
from bot.frontends.mail.outbound import Letter, Mailer, own_field
from bot.frontends.mail.policies import COMPOSING, HEADERS, WIRE, HeaderClasses
from bot.frontends.mail.replies import announcement_message

HEADERS_AND_VALUES = [
    ("From", "judge@crusader.test"),
    ("To", "Ünal, the player with a long name who plays the Seljuks <unal@players.test>"),
    ("To", "ant@players.test, byz@players.test"),
    ("Cc", '"Jerusalem, King of" <jer@players.test>'),
    ("Subject", "outremer: results of S1101M, the Émirat's season, a subject long enough to be folded in two"),
    ("Date", "Sat, 01 Apr 1101 12:00:00 +0000"),
    ("Message-ID", "<0123456789abcdef0123456789abcdef@crusader.test>"),
    ("In-Reply-To", "<theirs@players.test>"),
    ("References", "<a@players.test> <b@players.test>"),
    ("Auto-Submitted", "auto-generated"),
    ("MIME-Version", "1.0"),
    ("Content-Type", 'multipart/mixed; boundary="=_0123"'),
    ("Content-Type", "text/plain; charset=\"utf-8\""),
    ("Content-Transfer-Encoding", "quoted-printable"),
    ("Content-Disposition", 'attachment; filename="outremer-S1101M.png"'),
    ("X-Unknown", "a header the registry has no class for " * 3),
    ("To", "not an address <at all"),
]
STANDARD = {(False, True): SMTP, (True, True): SMTPUTF8, (False, False): SMTP.clone(cte_type="7bit"),
            (True, False): SMTPUTF8.clone(cte_type="7bit")}


@pytest.mark.parametrize(("name", "value"), HEADERS_AND_VALUES)
def test_a_header_is_the_email_packages_own(name, value):
    ours, theirs = COMPOSING.header_store_parse(name, value)[1], email.policy.default.header_store_parse(name, value)[1]
    assert str(ours) == str(theirs) and type(ours).__mro__[1:] == type(theirs).__mro__[1:]
    assert [type(d) for d in ours.defects] == [type(d) for d in theirs.defects]
    for kind, policy in WIRE.items():
        assert policy.fold_binary(name, ours) == STANDARD[kind].fold_binary(name, theirs)
        assert own_field(policy, name, value) == own_field(STANDARD[kind], name, value)


def test_the_policies_are_the_email_packages_but_for_the_header_registry():
    settings = ("linesep", "utf8", "cte_type", "max_line_length", "refold_source", "raise_on_defect",
                "mangle_from_", "message_factory", "content_manager", "verify_generated_headers")
    for kind, policy in [*WIRE.items(), ("composing", COMPOSING)]:
        standard = STANDARD.get(kind, email.policy.default)  # type: ignore[call-overload]
        assert policy.header_factory is HEADERS
        assert all(getattr(policy, s, None) == getattr(standard, s, None) for s in settings)


def test_each_kind_of_header_has_its_class_made_once():
    registry = HeaderClasses()
    made = [type(registry(name, value)) for name, value in HEADERS_AND_VALUES * 3]
    assert registry["to"] is registry["To"] is registry["Cc"] is registry["from"]  # addresses
    assert registry["X-Unknown"] is registry["X-Another"]  # the default class
    assert len(set(made)) == len({registry.registry.get(name.lower(), registry.default_class)
                                  for name, _ in HEADERS_AND_VALUES})
    registry.map_to_type("x-unknown", registry.registry["subject"])  # registered anew: a class of its own
    assert registry["X-Unknown"] is registry["Subject"] is not registry["X-Another"]


def test_a_copy_for_another_address_is_written_without_parsing_its_own_headers(monkeypatch):
    calls: list[str] = []
    made = HeaderClasses.__call__

    def counted(self, name, value):
        calls.append(name)
        return made(self, name, value)

    monkeypatch.setattr(HeaderClasses, "__call__", counted)
    mailer = Mailer(MailSettings(address="judge@crusader.test"))
    for season in ("S1101M", "F1101M"):
        message = announcement_message("judge@crusader.test", "first@players.test", f"results of {season}", "b",
                                       message_id=f"<{season}@crusader.test>")
        letter = Letter(message)
        assert letter.raw == {"To", "Message-ID"}
        mailer._wire(letter.to("first@players.test", f"<{season}.first@crusader.test>"), utf8=False, eight_bit=True)
        calls.clear()
        for n in range(3):
            wire = b"".join(mailer._wire(letter.to(f"p{n}.{season}@players.test", f"<{season}.{n}@crusader.test>"),
                                         utf8=False, eight_bit=True))
            assert f"\r\nTo: p{n}.{season}@players.test\r\n".encode() in wire
        assert calls == []  # neither the new addresses nor the Message-IDs parsed
    assert policies.WIRE[False, True] is WIRE[False, True]


@settings(max_examples=300, deadline=None)
@given(st.from_regex(r"[a-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
                     r"(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?){0,3}", fullmatch=True))
def test_an_address_the_judge_writes_to_is_written_the_same_set_as_it_is_or_parsed(text):
    try:
        address = normalise(text)
    except AddressError:
        return  # (".." and a leading dot: not an address the judge mails)
    for policy in WIRE.values():
        assert own_field(policy, "To", address, raw=True) == own_field(policy, "To", address)


@pytest.mark.parametrize("value", ["<a@crusader.test>\r\nBcc: someone@else.test", "<a@crusader.test>\nX: y"])
def test_a_message_id_set_as_it_is_is_on_one_line(value):
    with pytest.raises(ValueError, match="more than one line"):
        announcement_message("judge@crusader.test", "ant@players.test", "s", "b", message_id=value)
    with pytest.raises(ValueError, match="more than one line"):
        own_field(WIRE[False, True], "Message-ID", value, raw=True)
