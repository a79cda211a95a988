"""The plan page's Schedule and Compare schedules sections, the form's row tables and commitments
attached from a FOCUS 1.3 Contract Commitment file (issue 14, web part).

The growth sample (an existing fleet and contract, a yearly budget, a proposed schedule) is
planned once; every figure on the page is checked against its plan document.
"""
from __future__ import annotations

import json
import re
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from models.scenario import Scenario
from service.web.tables import Revision
from service.web.db import write_session
from service.paths import SAMPLES
from service.i18n import formats
from tests.support.client import Browser, form_data
from tests.support.engine_cases import context_of
from tests.support.planned import browse_copy, planned_database

GROWTH = SAMPLES / "scenario_growth.json"
USAGE = SAMPLES / "usage_hourly.csv"
CONTRACTS = SAMPLES / "focus_1.3_contract_commitment_sample.csv"
PAGE = "/scenarios/1/revisions/1"


def money(value: float) -> str:
    """Whole units, as the section shows amounts under a currency header."""
    return formats.number(value, 0)


@pytest.fixture(scope="module")
def growth_database(tmp_path_factory):
    """A migrated SQLite file with ana, rita and the growth sample planned (scenario 1)."""
    return planned_database(tmp_path_factory.mktemp("growth"), GROWTH, USAGE, reviewer=True)


@pytest.fixture
def growth(tmp_path: Path, growth_database):
    path, result = growth_database
    app, b = browse_copy(tmp_path, path)
    yield app, b, result
    app.extensions["buyrent_engine"].dispose()


class Tables(HTMLParser):
    """Cell texts of every table with an id, by id."""

    def __init__(self):
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.stack: list[str] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.stack.append(dict(attrs).get("id", ""))
            self.tables.setdefault(self.stack[-1], [])
        elif tag == "tr" and self.stack:
            self.tables[self.stack[-1]].append([])
        elif tag in ("td", "th") and self.stack:
            self.cell = []

    def handle_endtag(self, tag):
        if tag == "table" and self.stack:
            self.stack.pop()
        elif tag in ("td", "th") and self.cell is not None and self.stack:
            self.tables[self.stack[-1]][-1].append(" ".join("".join(self.cell).split()))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def tables(html: str) -> dict[str, list[list[str]]]:
    parser = Tables()
    parser.feed(html)
    return parser.tables


def json_block(html: str, block_id: str) -> dict:
    text = re.search(rf'<script type="application/json" id="{block_id}">(.*?)</script>', html,
                     re.S).group(1)
    return json.loads(unescape(text))


