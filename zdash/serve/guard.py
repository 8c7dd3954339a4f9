"""Who may use the served dashboard. textual-serve has no authentication: this aiohttp middleware
stands in front of every route (the page, its scripts, the websocket that starts a zdash).

- A token, when there is one: `?token=` once (the URL zdash serve prints), then a cookie the
  browser sends with the page's own requests (xterm.js builds the websocket URL itself, so the
  token cannot ride in it). Compared in constant time. A browser sends a cookie to every port of
  its host and ignores the port it came from: with Path=/ every web service on the host received
  the token. So the page's own requests (its scripts, styles, websocket) live under a path of
  their own, `private_path(token)` (derived from the token, so it survives a restart with the
  same token, and reveals nothing of it), and the cookie is scoped to that path (HttpOnly,
  SameSite=Strict): another service on this host receives it only for that path, which it
  cannot know. `/download/KEY` (a screenshot delivered to the browser) is asked for by the page
  at the root: its random key is what admits it.
- Same origin only: a browser always sends Origin with a websocket, and websockets are exempt
  from CORS, so without this any web page a user opens could drive their served dashboard.
- Without a token (localhost only), the Host header must name this host's loopback: a DNS
  rebinding page (evil.example resolving to 127.0.0.1) is refused.
Every refusal is HTTP 403 with one line saying why.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import re
import secrets
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from aiohttp import web

if TYPE_CHECKING:  # (their names moved between aiohttp releases; the types are only for mypy)
    from aiohttp.typedefs import Handler, Middleware

COOKIE = "zdash_token"
# URL-safe without quoting (what secrets.token_urlsafe makes), and long enough not to be guessed.
TOKEN_MIN = 16
_TOKEN = re.compile(r"[A-Za-z0-9._~-]+")


def private_path(token: str) -> str:
    """The path segment the served page's own requests live under, for this token."""
    digest = hmac.new(token.encode(), b"zdash serve: the page's path", hashlib.sha256).digest()
    return "z-" + base64.urlsafe_b64encode(digest)[:16].decode().replace("-", "x").replace("_", "y")


def new_token() -> str:
    """192 random bits, 32 characters."""
    return secrets.token_urlsafe(24)


def token_problem(token: str) -> str | None:
    """Why a token given on the command line cannot be used, or None."""
    if len(token) < TOKEN_MIN:
        return f"a token needs at least {TOKEN_MIN} characters (leave it out and zdash makes one)"
    if not _TOKEN.fullmatch(token):
        return "a token may hold only A-Z a-z 0-9 - _ . ~ (it goes into a URL)"
    return None


def is_loopback(host: str | None) -> bool:
    """localhost, 127.0.0.0/8 or ::1: only this host can connect (or, as a Host header, the
    browser asked for this host by that name)."""
    if not host:
        return False
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def refusal(request: web.Request, token: str | None) -> str | None:
    """Why this request is refused, or None."""
    origin = request.headers.get("Origin")
    if origin is not None and urlsplit(origin).netloc.lower() != request.host.lower():
        return "refused: the request comes from another site's page"
    if token is None:
        if not is_loopback(request.url.host):
            return "refused: this server answers only to localhost, 127.0.0.1 or [::1]"
        return None
    if request.path.startswith("/download/") and "token" not in request.query:
        return None  # its random key admits it (the page asks for it at the root, cookie-less)
    given = request.query.get("token", request.cookies.get(COOKIE))
    if given is None:
        return "a token is needed: open the URL zdash serve printed (http://HOST:PORT/?token=...)"
    if not hmac.compare_digest(given.encode(), token.encode()):
        return "wrong token: open the URL zdash serve printed (http://HOST:PORT/?token=...)"
    return None


def guard(token: str | None) -> Middleware:
    """The middleware. token None: no token, and only loopback Host headers (bind to loopback
    only: the command refuses anything else without a token)."""

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        why = refusal(request, token)
        if why is not None:
            raise web.HTTPForbidden(text=f"zdash serve: {why}\n")
        response = await handler(request)
        if token is not None and "token" in request.query and not response.prepared:
            # The page's scripts, styles and websocket then carry it without the query; no
            # other path of this host (any port) ever does.
            response.set_cookie(
                COOKIE, token, httponly=True, samesite="Strict", path=f"/{private_path(token)}/"
            )
        return response

    return check
