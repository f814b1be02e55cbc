"""A player's mail read as the judge reads it (MIME, HTML, quotes, signatures), and the judges'
command lines: no network here, only the parsing."""

from __future__ import annotations

from email.message import EmailMessage

from bot.frontends.mail.commands import MASK, read_line, read_script, signon_echo, split_signon
from bot.frontends.mail.htmltext import html_to_text
from bot.frontends.mail.reading import clean_text, read_mail


def message(body: str = "SIGNON ANTcrusade1 secret\nA ant - ata\n", **headers) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = headers.pop("From", "Ant Player <Ant@Players.test>")
    msg["Subject"] = headers.pop("Subject", "orders")
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body)
    return msg


def test_plain_text_is_preferred_to_html():
    msg = message("SIGNON ANTcrusade1 secret\nA ant - ata\n")
    msg.add_alternative("<p>SIGNON ANTcrusade1 secret</p><p>A ant - ala</p>", subtype="html")
    mail = read_mail(bytes(msg), envelope_sender="x@y.test")
    assert mail.problem is None and mail.sender == "ant@players.test"
    assert mail.text == "SIGNON ANTcrusade1 secret\nA ant - ata\n"


def test_html_only_mail_is_read_as_text_without_quotes_or_scripts():
    msg = message()
    msg.set_content("<html><head><title>T</title><style>p{}</style></head><body><p>SIGNON ANTcrusade1 secret</p>"
                    "<div>A ant&nbsp;-&nbsp;ata<br/>A tar - tam</div><blockquote><p>A ant - ala</p></blockquote>"
                    "<script>A lat - nlc</script></body></html>", subtype="html")
    mail = read_mail(bytes(msg), envelope_sender="x@y.test")
    assert mail.text.split("\n")[:3] == ["SIGNON ANTcrusade1 secret", "A ant - ata", "A tar - tam"]
    assert "ala" not in mail.text and "nlc" not in mail.text and "T" not in mail.text.split()
    assert any("HTML was read as text" in note for note in mail.notes)
    assert html_to_text("<p>unclosed <b>bold <div>x") == "unclosed bold\nx\n"


def test_quoted_replies_signatures_and_forwarded_tails_are_dropped():
    text = ("SIGNON ANTcrusade1 secret\nA ant - ata\n\nOn Tue, 3 Mar 2031, Judge wrote:\n> A ant - ala\n>> LIST\n"
            "A tar - tam\n-- \nAnt, Prince of Antioch\nA lat - nlc\n")
    assert clean_text(text) == "SIGNON ANTcrusade1 secret\nA ant - ata\n\nA tar - tam\n"
    outlook = "A ant - ata\n-----Original Message-----\nFrom: judge\nA ant - ala\n"
    assert clean_text(outlook) == "A ant - ata\n"
    assert clean_text("I wrote:\nA ant - ata\n") == "I wrote:\nA ant - ata\n"  # not followed by a quote


def test_the_judges_own_mail_quoted_without_marks_is_not_read_as_orders():
    results = ("    Diplomacy results for Spring 1101 Movement (S1101M) in game 'outremer'.\n\n    ANT:\n"
               "      A ant - ata\n      A tar - tam\n")
    msg = message("SIGNON ANTcrusade1 secret\nA ata H\n\n" + results)
    mail = read_mail(bytes(msg), envelope_sender="x@y.test")
    assert mail.text == "SIGNON ANTcrusade1 secret\nA ata H\n"
    assert "the judge's own mail quoted in the message (from its first line on) was not read" in mail.notes
    answer = "Orders standing for ANT in 'outremer', S1101M:\n  ANT: A ant - ata\n"
    assert clean_text("A tar H\n" + answer) == "A tar H\n"


def test_attachments_are_noted_and_ignored():
    msg = message()
    msg.add_attachment(b"\x00\x01binary", maintype="application", subtype="octet-stream", filename="orders.xlsx")
    mail = read_mail(bytes(msg), envelope_sender="x@y.test")
    assert mail.problem is None and "A ant - ata" in mail.text
    assert mail.notes == ("the attachment 'orders.xlsx' was ignored",)


def test_unreadable_mail_becomes_a_problem_to_answer_not_an_error():
    only_binary = EmailMessage()
    only_binary["From"] = "ant@players.test"
    only_binary.set_content(b"\x89PNG...", maintype="image", subtype="png")
    problem = read_mail(bytes(only_binary), envelope_sender="a@b.c").problem
    assert "no plain-text or HTML part (it is image/png)" in problem
    no_boundary = (b"From: ant@players.test\r\nContent-Type: multipart/mixed\r\n\r\n--x\r\nSIGNON\r\n--x--\r\n")
    assert "MIME" in read_mail(no_boundary, envelope_sender="a@b.c").problem
    empty = read_mail(b"From: ant@players.test\r\n\r\n\r\n", envelope_sender="a@b.c")
    assert "no text the judge could read" in empty.problem
    garbage = read_mail(bytes(range(256)) * 3, envelope_sender="ant@players.test")
    assert garbage.sender == "ant@players.test" and (garbage.problem or garbage.text)


