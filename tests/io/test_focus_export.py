"""`buyrent focus-export` (issue 43, item 1): the owned fleet as FOCUS 1.3 / 1.4 rows, read back
by our own FOCUS reader (service/ingest/focus.py through service/actuals.py) with the same
GPU-hours and cost per month; the price per GPU-hour by hand on a small plan
(tests/engine/test_owned_focus.py has the figures); refusals in English and Korean."""
import csv
import io
import json
from decimal import Decimal
from pathlib import Path

import pytest

from models.owned_focus import MESSAGES
from service.actuals import read_bill_data
from service.focus_export import columns, focus_csv
from service.i18n import focus_export_words
from service.ingest import read_usage
from tests.support.focus_fx_cases import OWNED_PLAN as PLAN
from tests.support.cli_plan import buyrent, demo_plan_document
from tests.support.paths import SAMPLES


SMALL = {"scenario": {"name": "small", "owned": {"gpus_per_server": 8}},
         "currencies": {"reporting": "USD", "owned": "USD", "cloud": "USD", "fx": None},
         "recommendation": "optimal",
         "strategies": {"optimal": {"monthly": PLAN},
                        "cloud_only": {"monthly": [dict(r, owned_gpu_hours=0.0)
                                                   for r in PLAN]}}}


@pytest.fixture(scope="module")
def demo_plan(tmp_path_factory) -> Path:
    return demo_plan_document(tmp_path_factory.mktemp("plan"))


def rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.mark.parametrize("version", ["1.3", "1.4"])
def test_small_plan_by_hand(tmp_path, version):
    """8,500 of owned cost over 1,500 GPU-h: 17/3 per GPU-hour, 136/3 per 8-GPU server-hour."""
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(SMALL), encoding="utf-8")
    out = buyrent("focus-export", "--plan", str(plan), "--version", version)
    assert out.returncode == 0, out.stderr
    got = rows(out.stdout)
    assert list(got[0]) == list(columns(version))
    assert ("InvoiceDetailId" in got[0]) == (version == "1.4")
    assert [(r["ChargePeriodStart"], r["ChargePeriodEnd"], r["ConsumedQuantity"],
             r["EffectiveCost"], r["BilledCost"], r["x_GpuHours"]) for r in got] == [
        ("2027-01-01T00:00:00Z", "2027-02-01T00:00:00Z", "125.0", "5666.67", "5666.67",
         "1000.0"),
        ("2027-02-01T00:00:00Z", "2027-03-01T00:00:00Z", "62.5", "2833.33", "2833.33",
         "500.0")]
    first = got[0]
    assert (first["x_PricePerGpuHour"], first["ListUnitPrice"], first["PricingUnit"],
            first["ConsumedUnit"]) == ("5.666667", "45.333333", "Hours", "Hours")
    assert json.loads(first["SkuPriceDetails"]) == {"GpuCount": 8}
    assert (first["ChargeCategory"], first["ServiceCategory"], first["ServiceSubcategory"],
            first["BillingCurrency"], first["ServiceProviderName"], first["ProviderName"]) == (
        "Usage", "Compute", "Virtual Machines", "USD", "Owned fleet (internal)",
        "Owned fleet (internal)")
    back = read_bill_data([("owned.csv", out.stdout.encode())], "USD")
    assert [(a.month, a.gpu_hours["on_demand"], a.costs["on_demand"]) for a in back] == [
        ("2027-01", 1000.0, 5666.67), ("2027-02", 500.0, 2833.33)]


def test_demo_plan_round_trip(demo_plan):
    """Every month of the demo plan's optimal strategy read back: the plan's owned GPU-hours,
    the row's cost; the rows add up to the strategy's owned cost."""
    doc = json.loads(demo_plan.read_text())
    for version in ("1.3", "1.4"):
        out = buyrent("focus-export", "--plan", str(demo_plan), "--strategy", "optimal",
                      "--version", version)
        assert out.returncode == 0, out.stderr
        got = rows(out.stdout)
        back = {a.month: a for a in read_bill_data([("owned.csv", out.stdout.encode())],
                                                   "USD")}
        monthly = [m for m in doc["strategies"]["optimal"]["monthly"]
                   if m["owned_gpu_hours"] > 0]
        assert len(got) == len(monthly) == len(back) > 12
        for m, r in zip(monthly, got):
            a = back[m["month"]]
            assert a.gpu_hours["on_demand"] == pytest.approx(m["owned_gpu_hours"], rel=1e-12)
            assert Decimal(str(a.costs["on_demand"])) == Decimal(r["EffectiveCost"])
        owned = sum(sum(m[n] for n in ("capex", "loan_payment", "energy", "space",
                                       "maintenance", "staff", "owned_storage",
                                       "owned_network", "tax_on_resale"))
                    - m["resale_credit"] for m in doc["strategies"]["optimal"]["monthly"])
        total = sum(Decimal(r["EffectiveCost"]) for r in got)
        assert abs(total - Decimal(str(owned))) <= Decimal("0.01")
        price = Decimal(got[0]["x_PricePerGpuHour"])
        hours = sum(m["owned_gpu_hours"] for m in monthly)
        assert price == (Decimal(str(owned)) / Decimal(str(hours))).quantize(Decimal("1e-6"))


