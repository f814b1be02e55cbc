"""A stream of malformed mail never brings the listener down, and never costs the good message
sent after it: random bytes, broken MIME, huge headers, HTML-only, binary attachments, no From."""

from __future__ import annotations

import base64

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.frontends.mail import passwords
from bot.store.database import Database
from tests.budgets import examples

ADDRESSES = {"JER": "jer@players.test", "ANT": "ant@players.test"}
MAX_BYTES = 20_000
ACCEPTABLE = {250, 500, 552, 554}  # read (and answered), line too long, too big, refused: never 451 or a hang


@pytest.fixture(scope="module")
def rig(tmp_path_factory, open_rig):
    cost = passwords.SCRYPT_N
    passwords.SCRYPT_N = 2**10
    db = Database.sqlite_file(tmp_path_factory.mktemp("fuzz") / "judge.db")
    db.migrate()
    # the stream signs on with wrong passwords from the registered address again and again: the hourly
    # lock that would then refuse even the right one is tested in test_accounts, not here
    with open_rig(db, max_bytes=MAX_BYTES, signon_failures=10**6) as rig:
        rig.register_game("crusade1", ADDRESSES)
        yield rig
    db.dispose()
    passwords.SCRYPT_N = cost


header_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=80)
senders = st.sampled_from(["", "jer@players.test", "ant@players.test", "nobody@nowhere.test", "not an address"])
words = st.sampled_from(["SIGNON", "JERcrusade1", "ANTcrusade1", "pw-JER", "wrong", "A jer - heb", "LIST", "SIGNOFF",
                         "SET PASSWORD", "RESIGN", "PHASE", "F1101M", "HELP", "\x00", "é", "=?utf-8?q?x?=", "."])
body_text = st.lists(words, max_size=12).map(lambda ws: "\r\n".join(ws))


@st.composite
def random_bytes(draw) -> bytes:
    return draw(st.binary(max_size=2000))


@st.composite
def broken_mime(draw) -> bytes:
    boundary = draw(st.sampled_from(["b1", "", "\"unterminated", "b1; charset=zz"]))
    claimed = draw(st.sampled_from(["multipart/mixed", "multipart/alternative", "text/plain", "message/rfc822",
                                    "text/html", "multipart/related", "x/y/z", ""]))
    charset = draw(st.sampled_from(["utf-8", "klingon-8", "", "utf-7", "iso-8859-1"]))
    encoding = draw(st.sampled_from(["base64", "quoted-printable", "8bit", "x-uuencode", "7bit"]))
    part_body = draw(body_text).encode("utf-8", "surrogateescape")
    if encoding == "base64" and draw(st.booleans()):
        part_body = base64.b64encode(part_body)[:-2] + b"!!"  # broken base64
    sender = draw(st.sampled_from(["From: jer@players.test\r\n", "From: <>\r\n", "From: a@b, c@d\r\n", ""]))
    inner = (f"--b1\r\nContent-Type: text/plain; charset={charset}\r\nContent-Transfer-Encoding: {encoding}\r\n\r\n"
             .encode() + part_body + b"\r\n")
    closing = draw(st.sampled_from([b"--b1--\r\n", b"", b"--b2--\r\n"]))
    head = f"Subject: broken\r\nMIME-Version: 1.0\r\nContent-Type: {claimed}; boundary={boundary}\r\n\r\n"
    return sender.encode() + head.encode() + inner + closing


