"""profile.demand_basis: plan for allocated GPU-hours (default) or for busy GPU-hours at a target
utilization. Hand-checked cases of models.profile.busy_factor and plan_demand."""
from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from pydantic import ValidationError

from models.fields import field_meta
from models.profile import ProfileError, UsageProfile, busy_factor, plan_demand
from models.scenario_settings import ProfileOptions

NAN = float("nan")


def hourly(steady, busy=None, interruptible=None):
    steady = np.asarray(steady, dtype=float)
    return UsageProfile("hour", np.datetime64("2026-03-02T00", "h") + np.arange(len(steady)),
                        steady, np.zeros(len(steady)) if interruptible is None
                        else np.asarray(interruptible, dtype=float), busy=busy)


@pytest.mark.parametrize("allocated, busy, target, factor", [
    (10, 4, 0.8, 0.5),          # 4 busy / (10 x 0.8) = half the allocated hours are needed
    (10, 10, 0.8, 1.0),         # fully busy: never more than was allocated
    (10, 8, 0.8, 1.0),          # exactly at target
    (10, 2, 0.5, 0.4),
    (0, 0, 0.8, 1.0),           # nothing allocated: nothing to scale
    (10, NAN, 0.8, 1.0),        # not measured: keep the allocated demand
])
def test_busy_factor(allocated, busy, target, factor):
    # a second, measured period: a profile with no busy time at all is refused (below)
    assert busy_factor(hourly([allocated, 10], [busy, 10]), target)[0] == pytest.approx(factor)


def test_plan_demand_hourly_on_busy_basis():
    profile = hourly([10, 10, 0, 10], [4, 10, 0, NAN], interruptible=[2, 0, 0, 0])
    demand = plan_demand(profile, 4, demand_basis="busy", target_utilization=0.8)
    # period 1: 4 busy of 12 allocated -> factor 4 / 9.6; steady and interruptible both scaled
    assert_allclose(demand.steady, [10 * 4 / 9.6, 10, 0, 10])
    assert_allclose(demand.interruptible, [2 * 4 / 9.6, 0, 0, 0])
    allocated = plan_demand(profile, 4)
    assert_allclose(allocated.steady, [10, 10, 0, 10])


def test_plan_demand_daily_on_busy_basis():
    # one day of 240 GPU-hours (10 GPUs all day), 96 busy, target 0.5: 96 / 120 = 0.8 of it
    day = UsageProfile("day", np.array(["2026-03-02T00"], dtype="datetime64[h]"), [240.0], [0.0],
                       busy=np.array([96.0]))
    demand = plan_demand(day, 24, demand_basis="busy", target_utilization=0.5)
    assert_allclose(demand.steady, 8.0)


def test_busy_basis_needs_busy_time():
    with pytest.raises(ProfileError, match="needs GPU busy time"):
        plan_demand(hourly([10]), 1, demand_basis="busy", target_utilization=0.8)
    with pytest.raises(ProfileError, match="no period of the usage has busy time"):
        plan_demand(hourly([10], [NAN]), 1, demand_basis="busy", target_utilization=0.8)


@pytest.mark.parametrize("busy, message", [
    ([11.0], "at most the allocated"), ([-1.0], ">= 0"), ([np.inf], ">= 0"),
    ([1.0, 2.0], "one value per period")])
def test_profile_checks_busy(busy, message):
    with pytest.raises(ProfileError, match=message):
        hourly([10], busy)


def test_profile_options_fields():
    options = ProfileOptions()
    assert options.demand_basis == "allocated" and options.target_utilization == 0.8
    assert ProfileOptions(demand_basis="busy", target_utilization=0.9).demand_basis == "busy"
    for bad in ({"demand_basis": "billed"}, {"target_utilization": 0.01},
                {"target_utilization": 1.2}):
        with pytest.raises(ValidationError):
            ProfileOptions(**bad)
    meta = field_meta(ProfileOptions.model_fields["target_utilization"])
    assert meta["label"] == "Target GPU utilization" and meta["ge"] == 0.05 and meta["le"] == 1
    assert "under 50 % busy" in meta["source"] and "seed" not in meta["source"]