def test_gpu_count_read_when_no_instance_is_named():
    """The reader's part of the round trip: a row naming no known instance counts by its
    SkuPriceDetails GpuCount (before this, no GPU usage was found in the export)."""
    text = focus_csv(SMALL, "optimal")
    read_usage(text.encode(), "owned.csv")          # a usage upload takes it too
    back = read_bill_data([("owned.csv", text.encode())], "USD")
    assert sum(a.gpu_hours["on_demand"] for a in back) == 1500.0


@pytest.mark.parametrize("lang, words", [
    ("en", "the strategy cloud_only has no owned GPU-hours"),
    ("ko", "GPU"),
])
def test_refusals(tmp_path, lang, words):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(SMALL), encoding="utf-8")
    out = buyrent("focus-export", "--plan", str(plan), "--strategy", "cloud_only", "--lang", lang)
    assert out.returncode == 2 and out.stdout == ""
    assert words in out.stderr
    if lang == "ko":
        assert "보유" in out.stderr and "GPU" in out.stderr
    missing = buyrent("focus-export", "--plan", str(plan), "--strategy", "nope", "--lang", lang)
    assert missing.returncode == 2 and "nope" in missing.stderr


def test_a_fleet_has_a_row_per_server_type():
    """Two types, a of 8 GPUs and b of 4: January's 1,000 GPU-h on 1 a and 2 b servers (8 GPUs
    each) are 500 GPU-h each, 62.5 a-server-hours and 125 b-server-hours; February's 500 GPU-h
    all on a. One price, 17/3 per GPU-hour (tests/engine/test_owned_focus.py)."""
    monthly = [dict(PLAN[0], servers_online_by_type={"a": 1.0, "b": 2.0}),
               dict(PLAN[1], servers_online_by_type={"a": 1.0, "b": 0.0}),
               dict(PLAN[2], servers_online_by_type={"a": 0.0, "b": 0.0})]
    fleet = dict(SMALL, scenario={"name": "fleet", "owned": {"gpus_per_server": 8},
                                  "server_types": [{"id": "a"},
                                                   {"id": "b", "gpus_per_server": 4}]},
                 strategies={"staged": {"monthly": monthly}})
    text = focus_csv(fleet, "staged", "1.4")
    got = rows(text)
    assert [(r["ChargePeriodStart"][:7], r["x_OwnedServerType"], r["ResourceName"],
             json.loads(r["SkuPriceDetails"])["GpuCount"], r["ConsumedQuantity"],
             r["x_GpuHours"], r["ListUnitPrice"], r["EffectiveCost"]) for r in got] == [
        ("2027-01", "a", "a", 8, "62.5", "500.0", "45.333333", "2833.33"),
        ("2027-01", "b", "b", 4, "125.0", "500.0", "22.666667", "2833.34"),
        ("2027-02", "a", "a", 8, "62.5", "500.0", "45.333333", "2833.33")]
    back = read_bill_data([("fleet.csv", text.encode())], "USD")
    assert [(a.month, a.gpu_hours["on_demand"], a.costs["on_demand"]) for a in back] == [
        ("2027-01", 1000.0, 5666.67), ("2027-02", 500.0, 2833.33)]


def test_a_document_without_currencies_is_one_currency():
    old = {k: v for k, v in SMALL.items() if k != "currencies"}
    got = rows(focus_csv(old, "optimal"))
    assert [(r["BillingCurrency"], r["EffectiveCost"]) for r in got] == [("USD", "5666.67"),
                                                                         ("USD", "2833.33")]


def test_words_are_the_engines():
    assert tuple(focus_export_words.MESSAGES) == MESSAGES
