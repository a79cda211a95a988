"""`buyrent variance` end to end (issue 43): the demo plan against the six FOCUS 1.3 bills of
samples/actuals/ and its owned actuals, refusals by row and column, and the usage path unchanged
by the capture of bill rows (service.ingest.gpu_usage.capture).

The sample's baseline is the demo plan's ``proposed`` strategy (8 servers, a 1-year commitment,
spot and on demand): it was ``cloud_only`` until the owned actuals came, and a strategy that
owns no servers has none to be late or idle (samples/actuals/generate.py)."""
import json
import sys
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

from models.variance import MESSAGES
from service.i18n import variance_words
from service.ingest import read_usage
from service.ingest.gpu_usage import capture
from tests.support.cli_plan import buyrent, demo_plan_document
from tests.support.paths import SAMPLE_USAGE, SAMPLES

ACTUALS = sorted((SAMPLES / "actuals").glob("focus_1.3_*.csv"))
OWNED = SAMPLES / "actuals" / "owned_2027-01_2027-06.csv"


@pytest.fixture(scope="module")
def demo_plan(tmp_path_factory) -> Path:
    return demo_plan_document(tmp_path_factory.mktemp("plan"))


def cents(text: str) -> int:
    return int(Decimal(text) * 100)


def test_samples_are_the_generators(demo_plan, tmp_path):
    """The committed bills and owned actuals are what the seeded generator writes for the
    demo plan."""
    sys.path.insert(0, str(SAMPLES / "actuals"))
    try:
        import generate
    finally:
        sys.path.remove(str(SAMPLES / "actuals"))
    written = generate.write(json.loads(demo_plan.read_text()), tmp_path)
    assert [p.name for p in written] == [p.name for p in ACTUALS + [OWNED]]
    assert len(ACTUALS) == 6
    for new, old in zip(written, ACTUALS + [OWNED]):
        assert new.read_bytes() == old.read_bytes(), old.name


