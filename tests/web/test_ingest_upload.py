"""A busy-time file beside the usage file through the web form and the API (the CLI's --busy is
in tests/io/test_cli.py); a Contract Commitment file in the upload preview."""
from __future__ import annotations

import io
import json
import re

from service.web.tables import Revision, UsageFile
from service.web.db import write_session
from tests.support.client import count
from tests.support.ingest_fixtures import SAMPLES

USAGE = SAMPLES / "usage_busy_hourly.csv"
DCGM = SAMPLES / "dcgm_busy_sample.csv"
CONTRACTS = SAMPLES / "focus_1.3_contract_commitment_sample.csv"


def files(**named):
    return {field: (io.BytesIO(path.read_bytes()), path.name) for field, path in named.items()}


def test_web_upload_with_busy_time_previews_and_attaches_the_pair(login, app):
    client = login("ana")
    revisions = count(app, Revision)
    response = client.post("/scenarios/1/usage", files(usage=USAGE, busy=DCGM),
                           content_type="multipart/form-data")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert 'id="busy-time"' in html and "dcgm_busy_sample.csv" in html
    teams = re.search(r'<table id="busy-teams">(.*?)</table>', html, re.S).group(1)
    assert "<td>llm</td><td>384.0</td>" in teams and "<td>vision</td>" in teams
    starved = re.search(r'<table id="starved">(.*?)</table>', html, re.S).group(1)
    assert "<td>2026-03-02 10:00</td><td>2026-03-02 20:00</td><td>10.0</td>" in starved
    assert "data loading or preprocessing" in html
    chart = json.loads(re.search(r'id="data-usage">(.*?)</script>', html, re.S).group(1))
    assert len(chart["busy"]) == 48 and chart["busy"][12] < 0.5 * 16
    file_id = int(re.search(r"/usage/(\d+)/attach", html).group(1))
    assert client.post(f"/scenarios/1/usage/{file_id}/attach").status_code == 302
    with app.app_context():
        with write_session() as s:
            stored = s.get(UsageFile, file_id)
            assert stored.filename == "usage_busy_hourly+busy.zip"   # both files, one revision
            assert stored.data[:2] == b"PK"
    assert count(app, Revision) == revisions + 1


def test_web_upload_of_a_busy_file_alone_is_refused(login, app):
    before = count(app, UsageFile)
    response = login("ana").post("/scenarios/1/usage", files(usage=DCGM),
                                 content_type="multipart/form-data")
    assert response.status_code == 422
    assert "GPU busy-time file; upload it beside a usage file" in response.get_data(as_text=True)
    assert count(app, UsageFile) == before


def test_web_upload_of_contract_commitments_shows_them_and_stores_no_usage(login, app):
    before = count(app, UsageFile)
    response = login("ana").post("/scenarios/1/usage", files(usage=CONTRACTS),
                                 content_type="multipart/form-data")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    table = re.search(r'<table id="commitments">(.*?)</table>', html, re.S).group(1)
    assert re.search(r"<td>CC-GCP-H100-3Y</td><td>8</td><td>2026-07</td><td>36</td>"
                     r"<td>2.1000</td><td>EUR</td><td>partial</td>", table)
    skipped = re.search(r'<table id="skipped">(.*?)</table>', html, re.S).group(1)
    assert "a spend commitment" in skipped
    # attachable to the position (tests/web/test_plan_schedule.py), never stored as usage
    assert 'id="attach-note"' in html and 'action="/scenarios/1/commitments"' in html
    assert count(app, UsageFile) == before


def test_api_busy_part_and_busy_demand_basis(api):
    def plan(basis: str, **named):
        scenario = {"finance": {"horizon_months": 12}, "uncertainty": {"draws": 0},
                    "profile": {"demand_basis": basis, "target_utilization": 0.9}}
        response = api(data={**files(**named), "scenario": json.dumps(scenario)},
                       content_type="multipart/form-data")
        return response.status_code, response.get_json()
    status, allocated = plan("allocated", usage=USAGE, busy=DCGM)
    assert status == 200
    status, busy = plan("busy", usage=USAGE, busy=DCGM)
    assert status == 200
    assert busy["strategies"]["on_demand"]["pv_cost"] < \
        allocated["strategies"]["on_demand"]["pv_cost"]
    status, error = plan("busy", usage=USAGE)                       # no busy part
    assert status == 422 and "needs GPU busy time" in error["error"]["message"]


def contracts():
    from service.ingest import read_upload
    return read_upload(CONTRACTS.read_bytes(), CONTRACTS.name)