def test_an_unknown_charset_is_read_as_utf8():
    raw = ("From: ant@players.test\r\nContent-Type: text/plain; charset=klingon\r\n\r\n"
           "SIGNON ANTcrusade1 s\u00e9cret\r\n").encode()
    assert read_mail(raw, envelope_sender="a@b.c").text == "SIGNON ANTcrusade1 s\u00e9cret\n"


def test_too_large_mail_is_refused_with_the_limit():
    raw = bytes(message("A ant H\n" * 5000))
    mail = read_mail(raw, envelope_sender="ant@players.test", max_bytes=10_000)
    assert mail.text == "" and "reads at most 10,000" in mail.problem and mail.sender == "ant@players.test"


def test_the_sender_is_the_single_from_address_or_else_the_envelope():
    assert read_mail(bytes(message()), envelope_sender="env@players.test").sender == "ant@players.test"
    two = message(From="a@players.test, b@players.test")
    assert read_mail(bytes(two), envelope_sender="env@players.test").sender == "env@players.test"
    bad = message(From="not an address")
    assert read_mail(bytes(bad), envelope_sender="env@players.test").sender == "env@players.test"


def test_robots_are_recognised():
    assert read_mail(bytes(message()), envelope_sender="").automatic  # a bounce
    assert read_mail(bytes(message(Auto_Submitted="auto-replied")), envelope_sender="a@b.c").automatic
    assert read_mail(bytes(message(Precedence="list")), envelope_sender="a@b.c").automatic
    assert not read_mail(bytes(message(Auto_Submitted="no")), envelope_sender="a@b.c").automatic


def test_passwords_are_masked_in_what_is_echoed():
    signon = read_line("signon ANTcrusade1 hunter2")
    assert (signon.kind, signon.args) == ("signon", ("ANTcrusade1", "hunter2"))
    assert signon.echo == f"SIGNON ANTcrusade1 {MASK}"
    apart = read_line("SIGNON ANT crusade1 hunter2")  # which words name the game is the session's to find
    assert apart.args == ("ANT", "crusade1", "hunter2") and apart.echo == f"SIGNON ANT {MASK}"
    assert signon_echo(("ANT", "crusade1")) == f"SIGNON ANT crusade1 {MASK}"
    spaced = read_line("SIGNON ANTcrusade1 my secret")  # a password written with a space: no word of it shown
    assert spaced.echo == f"SIGNON ANTcrusade1 {MASK}" and "my" not in spaced.echo.split()
    assert read_line("SIGNON ANTcrusade1").error and read_line("SIGNON").error
    password = read_line("set password hunter2")
    assert (password.kind, password.args, password.echo) == ("set_password", ("hunter2",), f"SET PASSWORD {MASK}")
    assert "hunter2" not in read_line("SET PASSWORD hunter2 and more").echo


def test_a_script_stops_at_signoff_and_counts_what_it_ignored():
    script = read_script("SIGNON ANTcrusade1 x\n\nA ant - ata\nlist\nPHASE F1101M\nsignoff\nA ant - ala\nthanks\n")
    assert [c.kind for c in script.commands] == ["signon", "order", "list", "phase", "signoff"]
    assert script.ignored_after_signoff == 2
    assert read_line("SET ADDRESS").error.startswith("write SET PASSWORD <new password>, or (the game master)")
    assert read_line("SET movement 48h").kind == "set"  # the game master's: the session checks who signed on
    assert read_line("RESIGN now").error
    remark = read_line("SIGNOFF please adjudicate soon")  # a remark after SIGNOFF is no error, and not echoed
    assert (remark.kind, remark.error, remark.echo) == ("signoff", None, "SIGNOFF ...")


def test_the_signon_word_splits_into_power_and_game():
    powers = {"crusade1": ["ANT", "BYZ"], "1": ["ANT"], "Crusade": ["JER"]}
    games = list(powers)
    assert split_signon("ANTcrusade1", games, powers) == ("ANT", "crusade1")
    assert split_signon("antCRUSADE1", games, powers) == ("ANT", "crusade1")
    assert split_signon("JERCrusade", games, powers) == ("JER", "Crusade")
    assert split_signon("XYZcrusade1", games, powers) is None
    assert split_signon("crusade1", games, powers) is None


def test_a_strangers_long_words_are_echoed_cut_short():
    long_word = "visit-my-shop-at-spam.test-" * 5
    assert read_line(f"SIGNON {long_word} pw").echo == f"SIGNON {long_word[:40]}... {MASK}"
    assert read_line(f"LIST {long_word}").echo == f"LIST {long_word[:40]}..."
