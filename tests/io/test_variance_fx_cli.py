"""`buyrent variance` with bills in the plan's foreign currency (issue 43, item 2): the
two-month case of tests/engine/test_variance_fx.py read from FOCUS bills, the rate paid taken
from a row's two amounts or from --fx-rate, and the refusals (no rate in the plan, no rate paid
to be had) by row and column in English and Korean."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from models.variance_fx import FX_MESSAGES
from service.i18n import ingest_refusals
from tests.support.focus_fx_cases import FX_PLAN as PLAN, KRW
from tests.support.paths import ROOT

HEADER = ("ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ConsumedQuantity,ConsumedUnit,"
          "SkuId,PricingCategory,BillingCurrency,EffectiveCost,PricingCurrency,"
          "PricingCurrencyEffectiveCost,PricingQuantity")


def bill(path: Path, month: str, end: str, hours: float, billing: str, billed: float,
         pricing: str, priced: float) -> Path:
    """One FOCUS 1.2 row of a p5.48xlarge (8 GPUs) on demand."""
    path.write_text(f"{HEADER}\n{month}-01T00:00:00Z,{end}-01T00:00:00Z,Usage,{hours},Hours,"
                    f"p5.48xlarge,Standard,{billing},{billed},{pricing},{priced},{hours}\n",
                    encoding="utf-8")
    return path


def buyrent(*args):
    return subprocess.run([sys.executable, "-m", "service.cli.main", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def files(tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"currencies": KRW, "recommendation": "cloud_only",
                                "strategies": {"cloud_only": {"monthly": PLAN}}}),
                    encoding="utf-8")
    jan = bill(tmp_path / "jan.csv", "2027-01", "2027-02", 15, "KRW", 630000, "USD", 600)
    jul = bill(tmp_path / "jul.csv", "2027-07", "2027-08", 10, "USD", 400, "USD", 400)
    eur = bill(tmp_path / "eur.csv", "2027-07", "2027-08", 10, "EUR", 400, "EUR", 400)
    return plan, jan, jul, eur


def test_two_months_by_hand(files):
    """120 GPU-h priced 600 USD billed 630,000 KRW in January; 80 GPU-h of 400 USD in July at
    the stated 1,150 KRW per USD (the figures: tests/engine/test_variance_fx.py)."""
    plan, jan, jul, _eur = files
    out = buyrent("variance", "--plan", str(plan), str(jan), str(jul), "--fx-rate", "1150",
                  "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["currency"] == "KRW"
    one, two = doc["months"]
    assert one["gpu_hours"]["actual"]["on_demand"] == 120.0
    assert one["parts"] == {"volume": "80000.00", "mix": "0.00", "price": "120000.00",
                            "idle_commitments": "0.00", "fx": "30000.00"}
    assert (one["plan"], one["actual"], one["total"]) == ("400000.00", "630000.00",
                                                          "230000.00")
    assert two["parts"] == {"volume": "-96000.00", "mix": "0.00", "price": "96000.00",
                            "idle_commitments": "0.00", "fx": "-20000.00"}
    assert doc["ytd"]["parts"]["fx"] == "10000.00" and doc["ytd"]["total"] == "210000.00"
    table = buyrent("variance", "--plan", str(plan), str(jan), str(jul), "--fx-rate", "1150",
                    "--lang", "ko")
    assert table.returncode == 0 and "환율" in table.stdout and "30000.00" in table.stdout


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_no_rate_is_refused_by_row_and_column(files, lang):
    plan, jan, jul, eur = files
    ko = lang == "ko"
    where = "2행, 'BillingCurrency' 열" if ko else "row 2, column 'BillingCurrency'"
    unstated = buyrent("variance", "--plan", str(plan), str(jan), str(jul), "--lang", lang)
    assert unstated.returncode == 2 and unstated.stdout == ""
    assert "jul.csv" in unstated.stderr and where in unstated.stderr
    no_rate = buyrent("variance", "--plan", str(plan), str(eur), "--fx-rate", "1150",
                      "--lang", lang)
    assert no_rate.returncode == 2 and where in no_rate.stderr and "EUR" in no_rate.stderr
    if ko:
        assert "the cost" not in unstated.stderr + no_rate.stderr
        assert "환율" in unstated.stderr and "환율" in no_rate.stderr
    else:
        assert "no rate actually paid can be had" in unstated.stderr
        assert "the plan has no exchange rate for it" in no_rate.stderr
    bad = buyrent("variance", "--plan", str(plan), str(jul), "--fx-rate", "-3")
    assert bad.returncode == 2 and "--fx-rate" in bad.stderr


def test_the_refusals_are_translatable_templates():
    assert set(FX_MESSAGES) <= set(ingest_refusals.TEMPLATES)
