"""The staged and robust MILPs' size counted before they are built (issue 40, item 2): the
count equals what build_problem and stack declare, and a plan past the bound is refused."""
from __future__ import annotations

import json

import pytest

from models.limits import MAX_MILP_CELLS
from models.plan import build_state
from models.problem_size import ProblemTooLarge, block_size, check_size, problem_size
from models.robust import demand_paths, path_contexts
from models.robust_problem import extensive_form
from models.scenario import Scenario
from models.staged_block import Block
from models.staged_problem import build_problem
from tests.support.engine_cases import csv_profile, robust_case
from tests.support.paths import SAMPLES

NINE = [{"name": f"p{i}", "growth_annual": 0.1 * i, "probability": 1 / 9} for i in range(9)]


def generations(**staging) -> Scenario:
    data = json.loads((SAMPLES / "scenario_generations.json").read_text())
    data["staging"] = {**data["staging"], **staging}
    return Scenario.model_validate(data).with_changes(uncertainty={"draws": 0})


def cases():
    """Scenarios that exercise every block: types on sale later, sales of held and bought
    servers, offers, hall and budget rows, risk, one path and several."""
    profile = csv_profile(SAMPLES / "usage_hourly.csv")
    yield generations(), profile
    yield generations(decision_interval_months=6, max_servers=40, max_power_kw=900.0,
                      capital_budget_per_year=5e6), profile
    yield generations(allow_sales=False, decide_now_months=6), profile
    for f in ("scenario_growth.json", "scenario_l40s.json", "scenario_seoul.json"):
        yield Scenario.model_validate(json.loads((SAMPLES / f).read_text())), profile
    yield robust_case(3, risk={"cvar_weight": 0.3, "cvar_alpha": 0.9})
    yield robust_case(4, months=24, interval=3, now=6)


@pytest.mark.parametrize("k", range(8))
def test_the_count_equals_the_problem_built(k):
    s, profile = list(cases())[k]
    ctx = build_state(s, profile, "2026-12")
    prob = build_problem(ctx, use_spot=True)
    n, m = block_size(ctx)
    assert n == len(prob.columns) == len(prob.cols)
    fixed, _, _ = prob.rows.matrix()
    assert m >= fixed.shape[0]
    if s.staging.capital_budget_per_year is None:
        assert m == fixed.shape[0]
    size = problem_size(ctx)
    paths = demand_paths(s)[0]
    assert size.paths == len(paths)
    if paths:
        blocks = [Block(c, True) for c in path_contexts(ctx, paths, profile)]
        form = extensive_form(blocks, paths, s.staging)
        assert size.columns == form.st.nvar
        stacked = (len(paths) * fixed.shape[0] + form.st.link.matrix()[0].shape[0]
                   + form.extra.matrix()[0].shape[0])
        assert size.rows >= stacked
        if s.staging.capital_budget_per_year is None:
            assert size.rows == stacked
    else:
        assert (size.columns, size.rows) == (n, m)

def test_the_budget_rows_are_exact_when_every_decision_pays():
    s = generations(capital_budget_per_year=5e6)
    ctx = build_state(s, csv_profile(SAMPLES / "usage_hourly.csv"), "2026-12")
    fixed, _, _ = build_problem(ctx, use_spot=True).rows.matrix()
    assert block_size(ctx)[1] == fixed.shape[0]


def test_hand_count_of_a_small_block():
    """One type, no offers, 24 months, decisions every 6 months (a life past the horizon):
    months {0, 6, 12, 18}; buy 4; sales of bought cohorts at later decision months 3+2+1;
    z, w, l1, l2 4 x 24 = 96 -> 106 columns; sale rows 3 cohorts + 2 x 24 level rows = 51."""
    s, profile = robust_case(1, months=24, interval=6, now=6)
    s = s.with_changes(staging={"allow_sales": True}, commitments=[])
    ctx = build_state(s, profile)
    assert len(ctx.fleet) == 1 and not s.commitments and not ctx.position.servers
    assert block_size(ctx) == (4 + 3 + 2 + 1 + 96, 3 + 48)


def test_the_issue_case_is_refused_and_the_samples_pass():
    profile = csv_profile(SAMPLES / "usage_hourly.csv")
    big = generations(decision_interval_months=1, demand_scenarios=NINE).with_changes(
        finance={"horizon_months": 240},
        server_types=[*generations().model_dump()["server_types"],
                      {"id": "l40s", "relative_throughput": 0.5, "server_price": 120000}])
    ctx = build_state(big, profile, "2026-12")
    size = problem_size(ctx)
    assert size.paths == 9 and size.months == 240 and len(ctx.fleet) == 3
    assert (size.columns, size.rows) == (359_703, 16_744)   # with sales, as the sample
    assert size.cells > MAX_MILP_CELLS
    with pytest.raises(ProblemTooLarge) as exc:
        check_size(ctx)
    text = str(exc.value)
    assert f"{size.columns:,} variables x {size.rows:,} constraints (9 demand scenarios x 240 " \
        f"decision months), more than the {MAX_MILP_CELLS:,}" in text
    assert "fewer demand scenarios" in text
    assert "longer decision interval" in text and "shorter horizon" in text
    for f in sorted(SAMPLES.glob("scenario_*.json")):
        s = Scenario.model_validate(json.loads(f.read_text()))
        assert check_size(build_state(s, profile, "2026-12")).cells <= MAX_MILP_CELLS
    # without sales, the issue's case is 28,026 x 9,072 and refused too
    with pytest.raises(ProblemTooLarge):
        check_size(build_state(big.with_changes(staging={"allow_sales": False}), profile,
                                 "2026-12"))


def test_the_planner_refuses_before_any_milp():
    """The planner counts before its staged and robust MILPs (a job's child, the CLI): the
    refusal comes at once, not after a solve."""
    from models.plan import Planner
    profile = csv_profile(SAMPLES / "usage_hourly.csv")
    big = generations(decision_interval_months=1, demand_scenarios=NINE).with_changes(
        finance={"horizon_months": 240})
    planner = Planner(big, profile, current_month="2026-12")
    for step in (planner.add_staged, planner.add_robust):
        with pytest.raises(ProblemTooLarge):
            step()
    assert "staged" not in planner.results and planner.robust is None
