"""Power passwords: scrypt with a per-password salt, compared in constant time.

A stored hash reads ``scrypt$<n>$<r>$<p>$<salt>$<digest>`` (salt and digest base64), so the
cost can be raised later without making old hashes unreadable.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from adjudicator.errors import CrusaderError

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
_DIGEST_BYTES = 32
MIN_LENGTH, MAX_LENGTH = 4, 64
_LETTERS = "abcdefghjkmnpqrstuvwxyz23456789"  # none that a reader takes for another (l, 1, o, 0, i)


def new_password() -> str:
    """A password the judge makes and mails: three groups of four letters and digits (about 59 bits)."""
    return "-".join("".join(secrets.choice(_LETTERS) for _ in range(4)) for _ in range(3))


class PasswordError(CrusaderError, ValueError):
    """A new password that the judge will not store; the message says what would be accepted."""


def check_new_password(password: str) -> str:
    """``password`` if it can be a power's password; otherwise :class:`PasswordError` saying why."""
    if not MIN_LENGTH <= len(password) <= MAX_LENGTH:
        raise PasswordError(f"a password must be {MIN_LENGTH} to {MAX_LENGTH} characters long "
                            f"(the one given has {len(password)})")
    if any(ch.isspace() or not ch.isprintable() for ch in password):
        raise PasswordError("a password may not contain spaces or control characters: it is written "
                            "on the SIGNON line after the power and game, like SIGNON ANTcrusade1 secret")
    return password


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=_DIGEST_BYTES,
                          maxmem=256 * n * r + 1024 * 1024)


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = _scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    b64 = lambda raw: base64.b64encode(raw).decode("ascii")  # noqa: E731
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${b64(salt)}${b64(digest)}"


def verify_password(password: str, stored: str | None) -> bool:
    """Whether ``password`` matches ``stored``; ``False`` for no hash or an unreadable one."""
    if not stored:
        return False
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest)
        actual = _scrypt(password, base64.b64decode(salt), int(n), int(r), int(p))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(actual, expected)
