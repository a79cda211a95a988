"""A client of a served app over real HTTP (urllib): browser-like (cookies and the CSRF token)
or API (bearer token), never following redirects. The crash test's clients and the deployed
instances of tests/system/test_deploy_local.py use it."""
from __future__ import annotations

import http.cookiejar
import json
import re
import secrets
import urllib.error
import urllib.parse
import urllib.request

from tests.support.client import PASSWORD


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Client:
    """A browser-like (cookies + CSRF) or API (bearer token) client; never follows redirects."""

    def __init__(self, base: str, token: str | None = None):
        self.base, self.token = base, token
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar),
                                                  NoRedirect)
        self.csrf = ""

    def send(self, method: str, path: str, form: dict | None = None,
             body: dict | None = None, headers: dict | None = None,
             files: dict[str, tuple[str, bytes]] | None = None) -> tuple[int, bytes, dict]:
        """``form`` url-encoded with the CSRF token, or ``body`` as JSON, or ``files`` (field ->
        (file name, bytes); a file name of None makes a plain field) as multipart/form-data."""
        headers = dict(headers or {})
        data = None
        if files is not None:
            data, headers["Content-Type"] = multipart(files)
        elif form is not None:
            data = urllib.parse.urlencode({**form, "csrf_token": self.csrf}).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.base + path, data=data, headers=headers,
                                         method=method)
        try:
            # a killed server resets the connection at once; the wait only matters for a live
            # one answering slowly (a save plans the scenario again), which on a loaded 2-core
            # CI machine took over 10 s once: generous rather than flaky
            with self.opener.open(request, timeout=60) as response:
                return response.status, response.read(), dict(response.headers)
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read(), dict(exc.headers)

    def login(self, name: str) -> None:
        self.jar.clear()
        page = self.send("GET", "/login")[1].decode()
        self.csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        status, _, _ = self.send("POST", "/login", form={"username": name,
                                                         "password": PASSWORD})
        assert status == 302, status
        page = self.send("GET", "/login")[1].decode()   # login starts a new session
        self.csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def multipart(fields: dict[str, tuple[str | None, bytes]]) -> tuple[bytes, str]:
    """A multipart/form-data body and its Content-Type: each field a file (name, bytes) or,
    with a name of None, a plain value."""
    boundary = "buyrent-" + secrets.token_hex(12)
    parts = []
    for field, (filename, content) in fields.items():
        named = f'; filename="{filename}"' if filename is not None else ""
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"{named}'
                     f'\r\n\r\n'.encode() + content + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), \
        f"multipart/form-data; boundary={boundary}"