def test_schedule_section_shows_the_documents_orders_cash_and_words(growth):
    app, b, result = growth
    doc = result.document
    html = b.get(PAGE).get_data(as_text=True)
    t = tables(html)
    staged = doc["strategies"]["staged"]
    orders = t["orders-staged"][1:]
    assert [(r[0], r[1], int(r[3].replace(",", "")), r[4]) for r in orders] == [
        (o["month"], o["action"], o["quantity"], money(o["cash"]))
        for o in staged["purchase_orders"]]
    assert t["cash-year-staged"][0] == ["Year", "Purchases", "Upfront payments",
                                        "Purchases and upfront", "Budget", "Headroom",
                                        "Sale proceeds", "Net"]
    years = {r[0]: r[3] for r in t["cash-year-staged"][1:]}
    for year, amount in staged["cash"]["by_year"].items():
        assert years[year] == money(amount)
    assert set(years) >= {m[:4] for m in doc["months"]}
    # purchases, upfront payments and sale proceeds apart, and the net (issue 23)
    parts = {r[0]: (r[1], r[2], r[6], r[7]) for r in t["cash-year-staged"][1:]}
    for year, d in staged["cash"]["by_year_detail"].items():
        assert parts[year] == tuple(money(d[k]) for k in ("purchases", "upfront_payments",
                                                          "sale_proceeds", "net"))
    assert any(d["sale_proceeds"] > 0 for d in staged["cash"]["by_year_detail"].values())
    quarters = [(r[0], r[1]) for r in t["cash-quarter-staged"][1:]]
    assert quarters == [(q, money(v)) for q, v in sorted(staged["cash"]["by_quarter"].items())]
    # the yearly budget of the sample: a column, every year of the optimum within it
    budget = doc["scenario"]["staging"]["capital_budget_per_year"]
    for row in t["cash-year-staged"][1:]:
        assert row[4] == money(budget) and "(over)" not in row[5]
    # the staged plan is the recommendation: the schedule's list says each action, one per
    # line; the recommendation says its saving first and the same actions grouped by kind
    # (issue 39, item 5)
    words = re.search(r'<ol class="schedule-words" id="words-staged">(.*?)</ol>', html, re.S)
    items = [unescape(i) for i in re.findall(r"<li>(.*?)</li>", words.group(1))]
    assert doc["recommendation"] == "staged" and items
    bought = [d["buy_servers"] + sum((d.get("buy") or {}).values()) for d in staged["schedule"]]
    buys = [n for n in bought if n]
    assert len([i for i in items if i.startswith("Buy ")]) == len(buys) > 1
    assert doc["explanation"].startswith("PV saving ")
    assert (f"Buy {sum(buys)} servers over {len(buys)} purchases (by year "
            in doc["explanation"])
    assert not any(i in doc["explanation"] for i in items if i.startswith("Buy "))
    # a proposed schedule has its own block
    assert [r[0] for r in t["orders-proposed"][1:]] == [
        o["month"] for o in doc["strategies"]["proposed"]["purchase_orders"]]


def test_timeline_chart_data_is_the_plans_capacity_and_demand(growth):
    app, b, result = growth
    doc, plan = result.document, result.plan
    html = b.get(PAGE).get_data(as_text=True)
    data = json_block(html, "schedule-data-staged")
    t = data["timeline"]
    monthly = doc["strategies"]["staged"]["monthly"][:len(doc["months"])]
    assert t["months"] == doc["months"]
    assert t["servers"] == [r["servers_online"] for r in monthly]
    per_server = context_of(plan).owned_per_server()
    assert t["owned"] == pytest.approx([r["servers_online"] * per_server for r in monthly],
                                       rel=1e-12)
    theta = doc["scenario"]["on_demand"]["relative_throughput"]
    committed = [sum(c["gpus"][i] for c in t["cohorts"]) for i in range(len(t["months"]))]
    assert committed == pytest.approx([r["committed_gpus"] * theta for r in monthly], abs=1e-9)
    held = [c for c in t["cohorts"] if c["held"]]
    assert [c["name"] for c in held] == ["held aws-sp-2026"]
    assert t["spot"] == pytest.approx([r["spot_gpu_hours"] / r["hours"] for r in monthly])
    peak = t["demand"]["peak"]
    assert max(peak) == pytest.approx(context_of(plan).tables.peak_gross_gpus)
    assert all(p >= q >= 0 for p, q in zip(peak, t["demand"]["p90"]))
    assert data["cash"]["budget"] == doc["scenario"]["staging"]["capital_budget_per_year"]
    # the chart has a text alternative: a sentence and a table
    assert 'id="chart-timeline-staged" data-chart="timeline"' in html
    assert re.search(r'id="chart-timeline-staged-summary">Capacity of Staged plan by month',
                     html)
    assert 'data-chart="cash_budget"' in html and "never exceeded" in html


def test_held_contracts_and_servers_of_the_position(growth):
    app, b, result = growth
    t = tables(b.get(PAGE).get_data(as_text=True))
    rows = t["held"][1:]
    assert rows[0][:5] == ["held", "contract aws-sp-2026 (GPUs)", "16", "2026-07", "2027-06"]
    assert rows[1][:4] == ["held", "servers bought 2025-06", "4", "2025-06"]