def won_scenario(**fx):
    from models.scenario import Scenario
    return Scenario.model_validate({
        "name": "서울 H100 8대 구매 검토", "finance": {"currency": "KRW"},
        "fx": fx or {"rate": 1422.16}, "uncertainty": {"draws": 0}})


def test_dollar_contracts_attach_to_a_won_scenario_and_only_its_gpu_type_is_checked():
    """Issue 24: a FOCUS 1.3 Contract Commitment file in USD and a scenario in won (cloud
    prices in won too): the dollar contracts can be attached (converted at the rate); only
    those for the H100 the scenario plans are checked, the L4 ones say why."""
    from service.scenarios.contract_choices import attach_choices
    choices = {c["detail"]["id"]: c for c in attach_choices(won_scenario(), contracts())}
    assert {i: (c["checked"], c["disabled"]) for i, c in choices.items()} == {
        "CC-GCP-A3-1Y": (True, False),        # a3-highgpu-8g: H100, USD
        "cud-l4-1y": (False, False),          # L4
        "CC-GCP-H100-3Y": (False, True),      # EUR: one rate converts one currency, USD
        "CC-GCP-G2-1Y": (False, False)}       # g2-standard-24: L4
    assert choices["cud-l4-1y"]["why"] == "L4 GPUs; the scenario plans H100"
    assert choices["CC-GCP-A3-1Y"]["why"] == ""
    assert choices["CC-GCP-H100-3Y"]["why"] == ("in EUR: the scenario converts only USD into "
                                                "KRW")


def test_without_a_rate_a_dollar_contract_asks_for_one():
    from models.scenario import Scenario
    from service.scenarios.contract_choices import attach_choices, currency_fits
    no_rate = Scenario.model_validate({"finance": {"currency": "KRW"}})
    assert currency_fits(no_rate, "USD") == ("in USD: give the scenario an exchange rate "
                                             "(KRW per USD) first")
    assert all(c["disabled"] for c in attach_choices(no_rate, contracts())
               if c["detail"]["currency"] == "USD")
    dollars = Scenario.model_validate({"finance": {"currency": "KRW"}, "fx": {"rate": 1400},
                                       "cloud_terms": {"currency": "USD"}})
    assert currency_fits(dollars, "USD") is None
    assert currency_fits(dollars, "EUR") == ("in EUR: the scenario converts only USD into KRW")


def test_attached_dollar_contract_keeps_its_currency(login, app):
    """Posting a USD contract to a won scenario stores it with currency USD."""
    import json as _json
    from models.scenario import Scenario
    from service.scenarios.contract_attach import posted_records
    from service.scenarios.contract_choices import choice_value
    detail = next(d for d in contracts().summary["details"] if d["id"] == "CC-GCP-A3-1Y")
    records = posted_records([choice_value(detail)], won_scenario())
    assert records == [{"id": "CC-GCP-A3-1Y", "gpus": 16, "start": "2026-06",
                        "term_months": 12, "price_per_gpu_hour": detail["price_per_gpu_hour"],
                        "payment": "none", "currency": "USD"}]
    model = Scenario.model_validate({**_json.loads(won_scenario().model_dump_json()),
                                     "position": {"commitments": records}})
    assert model.commitment_market(model.position.commitments[0]) == "foreign"


def test_a_contract_that_ended_before_the_plan_starts_is_not_held():
    """Issue 37: a contract over before the plan starts (2026-01..2027-01 for a plan from
    2027-01, the suite's month being 2026-12) was pre-checked, attached and listed as held,
    with no word and no effect. It is unchecked, cannot be attached, and says it has ended."""
    from service.ingest import read_upload
    from service.scenarios.contract_choices import attach_choices
    text = CONTRACTS.read_text().replace("2026-06-01T00:00:00Z,2027-06-01T00:00:00Z",
                                         "2026-01-01T00:00:00Z,2027-01-01T00:00:00Z")
    result = read_upload(text.encode(), "contracts.csv")
    choices = {c["detail"]["id"]: c for c in attach_choices(won_scenario(), result)}
    ended = choices["CC-GCP-A3-1Y"]
    assert (ended["checked"], ended["disabled"]) == (False, True)
    assert ended["why"] == "ended 2027-01-01, before the plan starts in 2027-01"
    # a scenario that starts earlier holds it
    early = won_scenario().with_changes(finance={"start_month": "2026-07"})
    assert {c["detail"]["id"]: c for c in attach_choices(early, result)}[
        "CC-GCP-A3-1Y"]["checked"]
