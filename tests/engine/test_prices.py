"""models/prices.py: billed time per used time of on-demand and spot sessions (issue 23), by
hand, through the price book, and as docs/README-model.md and the design notes state it."""
from __future__ import annotations

import pytest
from numpy.testing import assert_allclose

from models.plan import build_context
from models.prices import billing_factor
from models.scenario import Scenario
from tests.support.engine_cases import flat_profile
from tests.support.paths import ROOT


# A session of S seconds is billed max(S, minimum) s, plus half an increment when it outlasts
# the minimum: (S + increment/2) / S for S > minimum, minimum / S for S <= minimum.
@pytest.mark.parametrize("increment, minimum, session_s, expected", [
    (60, 60, 3600, (3600 + 30) / 3600),   # 1 h under a 60 s minimum, 60 s increments: 1.00833
    (1, 60, 86_400, (86_400 + 0.5) / 86_400),   # EC2: per second, 24 h sessions
    (60, 60, 36, 60 / 36),                # 36 s under a 60 s minimum: billed 60 s, 1.6667
    (60, 60, 60, 1.0),                    # exactly the minimum: nothing rounded up
    (1, 0, 30, (30 + 0.5) / 30),          # no minimum: half a second on 30 s, 1.01667
    (3600, 600, 300, 600 / 300),          # 5 min under a 10 min minimum, hourly increments: 2
])
def test_billing_factor_by_hand(increment, minimum, session_s, expected):
    assert_allclose(billing_factor(increment, minimum, session_s / 3600), expected, rtol=1e-12)


def test_spot_sessions_cut_below_the_minimum_pay_the_minimum_alone():
    """10 interruptions an instance-hour end spot sessions after 360 s on average (1/10 h),
    under a 600 s minimum: billed 600 s, x 600/360 = 1.6667, with no half increment on top
    (the old documented rule, (max(S, minimum) + increment/2) / S, gave (600 + 30)/360 =
    1.75). On demand keeps its 24 h sessions: (86,400 + 30)/86,400."""
    s = Scenario.model_validate({"finance": {"start_month": "2027-01", "horizon_months": 12},
                                 "on_demand": {"price_per_gpu_hour": 2.0,
                                               "billing_increment_seconds": 60,
                                               "billing_minimum_seconds": 600},
                                 "spot": {"interruptions_per_instance_hour": 10,
                                          "discount": 0.5},
                                 "uncertainty": {"draws": 0}})
    book = build_context(s, flat_profile(1, "2026-01", 12)).book
    assert_allclose(book.spot_billing, 600 / 360, rtol=1e-12)
    assert_allclose(book.od_billing, (86_400 + 30) / 86_400, rtol=1e-12)
    assert_allclose(book.spot[0, 0], 2.0 * 0.5 * 600 / 360, rtol=1e-12)


@pytest.mark.parametrize("path", ["docs/README-model.md", "docs/design.md"])
def test_documents_state_the_engines_billing_rule(path):
    text = " ".join((ROOT / path).read_text().split())
    assert "(S + increment/2) / S for S > minimum, minimum / S for S <= minimum" in text
    assert "(max(S, minimum) + increment/2) / S" not in text
