"""Bills in the plan's foreign currency on the web and in the API (issue 43, item 2): the
documented ``fx_rate`` field (the rate paid), a refusal by row and column when no rate can be
had (English and Korean, nothing saved), and the ``fx`` part on the Plan vs actual page.

The seeded revision's plan is in USD; its stored document is read here as a plan whose cloud
prices are in EUR at 1.1 USD per EUR (no trend), so that January's sample bill written in EUR
is a bill in the plan's foreign currency. Stated at 1.2, each EUR counts 1.1 in the cost lines
and 0.1 in fx: fx = 0.1 x the bill's EUR amounts (the engine's own hand case:
tests/engine/test_variance_fx.py).
"""
from __future__ import annotations

import dataclasses
import io
from decimal import Decimal

import pytest

from service.actuals import read_bill_data
from service.plans import actuals as held
from service.web.db import write_session
from service.web.tables import ActualFile, ActualUpload, AuditEvent, User
from service.web.users import create_token
from tests.support.client import count, revision_hash
from tests.support.focus_fx_cases import BILLS, R1

EUR_PLAN = {"reporting": "USD", "owned": "USD", "cloud": "EUR",
            "fx": {"foreign": "EUR", "rate": 1.1, "trend_annual": 0.0, "as_of": None}}


def tokens(app, *names):
    with app.app_context():
        with write_session() as s:
            return [{"Authorization": "Bearer " + create_token(
                s, s.query(User).filter_by(username=n).one(), "test")} for n in names]


def approve(client, app, strategy):
    return client.post(R1 + "/reviews", {"decision": "approve", "comment": "ok",
                                         "strategy": strategy,
                                         "revision_hash": revision_hash(app)})


@pytest.fixture
def euro_plan(monkeypatch):
    real = held.read_plan

    def read(revision, **kw):
        view = real(revision, **kw)
        if view.document is None:
            return view
        return dataclasses.replace(view, document={**view.document, "currencies": EUR_PLAN})
    monkeypatch.setattr(held, "read_plan", read)


def euro_bill() -> tuple[str, bytes]:
    text = BILLS[0].read_text().replace(",USD,", ",EUR,")
    return "jan-eur.csv", text.encode()


def upload(client, files, **fields):
    data = {"bills": [(io.BytesIO(body), name) for name, body in files], **fields}
    return client.post("/scenarios/1/actuals", data, content_type="multipart/form-data")


def test_a_bill_in_the_foreign_currency_needs_a_rate_paid(login, app, euro_plan):
    ana, rita = login("ana"), login("rita")
    approve(rita, app, "cloud_only")
    form = ana.get("/scenarios/1/actuals").get_data(as_text=True)
    assert 'name="fx_rate"' in form and "Exchange rate paid (USD per EUR)" in form
    before = (count(app, ActualUpload), count(app, ActualFile), count(app, AuditEvent))
    refused = upload(ana, [euro_bill()])
    html = refused.get_data(as_text=True)
    assert refused.status_code == 422 and "BillingCurrency" in html and "<td>2</td>" in html
    assert "no rate actually paid can be had" in html and "Nothing was saved." in html
    bad_rate = upload(ana, [euro_bill()], fx_rate="-1")
    assert bad_rate.status_code == 422 and "must be a number above 0" in \
        bad_rate.get_data(as_text=True)
    assert (count(app, ActualUpload), count(app, ActualFile), count(app, AuditEvent)) == before
    ana.post("/language", {"lang": "ko", "next": "/profile"})
    korean = upload(ana, [euro_bill()]).get_data(as_text=True)
    assert "실제로 적용된 환율을 알 수 없습니다" in korean and "BillingCurrency" in korean
    assert "실제 적용 환율(EUR당 USD)" in ana.get("/scenarios/1/actuals").get_data(as_text=True)
    assert (count(app, ActualUpload), count(app, ActualFile), count(app, AuditEvent)) == before


def test_the_stated_rate_makes_the_fx_part(login, app, euro_plan):
    ana, rita = login("ana"), login("rita")
    approve(rita, app, "cloud_only")
    name, data = euro_bill()
    assert upload(ana, [(name, data)], fx_rate="1.2").status_code == 302
    eur = read_bill_data([(name, BILLS[0].read_bytes())], "USD")[0]   # the same amounts
    paid = sum(eur.costs.values())
    page = rita.get(R1 + "/actual").get_data(as_text=True)
    assert "Exchange rate (paid against the plan&#39;s rate)" in page
    base = held.baseline
    with app.app_context():
        from service.web.tables import Revision
        from service.web.db import get_session
        doc = held.plan_vs_actual(base(get_session().get(Revision, 1)))
    jan = doc["months"][0]
    fx = Decimal(jan["parts"]["fx"])
    assert abs(fx - Decimal(str(paid)) * Decimal("0.1")) <= Decimal("0.01")
    assert sum(jan["parts_cents"].values()) == jan["total_cents"]
    rita.post("/language", {"lang": "ko", "next": "/profile"})
    korean = rita.get(R1 + "/actual").get_data(as_text=True)
    assert "환율(실제 적용 환율과 계획 환율의 차이)" in korean


def test_the_api_takes_the_rate_as_a_part(app, login, euro_plan):
    approve(login("rita"), app, "cloud_only")
    (ana,) = tokens(app, "ana")
    client = app.test_client()
    name, data = euro_bill()

    def post(**fields):
        return client.post("/api/v1/scenarios/1/actuals", headers=ana,
                           data={"bills": [(io.BytesIO(data), name)], **fields},
                           content_type="multipart/form-data")
    refused = post()
    assert refused.status_code == 422
    assert any(d["column"] == "BillingCurrency" for d in refused.get_json()["error"]["details"])
    assert post(fx_rate="0").status_code == 422
    assert count(app, ActualUpload) == 0
    assert post(fx_rate="1.2").status_code == 201
    variance = client.get("/api/v1/scenarios/1/revisions/1/variance", headers=ana).get_json()
    assert Decimal(variance["months"][0]["parts"]["fx"]) > 0
