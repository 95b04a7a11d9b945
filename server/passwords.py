"""Salted, slow password hashes (scrypt from the standard library).

The database keeps only ``scrypt$n$r$p$salt$hash``; the clear password exists in
memory for the length of one request. Because HTTP basic auth sends the password
with every request and scrypt is deliberately slow (~50 ms), a verified
credential is remembered as an HMAC under a key that lives only in this process,
so the next request from the same client costs microseconds and a leaked cache
reveals nothing without the key.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading

SCRYPT_N = 2**14
"""CPU/memory cost (16 MiB per hash with r=8): the OWASP minimum for scrypt."""
SCRYPT_R = 8
SCRYPT_P = 1
_SALT_BYTES = 16
_KEY_BYTES = 32


def hash_password(password: str, *, n: int = SCRYPT_N) -> str:
    """A self-describing salted scrypt hash of `password`."""
    salt = secrets.token_bytes(_SALT_BYTES)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=n, r=SCRYPT_R, p=SCRYPT_P, dklen=_KEY_BYTES)
    return f"scrypt${n}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    """Whether `password` matches a hash made by :func:`hash_password` (constant-time compare)."""
    try:
        scheme, n, r, p, salt_hex, digest_hex = stored.split("$")
    except ValueError:
        return False
    if scheme != "scrypt":
        return False
    digest = hashlib.scrypt(
        password.encode(), salt=bytes.fromhex(salt_hex), n=int(n), r=int(r), p=int(p), dklen=len(digest_hex) // 2
    )
    return hmac.compare_digest(digest.hex(), digest_hex)


class CredentialCache:
    """Remembers credentials already verified against a stored hash, keyed by a per-process secret."""

    def __init__(self) -> None:
        self._key = secrets.token_bytes(32)
        self._verified: dict[str, tuple[str, str]] = {}  # username -> (stored hash, HMAC of password)
        self._lock = threading.Lock()

    def _mac(self, username: str, password: str) -> str:
        return hmac.new(self._key, f"{username}\0{password}".encode(), hashlib.sha256).hexdigest()

    def check_cached(self, username: str, password: str, stored: str) -> bool:
        """Whether these credentials were verified before (fast; False means "unknown", not "wrong")."""
        with self._lock:
            known = self._verified.get(username)
        return known is not None and known[0] == stored and hmac.compare_digest(known[1], self._mac(username, password))

    def remember(self, username: str, password: str, stored: str) -> None:
        """Record credentials known to be right (`stored` was just made from `password`)."""
        with self._lock:
            self._verified[username] = (stored, self._mac(username, password))

    def check(self, username: str, password: str, stored: str) -> bool:
        """Whether `password` is right for `username` whose stored hash is `stored` (slow the first time)."""
        if self.check_cached(username, password, stored):
            return True
        mac = self._mac(username, password)
        if not verify_password(password, stored):
            return False
        with self._lock:
            self._verified[username] = (stored, mac)
        return True
