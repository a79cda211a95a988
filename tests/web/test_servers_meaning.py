"""Issue 37 item 5: one meaning of "servers" on the cards, in the CLI table and on the
workbook's Summary: the servers a strategy buys, the servers held at the plan's start said
apart. On the generations sample the workbook counted 16 / 16 / 409 / 25 / 29 (most online,
the 16 held H100 included) where the page said 0 / 0 / 393 h100 / 9 h100 / 16 h100 + 24 b200
(servers bought by a static strategy, most online of a schedule)."""
from __future__ import annotations

import io
import re
from html import unescape

import openpyxl
import pytest
from flask import render_template

from service.cli.report import plan_table, strategy_name
from service.i18n import formats, using_locale
from service.i18n.labels import strategy_label
from service.plans.headline import payback
from service.xlsx.summary import SUMMARY, TABLE_ROW
from tests.support.plans import compute_plan
from tests.support.xlsx_cases import case, plan_workbook


@pytest.fixture(scope="module")
def generations():
    return compute_plan(*case("generations"))


def counts(text: str) -> dict[str, int]:
    """``9 h100 + 24 b200`` or ``9 h100+24 b200`` -> {"h100": 9, "b200": 24}; ``0`` -> {}."""
    return {k: int(n) for n, k in re.findall(r"(\d+)\s*([a-z][\w-]*)", text)}


def nonzero(by_type: dict) -> dict[str, int]:
    return {k: n for k, n in by_type.items() if n}


def card_servers(app, doc, locale="en") -> dict[str, str]:
    with app.test_request_context("/"), using_locale(locale):
        html = unescape(render_template("plans/_cards.html", doc=doc, payback=payback(doc)))
    cards = re.findall(r'data-strategy="(\w+)">(.*?)</div>', html, re.S)
    return {name: re.sub(r"<[^>]+>", "", re.search(r'<p class="servers">(.*?)</p>', body,
                                                    re.S).group(1)) for name, body in cards}


def test_cards_cli_and_workbook_count_the_same_servers(app, generations):
    doc = generations.document
    bought = {name: nonzero(e["servers_bought"]) for name, e in doc["strategies"].items()}
    assert bought["on_demand"] == {} and bought["cloud_only"] == {}
    assert bought["staged"] == {"b200": sum(n for d in doc["strategies"]["staged"]["schedule"]
                                            for n in d.get("buy", {}).values())}
    held = {"h100": 16}
    assert all(nonzero(e["servers_held"]) == held for e in doc["strategies"].values())

    cards = card_servers(app, doc)
    with using_locale("en"):
        table = plan_table(generations, "usage").splitlines()
    header = next(line for line in table if "servers bought" in line)
    assert "Servers held at the plan's start, in every strategy and not counted as bought: " \
           "16 h100" in table
    book = openpyxl.load_workbook(io.BytesIO(plan_workbook(generations)))
    ws = book[SUMMARY] if SUMMARY in book.sheetnames else book.worksheets[0]
    assert "Servers bought" in ws.cell(TABLE_ROW + 1, 3).value
    assert "16 h100" in ws.cell(TABLE_ROW + 1, 3).value
    sheet = {ws.cell(r, 1).value: ws.cell(r, 3).value
             for r in range(TABLE_ROW + 2, TABLE_ROW + 2 + len(doc["strategies"]))}
    for name in doc["strategies"]:
        card = cards[name]
        assert counts(card.split("·")[0]) == bought[name], (name, card)
        assert counts(card.split("held:")[1].split("·")[0]) == held, (name, card)
        with using_locale("en"):
            label = strategy_name(name)
        row = next(line for line in table[table.index(header):]
                   if line.startswith(label + " "))
        cell = re.split(r"\s{2,}", row.strip())[1]
        assert counts(cell) == bought[name], (name, row)
        value = sheet[strategy_label(name)]
        assert (counts(value) if isinstance(value, str) else {}) == bought[name], (name, value)
    assert "owned utilization" in cards["on_demand"]      # the held servers' use


def test_cards_say_bought_and_held_in_korean(app, generations):
    cards = card_servers(app, generations.document, "ko")
    assert all("구매" in text and "보유" in text for text in cards.values())
    assert not re.search(r"[A-Za-z]{4,}", re.sub(r"\d+\s*[a-z]\d+", "", cards["on_demand"]))


@pytest.fixture
def single_type_doc():
    from models.scenario import Scenario
    from tests.support.engine_cases import flat_profile
    return compute_plan(Scenario.model_validate({"finance": {"start_month": "2027-01"}}),
                        flat_profile(40, "2026-01", 12)).document


def test_cards_without_a_position(app, single_type_doc):
    """No position: every card counts the servers bought, says nothing held, and shows owned
    utilization only where servers are bought."""
    cards = card_servers(app, single_type_doc)
    for name, e in single_type_doc["strategies"].items():
        assert cards[name].startswith(f"Servers bought: {formats.servers(e['servers_bought'])}")
        assert "held:" not in cards[name]
        assert ("owned utilization" in cards[name]) == (formats.server_total(
            e["servers_bought"]) > 0)
