"""The robust plan's words name purchases and sales per server type on every path, and its card's
GPUs are the quantity its words and table give (issue 37, item 3)."""
from __future__ import annotations

import re

import pytest

from service.cli.report import robust_lines
from service.i18n import using_locale
from service.i18n.robust_words import (decision_now, moved, robust_entry, schedule_text,
                                       signed, signed_text)
from service.plans.robust_view import robust_view
from tests.support.engine_cases import robust_case
from tests.support.plans import compute_plan

B200 = {"id": "b200", "server_price": 520_000, "power_kw_max": 14.3, "power_kw_idle": 4.0,
        "relative_throughput": 2.2}
# demand falls 60 % a year on one path: the plan sells old h100 servers, on the other it grows
# and the plan buys b200
FALLING = [{"name": "shrink", "growth_annual": -0.6, "probability": 0.3},
           {"name": "grow", "growth_annual": 0.8, "probability": 0.7}]


@pytest.fixture(scope="module")
def fleet_doc():
    """A small robust plan over two server types (24 months, decisions every 6) that holds 8
    h100 bought in 2024 and may sell them."""
    s, profile = robust_case(
        1, paths=FALLING, months=24, interval=6, now=12,
        server_types=[{"id": "h100", "server_price": 250_000}, B200],
        position={"servers": [{"count": 8, "type": "h100", "purchased": "2024-01",
                               "price": 250_000}]})
    s = s.with_changes(staging={**s.staging.model_dump(mode="json"), "allow_sales": True})
    return compute_plan(s, profile).document


def later(r: dict, q: dict) -> list[dict]:
    return [d for d in q["schedule"] if d["month"] > r["decide_now_until"]]


def test_the_case_sells_old_servers_now_and_on_the_shrinking_path(fleet_doc):
    """What the words below are checked against: the plan does sell (else the test proves
    nothing)."""
    r = robust_entry(fleet_doc)
    shrink, grow = r["scenarios"]
    assert moved(r["common"], "sell").get("h100", 0) > 0
    assert moved(later(r, shrink), "sell").get("h100", 0) > 0
    assert moved(later(r, grow), "buy").get("b200", 0) > 0


def test_the_decision_names_each_type_and_each_sale(fleet_doc):
    r = robust_entry(fleet_doc)
    shrink, grow = r["scenarios"]
    text = decision_now(r)
    for d in r["common"]:
        for k, n in moved([d], "sell").items():
            assert f"sell {n} {k} server{'s' if n > 1 else ''} in {d['month']}" in text
    for k, n in moved(later(r, shrink), "sell").items():
        last = max(d["month"] for d in later(r, shrink) if d.get("sell", {}).get(k))
        assert f"shrink (-60% a year): sell {n} {k} server{'s' if n > 1 else ''} by {last}" \
            in text
    for k, n in moved(later(r, grow), "buy").items():
        assert f"buy {n} {k} server" in text.split("grow (80% a year):")[1]
    assert "more servers" not in text and "buy nothing" not in text
    with using_locale("ko"):
        korean = decision_now(r)
    for d in r["common"]:
        for k, n in moved([d], "sell").items():
            assert f"{d['month']}에 {k} 서버 {n}대 매각" in korean
    for k, n in moved(later(r, shrink), "sell").items():
        assert f"{k} 서버 {n}대 매각" in korean.split("shrink")[1].split("grow")[0]
    # no English words: only the type ids and the user's own scenario names are Latin
    words = set(re.findall(r"[A-Za-z]+", korean)) - {"h", "b", "shrink", "grow"}
    assert not words, words


def test_the_table_and_the_cli_show_purchases_and_sales_per_type(fleet_doc):
    r = robust_entry(fleet_doc)
    shrink = r["scenarios"][0]
    sale = next(d for d in later(r, shrink) if d.get("sell"))
    k, n = next(iter(sale["sell"].items()))
    assert f"{sale['month']} -{n} {k}" in schedule_text(shrink["schedule"])
    rows = robust_view(fleet_doc)["rows"]
    assert rows[0]["schedule"] == schedule_text(shrink["schedule"])
    lines = robust_lines(r, "USD")
    assert any(line.lstrip().startswith("shrink") and f"{sale['month']} -{n} {k}" in line
               for line in lines)
    with using_locale("ko"):
        assert any(f"{sale['month']} -{n} {k}" in line for line in robust_lines(r, "KRW"))


def test_a_plan_without_server_types_names_no_type():
    r = {"decide_now_until": "2027-12", "scenarios_from_range": False,
         "common": [{"month": "2027-01", "buy_servers": 5, "sell_servers": 0, "commit": {}}],
         "scenarios": [{"name": "low", "growth_annual": -0.5, "schedule": [
             {"month": "2027-01", "buy_servers": 5, "sell_servers": 0, "commit": {}},
             {"month": "2028-07", "buy_servers": 0, "sell_servers": 3, "commit": {}}]},
             {"name": "high", "growth_annual": 1.0, "schedule": [
                 {"month": "2027-01", "buy_servers": 5, "sell_servers": 0, "commit": {}},
                 {"month": "2028-01", "buy_servers": 1, "sell_servers": 0,
                  "commit": {"3y": 24}},
                 {"month": "2028-07", "buy_servers": 0, "sell_servers": 0,
                  "commit": {"3y": 24}}]}]}
    assert decision_now(r) == (
        "Decide now (through 2027-12): buy 5 servers in 2027-01. Later, by demand scenario: "
        "low (-50% a year): sell 3 servers by 2028-07; high (100% a year): buy 1 server by "
        "2028-01 and sign 48 GPUs 3y by 2028-07.")
    assert schedule_text(r["scenarios"][0]["schedule"]) == "2027-01 +5, 2028-07 -3"
    # 24 + 24 signed over the path: the table says 48, as the card will
    assert signed_text(r["scenarios"][1]["schedule"]) == "48 GPUs 3y"
    with using_locale("ko"):
        assert decision_now(r) == (
            "지금 결정(2027-12까지): 2027-01에 서버 5대 구매. 이후 수요 시나리오별: "
            "low(연 -50%): 2028-07까지 서버 3대 매각; high(연 100%): 2028-01까지 서버 1대 "
            "구매, 2028-07까지 GPU 48개 3y 약정.")


def test_the_card_gpus_are_the_most_any_scenario_signs():
    """The card's committed GPUs per offer are the most any path signs in all, now and later:
    the figure the scenarios' table gives for that path and the decision's words add up to."""
    s, profile = robust_case(3, months=24, interval=6)
    r = robust_entry(compute_plan(s, profile).document)
    per_path = [signed(q["schedule"]) for q in r["scenarios"]]
    assert any(per_path), "the case signs no GPUs: nothing to compare"
    for offer, gpus in r["committed_gpus"].items():
        assert gpus == max(p.get(offer, 0) for p in per_path), offer
        now = signed(r["common"]).get(offer, 0)
        for q, p in zip(r["scenarios"], per_path):
            if p.get(offer, 0) - now:
                assert f"sign {p[offer] - now} GPUs {offer} by" in decision_now(r)
        if gpus:
            assert any(f"{gpus} GPUs {offer}" in signed_text(q["schedule"])
                       for q in r["scenarios"])
