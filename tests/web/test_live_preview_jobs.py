"""The live preview of a heavy scenario (issue 28): beyond 120 months or 4 offers even the
static strategies take seconds, so the request only queues the preview job and answers."""
from __future__ import annotations

from models.capacity import Capacity
from models.document import plan_document
from tests.support.plans import Planner, compute_plan
from models.scenario import Scenario
from service.plans.live import last_optima
from service.scenarios.live_views import HEAVY_MONTHS, heavy
from tests.support.engine_cases import growth_sample


def test_a_long_horizon_or_many_offers_is_a_job_only():
    assert not heavy(Scenario())
    assert heavy(Scenario.model_validate({"finance": {"horizon_months": HEAVY_MONTHS + 12}}))
    offers = [{"id": f"o{i}", "term_months": 12, "discount": 0.3} for i in range(5)]
    assert heavy(Scenario.model_validate({"commitments": offers}))


def test_a_heavy_preview_answers_with_its_job_and_no_plan(login, app):
    from tests.support.client import form_data
    from service.web.db import write_session
    from service.web.tables import Revision
    client = login("ana")
    with app.app_context():
        with write_session() as s:
            data = form_data(s.get(Revision, 1).assumptions_dict)
    data["finance.horizon_months"] = str(HEAVY_MONTHS + 12)
    body = client.post("/scenarios/1/preview", data).get_json()
    assert body["valid"] and body["pending"] and "cards_html" not in body
    job = client.get(body["job_url"]).get_json()       # the immediate queue ran it
    assert job["job"]["state"] == "done" and "cards_html" in job


def test_repriced_static_optima_cost_what_the_same_decisions_cost_as_proposals():
    # The live preview re-prices the last solved cloud_only and optimal decisions (the job
    # searches the edited optimum): each costs what the engine charges for that decision as
    # proposed.servers + proposed.committed_gpus, to 1e-9; an offer gone means a search.
    scenario, profile = growth_sample()
    scenario = scenario.with_changes(uncertainty={"draws": 0})
    solved = plan_document(compute_plan(scenario, profile, current_month="2026-12"))
    optima = last_optima(solved)
    assert set(optima) == {"cloud_only", "optimal"} and optima["cloud_only"].server_count == 0
    assert optima["optimal"].servers_by_type == solved["strategies"]["optimal"]["servers"]
    edited = scenario.with_changes(owned={"server_price": scenario.owned.server_price * 1.2})
    planner = Planner(edited, profile, current_month="2026-12")
    assert planner.add_static(optima)
    for name, capacity in optima.items():
        assert capacity.use_spot       # as a proposal has it
        as_proposal = compute_plan(edited.with_changes(proposed={
            "schedule": [], "servers_by_type": capacity.servers_by_type,
            "committed_gpus": capacity.committed}),
            profile,
            current_month="2026-12").strategies["proposed"]
        got = planner.results[name].pv_cost
        assert abs(got - as_proposal.pv_cost) <= 1e-9 * abs(as_proposal.pv_cost), name
    # an offer the decision commits to is gone: the optima are searched, not re-priced
    committed = {k for c in optima.values() for k, v in c.committed.items() if v}
    if committed:
        fewer = edited.with_changes(commitments=[o.model_dump() for o in edited.commitments
                                                 if o.id not in committed])
        assert not Planner(fewer, profile, current_month="2026-12").add_static(optima)
    assert not Planner(edited, profile, current_month="2026-12").add_static(
        {"optimal": Capacity(1)})        # both optima, or a search


def test_a_fleets_last_optima_are_repriced_by_type_not_searched_in_the_request():
    """Issue 36: a fleet's stored optima count servers by type; the preview re-prices them (it
    used to read only a count, so a fleet's preview ran the fleet's MILP in the request). A
    document stored before issue 36 counted one type's servers as a number: the first type's."""
    scenario, profile = growth_sample()
    fleet = scenario.with_changes(uncertainty={"draws": 0}, server_types=[
        {"id": "h100"}, {"id": "b200", "server_price": 515_000, "relative_throughput": 2.2}])
    solved = plan_document(compute_plan(fleet, profile, current_month="2026-12"))
    optima = last_optima(solved)
    assert set(optima["optimal"].servers_by_type) == {"h100", "b200"}
    planner = Planner(fleet, profile, current_month="2026-12")
    assert planner.add_static(optima)                # re-priced: no MILP
    assert planner.results["optimal"].pv_cost == planner.context.pv(optima["optimal"])
    old = {"strategies": {name: {**solved["strategies"][name], "servers": 3}
                          for name in ("cloud_only", "optimal")}}
    assert last_optima(old)["optimal"].counts(fleet.as_fleet()) == {"h100": 3}
