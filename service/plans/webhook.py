"""Posting an alert to an incoming webhook (Slack- and Teams-compatible ``{"text": ...}``),
without letting the URL reach anything it should not.

The URL is a secret (whoever holds a Slack incoming-webhook URL can post to the channel) and a
way in: a webhook URL that names an address inside the network would make the server send
requests there for whoever typed it (server-side request forgery). So:

- only ``https`` URLs, with a host and no user name or password in them;
- every address the host resolves to must be a global one: no loopback, private, link-local,
  shared (100.64/10), reserved, multicast or unspecified address, IPv4-mapped IPv6 included;
- the connection goes to the address that was checked (the name is not resolved a second
  time, so a DNS answer that changes in between cannot point it elsewhere), with the host
  name for TLS (SNI and certificate) and the Host header;
- redirects are not followed (http.client never does), the answer is read up to 64 KiB, and
  the connection has a timeout.

``allow_local`` (the app setting ``ALERT_WEBHOOK_ALLOW_LOCAL``, for tests only) lets loopback
and private addresses through, and plain ``http`` to them only: a test posts to an HTTP
server on 127.0.0.1. Nothing here logs or raises the URL; errors say what was wrong in words.
"""
from __future__ import annotations

import http.client
import ipaddress
import json
import socket
import ssl
from dataclasses import dataclass
from typing import Callable, Optional
from urllib.parse import urlsplit

TIMEOUT_SECONDS = 10.0
MAX_ANSWER = 64 * 1024
MAX_URL = 2000


class WebhookRefused(ValueError):
    """A URL this service will not post to; ``reason`` is a sentence without the URL."""


class PostFailed(RuntimeError):
    """The webhook did not take the post (an HTTP status other than 2xx, or no answer):
    worth retrying. The message holds the status only."""

    def __init__(self, message: str, status: Optional[int] = None):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Target:
    """A checked webhook: scheme, host name, port, path with its query."""
    scheme: str
    host: str
    port: int
    path: str


def is_public(address: str) -> bool:
    """Whether an address is a global unicast one (what a webhook may be)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])   # drop an IPv6 zone
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def check_url(url: str, allow_local: bool = False) -> Target:
    """The URL's parts, if it is one this service may post to (module notes); no name is
    resolved here (that is :func:`resolve`'s, at the time of posting).

    Raises
    ------
    WebhookRefused
        Not https (http only to a local address with ``allow_local``), no host, a user name
        or password in it, too long, or an address literal that is not global.
    """
    if not isinstance(url, str) or not url or len(url) > MAX_URL or url != url.strip() \
            or any(ord(c) < 33 or ord(c) == 127 for c in url):
        raise WebhookRefused("the webhook URL is empty, too long or holds spaces")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise WebhookRefused("the webhook URL is not a URL") from exc
    scheme = parts.scheme.lower()
    if scheme not in ("https", "http") or (scheme == "http" and not allow_local):
        raise WebhookRefused("the webhook URL must begin with https://")
    host = parts.hostname
    if not host:
        raise WebhookRefused("the webhook URL names no host")
    if parts.username is not None or parts.password is not None:
        raise WebhookRefused("the webhook URL holds a user name or password")
    literal = None
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        if host == "localhost" or host.endswith(".localhost"):
            literal = ipaddress.ip_address("127.0.0.1")
    if literal is not None and not allow_local and not is_public(str(literal)):
        raise WebhookRefused("the webhook URL names a loopback, private or reserved address")
    if scheme == "http" and (literal is None or is_public(str(literal))):
        raise WebhookRefused("the webhook URL must begin with https://")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(scheme, host, port or (443 if scheme == "https" else 80), path)


Resolver = Callable[[str, int], list[str]]


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (TCP)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in infos))


def checked_address(target: Target, allow_local: bool, resolver: Resolver = resolve) -> str:
    """The address to connect to: the first the host resolves to, once every one of them is
    global (a name with one private address among public ones is refused whole).

    Raises
    ------
    WebhookRefused
        The name resolves to an address that is not global.
    PostFailed
        The name does not resolve (now: the task tries again later).
    """
    try:
        addresses = resolver(target.host, target.port)
    except OSError:       # the resolver away for a while: worth another try
        raise PostFailed("the webhook's host name did not resolve") from None
    if not addresses:
        raise PostFailed("the webhook's host name did not resolve")
    if not allow_local and not all(is_public(a) for a in addresses):
        raise WebhookRefused("the webhook's host resolves to a loopback, private or "
                             "reserved address")
    return addresses[0]


class _PinnedHTTPS(http.client.HTTPSConnection):
    """HTTPS to a checked address, with the host name for SNI and the certificate."""

    def __init__(self, host: str, address: str, port: int, timeout: float):
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


class _PinnedHTTP(http.client.HTTPConnection):
    """Plain HTTP to a checked local address (``allow_local`` only)."""

    def __init__(self, host: str, address: str, port: int, timeout: float):
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


def post_text(url: str, text: str, allow_local: bool = False,
              resolver: Resolver = resolve) -> int:
    """POST ``{"text": text}`` to the webhook; its HTTP status (2xx).

    Raises
    ------
    WebhookRefused
        A URL not to post to (not retried).
    PostFailed
        No answer, or an answer other than 2xx (retried by the task).
    """
    target = check_url(url, allow_local)
    address = checked_address(target, allow_local, resolver)
    body = json.dumps({"text": text}, ensure_ascii=False).encode("utf-8")
    kind = _PinnedHTTPS if target.scheme == "https" else _PinnedHTTP
    connection = kind(target.host, address, target.port, TIMEOUT_SECONDS)
    try:
        connection.request("POST", target.path, body=body, headers={
            "Content-Type": "application/json; charset=utf-8", "User-Agent": "buyrent-alerts"})
        answer = connection.getresponse()
        answer.read(MAX_ANSWER)
        status = answer.status
    except (OSError, http.client.HTTPException) as exc:
        raise PostFailed(f"the webhook did not answer ({type(exc).__name__})") from None
    finally:
        connection.close()
    if not 200 <= status < 300:
        raise PostFailed(f"the webhook answered HTTP {status}", status)
    return status
