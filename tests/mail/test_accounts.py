"""Who may sign on for a power: hashed passwords, registered addresses, the game master's say,
and the mail tables' migration."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlmodel import SQLModel

from bot.frontends.mail import passwords
from bot.store import mail as mail_store
from bot.frontends.mail.accounts import ForeignSender, MailAccounts, SignonRefused
from bot.frontends.mail.addresses import AddressError
from bot.service import GameService, NotAllowedError
from bot.store import database
from bot.store.migrations import alembic_config


@pytest.fixture
def accounts(sqlite_db, monkeypatch):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    service = GameService(sqlite_db)
    service.create_game("crusade1", "crusader", "gm", seed=3)
    service.join("crusade1", "discord:77", "ANT")
    return MailAccounts(service, failures_per_hour=3)


def test_the_migrations_form_one_line_and_match_the_mail_tables(sqlite_db):
    heads = ScriptDirectory.from_config(alembic_config()).get_heads()
    assert len(heads) == 1, f"the migrations have several heads: {heads}"
    with sqlite_db.engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), SQLModel.metadata)
    mine = [d for d in diff if "mail_" in repr(d)]
    assert mine == []


def test_a_hash_is_salted_and_checked_in_constant_time():
    first, second = passwords.hash_password("secret"), passwords.hash_password("secret")
    assert first != second and "secret" not in first and first.startswith("scrypt$")
    assert passwords.verify_password("secret", first) and passwords.verify_password("secret", second)
    assert not passwords.verify_password("Secret", first)
    assert not passwords.verify_password("secret", None)
    assert not passwords.verify_password("secret", "scrypt$garbage")
    with pytest.raises(passwords.PasswordError, match="4 to 64 characters"):
        passwords.check_new_password("abc")
    with pytest.raises(passwords.PasswordError, match="spaces"):
        passwords.check_new_password("two words")


def test_only_the_hash_is_stored(accounts, sqlite_db):
    accounts.register("crusade1", "gm", "ant", address="Ant@Players.TEST", password="open-sesame")
    with sqlite_db.engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT * FROM mail_identity")).mappings().all()
    assert len(rows) == 1
    assert "open-sesame" not in repr(dict(rows[0]))
    assert rows[0]["address"] == "ant@players.test" and rows[0]["power"] == "ANT"
    me = accounts.authenticate("crusade1", "ANT", "open-sesame", "ant@players.test")
    assert (me.power, me.player, me.address) == ("ANT", "discord:77", "ant@players.test")


def test_the_game_master_or_the_powers_player_sets_a_password(accounts):
    accounts.set_power_password("crusade1", "discord:77", "ANT", "mine-now")
    accounts.set_power_password("crusade1", None, "BYZ", "operator")
    with pytest.raises(NotAllowedError, match="game master"):
        accounts.set_power_password("crusade1", "discord:99", "ANT", "stolen!")
    with pytest.raises(NotAllowedError, match="game master"):
        accounts.set_power_address("crusade1", "discord:77", "ANT", "elsewhere@evil.test")
    with pytest.raises(AddressError, match="plain e-mail address"):
        accounts.set_power_address("crusade1", "gm", "ANT", "a@b.test, c@d.test")
    with pytest.raises(ValueError, match="not a power"):
        accounts.set_power_password("crusade1", "gm", "XYZ", "whatever")
    accounts.set_power_address("crusade1", "gm", "ANT", "ant@players.test")
    assert accounts.authenticate("crusade1", "ANT", "mine-now", "ant@players.test").power == "ANT"


def test_set_password_acts_as_the_sender_never_with_the_operators_rights(accounts):
    """SET PASSWORD by mail: the signed-on player changes its power's password as itself. Once it
    no longer plays the power (it left the game), the identity it signed on with may not, where
    the operator may; a power nobody plays is changed by the address it was registered for."""
    accounts.register("crusade1", "gm", "ANT", address="ant@players.test", password="right-one")
    me = accounts.authenticate("crusade1", "ANT", "right-one", "ant@players.test")
    accounts.set_own_password(me, "second-one")
    assert accounts.authenticate("crusade1", "ANT", "second-one", "ant@players.test").power == "ANT"
    accounts.service.leave("crusade1", "discord:77")
    with pytest.raises(NotAllowedError, match="game master"):
        accounts.set_own_password(me, "hijacked")
    accounts.set_power_password("crusade1", None, "ANT", "operator-may")        # only the operator
    accounts.register("crusade1", "gm", "BYZ", address="byz@players.test", password="byz-first")
    byz = accounts.authenticate("crusade1", "BYZ", "byz-first", "byz@players.test")
    assert byz.player is None
    accounts.set_own_password(byz, "byz-second")
    assert accounts.authenticate("crusade1", "BYZ", "byz-second", "byz@players.test").power == "BYZ"


def test_refusals_say_what_was_wrong_and_never_the_password(accounts):
    accounts.register("crusade1", "gm", "ANT", address="ant@players.test", password="right-one")
    cases = [("nosuchgame", "ANT", "right-one", "no game called 'nosuchgame'"),
             ("crusade1", "XYZ", "right-one", "not a power of game 'crusade1'"),
             ("crusade1", "BYZ", "right-one", "BYZ in game 'crusade1' cannot be played by mail yet"),
             ("crusade1", "ANT", "wrong-one", "not the password of ANT")]
    for game, power, password, expected in cases:
        with pytest.raises(SignonRefused, match=expected) as refused:
            accounts.authenticate(game, power, password, "ant@players.test")
        assert password not in str(refused.value)


def test_another_address_learns_nothing_about_the_password(accounts):
    accounts.register("crusade1", "gm", "ANT", address="ant@players.test", password="right-one")
    refusals = []
    for password in ("right-one", "wrong-one"):
        with pytest.raises(ForeignSender) as refused:
            accounts.authenticate("crusade1", "ANT", password, "someone@else.test")
        refusals.append(refused.value)
    assert str(refusals[0]) == str(refusals[1])
    assert "did not come from the address registered for ANT" in str(refusals[0])
    assert "ant@players.test" not in str(refusals[0])
    assert [r.password_right for r in refusals] == [True, False]


def test_too_many_wrong_passwords_lock_the_power_until_a_new_one_is_set(accounts):
    accounts.register("crusade1", "gm", "ANT", address="ant@players.test", password="right-one")
    for _ in range(5):  # from elsewhere: refused, and not counted (nobody locks a player out from afar)
        with pytest.raises(ForeignSender):
            accounts.authenticate("crusade1", "ANT", "guess", "rival@players.test")
    for _ in range(3):
        with pytest.raises(SignonRefused, match="not the password"):
            accounts.authenticate("crusade1", "ANT", "guess", "ant@players.test")
    with pytest.raises(SignonRefused, match="too many wrong passwords"):
        accounts.authenticate("crusade1", "ANT", "right-one", "ant@players.test")
    accounts.set_power_password("crusade1", "gm", "ANT", "fresh-one")
    assert accounts.authenticate("crusade1", "ANT", "fresh-one", "ant@players.test").power == "ANT"


def test_the_limit_on_wrong_passwords_is_shared_by_every_server_and_outlasts_a_restart(accounts, sqlite_db, start):
    from datetime import timedelta

    moment = [start]
    clock = lambda: moment[0]  # noqa: E731
    accounts.service.clock = clock
    accounts.register("crusade1", "gm", "ANT", address="ant@players.test", password="right-one")
    other = MailAccounts(GameService(sqlite_db, clock=clock), failures_per_hour=3)  # a second server
    for server in (accounts, other, accounts):
        with pytest.raises(SignonRefused, match="not the password"):
            server.authenticate("crusade1", "ANT", "guess", "ant@players.test")
    restarted = MailAccounts(GameService(sqlite_db, clock=clock), failures_per_hour=3)
    for server in (accounts, other, restarted):
        with pytest.raises(SignonRefused, match="too many wrong passwords"):
            server.authenticate("crusade1", "ANT", "right-one", "ant@players.test")
    moment[0] += timedelta(minutes=61)  # the guesses of an hour ago no longer count
    assert restarted.authenticate("crusade1", "ANT", "right-one", "ant@players.test").power == "ANT"


def test_deleting_a_game_deletes_its_mail_identities(accounts, sqlite_db):
    accounts.register("crusade1", "gm", "ANT", address="ant@players.test", password="right-one")
    with sqlite_db.session() as session:
        game = database.game_by_name(session, "crusade1")
        database.delete_game(session, game.id)
    with sqlite_db.session() as session:
        assert mail_store.identities_of(session, game.id) == []


def test_the_operator_registers_lists_and_removes_mail_players_with_crusader(tmp_path, monkeypatch, capsys):
    import io
    import json

    from bot.cli.main import main

    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    monkeypatch.setenv("CRUSADER_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("CRUSADER_DATABASE_URL", raising=False)
    db = database.Database.sqlite_file(tmp_path / "crusader.db")
    db.migrate()
    service = GameService(db)
    service.create_game("crusade1", "crusader", "gm", seed=3)
    service.join("crusade1", "ann@players.test", "ANT")

    monkeypatch.setattr("sys.stdin", io.StringIO("from-stdin\n"))
    assert main(["mail", "register", "crusade1", "ant", "Ann@Players.test", "--password-stdin"]) == 0
    out = capsys.readouterr().out
    assert "from-stdin" not in out and "ANT in crusade1 may now be played by mail from ann@players.test" in out
    me = MailAccounts(service).authenticate("crusade1", "ANT", "from-stdin", "ann@players.test")
    assert (me.address, me.player) == ("ann@players.test", "ann@players.test")

    # without a password the judge makes one and mails it: an announcement waits in the outbox, no password in it
    assert main(["mail", "register", "crusade1", "BYZ", "byz@players.test"]) == 0
    assert "a new password is mailed to byz@players.test" in capsys.readouterr().out
    with db.session() as session:
        [owed] = [o for o in database.outbox_of(session) if o.kind == "password"]
    assert owed.recipients == ["byz@players.test"] and owed.audience == "direct"

    assert main(["mail", "list", "crusade1", "--format", "json"]) == 0
    listed = {p["power"]: p for p in json.loads(capsys.readouterr().out)["powers"]}
    assert listed["ANT"]["password"] and not listed["ANT"]["password_owed"]
    assert listed["BYZ"]["password_owed"] and not listed["BYZ"]["password"]
    assert main(["mail", "list", "crusade1"]) == 0
    out = capsys.readouterr().out
    assert "ANT  ann@players.test" in out
    assert "a new password waits to be mailed (when crusader serve sends the judge's mail)" in out
    # once the mail has left, the list says so (and no longer that a password waits to be mailed)
    import asyncio

    from bot.store.outbox import OutboxDispatcher
    from tests.notifiers import RecordingNotifier

    asyncio.run(OutboxDispatcher(db, [RecordingNotifier(lambda a: a.direct_to("mail"), name="mail")]).flush())
    assert main(["mail", "list", "crusade1"]) == 0
    out = capsys.readouterr().out
    assert "BYZ  byz@players.test" in out and "a new password was mailed; not signed on with yet" in out
    assert "waits to be mailed" not in out

    # what the judge will not do is one line and an exit code, never a traceback
    monkeypatch.setattr("sys.stdin", io.StringIO("x\n"))
    assert main(["mail", "password", "crusade1", "ANT", "--password-stdin"]) == 2
    assert "4 to 64 characters" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["mail", "password", "crusade1", "ANT", "--password-stdin"]) == 2
    assert "standard input" in capsys.readouterr().err
    assert main(["mail", "register", "crusade1", "ANT", "not an address"]) == 2
    assert "plain e-mail address" in capsys.readouterr().err
    assert main(["mail", "register", "nosuch", "ANT", "a@b.test"]) == 2
    assert "no game 'nosuch'" in capsys.readouterr().err
    assert main(["mail", "remove", "crusade1", "JER"]) == 2
    assert "no address is registered for JER" in capsys.readouterr().err

    assert main(["mail", "remove", "crusade1", "ANT"]) == 0
    with pytest.raises(SignonRefused, match="cannot be played by mail yet"):
        MailAccounts(service).authenticate("crusade1", "ANT", "from-stdin", "ann@players.test")
    db.dispose()


def test_the_guessing_bound_holds_against_a_rival_with_many_sending_addresses(accounts):
    from bot.frontends.mail.accounts import DOMAIN_SENDERS

    accounts.register("crusade1", "gm", "ANT", address="ant@players.test", password="right-one")
    assert accounts.authenticate("crusade1", "ANT", "right-one", "ant@players.test", "ant@players.test")
    for i in range(DOMAIN_SENDERS * accounts.failures_per_hour):
        with pytest.raises(SignonRefused, match="not the password"):
            accounts.authenticate("crusade1", "ANT", "guess", "ant@players.test", f"rival{i}@evil.test")
    with pytest.raises(SignonRefused, match="too many wrong passwords"):  # a new sender there is not even checked
        accounts.authenticate("crusade1", "ANT", "right-one", "ant@players.test", "fresh@Evil.test")
    # the sender the player signed on from before is still checked, and lets the player in; so is the
    # player's right password from a new mail system elsewhere: the rival's guesses lock out only the rival's
    assert accounts.authenticate("crusade1", "ANT", "right-one", "ant@players.test", "ant@players.test").power == "ANT"
    assert accounts.authenticate("crusade1", "ANT", "right-one", "ant@players.test", "ant@travel.test").power == "ANT"