def test_compare_schedules_staged_proposed_and_best_static(growth):
    app, b, result = growth
    doc = result.document
    html = b.get(PAGE).get_data(as_text=True)
    t = tables(html)["compare-schedules"]
    head, rows = t[0], t[1:]
    pv = {n: s["pv_cost"] for n, s in doc["strategies"].items()}
    static = min((n for n, s in doc["strategies"].items() if not s.get("schedule")),
                 key=pv.get)
    assert [r[0] for r in rows] == ["Staged plan", "Proposed", "Optimal mix (best static)"]
    assert static == "optimal"
    cheapest = min(pv["staged"], pv["proposed"], pv[static])
    for row, name in zip(rows, ("staged", "proposed", static)):
        assert row[1] == money(pv[name]) and row[2] == money(pv[name] - cheapest)
    # capex by year: the staged row is the document's cash by year
    for year, amount in doc["strategies"]["staged"]["cash"]["by_year"].items():
        assert rows[0][head.index(f"Capex {year}")] == money(amount)
    sentence = re.search(r'<p id="compare-schedules-sentence">(.*?)</p>', html).group(1)
    assert sentence.startswith("Staged plan is the cheapest")
    assert money(pv["proposed"] - pv["staged"]) in sentence
    assert money(pv[static] - pv["staged"]) in sentence
    # the best static plan buys its 13 servers at once: over the sample's yearly budget
    budget = doc["scenario"]["staging"]["capital_budget_per_year"]
    over = [y for y, v in sorted(capex_of(doc, static).items()) if v > budget]
    assert over == ["2027"]
    assert (f"Optimal mix (best static) spends more than the yearly budget of {money(budget)} "
            "USD in 2027.") in sentence
    assert "Staged plan spends more" not in sentence


