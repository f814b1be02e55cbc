"""Who may sign on for a power: hashed passwords, registered addresses, the game master's say,
and the mail tables' migration."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlmodel import SQLModel

from bot import storage
from bot.mail import passwords, store
from bot.mail.accounts import ForeignSender, MailAccounts, SignonRefused
from bot.mail.addresses import AddressError
from bot.migrations import alembic_config
from bot.service import GameService, NotAllowedError
from tests.service_support import sqlite_db  # noqa: F401


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


def test_deleting_a_game_deletes_its_mail_identities(accounts, sqlite_db):
    accounts.register("crusade1", "gm", "ANT", address="ant@players.test", password="right-one")
    with sqlite_db.session() as session:
        game = storage.game_by_name(session, "crusade1")
        storage.delete_game(session, game.id)
    with sqlite_db.session() as session:
        assert store.identities_of(session, game.id) == []


def test_the_operator_registers_a_power_from_the_shell(tmp_path, monkeypatch, capsys):
    import io

    from bot.mail.__main__ import main

    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    monkeypatch.setenv("CRUSADER_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("CRUSADER_DATABASE_URL", raising=False)
    db = storage.Database.sqlite_file(tmp_path / "crusader.db")
    db.migrate()
    service = GameService(db)
    service.create_game("crusade1", "crusader", "gm", seed=3)
    monkeypatch.setattr("sys.stdin", io.StringIO("from-stdin\n"))
    assert main(["register", "crusade1", "ant", "Ant@Players.test", "--password-stdin"]) == 0
    assert "from-stdin" not in capsys.readouterr().out
    me = MailAccounts(service).authenticate("crusade1", "ANT", "from-stdin", "ant@players.test")
    assert me.address == "ant@players.test"
    monkeypatch.setattr("sys.stdin", io.StringIO("x\n"))
    assert main(["password", "crusade1", "ANT", "--password-stdin"]) == 2
    assert "4 to 64 characters" in capsys.readouterr().err
    db.dispose()
