"""Accounts: names, argon2 passwords, server-side sessions in cookies, CSRF checks and login limits.

A session is a random id in an ``HttpOnly``, ``SameSite=Lax`` cookie
(``Secure`` when the request came over HTTPS); the server keeps its SHA-256
digest in the ``sessions`` table, so a session is revoked by deleting its
row. Every cookie-authenticated request that changes something must carry
the session's CSRF token in the ``X-CSRF-Token`` header (the page reads it
from the ``chinchon_csrf`` cookie, which is not ``HttpOnly``: a
double-submit token, checked against the digest kept with the session), and
a browser's ``Origin``, when sent, must be the server's own (or one given
with ``--origin``). Login attempts are limited per name and per address, and
their answers are the same whether or not the name exists (an unknown name
costs an argon2 verification too).

Names are checked as today's player names are (1 to 24 characters, no
control characters), then: unique after NFKC normalisation and case folding
(the *name key*), and written in one script (TR39's "highly restrictive"
level: one script, or Latin with Han and Japanese kana, or Latin with Han
and Hangul, or Latin with Han and Bopomofo), with digits of one numbering
system, so that no name can pass for another by mixing look-alike letters of
two scripts ("Аna" with a Cyrillic A is refused).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
import time
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from fastapi import Request, Response

from chinchon.errors import N_
from chinchon.server.hub import TokenBucket
from chinchon.server.players import Account, NameTaken, Players, Session
from chinchon.server.rooms import Refused, check_name

__all__ = [
    "CSRF_COOKIE",
    "CSRF_HEADER",
    "SESSION_COOKIE",
    "AccountLimits",
    "Accounts",
    "check_account_name",
    "check_password",
    "name_key",
    "name_scripts",
]

log = logging.getLogger("chinchon.server")

SESSION_COOKIE = "chinchon_session"
CSRF_COOKIE = "chinchon_csrf"
CSRF_HEADER = "x-csrf-token"
SESSION_DAYS = 30
PASSWORD_MIN = 8
PASSWORD_MAX = 256

# TR39's "highly restrictive" sets of scripts that may be mixed in one name.
_MIXES = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
)
# The first word of a letter's Unicode name that is not its script's name.
_SCRIPT_ALIASES = {"CJK": "HAN", "IDEOGRAPHIC": "HAN", "HALFWIDTH": "KATAKANA"}


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def name_key(name: str) -> str:
    """The form two names are compared in: NFKC, case-folded, NFKC again, spaces collapsed."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())


def _script(ch: str) -> str | None:
    """A letter's script, from its Unicode name (``None`` for what is not a letter)."""
    if not unicodedata.category(ch).startswith("L"):
        return None
    word = unicodedata.name(ch, "UNKNOWN").split(" ")[0].split("-")[0]
    return _SCRIPT_ALIASES.get(word, word)


def name_scripts(name: str) -> frozenset[str]:
    """The scripts of a name's letters (after NFKC)."""
    return frozenset(s for s in map(_script, unicodedata.normalize("NFKC", name)) if s is not None)


def check_account_name(name: object) -> str:
    """An account's name, trimmed: a player's name that mixes no scripts and no numbering systems.

    Raises:
        Refused: the name breaks a rule (the message says which).
    """
    clean = " ".join(check_name(name).split())
    scripts = name_scripts(clean)
    if len(scripts) > 1 and not any(scripts <= mix for mix in _MIXES):
        raise Refused(
            "bad_name",
            N_("a name is written in one alphabet; this one mixes {scripts}"),
            scripts=", ".join(sorted(s.title() for s in scripts)),
        )
    zeros = {ord(ch) - unicodedata.digit(ch) for ch in unicodedata.normalize("NFKC", clean) if ch.isdecimal()}
    if len(zeros) > 1:
        raise Refused("bad_name", N_("a name's digits are all of one kind"))
    return clean


