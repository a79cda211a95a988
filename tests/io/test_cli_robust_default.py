"""Issue 27's default, as a user runs it: `buyrent plan` of a scenario without demand
scenarios plans the robust plan over three from its demand growth range, in the table (in
English and Korean) and in the JSON document as ``strategies.robust``. The suite leaves that
default out of its other plans (tests/conftest.py): these subprocesses run without the switch,
and one with it, to show what it does."""
import json
import os
import subprocess
import sys

from numpy.testing import assert_allclose

from tests.support.paths import ROOT, SAMPLE_USAGE

SWITCH = "BUYRENT_GROWTH_RANGE_SCENARIOS"


def buyrent(*args, switch_off: bool = False):
    env = {k: v for k, v in os.environ.items() if k != SWITCH}
    if switch_off:
        env[SWITCH] = "0"
    return subprocess.run([sys.executable, "-m", "service.cli.main", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_built_in_defaults_plan_the_growth_range_scenarios():
    # the built-in defaults: growth 0 %, the growth range -20 / +30 points, so the paths grow
    # -20 %, 0 % and +30 % a year with probabilities 0.25 / 0.5 / 0.25
    out = buyrent("plan", str(SAMPLE_USAGE), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    r = doc["strategies"]["robust"]
    assert r["scenarios_from_range"] is True
    assert [(q["name"], q["probability"]) for q in r["scenarios"]] == [
        ("low", 0.25), ("likely", 0.5), ("high", 0.25)]
    assert_allclose([q["growth_annual"] for q in r["scenarios"]], [-0.2, 0.0, 0.3], rtol=1e-12)
    # its PV is the expected PV: sum p x PV of the paths (hand check of the weighting)
    assert_allclose(r["pv_cost"], sum(q["probability"] * q["pv_cost"] for q in r["scenarios"]),
                    rtol=1e-12)
    assert r["pv_cost"] == r["expected_pv"]
    # savings against all on demand held over the same paths, never the recommendation
    held = r["held_fixed"]["on_demand"]
    assert_allclose(doc["savings_vs_on_demand"]["robust"], held - r["pv_cost"], rtol=1e-12)
    assert doc["recommendation"] != "robust"
    assert r["gap"] == 0


def test_the_table_says_where_the_scenarios_come_from_in_english_and_korean():
    out = buyrent("plan", str(SAMPLE_USAGE))
    assert out.returncode == 0, out.stderr
    assert "Robust plan over 3 demand scenarios" in out.stdout
    assert "no demand scenarios given: the demand growth range's low end" in out.stdout
    for name in ("low growth", "most likely growth", "high growth"):
        assert name in out.stdout
    ko = buyrent("plan", str(SAMPLE_USAGE), "--lang", "ko")
    assert ko.returncode == 0, ko.stderr
    for words in ("수요 시나리오가 주어지지 않음", "낮은 성장", "가장 가능성 높은 성장", "높은 성장"):
        assert words in ko.stdout


def test_the_switch_leaves_the_default_scenarios_out():
    out = buyrent("plan", str(SAMPLE_USAGE), "--json", switch_off=True)
    assert out.returncode == 0, out.stderr
    assert "robust" not in json.loads(out.stdout)["strategies"]