def capex_of(doc: dict, name: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for row in doc["strategies"][name]["monthly"]:
        out[row["month"][:4]] = (out.get(row["month"][:4], 0.0) + row["capex"]
                                 + row["commitment_upfront"])
    return out


def test_plan_without_position_or_proposed_schedule_has_no_held_table(login):
    html = login("ana").get(PAGE).get_data(as_text=True)
    t = tables(html)
    assert "held" not in t and "orders-proposed" not in t
    assert "orders-staged" in t and "compare-schedules" in t


def test_form_offers_a_row_template_and_one_blank_row_without_script(growth):
    app, b, result = growth
    html = b.get("/scenarios/1/edit").get_data(as_text=True)
    assert '<script src="/static/js/rows.js">' in html
    template = re.search(r'<div class="row-table" id="table-position.servers".*?'
                         r'<template class="row-template">(.*?)</template>', html, re.S)
    assert 'name="position.servers.__row__.purchased"' in template.group(1)
    # without the script: the held row and one blank row, as before
    assert 'name="position.servers.0.purchased" value="2025-06"' in html
    assert re.search(r'name="position.servers.1.purchased" value=""', html)
    assert 'data-max-rows="50"' in html


def test_rows_posted_with_gaps_in_their_indices_are_all_kept(growth):
    app, b, result = growth
    data = json.loads(GROWTH.read_text())
    posted = form_data(Scenario.model_validate(data).model_dump(mode="json"))
    # the add-row button numbers a new row after the highest index; a removed row leaves a gap
    for key in [k for k in posted if k.startswith("position.servers.1.")]:
        posted[key.replace(".1.", ".3.")] = posted.pop(key)
    posted.update({"position.servers.3.purchased": "2026-01", "position.servers.3.count": "2",
                   "position.servers.3.price": "290000", "note": "two more servers"})
    response = b.post("/scenarios/1/edit", posted)
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    with app.app_context():
        with write_session() as s:
            latest = s.query(Revision).filter_by(scenario_id=1, number=2).one()
            servers = json.loads(latest.assumptions)["position"]["servers"]
    assert [(x["purchased"], x["count"]) for x in servers] == [("2025-06", 4), ("2026-01", 2)]


def contract_choices(html: str) -> list[tuple[str, bool]]:
    return [(unescape(v), "disabled" not in rest) for v, rest in re.findall(
        r'<input type="checkbox" name="attach" id="attach-\d+" value="([^"]*)"([^>]*)>', html)]


def test_contract_commitments_attach_to_the_position_and_show_as_held(growth):
    app, b, result = growth
    response = b.client.post("/scenarios/1/usage", data={
        "csrf_token": b.token(), "usage": (CONTRACTS.open("rb"), CONTRACTS.name)},
        content_type="multipart/form-data")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    choices = contract_choices(html)
    assert len(choices) == 4
    usd = [v for v, enabled in choices if enabled]
    eur = [v for v, enabled in choices if not enabled]
    assert [json.loads(v)["currency"] for v in eur] == ["EUR"]
    assert "in EUR: give the scenario an exchange rate (USD per EUR) first" in html
    # a currency the scenario cannot convert is refused even when posted by hand
    refused = b.post("/scenarios/1/commitments", {"attach": eur, "filename": CONTRACTS.name})
    assert refused.status_code == 422
    chosen = [v for v in usd if json.loads(v)["id"] in ("CC-GCP-A3-1Y", "CC-GCP-G2-1Y")]
    response = b.post("/scenarios/1/commitments", {"attach": chosen, "filename": CONTRACTS.name})
    assert response.status_code == 302
    assert response.headers["Location"].endswith("/scenarios/1/revisions/2#schedule")
    with app.app_context():
        with write_session() as s:
            r2 = s.query(Revision).filter_by(scenario_id=1, number=2).one()
            held = json.loads(r2.assumptions)["position"]["commitments"]
            note = r2.note
    assert [c["id"] for c in held] == ["aws-sp-2026", "CC-GCP-A3-1Y", "CC-GCP-G2-1Y"]
    assert held[2] == {"id": "CC-GCP-G2-1Y", "gpus": 6, "start": "2026-02", "term_months": 12,
                       "price_per_gpu_hour": 0.5, "payment": "all", "currency": None}
    assert CONTRACTS.name in note
    rows = tables(b.get("/scenarios/1/revisions/2").get_data(as_text=True))["held"][1:]
    assert [r[1] for r in rows if r[0] == "held"][:3] == [
        "contract aws-sp-2026 (GPUs)", "contract CC-GCP-A3-1Y (GPUs)",
        "contract CC-GCP-G2-1Y (GPUs)"]
    # the same again changes nothing
    again = b.post("/scenarios/1/commitments", {"attach": chosen, "filename": CONTRACTS.name})
    assert again.status_code == 302 and "/revisions/" not in again.headers["Location"]


@pytest.mark.parametrize("value", [
    "not json", "[1, 2]", json.dumps({"id": "x"}), "x" * 3000,
    json.dumps({"id": "x", "gpus": 0, "start": "2026-01", "term_months": 12,
                "price_per_gpu_hour": 1.0, "payment": "none", "currency": "USD"}),
    json.dumps({"id": "x", "gpus": 8, "start": "2026-01", "term_months": 12,
                "price_per_gpu_hour": 1.0, "payment": "none", "extra": 1})])
def test_tampered_commitments_are_refused(growth, value):
    app, b, result = growth
    response = b.post("/scenarios/1/commitments", {"attach": [value]})
    assert response.status_code == 422
    with app.app_context():
        with write_session() as s:
            assert s.query(Revision).filter_by(scenario_id=1).count() == 1


def test_nothing_chosen_is_refused(growth):
    app, b, result = growth
    assert b.post("/scenarios/1/commitments", {}).status_code == 422


def test_a_reviewer_cannot_attach_commitments(growth):
    app, b, result = growth
    rita = Browser(app.test_client())
    rita.login("rita")
    value = json.dumps({"id": "x", "gpus": 8, "start": "2026-01", "term_months": 12,
                        "price_per_gpu_hour": 1.0, "payment": "none", "currency": "USD"})
    assert rita.post("/scenarios/1/commitments", {"attach": [value]}).status_code in (403, 404)


def test_two_signatures_in_one_month_each_show_their_own_upfront():
    """Two offers paid upfront, signed in the same month: each order carries its own payment
    (models.schedules.purchase_orders prices each cohort apart)."""
    from service.plans.schedule_view import order_rows
    strategy = {"purchase_orders": [
        {"month": "2027-01", "action": "sign", "what": "1y", "quantity": 8, "term_months": 12,
         "payment": "all", "cash": 140160.0},
        {"month": "2027-01", "action": "sign", "what": "3y", "quantity": 8, "term_months": 36,
         "payment": "all", "cash": 315648.0}]}
    rows = order_rows(strategy, {"1y": 12, "3y": 36}, "USD")
    assert [r.amount for r in rows] == [140160.0, 315648.0]
    assert rows[0].paid == "all at signing, 2027-01"

KO = {"Accept-Language": "ko-KR,ko;q=0.9"}
# Words of the growth sample that are data (offer and contract ids, the strategy's own
# code names in ids are in attributes, not text) and units and codes kept as they are.
KO_ALLOWED = {"GPU", "USD", "US", "PV", "P90", "aws", "sp"}   # US$: CLDR ko for dollars


def test_schedule_section_in_korean(growth):
    """The whole section (held table, words, orders, cash, comparison, both charts' words) in
    Korean: no English word but the sample's ids, units and codes."""
    app, b, _result = growth
    b.client.post("/language", data={"lang": "ko", "next": "/profile",
                                     "csrf_token": b.token()})
    html = b.get(PAGE, headers=KO).get_data(as_text=True)
    section = re.search(r'<section id="schedule".*?</section>', html, re.S).group(0)
    charts = [json.loads(m) for m in re.findall(
        r'<script type="application/json" id="schedule-data-[a-z]+">(.*?)</script>', section,
        re.S)]
    assert charts and all(re.search("[가-힣]", c["text"]["timeline"]) for c in charts)
    assert charts[0]["names"]["cohort:held aws-sp-2026"] == "보유 aws-sp-2026"
    text = unescape(re.sub(r"<script.*?</script>|<[^>]+>", " ", section, flags=re.S))
    words = " ".join([text] + [w for c in charts for w in
                               list(c["text"].values()) + list(c["names"].values())])
    english = sorted({w for w in re.findall(r"[A-Za-z][A-Za-z0-9]+", words)
                      if w not in KO_ALLOWED})
    assert english == [], english
    assert "일정" in text and "구매 주문" in text and "보유" in text and "일정 비교" in text
    assert "2027년 1분기" in text          # quarters through the quarter filter


def test_each_held_price_says_its_own_currency(app):
    """Issue 37: the held table's header said "Price [KRW]" above a dollar contract's rate.
    Each amount carries its own currency: a dollar contract in a won plan says USD, a contract
    without one the cloud's, a server the owned market's."""
    from service.plans.schedule_view import held_rows
    doc = {"scenario": {"finance": {"currency": "KRW"}, "cloud_terms": {"currency": None},
                        "owned": {"useful_life_months": 60, "currency": None},
                        "position": {"commitments": [
                            {"id": "usd", "gpus": 8, "start": "2026-06", "term_months": 12,
                             "price_per_gpu_hour": 2.4, "payment": "none", "currency": "USD"},
                            {"id": "won", "gpus": 8, "start": "2026-06", "term_months": 12,
                             "price_per_gpu_hour": 3100.0, "payment": "none"}],
                            "servers": [{"purchased": "2025-06", "count": 4,
                                         "price": 420_000_000.0}]}}}
    with app.test_request_context():
        rows = held_rows(doc)
    assert [(r.name, r.currency) for r in rows] == [("usd", "USD"), ("won", "KRW"),
                                                    ("bought 2025-06", "KRW")]
