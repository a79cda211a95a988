"""`buyrent plan` end to end, in a subprocess as a user runs it (design 9.1): tables, JSON,
errors, the Seoul sample in won and in Korean, a busy-time file beside the usage."""
import json
import os
import re
import subprocess
import sys

import pytest

from service.cli.main import main
from tests.support.paths import ROOT, SAMPLE_USAGE, SAMPLES


def buyrent(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "service.cli.main", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_plan_of_the_bundled_sample_prints_a_table():
    out = buyrent("plan")
    assert out.returncode == 0, out.stderr
    for name in ("on_demand", "cloud_only", "buy_for_peak", "optimal"):
        assert name in out.stdout
    assert "Recommended (*): " in out.stdout


def test_cli_default_and_web_demo_are_two_scenarios_with_two_names():
    """Issue 23: `buyrent plan` ($7.77M PV) and the web demo ($7.11M) were both "8x H100 vs
    AWS p5". The CLI's default is the built-in defaults, named so; the demo seeds
    samples/scenario_h100.json under its own name; the README gives each its name."""
    from models.scenario import Scenario
    from service.cli.web_commands import DEMO_SCENARIO
    out = buyrent("plan")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == "Built-in defaults: 8x H100 vs AWS p5 on demand"
    demo = Scenario.model_validate(json.loads(DEMO_SCENARIO.read_text()))
    assert DEMO_SCENARIO.name == "scenario_h100.json"
    assert demo.name == "8x H100 SXM servers vs AWS p5.48xlarge (us-east-1)"
    assert demo.name != Scenario().name
    readme = " ".join((ROOT / "README.md").read_text().split())
    for name in (demo.name, Scenario().name):
        assert f'"{name}"' in readme


def test_an_old_usage_file_plans_from_after_the_current_month(tmp_path):
    """Issue 23: 19 days ending 2024-09 planned from 2024-10. With the month pinned at 2026-12
    (tests/conftest.py, inherited by the subprocess) the plan starts 2027-01, and the table's
    warnings say the usage is short and old; a pin that is no month is exit 2."""
    path = tmp_path / "old.csv"
    path.write_text("timestamp,gpu_hours\n" + "".join(f"2024-09-{d:02d},192\n"
                                                       for d in range(1, 20)))
    out = buyrent("plan", str(path))
    assert out.returncode == 0, out.stderr
    assert "Plan: 2027-01 .. 2031-12 (60 months)" in out.stdout
    assert "- The usage covers 19.0 days (456 hours), less than a year" in out.stdout
    assert "- The usage ends in 2024-09, 27 months before the current month (2026-12)" \
        in out.stdout
    bad = subprocess.run([sys.executable, "-m", "service.cli.main", "plan", str(path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "BUYRENT_CURRENT_MONTH": "soon"})
    assert bad.returncode == 2 and bad.stdout == ""
    assert "BUYRENT_CURRENT_MONTH must be a month as YYYY-MM (got 'soon')" in bad.stderr


def test_json_prints_the_plan_document_and_nothing_else():
    out = buyrent("plan", str(SAMPLES / "usage_daily.csv"), "--scenario",
                  str(SAMPLES / "scenario_l40s.json"), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert set(doc) >= {"scenario", "profile", "strategies", "recommendation", "breakeven",
                        "warnings"}
    assert doc["profile"]["period"] == "day"
    assert set(doc["strategies"]) == {"on_demand", "cloud_only", "buy_for_peak", "optimal",
                                      "proposed", "staged"}
    s = doc["strategies"]["proposed"]
    assert set(s) >= {"servers", "committed_gpus", "pv_cost", "total_cost",
                      "cost_per_useful_gpu_hour", "owned_utilization", "gpu_hours", "monthly"}
    assert len(s["monthly"]) == 36 and s["monthly"][0]["month"] == "2027-01"


@pytest.mark.parametrize("scenario, message", [
    ('{"owned": {"pue": 0.5}}',
     r"owned.pue: Input should be greater than or equal to 1 (got 0.5)"),
    ('{"finance": {"horizon_months": 0', "line 1, column"),
    ('{"spot": {"discount": "lots"}}', "spot.discount: Input should be a valid number"),
])
def test_bad_scenario_is_one_line_with_exit_code_2(tmp_path, scenario, message):
    path = tmp_path / "s.json"
    path.write_text(scenario)
    out = buyrent("plan", "--scenario", str(path))
    assert out.returncode == 2
    assert out.stdout == ""
    assert message in out.stderr and str(path) in out.stderr
    assert "Traceback" not in out.stderr and out.stderr.count("\n") == 1


def test_bad_usage_row_names_file_row_and_column(tmp_path):
    path = tmp_path / "usage.csv"
    path.write_text("timestamp,gpu_hours\n2027-01-01T00:00:00,4\n2027-01-01T01:00:00,-3\n")
    out = buyrent("plan", str(path))
    assert out.returncode == 2
    assert "usage.csv" in out.stderr and "row 3" in out.stderr and "gpu_hours" in out.stderr
    assert "Traceback" not in out.stderr


def test_missing_profile_file(tmp_path):
    out = buyrent("plan", str(tmp_path / "nope.csv"))
    assert out.returncode == 2 and "nope.csv" in out.stderr and "Traceback" not in out.stderr


def test_growth_sample_prints_its_schedules_and_nothing_on_stderr():
    """The staged plan of samples/scenario_growth.json: the recommendation in words, the
    schedule table of staged and proposed, cash by year; the solver writes nothing."""
    out = buyrent("plan", str(SAMPLES / "usage_hourly.csv"), "--scenario",
                  str(SAMPLES / "scenario_growth.json"))
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    assert "Recommended (*): staged" in out.stdout
    assert "Schedule of staged" in out.stdout and "Schedule of proposed" in out.stdout
    # issue 39, item 5: the saving first, then the purchases in one sentence, then the
    # Monte Carlo's median and chance of costing more beside the saving against cloud only
    words = out.stdout.split("Recommended (*): staged\n")[1].split("\n")[0]
    saving = words.index("PV saving $15.2M (48%) over 5 years against on demand")
    spread = words.index("Monte Carlo draws of the assumptions, with both plans held as "
                         "decided, its median saving against the best cloud-only plan is ")
    grouped = words.index("Buy 9 servers over 5 purchases (by year 2027: 7, 2030: 2); the "
                          "schedule lists each.")
    assert saving < spread < grouped and "Buy 1 server now." not in words
    assert re.search(r"it costs more than that plan in \d+% of the draws and less in \d+%",
                     words)
    # marginal and all-in breakevens disagree against spot here: one sentence says why
    assert "Marginal and all-in figures can disagree" in out.stdout
    assert "purchases and upfront payments by year [USD]: 2027 1,320,000, 2028 1,320,000" \
        in out.stdout
    # cash by year with sale proceeds apart (the 4 servers held retire in 2030) and the net
    assert re.search(r"2030 +0 +0 +124,000 +-124,000\n", out.stdout)


# --- moved from the web tests: the same plans from the command line -------------------------

def test_seoul_sample_plans_in_won_from_the_cli(tmp_path):
    out = tmp_path / "plan.json"
    done = subprocess.run([sys.executable, "-m", "service.cli.main", "plan", str(SAMPLE_USAGE),
                           "--scenario", str(SAMPLES / "scenario_seoul.json"), "--json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, check=True)
    doc = json.loads(done.stdout)
    assert doc["currencies"]["reporting"] == "KRW" and doc["currencies"]["cloud"] == "USD"
    assert "1,422.16 KRW per USD" in doc["explanation"]
    assert doc["recommendation"] in doc["strategies"]
    assert done.stderr == ""


def test_currency_sentence_in_korean_from_the_cli():
    """The plan in won with cloud prices in dollars explains its conversion in Korean."""
    done = subprocess.run([sys.executable, "-m", "service.cli.main", "plan", str(SAMPLE_USAGE),
                           "--scenario", str(SAMPLES / "scenario_seoul.json"), "--lang", "ko"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, check=True)
    assert "금액은 KRW 기준입니다. USD로 된 클라우드 가격은" in done.stdout
    assert "USD당 1,422.16 KRW의 환율로 환산" in done.stdout
    assert "Figures are in" not in done.stdout and done.stderr == ""
    # each price tie in its own market's currency: dollars per GPU-hour, won per server
    assert re.search(r"같아지는 온디맨드 가격: GPU 시간당 US\$\d+\.\d{4}\n", done.stdout)
    assert re.search(r"같아지는 서버 가격: ₩[\d,]+\n", done.stdout)


def test_price_ties_print_in_their_markets_currencies(capsys):
    """Seoul sample: servers priced in won, cloud in dollars. The on-demand price at which the
    plans tie is a dollar price per GPU-hour, the server price a won price (before, both were
    bare numbers)."""
    assert main(["plan", str(SAMPLE_USAGE), "--scenario",
                 str(SAMPLES / "scenario_seoul.json")]) == 0
    out = capsys.readouterr().out
    assert re.search(r"on-demand price tie: \$\d+\.\d{4}/GPU-h\n", out)
    assert re.search(r"server price tie: ₩\d{3},\d{3},\d{3}\n", out)


def test_cli_busy_option(capsys, tmp_path):
    scenario = tmp_path / "busy.json"
    scenario.write_text(json.dumps({"finance": {"horizon_months": 12},
                                    "uncertainty": {"draws": 0},
                                    "profile": {"demand_basis": "busy"}}))
    assert main(["plan", str(SAMPLES / "usage_busy_hourly.csv"), "--busy", str(SAMPLES / "dcgm_busy_sample.csv"), "--scenario", str(scenario),
                 "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert any("data loading or preprocessing" in w for w in document["warnings"])


def test_400_digit_gpu_hours_is_exit_2_naming_row_and_column(tmp_path):
    # pandas.to_numeric raised OverflowError on it: a traceback and exit 1 before
    path = tmp_path / "usage.csv"
    path.write_text("timestamp,gpu_hours\n2026-01,10\n2026-02," + "9" * 400 + "\n")
    out = buyrent("plan", str(path))
    assert out.returncode == 2 and out.stdout == ""
    assert "usage.csv: row 3, column 'gpu_hours': '999" in out.stderr
    assert "is too large; expected a number >= 0" in out.stderr
    assert "Traceback" not in out.stderr and out.stderr.count("\n") == 1


def test_korean_table_lines_up_names_strategies_and_shows_whole_won(capsys):
    """Issue 24: in Korean the strategy table's columns line up on a terminal (wcwidth: a
    Hangul syllable takes two columns), strategies have their Korean names, and amounts in won
    have no decimals (per GPU-hour costs too)."""
    from wcwidth import wcswidth
    assert main(["plan", str(SAMPLE_USAGE), "--scenario", str(SAMPLES / "scenario_seoul.json"),
                 "--lang", "ko"]) == 0
    lines = capsys.readouterr().out.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("전략"))
    header, rule, rows = lines[top], lines[top + 1], lines[top + 2:top + 8]
    assert set(rule) == {"-"} and wcswidth(rule) == wcswidth(header)
    assert [wcswidth(r.removesuffix(" *")) for r in rows] == [wcswidth(header)] * 6
    assert [r.split("  ")[0] for r in rows] == ["전부 온디맨드", "클라우드만(최적 조합)",
                                                "피크 기준 구매", "최적 조합", "단계별 계획",
                                                "제안안"]
    assert not [r for r in rows if re.search(r"\d\.\d", re.sub(r"[\d.]+%", "", r))]
    assert "권장(*): 최적 조합" in lines
