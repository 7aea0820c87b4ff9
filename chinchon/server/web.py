"""The web surface: security headers on every answer, JSON bodies only, compression and cache headers.

Everything the server answers over HTTP goes through :class:`WebSurface`,
put around the whole application (:func:`harden`), so that Starlette's own
answers (404, 405, 422, 500) and the WebSocket's refusal carry the headers
too:

- a ``Content-Security-Policy`` that lets the page load only its own
  scripts, styles and images and connect only to its own origin (the
  WebSocket included), in no frame; ``nosniff``, ``no-referrer``, a
  ``Permissions-Policy`` that turns off what the table never uses, and
  ``Cross-Origin-Opener-Policy``/``-Resource-Policy``; with ``https``,
  ``Strict-Transport-Security``;
- no CORS: nothing grants another origin the right to read an answer, and a
  request body to ``/api/`` in another type than JSON is refused (415), so
  that another site cannot post to the API with a plain form either;
- answers of 500 bytes or more compressed with gzip when the client takes it
  (the WebSocket is not touched), their ``ETag`` made weak as the bytes
  differ from the file's; the client's files under a URL that names their
  version, cached for a year (the page, never cached, names the version).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chinchon.errors import N_
from chinchon.i18n import LANGUAGES
from chinchon.server.rooms import Refused, ServerSettings

__all__ = [
    "COMPRESS_FROM",
    "PERMISSIONS_POLICY",
    "VersionedStatic",
    "WebSurface",
    "accepted_language",
    "error_response",
    "harden",
    "security_headers",
    "static_version",
]

COMPRESS_FROM = 500
"""Answers shorter than this many bytes go out as they are (compression would save nothing worth its cost)."""
GZIP_LEVEL = 6
"""zlib's default level: level 9 saved 48 bytes of the client's 27 KB (gzipped), at more cost on every JSON answer."""
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "autoplay",
        "camera",
        "display-capture",
        "encrypted-media",
        "fullscreen",
        "geolocation",
        "gyroscope",
        "hid",
        "idle-detection",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "picture-in-picture",
        "publickey-credentials-get",
        "screen-wake-lock",
        "serial",
        "usb",
        "xr-spatial-tracking",
    )
)
"""What the table never uses, turned off for it and for anything it could embed (it keeps the clipboard: it copies
the invite link). Only features Chromium knows: it logs an error for any other."""
HSTS = "max-age=31536000"
"""A year; sent only when the server is told it is reached over HTTPS."""
IMMUTABLE = "public, max-age=31536000, immutable"
BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_HOST = re.compile(r"(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")
_VERSIONED = re.compile(r"v-[0-9a-f]{12}")


def accepted_language(value: str | None) -> str:
    """One of the catalogs' languages from a language tag or an Accept-Language header; English otherwise."""
    for part in (value or "").split(","):
        code = part.split(";")[0].strip().replace("_", "-").lower().split("-")[0]
        if code in LANGUAGES:
            return code
    return "en"


def error_response(refused: Refused, status: int, accept_language: str | None) -> Response:
    """A typed error as the API answers it, in the language the request accepts."""
    body = {"error": {"code": refused.code, "message": refused.text(accepted_language(accept_language))}}
    return Response(json.dumps(body, ensure_ascii=False), status, media_type="application/json")


def security_headers(settings: ServerSettings, host: str | None) -> list[tuple[bytes, bytes]]:
    """The headers every answer carries; ``host`` (the request's, when well formed) names the WebSocket's origin."""
    connect = "'self'"
    if host and _HOST.fullmatch(host):
        connect += f" ws://{host} wss://{host}"  # what 'self' means for a WebSocket, for browsers that do not say so
    policy = "; ".join(
        (
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self'",
            "font-src 'self'",
            f"connect-src {connect}",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        )
    )
    headers = [
        (b"content-security-policy", policy.encode("latin-1")),
        (b"x-content-type-options", b"nosniff"),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", b"no-referrer"),
        (b"permissions-policy", PERMISSIONS_POLICY.encode("latin-1")),
        (b"cross-origin-opener-policy", b"same-origin"),
        (b"cross-origin-resource-policy", b"same-origin"),
    ]
    if settings.https:
        headers.append((b"strict-transport-security", HSTS.encode("latin-1")))
    return headers


def _json_media(content_type: str) -> bool:
    media = content_type.partition(";")[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def _has_body(headers: Headers) -> bool:
    if "transfer-encoding" in headers:
        return True
    try:
        return int(headers.get("content-length", "0")) > 0
    except ValueError:
        return True


class WebSurface:
    """ASGI middleware around the whole application: see the module's docstring."""

    def __init__(self, app: ASGIApp, settings: ServerSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        request = Headers(scope=scope)
        added = security_headers(self.settings, request.get("host"))
        api = scope["path"].startswith("/api/")

        async def send_hardened(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.http.response.start"):
                headers = MutableHeaders(scope=message)
                for name, value in added:
                    if name.decode("latin-1") not in headers:
                        headers.raw.append((name, value))
                if api and "cache-control" not in headers:
                    headers["Cache-Control"] = "no-store"  # the API's answers (tokens among them) are not kept
                etag = headers.get("etag")
                if etag and "content-encoding" in headers and not etag.startswith("W/"):
                    headers["ETag"] = "W/" + etag
            await send(message)

        if (
            scope["type"] == "http"
            and api
            and scope["method"] in BODY_METHODS
            and _has_body(request)
            and not _json_media(request.get("content-type", ""))
        ):
            refused = Refused(
                "unsupported_media_type",
                N_("send the request's body as JSON (Content-Type: application/json), not {type}"),
                type=request.get("content-type", "").partition(";")[0].strip()[:80] or "?",
            )
            answer = error_response(refused, 415, request.get("accept-language"))
            await answer(scope, receive, send_hardened)
            return
        await self.app(scope, receive, send_hardened)


def harden(app: FastAPI, settings: ServerSettings) -> None:
    """Put the web surface and compression around the whole application, Starlette's own error answers included.

    (Middleware added with ``add_middleware`` runs inside Starlette's error handler: its 500 would go out bare.)
    """
    build = app.build_middleware_stack

    def build_hardened() -> ASGIApp:
        return WebSurface(GZipMiddleware(build(), minimum_size=COMPRESS_FROM, compresslevel=GZIP_LEVEL), settings)

    app.build_middleware_stack = build_hardened  # type: ignore[method-assign]


@cache
def static_version(directory: Path) -> str:
    """The version of the client's files: 12 hex digits of a digest of their names and bytes."""
    digest = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        digest.update(path.relative_to(directory).as_posix().encode("utf-8") + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


class VersionedStatic(StaticFiles):
    """The client's files, also under ``v-VERSION/``: that URL is cached for a year, the plain one revalidated.

    A path under another version (a page from before an upgrade) gets today's file, not to be kept.
    """

    def __init__(self, directory: Path) -> None:
        super().__init__(directory=directory)
        self.version = static_version(directory)

    def get_path(self, scope: Scope) -> str:
        path = super().get_path(scope)
        head, separator, rest = path.partition(os.sep)
        immutable = False
        if separator and _VERSIONED.fullmatch(head):
            immutable, path = head == f"v-{self.version}", rest
        scope["chinchon.immutable"] = immutable
        return path

    def file_response(
        self, full_path: Any, stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = IMMUTABLE if scope.get("chinchon.immutable") else "no-cache"
        return response
