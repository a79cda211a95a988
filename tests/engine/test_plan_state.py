"""The plan state is a frozen record with one cache whose sharing policy is fixed (issue 36,
item 2).

A what-if on the prices shares the volumes (they depend on the demand only) and never the
optimizer's findings (they depend on the prices); a what-if on the demand shares nothing; and a
state cannot be changed after it is built, so that no strategy sees another's edits.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from models.capacity import Capacity
from models.plan import build_state
from models.profile import PlanDemand
from models.scenario import Scenario
from tests.support.engine_cases import daily_swing_profile

SCENARIO = Scenario.model_validate({"finance": {"start_month": "2027-01", "horizon_months": 12}})


@pytest.fixture(scope="module")
def state():
    return build_state(SCENARIO, daily_swing_profile(hours=24 * 90, interruptible=0.25))


def test_a_state_is_frozen(state):
    # on main PlanState was a plain object: any module could set any attribute
    for name in ("scenario", "tables", "book", "position", "merit", "useful_pv"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(state, name, getattr(state, name))
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.volume_cache = {}       # the caches are not attributes to replace either
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.cache = dataclasses.replace(state.cache)
    with pytest.raises(ValueError, match="read-only"):
        state.end_factors[0] = 1.0    # nor the discount factors written through the record
    # the state plans the scenario as a fleet (issue 36): one type, the owned servers
    assert state.scenario == SCENARIO.as_fleet()


def test_a_repriced_state_shares_the_volumes_and_never_the_optimizers_findings(state):
    dearer = state.repriced(SCENARIO.with_changes(on_demand={"price_per_gpu_hour": 9.0}))
    assert dearer is not state and dearer.book is not state.book
    assert dearer.cache is not state.cache
    # the volumes depend on the demand only: one dictionary, what either dispatches both find
    assert dearer.cache.volumes is state.cache.volumes
    plan = state.capacity_plan(Capacity(2, {}, use_spot=True))
    assert dearer.volumes(plan) is state.volumes(plan)
    # the optimizer's findings depend on the prices: a changed scenario starts empty
    state.cache.optimizer["probe"] = 1
    assert dearer.cache.optimizer is not state.cache.optimizer
    assert dearer.cache.optimizer == {}
    # an equal scenario gets a copy, which then stays its own
    same = state.repriced(SCENARIO.with_changes(on_demand={"price_per_gpu_hour":
                                                           SCENARIO.on_demand.price_per_gpu_hour}))
    assert same.cache.optimizer == state.cache.optimizer
    same.cache.optimizer["only_same"] = 2
    assert "only_same" not in state.cache.optimizer
    del state.cache.optimizer["probe"]


def test_the_normal_tables_follow_the_demand_tables(state):
    built = state.normal_tables()
    assert state.cache.normal_tables is built
    # same failure waste: the same tables, and the normal tables built so far
    repriced = state.repriced(SCENARIO.with_changes(on_demand={"price_per_gpu_hour": 4.0}))
    assert repriced.tables is state.tables and repriced.normal_tables() is built
    # a moved failure waste: new tables, normal tables of its own (equal in value)
    failing = state.repriced(SCENARIO.with_changes(owned={"failures_per_server_year": 2.0}))
    assert failing.tables_failure_waste != state.tables_failure_waste
    assert failing.tables is not state.tables and failing.cache.normal_tables is None
    assert failing.cache.volumes is state.cache.volumes
    np.testing.assert_array_equal(failing.normal_tables().gross.peak, built.gross.peak)


def test_a_state_with_another_demand_shares_no_cache(state):
    d = state.demand
    flat = state.with_demand(PlanDemand(np.full_like(d.steady, 3.0), np.zeros_like(d.steady),
                                        d.profile_hours_used, d.repeated_hours))
    scaled = state.scaled_demand(2.0)
    for child in (flat, scaled):
        assert child.book is state.book and child.scenario is state.scenario
        assert child.cache.volumes is not state.cache.volumes and child.cache.volumes == {}
        assert child.cache.optimizer == {} and child.cache.normal_tables is None
    assert flat.tables_failure_waste == 0.0     # no interruptible work in the flat demand
    assert scaled.tables_failure_waste == state.tables_failure_waste
    assert scaled.useful_pv == pytest.approx(2.0 * state.useful_pv, rel=1e-12)


def test_building_and_repricing_refuse_with_one_message(state):
    # 100 failures a server-year on 1,000-node gang jobs (one every 5.3 minutes) waste more
    # than all of their time: the same check and the same words, built or re-priced
    broken = SCENARIO.with_changes(owned={"failures_per_server_year": 100.0},
                                   spot={"nodes_per_job": 1000})
    with pytest.raises(ValueError) as built:
        build_state(broken, daily_swing_profile(hours=24 * 90, interruptible=0.25))
    with pytest.raises(ValueError) as repriced:
        state.repriced(broken)
    assert str(built.value) == str(repriced.value)
    assert "cannot finish" in str(built.value)