def test_sample_story_adds_up_with_its_signs(demo_plan):
    out = buyrent("variance", "--plan", str(demo_plan), *map(str, ACTUALS), "--strategy",
                  "proposed", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert [m["month"] for m in doc["months"]] == [f"2027-0{i}" for i in range(1, 7)]
    for entry in doc["months"] + [doc["ytd"]]:
        assert sum(cents(v) for v in entry["parts"].values()) == cents(entry["total"])
        assert entry["parts_cents"] == {k: cents(v) for k, v in entry["parts"].items()}
        assert cents(entry["actual"]) - cents(entry["plan"]) - cents(entry["total"]) in (-1, 0, 1)
        # more work, moved off commitments and spot onto on demand, commitments idle
        p = entry["parts"]
        assert Decimal(p["volume"]) > 0 and Decimal(p["mix"]) > 0
        assert Decimal(p["idle_commitments"]) > 0
        # the bills' storage and egress rows are read (service/ingest/bill_lines.py)
        assert set(p) <= {"volume", "mix", "price", "idle_commitments", "other.storage",
                          "other.egress"}
        assert abs(Decimal(p.get("other.storage", 0))) <= Decimal("0.01")   # billed as planned
    plan = {r["month"]: r for r in json.loads(demo_plan.read_text())["strategies"]["proposed"]
            ["monthly"]}
    for m in doc["months"]:         # the price change from April; before it the plan's rate
        if m["month"] < "2027-04":
            assert abs(Decimal(m["parts"]["price"])) <= Decimal("0.05")
        else:
            assert Decimal(m["parts"]["price"]) > 1000
        # egress half again the plan's from March: the bill's cents less the plan's egress
        egress = Decimal(m["parts"].get("other.egress", 0))
        growth = Decimal("0.5") if m["month"] >= "2027-03" else 0
        assert abs(egress - growth * Decimal(plan[m["month"]]["egress"])) <= Decimal("0.01")
        if growth:
            assert egress > 100
        assert "storage" not in m["as_planned"] and "egress" not in m["as_planned"]
    assert doc["ytd"]["from"] == "2027-01" and doc["ytd"]["to"] == "2027-06"


def test_sample_story_with_the_owned_fleet(demo_plan):
    """Bills and owned actuals together: two servers late (paid and online from March), the
    servers online doing less than the plan gives them; the parts still add up to the cent."""
    out = buyrent("variance", "--plan", str(demo_plan), *map(str, ACTUALS), str(OWNED),
                  "--strategy", "proposed", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    months = {m["month"]: m for m in doc["months"]}
    for entry in doc["months"] + [doc["ytd"]]:
        assert sum(entry["parts_cents"].values()) == entry["total_cents"]
    for month, m in months.items():
        p = {k: Decimal(v) for k, v in m["parts"].items()}
        assert p["idle_servers"] > 0 and p["idle_commitments"] > 0 and p["volume"] > 0
        late = month < "2027-03"
        assert (p.get("timing.delivery", 0) > 0) == late, month
        assert ("other.space" in p and p["other.space"] < 0) == late, month
        assert "gpu_hours.owned" not in m["as_planned"] and "energy" not in m["as_planned"]
    # six of the eight servers paid in January, the two late ones on delivery in March
    assert months["2027-01"]["parts"]["timing.capex"] == "-660000.00"
    assert months["2027-03"]["parts"]["timing.capex"] == "660000.00"
    assert "timing.capex" not in doc["ytd"]["parts"]          # moved, not more
    assert Decimal(months["2027-04"]["parts"]["price"]) > 1000


def test_table_in_english_and_korean(demo_plan):
    en = buyrent("variance", "--plan", str(demo_plan), *map(str, ACTUALS[:2]), "--strategy",
                 "cloud_only")
    assert en.returncode == 0, en.stderr
    assert "Idle commitments" in en.stdout and "YTD 2027-01 to 2027-02" in en.stdout
    ko = buyrent("variance", "--plan", str(demo_plan), *map(str, ACTUALS[:2]), str(OWNED),
                 "--strategy", "proposed", "--lang", "ko")
    assert ko.returncode == 0, ko.stderr
    assert "Idle commitments" not in ko.stdout and "Total variance" not in ko.stdout
    assert "Idle servers" not in ko.stdout and "delivered" not in ko.stdout
    assert "유휴 약정" in ko.stdout and "유휴 서버" in ko.stdout and "납품" in ko.stdout


def test_default_strategy_is_the_recommended_one(demo_plan):
    out = buyrent("variance", "--plan", str(demo_plan), str(ACTUALS[0]), "--json")
    assert out.returncode == 0, out.stderr
    recommended = json.loads(demo_plan.read_text())["recommendation"]
    assert json.loads(out.stdout)["strategy"] == recommended


def edited(tmp_path, name, old, new, count=1):
    text = ACTUALS[0].read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, count), encoding="utf-8")
    return path


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_refusals_are_one_line_exit_2(demo_plan, tmp_path, lang):
    early = edited(tmp_path, "early.csv", "2027-01-01T00:00:00Z", "2026-06-01T00:00:00Z", -1)
    bad_cost = edited(tmp_path, "bad_cost.csv", ",Usage-Based,", ",Usage-Based,", 1)
    text = bad_cost.read_text(encoding="utf-8").splitlines()
    cells = text[1].split(",")
    header = text[0].split(",")
    cells[header.index("EffectiveCost")] = "n/a"
    cells[header.index("PricingCurrencyEffectiveCost")] = ""
    bad_cost.write_text("\n".join([text[0], ",".join(cells)] + text[2:]) + "\n",
                        encoding="utf-8")
    euro = edited(tmp_path, "euro.csv", ",USD,", ",EUR,", -1)
    ko = lang == "ko"
    cases = [
        (early, "2026-06"),
        (bad_cost, "2행, 'EffectiveCost' 열" if ko else "row 2, column 'EffectiveCost'"),
        (euro, "2행, 'BillingCurrency' 열" if ko else "row 2, column 'BillingCurrency'"),
        (SAMPLE_USAGE, "usage_hourly.csv"),
    ]
    for path, named in cases:
        out = buyrent("variance", "--plan", str(demo_plan), str(path), "--lang", lang)
        assert out.returncode == 2, (path, out.stdout)
        assert len(out.stderr.strip().splitlines()) == 1 and named in out.stderr, out.stderr
        if lang == "ko":
            assert "not a" not in out.stderr and "the cost" not in out.stderr, out.stderr
    missing = buyrent("variance", "--plan", str(demo_plan), str(ACTUALS[0]), "--strategy",
                      "nope")
    assert missing.returncode == 2 and "nope" in missing.stderr
    not_plan = buyrent("variance", "--plan", str(ACTUALS[0]), str(ACTUALS[0]))
    assert not_plan.returncode == 2 and "not a JSON file" in not_plan.stderr


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_owned_refusals_by_row_and_column(demo_plan, tmp_path, lang):
    """A bad owned actuals file is refused by row and column, in the reader's language."""
    lines = OWNED.read_text(encoding="utf-8").splitlines()
    late = lines[1].replace(",6,", ",7,", 1)            # 7 online, 6 held in January
    kinds = lines[2].replace("2027-02,,", "2027-02,b200,", 1)
    bad = tmp_path / "owned.csv"
    bad.write_text("\n".join([lines[0], late, kinds] + lines[3:]) + "\n", encoding="utf-8")
    out = buyrent("variance", "--plan", str(demo_plan), str(bad), "--strategy", "proposed",
                  "--lang", lang)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    if lang == "ko":
        assert "3행, 'server_type' 열: b200: 계획의 서버 유형이 아닙니다" in out.stderr
        assert "not a" not in out.stderr
    else:
        assert "row 3, column 'server_type': b200 is not a server type of the plan" \
            in out.stderr
    fixed = tmp_path / "owned_fixed.csv"
    fixed.write_text("\n".join([lines[0], late] + lines[2:]) + "\n", encoding="utf-8")
    out = buyrent("variance", "--plan", str(demo_plan), str(fixed), "--strategy", "proposed",
                  "--lang", lang)
    assert out.returncode == 2
    assert ("2행, 'servers_online' 열" if lang == "ko" else
            "row 2, column 'servers_online': 7 servers online but 6 held in 2027-01") \
        in out.stderr, out.stderr


@pytest.mark.parametrize("name", ["focus_1.2_sample.csv", "focus_1.3_sample.csv",
                                  "aws_cur_sample.csv", "gcp_billing_export_sample.csv",
                                  "azure_cost_details_amortized_sample.csv"])
def test_usage_path_unchanged_by_capture(name):
    data = (SAMPLES / name).read_bytes()
    plain = read_usage(data, name)
    with capture() as box:
        seen = read_usage(data, name)
    assert len(box) == 1 and box[0].counted.any()
    assert seen.summary == plain.summary and seen.warnings == plain.warnings
    assert np.array_equal(seen.profile.starts, plain.profile.starts)
    assert np.array_equal(seen.profile.steady, plain.profile.steady)
    assert read_usage(data, name).summary == plain.summary      # nothing left captured


def test_engine_refusals_are_extracted_words():
    assert tuple(variance_words.MESSAGES) == MESSAGES