def check_password(password: object) -> str:
    """A new password.

    Raises:
        Refused: not text, too short or too long.
    """
    if not isinstance(password, str):
        raise Refused("bad_password", N_("a password is text"))
    if len(password) < PASSWORD_MIN:
        raise Refused("bad_password", N_("a password has at least {least} characters"), least=PASSWORD_MIN)
    if len(password) > PASSWORD_MAX:
        raise Refused("bad_password", N_("a password has at most {most} characters"), most=PASSWORD_MAX)
    return password


@dataclass
class AccountLimits:
    """How often logins and registrations may be tried."""

    logins_per_name: float = 5.0
    """Login attempts a minute for one name (bursts of as many)."""
    logins_per_address: float = 20.0
    """Login attempts a minute from one address (bursts of as many)."""
    registrations_per_address: float = 10.0
    """Accounts created a minute from one address (bursts of as many)."""
    buckets: dict[tuple[str, str], TokenBucket] = field(default_factory=dict)

    def allow(self, kind: str, key: str) -> bool:
        """Whether one more attempt of a kind ("name", "address", "register") is allowed now."""
        per_minute = {
            "name": self.logins_per_name,
            "address": self.logins_per_address,
            "register": self.registrations_per_address,
        }[kind]
        if len(self.buckets) > 100_000:
            self.buckets.clear()
        bucket = self.buckets.setdefault((kind, key), TokenBucket(per_minute / 60, per_minute))
        return bucket.take()


@dataclass
class Login:
    """A new session: its account, and the id and CSRF token that go into the cookies."""

    account: Account
    session_id: str
    csrf: str


