"""Who may use the served dashboard. textual-serve has no authentication: this aiohttp middleware
stands in front of every route (the page, its scripts, the websocket that starts a zdash).

- A token, when there is one: `?token=` once (the URL zdash serve prints), then a cookie the
  browser sends with the page's own requests (xterm.js builds the websocket URL itself, so the
  token cannot ride in it). Compared in constant time.
- Same origin only: a browser always sends Origin with a websocket, and websockets are exempt
  from CORS, so without this any web page a user opens could drive their served dashboard.
- Without a token (localhost only), the Host header must name this host's loopback: a DNS
  rebinding page (evil.example resolving to 127.0.0.1) is refused.
Every refusal is HTTP 403 with one line saying why.
"""

from __future__ import annotations

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
            # The page's scripts, styles and websocket then carry it without the query.
            response.set_cookie(COOKIE, token, httponly=True, samesite="Strict", path="/")
        return response

    return check
