"""The web tests' side of the app: test configuration, users, a Flask test client that logs in
and sends the CSRF token like the pages do, and small database and form readers."""
from __future__ import annotations

import re

from flask.testing import FlaskClient
from sqlalchemy import func, select

from service.web.tables import Revision
from service.web.db import write_session
from service.forms.scenario import build_form

PASSWORD = "correct horse battery"
# name -> role. "rex" is a reviewer who also authors a scenario (author-as-reviewer).
USERS = {"ana": "analyst", "otto": "analyst", "rita": "reviewer", "rex": "reviewer",
         "root": "admin"}
# The scenario form's essential inputs, the list: GPUs per server, server price, power,
# electricity price, colocation, on-demand price, commitment discounts, spot discount, horizon,
# discount rate, growth.
ESSENTIALS = {"name", "finance.horizon_months", "finance.discount_rate_annual",
              "owned.gpus_per_server", "owned.server_price", "owned.power_kw_max",
              "owned.electricity_price_per_kwh", "owned.space_price_per_kw_month",
              "on_demand.price_per_gpu_hour", "commitments.0.discount",
              "commitments.1.discount", "spot.discount", "profile.growth_annual"}
TEST_CONFIG = {"TESTING": True, "SECRET_KEY": "test-secret",
               "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000",  # fast hashing in tests only
               # plan jobs run when enqueued: the test client has no worker process
               # (tests/support/live_server.py starts real workers)
               "QUEUE_URL": "immediate"}


class ClosingClient(FlaskClient):
    """The Flask test client, closing each request body it built.

    werkzeug's test client spools a multipart body over 500 kB to a temporary file and never
    closes it; the garbage collector later closes it with a ResourceWarning inside whichever
    test happens to run, which warnings-as-errors turns into a random failure.
    """

    def open(self, *args, **kwargs):
        response = super().open(*args, **kwargs)
        body = getattr(response, "request", None)
        stream = body.environ.get("wsgi.input") if body is not None else None
        if stream is not None and hasattr(stream, "close"):
            stream.close()
        return response


class Browser:
    """A test client that logs in and sends the CSRF token like the pages do."""

    def __init__(self, client):
        self.client = client

    def token(self) -> str:
        page = self.client.get("/login").get_data(as_text=True)
        return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)

    def login(self, name: str, password: str = PASSWORD):
        return self.client.post("/login", data={"username": name, "password": password,
                                                "csrf_token": self.token()})

    def get(self, url: str, **kw):
        return self.client.get(url, **kw)

    def post(self, url: str, data=None, **kw):
        data = dict(data or {})
        data.setdefault("csrf_token", self.token())
        return self.client.post(url, data=data, **kw)


def count(app, model) -> int:
    with app.app_context():
        with write_session() as s:
            return s.scalar(select(func.count()).select_from(model))


def revision_hash(app, scenario_id: int = 1, number: int = 1) -> str:
    """The SHA-256 of a revision, which every review form carries (and must)."""
    with app.app_context():
        with write_session() as s:
            return s.scalar(select(Revision.content_hash).where(
                Revision.scenario_id == scenario_id, Revision.number == number))


def form_data(data: dict) -> dict:
    """What the scenario form posts for scenario ``data`` (every generated input)."""
    out = {}
    for section in build_form(data):
        for f in section.all_fields:
            if f.kind == "checkbox":
                if f.checked:
                    out[f.name] = "true"
            else:
                out[f.name] = f.value
    return out