@st.composite
def huge_headers(draw) -> bytes:
    size = draw(st.sampled_from([900, 5_000, 30_000, 90_000]))
    folded = draw(st.booleans())
    value = ("x" * 70 + "\r\n ") * (size // 73) if folded else "y" * size
    return f"From: jer@players.test\r\nX-Huge: {value}\r\nSubject: big\r\n\r\nSIGNON JERcrusade1 wrong\r\n".encode()


@st.composite
def html_only(draw) -> bytes:
    inner = draw(st.lists(st.sampled_from(["<p>", "</p>", "<br>", "<div>", "<script>A jer - heb", "</script>",
                                           "<blockquote>", "&amp;", "&#0;", "&nosuch;", "<", ">", "SIGNON",
                                           "JERcrusade1 wrong", "A jer H", "<!--", "-->"]), max_size=30))
    return ("From: jer@players.test\r\nSubject: html\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8"
            "\r\n\r\n" + "".join(inner) + "\r\n").encode()


@st.composite
def binary_attachment(draw) -> bytes:
    payload = base64.encodebytes(draw(st.binary(max_size=1500))).replace(b"\n", b"\r\n")
    text = draw(st.booleans())
    text_part = b"--b1\r\nContent-Type: text/plain\r\n\r\nSIGNON JERcrusade1 wrong\r\n" if text else b""
    return (b"From: jer@players.test\r\nSubject: attachment\r\nMIME-Version: 1.0\r\n"
            b"Content-Type: multipart/mixed; boundary=b1\r\n\r\n" + text_part +
            b"--b1\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=\"x.bin\"\r\n"
            b"Content-Transfer-Encoding: base64\r\n\r\n" + payload + b"--b1--\r\n")


@st.composite
def odd_headers(draw) -> bytes:
    lines = [f"{draw(st.sampled_from(['From', 'Subject', 'Content-Type', 'Message-ID', 'X-A', 'Reply-To']))}: "
             f"{draw(header_text)}" for _ in range(draw(st.integers(0, 6)))]
    text = "\r\n".join(line.replace("\r", "").replace("\n", "") for line in lines)
    return text.encode("utf-8", "surrogateescape") + b"\r\n\r\n" + draw(body_text).encode("utf-8", "surrogateescape")


@st.composite
def oversized(draw) -> bytes:
    size = draw(st.sampled_from([MAX_BYTES + 10, 3 * MAX_BYTES, 5 * MAX_BYTES]))
    line = b"A jer - heb\r\n"
    return b"From: jer@players.test\r\nSubject: long\r\n\r\nSIGNON JERcrusade1 pw-JER\r\n" + line * (size // len(line))


malformed = st.one_of(random_bytes(), broken_mime(), huge_headers(), html_only(), binary_attachment(),
                      odd_headers(), oversized())
_sent = iter(range(10**6))


@settings(max_examples=examples(40, 200), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(stream=st.lists(st.tuples(malformed, senders), min_size=1, max_size=3))
def test_malformed_mail_never_costs_the_good_message_after_it(rig, stream):
    for raw, sender in stream:
        code = rig.send_raw(raw, mail_from=sender)
        assert code in ACCEPTABLE, f"the listener answered {code} to {raw[:200]!r}"
    order = ["A jer - heb", "A jer H", "A jer - oul"][next(_sent) % 3]
    message_id = rig.mail(ADDRESSES["JER"], f"SIGNON JERcrusade1 pw-JER\n{order}\nSIGNOFF\n")
    reply = rig.reply(message_id)
    assert f"accepted: JER: {order}" in reply.text
    assert f"  JER: {order}" in reply.text.split("Orders standing")[1]


def test_a_message_too_large_gets_a_polite_refusal_by_mail(rig):
    body = "SIGNON JERcrusade1 pw-JER\n" + "A jer - heb\n" * (MAX_BYTES // 10)
    reply = rig.ask(ADDRESSES["JER"], body)
    assert "the judge reads at most 20,000" in reply.text and "plain text" in reply.text
    assert "accepted" not in reply.text
    huge = b"From: jer@players.test\r\n\r\n" + (b"y" * 70 + b"\r\n") * (5 * MAX_BYTES // 72)
    assert rig.send_raw(huge, mail_from=ADDRESSES["JER"]) == 552  # refused during the SMTP exchange
    assert "accepted: JER: A jer H" in rig.ask(ADDRESSES["JER"], "SIGNON JERcrusade1 pw-JER\nA jer H").text
