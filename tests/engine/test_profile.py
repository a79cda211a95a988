"""Usage profile: validation, spreading over hours, laying over the plan with growth."""
import numpy as np
import pytest
from numpy.testing import assert_allclose

from models.plan import build_state
from tests.support.plans import compute_plan
from models.profile import ProfileError, UsageProfile, day_shape, hourly_gpus, plan_demand
from models.scenario import Scenario
from tests.support.engine_cases import flat_profile, hourly_profile


def test_monthly_rows_spread_flat_over_their_hours():
    steady, inter = hourly_gpus(flat_profile(6, "2027-02", 1))
    assert len(steady) == 672 and np.allclose(steady, 6) and inter.sum() == 0


@pytest.mark.parametrize("p", [1.0, 1.5, 2.0, 3.0, 7.0, 24.0])
def test_day_shape_keeps_the_mean_and_reaches_the_peak(p):
    # mean 1 over 24 hours, busiest hour = peak-to-average factor
    shape = day_shape(p)
    assert_allclose(shape.mean(), 1.0)
    assert_allclose(shape.max(), p)
    assert shape.min() >= 0


def test_daily_rows_with_peak_to_average_keep_daily_totals():
    starts = np.datetime64("2027-01-01T00", "h") + np.arange(3) * 24
    profile = UsageProfile("day", starts, [240.0, 480.0, 0.0], [0, 0, 0])
    steady, _ = hourly_gpus(profile, peak_to_average=1.5)
    assert_allclose(steady.reshape(3, 24).sum(axis=1), [240, 480, 0])
    assert_allclose(steady[:24].max(), 10 * 1.5)


def test_profile_rejects_gaps_negatives_and_nan():
    starts = np.datetime64("2027-01-01T00", "h") + np.array([0, 1, 3])
    with pytest.raises(ProfileError, match="period 3 starts at 2027-01-01T03"):
        UsageProfile("hour", starts, [1, 1, 1], [0, 0, 0])
    ok = np.datetime64("2027-01-01T00", "h") + np.arange(2)
    with pytest.raises(ProfileError, match="steady GPU-hours must be finite and >= 0; period 2"):
        UsageProfile("hour", ok, [1, -1], [0, 0])
    with pytest.raises(ProfileError, match="interruptible GPU-hours must be finite"):
        UsageProfile("hour", ok, [1, 1], [np.nan, 0])
    with pytest.raises(ProfileError, match="no periods"):
        UsageProfile("hour", ok[:0], [], [])


def test_short_profile_repeats_its_last_8760_hours_and_grows():
    # 10,000 hours, plan of 20,000: hours 10,000.. take hours 1,240.. (the last 8,760) again
    hours = np.arange(10_000, dtype=float)
    d = plan_demand(hourly_profile(hours), 20_000)
    assert_allclose(d.steady[:10_000], hours)
    assert_allclose(d.steady[10_000:10_005], hours[1240:1245])
    assert d.repeated_hours == 10_000
    grown = plan_demand(hourly_profile(np.ones(8760)), 17_520, growth_annual=0.5)
    # hour t scaled by 1.5^(t/8760): hour 8,760 is 1.5x
    assert_allclose(grown.steady[[0, 8760]], [1.0, 1.5])


def test_interruptible_share_replaces_the_split():
    d = plan_demand(hourly_profile(np.full(10, 10.0)), 10, interruptible_share=0.3)
    assert_allclose(d.interruptible, 3.0) and assert_allclose(d.steady, 7.0)


def test_demand_grown_past_ten_million_gpus_is_refused_with_its_year():
    # 10 GPUs growing 1,000 % a year: hour t needs 10 x 11^(t/8760) GPUs, past 10,000,000
    # when 11^(t/8760) > 1e6, i.e. t > 8760 x ln(1e6) / ln(11) = 50,470.87: hour index 50,471
    # (hour 50,472 of the plan, in its year 50,471 // 8760 + 1 = 6), needing 10 x
    # 11^(50,471 / 8760) = 10,000,342 GPUs (hour index 50,470: 9,997,605). Before the bound the
    # optimizer counted up to 10 x 11^20 = 6.7e21 committed GPUs (the data charges keep the
    # whole peak range) and overflowed int64: the live preview's 500.
    scenario = Scenario.model_validate({"finance": {"start_month": "2027-01",
                                                    "horizon_months": 240},
                                        "profile": {"growth_annual": 10},
                                        "cloud_data": {"storage_tb": 200,
                                                       "egress_tb_per_month": 20},
                                        "uncertainty": {"draws": 0}})
    with pytest.raises(ProfileError, match=r"profile.growth_annual: demand growing 1000% a "
                       r"year needs 10,000,342 GPUs in hour 50,472 \(year 6 of the plan\); "
                       r"a plan holds at most 10,000,000 GPUs in any hour"):
        compute_plan(scenario, flat_profile(10, "2026-01", 12))
    # 48 months stay below: 10 x 11^(35,063 / 8760) = 147,335 GPUs at the last hour
    four_years = scenario.with_changes(finance={"horizon_months": 48})
    peak = build_state(four_years, flat_profile(10, "2026-01", 12)).demand.total.max()
    assert_allclose(peak, 10 * 11 ** (35_063 / 8760))