class Accounts:
    """Registration, login and sessions over :class:`Players`' tables."""

    def __init__(self, players: Players, origins: tuple[str, ...] = (), https: bool = False) -> None:
        self.players = players
        self.origins = origins
        self.https = https
        """Whether the server is reached over HTTPS (``serve --https``): the cookies are ``Secure`` then."""
        self.limits = AccountLimits()
        self.hasher = PasswordHasher()
        self._hashing = asyncio.Semaphore(2)  # argon2 takes 64 MiB a hash: a few at once
        self._dummy: str | None = None

    # -- passwords ------------------------------------------------------------------------

    async def _hash(self, password: str) -> str:
        async with self._hashing:
            return await asyncio.to_thread(self.hasher.hash, password)

    async def _verify(self, password_hash: str, password: str) -> bool:
        async with self._hashing:
            try:
                return await asyncio.to_thread(self.hasher.verify, password_hash, password)
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False

    async def _dummy_hash(self) -> str:
        if self._dummy is None:
            self._dummy = await self._hash(secrets.token_urlsafe(16))
        return self._dummy

    # -- accounts and sessions --------------------------------------------------------------

    async def register(self, name: object, password: object, address: str) -> Login:
        """A new account, logged in.

        Raises:
            Refused: a bad name or password, a name taken, or too many registrations from the address.
        """
        if not self.limits.allow("register", address):
            raise Refused("rate_limited", N_("too many accounts created; wait a minute"))
        clean = check_account_name(name)
        secret = check_password(password)
        try:
            account = await self.players.create_account(clean, name_key(clean), await self._hash(secret))
        except NameTaken:
            raise Refused("name_taken", N_("this name cannot be registered; choose another")) from None
        log.info("account created", extra={"account": account.id})
        return await self._new_session(account)

    async def login(self, name: object, password: object, address: str) -> Login:
        """A new session for a name and password.

        Raises:
            Refused: too many attempts, or a wrong name or password (the same answer for both).
        """
        key = name_key(name) if isinstance(name, str) else ""
        if not self.limits.allow("address", address) or not self.limits.allow("name", key):
            raise Refused("rate_limited", N_("too many login attempts; wait a minute"))
        account = await self.players.account_by_key(key) if key else None
        given = password if isinstance(password, str) and len(password) <= PASSWORD_MAX else ""
        good = await self._verify(account.password_hash if account else await self._dummy_hash(), given)
        if account is None or not good:
            raise Refused("bad_login", N_("wrong name or password"))
        if self.hasher.check_needs_rehash(account.password_hash):
            await self.players.set_password(account.id, await self._hash(given))
        return await self._new_session(account)

    async def _new_session(self, account: Account) -> Login:
        await self.players.drop_expired()
        session_id, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        expires = time.time() + SESSION_DAYS * 86400
        await self.players.add_session(_digest(session_id), account.id, _digest(csrf), expires)
        return Login(account, session_id, csrf)

    async def change_password(self, session: Session, session_id: str, old: object, new: object) -> Login:
        """Replace a session's account's password; every session of the account ends, a new one starts.

        Raises:
            Refused: the old password is wrong, or the new one breaks a rule.
        """
        secret = check_password(new)
        given = old if isinstance(old, str) and len(old) <= PASSWORD_MAX else ""
        if not await self._verify(session.account.password_hash, given):
            raise Refused("bad_login", N_("wrong name or password"))
        await self.players.set_password(session.account.id, await self._hash(secret))
        await self.players.drop_sessions(session.account.id)
        return await self._new_session(session.account)

    async def session_of(self, session_id: str | None) -> Session | None:
        """The live session of a cookie's id."""
        if not session_id or len(session_id) > 128:
            return None
        return await self.players.session(_digest(session_id))

    async def logout(self, session_id: str) -> None:
        """End one session."""
        await self.players.drop_session(_digest(session_id))

    async def logout_everywhere(self, session: Session) -> int:
        """End every session of an account; how many."""
        return await self.players.drop_sessions(session.account.id)

    # -- requests -------------------------------------------------------------------------

    def check_origin(self, request: Request) -> None:
        """A browser's request comes from the server's own page (or a configured origin).

        Raises:
            Refused: another site's page sent it.
        """
        origin = request.headers.get("origin")
        if origin is None or origin in self.origins or "*" in self.origins:
            return
        host = request.headers.get("host", "")
        if origin not in (f"http://{host}", f"https://{host}"):
            raise Refused("forbidden", N_("this request must come from the game's own page"))

    async def session(self, request: Request) -> tuple[Session, str] | None:
        """The request's session and its id, if its cookie holds a live one (no check of its CSRF token)."""
        session_id = request.cookies.get(SESSION_COOKIE)
        found = await self.session_of(session_id)
        return None if found is None or session_id is None else (found, session_id)

    async def changing(self, request: Request) -> tuple[Session, str] | None:
        """The session of a request that changes something, checked against cross-site forgery.

        ``None`` for a request without a live session (a guest's); a live session's request must come from
        the server's own page and carry the session's CSRF token.

        Raises:
            Refused: another site's page sent it, or its CSRF token is missing or wrong.
        """
        self.check_origin(request)
        found = await self.session(request)
        if found is None:
            return None
        token = request.headers.get(CSRF_HEADER, "")
        if not hmac.compare_digest(_digest(token), found[0].csrf_hash):
            raise Refused("forbidden", N_("this request lacks its CSRF token; reload the page"))
        return found

    async def required(self, request: Request) -> tuple[Session, str]:
        """:meth:`changing`, for a request that needs a session.

        Raises:
            Refused: no live session, or a forgery check failed.
        """
        found = await self.changing(request)
        if found is None:
            raise Refused("login_needed", N_("log in first"))
        return found


def set_cookies(response: Response, request: Request, login: Login, https: bool = False) -> None:
    """Put a new session's cookies on a response (``Secure`` ones for a request over HTTPS)."""
    secure = https or request.url.scheme == "https"
    age = SESSION_DAYS * 86400
    response.set_cookie(SESSION_COOKIE, login.session_id, max_age=age, httponly=True, secure=secure, samesite="lax")
    response.set_cookie(CSRF_COOKIE, login.csrf, max_age=age, httponly=False, secure=secure, samesite="lax")


def clear_cookies(response: Response, request: Request, https: bool = False) -> None:
    """Take a session's cookies off a browser."""
    secure = https or request.url.scheme == "https"
    response.delete_cookie(SESSION_COOKIE, httponly=True, secure=secure, samesite="lax")
    response.delete_cookie(CSRF_COOKIE, httponly=False, secure=secure, samesite="lax")


def account_summary(account: Account) -> dict[str, Any]:
    """What the page is told of its own account."""
    return {"name": account.name}
