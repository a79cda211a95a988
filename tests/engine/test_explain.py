"""models/explain.py: the recommendation in plain language, from the plan's numbers (issue 4)."""
from types import SimpleNamespace

import numpy as np

from models.capacity import Capacity
from models.document import plan_document
from models.explain import capacity_parts, runner_up, same_capacity
from tests.support.plans import compute_plan
from models.scenario import Scenario
from tests.support.engine_cases import base_plan, flat_profile, w1, w2
from tests.support.engine_cases import context_of


def test_capacity_sentences_of_the_worked_examples():
    # w1: 6 GPUs steady on 1 owned server of 8 GPUs -> busy 6 / 8 = 75 %
    w1_plan = compute_plan(w1(), flat_profile(6))
    assert [m.text for m in capacity_parts(w1_plan.scenario, w1_plan.strategies["proposed"])] \
        == ["Buy 1 server (8 GPUs) for the base load, busy 75% of its installed GPU-hours."]
    assert [m.text for m in capacity_parts(w1_plan.scenario, w1_plan.strategies["on_demand"])] \
        == ["Run everything on demand."]
    # w2: 8 of 10 GPUs on the 1-year offer paid monthly, the other 2 on demand
    w2_plan = compute_plan(w2(), flat_profile(10))
    assert [m.text for m in capacity_parts(w2_plan.scenario, w2_plan.strategies["proposed"])] \
        == ["Commit 8 GPUs for 1 year (offer 1y, paid monthly).", "Burst on demand."]


def test_runner_up_is_the_cheapest_plan_with_another_capacity():
    # w1: buying 1 server is chosen (PV 115,198.56); optimal, staged and proposed buy the same
    # server, so the runner-up is the cheaper of cloud only (117,058.74) and on demand
    # (150,043.52)
    plan = compute_plan(w1(), flat_profile(6))
    chosen = plan.strategies[plan.recommendation]
    assert all(same_capacity(plan.strategies[n], chosen) for n in ("optimal", "proposed"))
    assert not same_capacity(plan.strategies["cloud_only"], chosen)
    assert runner_up(plan.strategies, plan.recommendation) == "cloud_only"
    assert plan.explanation.runner_up == "cloud_only"


def test_infeasible_spot_is_explained():
    plan = base_plan(flat_profile(16, "2027-01", 12, interruptible=True),
                    spot={"nodes_per_job": 4096, "interruptions_per_instance_hour": 0.01,
                          "notice_seconds": 0})
    assert not context_of(plan).spot_waste.feasible
    assert plan.strategies["optimal"].spot_gpu_hours_by_month.sum() == 0
    assert "Spot is infeasible for the interruptible work" in plan.explanation.text
    assert plan_document(plan)["waste"]["spot_feasible"] is False


def test_recommendation_text_names_servers_their_utilization_and_saving():
    plan = compute_plan(Scenario.model_validate({"finance": {"start_month": "2027-01"}}),
                        flat_profile(40, "2026-01", 12))
    text = plan.explanation.text
    r = plan.strategies["optimal"]
    n = r.capacity.servers_by_type["owned"]
    # busy share of installed GPU-hours, as the plan's owned utilization reports it
    assert text.startswith(f"Buy {n} servers ({8 * n} GPUs) for the base load, busy "
                           f"{r.owned_utilization:.0%} of their installed GPU-hours.")
    assert "PV saving $" in text and "against on demand" in text


def test_fragile_answer_is_flagged():
    # choose an on-demand price where owning and renting are within 2 %
    profile = flat_profile(8, "2026-01", 12)
    s = Scenario.model_validate({"finance": {"start_month": "2027-01"}, "commitments": []})
    tie = plan_document(compute_plan(s, profile))["breakeven"]["on_demand_price"]
    plan = compute_plan(s.with_changes(on_demand={"price_per_gpu_hour": tie * 1.005}), profile)
    assert plan.explanation.fragile is True
    assert "The answer is fragile" in plan.explanation.text



def test_one_server_of_a_type_is_one_server():
    """Issue 37: "Buy 1 b200 servers"."""
    s = Scenario.model_validate({"server_types": [{"id": "b200", "server_price": 515000}]})
    texts = []
    for n in (1, 3):
        r = SimpleNamespace(capacity=Capacity(0, {}, False, {"b200": n}),
                            owned_utilization_by_type={"b200": 0.5},
                            spot_gpu_hours_by_month=np.zeros(3),
                            on_demand_gpu_hours_by_month=np.zeros(3))
        texts.append(capacity_parts(s, r)[0].text)
    assert texts == ["Buy 1 b200 server (8 GPUs) for the base load, busy 50% of its installed "
                     "GPU-hours.",
                     "Buy 3 b200 servers (24 GPUs) for the base load, busy 50% of their "
                     "installed GPU-hours."]
