"""models/prices.py: billed time per used time of on-demand and spot sessions (issue 23; spot
as an expectation over exponential interruptions, issue 37 item 6), by hand, against numerical
integration and a Monte Carlo of sessions, through the price book, and as docs/README-model.md
and the design notes state it."""
from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import integrate

from models.plan import build_state
from models.billing import billing_factor, spot_billing_factor
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


def test_spot_sessions_under_frequent_interruptions_are_billed_their_expectation():
    """10 interruptions an instance-hour: T ~ Exp(1/360 s), 24 h sessions, a 600 s minimum and
    60 s increments. E[used] = 360 (1 - e^-240) = 360 s; E[billed] = 600 + 360 (e^-(600/360)
    - e^-240) + 30 e^-(600/360) = 600 + 390 e^-(5/3) = 673.66 s: x 1.87128. (The old rule
    billed the mean time to interruption, 360 s, as one session: 600/360 = 1.6667, missing the
    sessions that outlast the minimum.) On demand keeps its 24 h sessions:
    (86,400 + 30)/86,400."""
    s = Scenario.model_validate({"finance": {"start_month": "2027-01", "horizon_months": 12},
                                 "on_demand": {"price_per_gpu_hour": 2.0,
                                               "billing_increment_seconds": 60,
                                               "billing_minimum_seconds": 600},
                                 "spot": {"interruptions_per_instance_hour": 10,
                                          "discount": 0.5},
                                 "uncertainty": {"draws": 0}})
    book = build_state(s, flat_profile(1, "2026-01", 12)).book
    factor = (600 + 390 * math.exp(-5 / 3)) / 360
    assert_allclose(factor, 1.87128190, rtol=1e-8)
    assert_allclose(book.spot_billing, factor, rtol=1e-12)
    assert_allclose(book.od_billing, (86_400 + 30) / 86_400, rtol=1e-12)
    assert_allclose(book.spot[0, 0], 2.0 * 0.5 * factor, rtol=1e-12)


# ---- spot billing as an expectation over the interruption time (issue 37 item 6) -----------
# (increment [s], minimum [s], session L [h], interruptions per instance-hour)
SPOT_CASES = [
    (60, 1800, 0.75, 2.5),       # the issue's case: L 2,700 s, MTTI 1,440 s
    (1, 60, 24, 0.001),          # the defaults
    (60, 60, 1, 0.002),          # worked example W3
    (60, 600, 24, 10),           # interruptions far sooner than the session
    (3600, 600, 2, 1.0),         # hourly increments
    (60, 3000, 1, 0.3),          # a minimum just under the session
    (0, 0, 4, 0.05),             # no minimum, no increment: billed = used
]


def test_issue_case_by_hand():
    """Issue 37 item 6: a 2,700 s session, a 1,800 s minimum, a mean time to interruption of
    1,440 s (2.5 an hour), 60 s increments. E[U] = 1,440 (1 - e^-1.875) = 1,219.17 s;
    E[max(U, m)] = 1,800 + 1,440 (e^-1.25 - e^-1.875) = 1,991.74 s; P(U > m) = e^-1.25 =
    0.2865, x 30 s = 8.60 s; E[B] = 2,000.33 s; factor 2,000.33 / 1,219.17 = 1.6407. The old
    rule billed the 1,440 s mean time to interruption as one session: 1,800/1,440 = 1.25."""
    used = 1440 * (1 - 0.15335496684492847)          # e^-1.875
    billed = 1800 + 1440 * (0.2865047968601901 - 0.15335496684492847) + 30 * 0.2865047968601901
    assert_allclose([used, billed], [1219.1688, 2000.3309], atol=5e-5)
    assert_allclose(spot_billing_factor(60, 1800, 0.75, 2.5), billed / used, rtol=1e-12)
    assert round(spot_billing_factor(60, 1800, 0.75, 2.5), 4) == 1.6407


def billed_seconds(used: np.ndarray | float, increment: float, minimum: float):
    """The billing rule of one session that ran ``used`` seconds: max(used, minimum), plus
    half an increment when it outlasted the minimum."""
    return np.maximum(used, minimum) + np.where(np.asarray(used) > minimum, increment / 2, 0.0)


@pytest.mark.parametrize("increment, minimum, hours, rate", SPOT_CASES)
def test_spot_billing_factor_is_the_integral_over_the_interruption_time(increment, minimum,
                                                                        hours, rate):
    """E[g(min(T, L))] = integral over [0, L] of g(t) lambda e^(-lambda t) dt + e^(-lambda L)
    g(L), for the used time g(u) = u and the billed time g = billed_seconds, by scipy quad."""
    lam, L = rate / 3600, hours * 3600

    def expect(g) -> float:
        breaks = [minimum] if 0 < minimum < L else None
        body, _ = integrate.quad(lambda t: g(t) * lam * math.exp(-lam * t), 0, L,
                                 points=breaks, epsabs=0, epsrel=1e-13, limit=200)
        return body + math.exp(-lam * L) * g(L)

    used = expect(lambda u: u)
    billed = expect(lambda u: float(billed_seconds(u, increment, minimum)))
    assert_allclose(spot_billing_factor(increment, minimum, hours, rate), billed / used,
                    rtol=1e-10)


@pytest.mark.parametrize("increment, minimum, hours, rate", SPOT_CASES)
def test_spot_billing_factor_is_what_many_sessions_are_billed(increment, minimum, hours, rate):
    """A seeded Monte Carlo of 400,000 sessions, each run until an exponential interruption or
    L, billed by the rule with its last increment rounded up by a uniform share of one
    increment (the half increment is that rounding's mean). Billed per used time over all
    sessions, sum(B) / sum(U), is within 4 standard errors (delta method) of the factor."""
    rng = np.random.default_rng(3706)
    n, lam, L = 400_000, rate / 3600, hours * 3600
    used = np.minimum(rng.exponential(1 / lam, n), L)
    billed = np.where(used > minimum, used + rng.uniform(0, increment, n), minimum)
    ratio = billed.sum() / used.sum()
    se = np.std(billed - ratio * used, ddof=1) / math.sqrt(n) / used.mean()
    factor = spot_billing_factor(increment, minimum, hours, rate)
    assert abs(ratio - factor) <= 4 * se + 1e-12
    # the old rule (the mean time to interruption billed as one session) is told apart where
    # interruptions cut sessions near the minimum
    if (increment, minimum, hours, rate) == (60, 1800, 0.75, 2.5):
        assert abs(ratio - 1.25) > 100 * se


@pytest.mark.parametrize("increment, minimum, hours", [(60, 60, 1), (1, 60, 24), (60, 600, 0.1),
                                                       (60, 60, 60 / 3600), (0, 0, 4)])
def test_without_interruptions_spot_is_billed_as_on_demand(increment, minimum, hours):
    """lambda -> 0: the factor is billing_factor of the session, exactly at rate 0 and to
    rounding at tiny rates (no cancellation in 1 - e^(-lambda L)); at small rates it moves
    by first order in lambda L."""
    od = billing_factor(increment, minimum, hours)
    assert spot_billing_factor(increment, minimum, hours, 0.0) == od
    for rate in (5e-324, 1e-300, 1e-15):
        assert_allclose(spot_billing_factor(increment, minimum, hours, rate), od, rtol=1e-14)
    rate = 1e-6
    assert_allclose(spot_billing_factor(increment, minimum, hours, rate), od,
                    rtol=4 * rate * hours + 1e-14)


@pytest.mark.parametrize("minimum, hours, rate", [(7200, 1, 0.3), (3600, 1, 0.3),
                                                  (86_400, 24, 3.0)])
def test_a_minimum_at_least_the_session_bills_the_minimum_alone(minimum, hours, rate):
    """m >= L: every session (U <= L <= m) is billed m, no half increment: factor =
    m / E[U] = m lambda / (1 - e^(-lambda L)); e.g. 7,200 s over 1 h sessions at 0.3 an
    hour: 7,200 / (3,600 (1 - e^-0.3)/0.3) = 2.31498."""
    expected = minimum * (rate / 3600) / (1 - math.exp(-rate * hours))
    assert_allclose(spot_billing_factor(60, minimum, hours, rate), expected, rtol=1e-12)
    if minimum == 7200:
        assert_allclose(expected, 2.31498, atol=5e-6)


def test_on_demand_billing_is_unchanged_by_spot_interruptions():
    """The on-demand factor is billing_factor of the mean session whatever the spot rate; the
    normal cost's uninterrupted book bills spot at it too (design 9.2)."""
    base = {"finance": {"start_month": "2027-01", "horizon_months": 12},
            "on_demand": {"price_per_gpu_hour": 2.0, "billing_increment_seconds": 60,
                          "billing_minimum_seconds": 600, "mean_session_hours": 2},
            "uncertainty": {"draws": 0}}
    for rate in (0.0, 0.001, 0.5, 10.0):
        s = Scenario.model_validate({**base, "spot": {"interruptions_per_instance_hour": rate}})
        book = build_state(s, flat_profile(1, "2026-01", 12)).book
        assert book.od_billing == (7200 + 30) / 7200
        assert_allclose(book.spot_billing, spot_billing_factor(60, 600, 2, rate), rtol=1e-15)
        assert np.all(book.uninterrupted().spot_billing == book.od_billing)


@pytest.mark.parametrize("path", ["docs/README-model.md", "docs/design.md"])
def test_documents_state_the_engines_billing_rule(path):
    text = " ".join((ROOT / path).read_text().split())
    assert "(S + increment/2) / S for S > minimum, minimum / S for S <= minimum" in text
    assert "(max(S, minimum) + increment/2) / S" not in text


@pytest.mark.parametrize("path", ["docs/README-model.md", "docs/design.md"])
def test_documents_state_spot_billing_as_an_expectation(path):
    text = " ".join((ROOT / path).read_text().split())
    assert "E[billed] / E[used]" in text
    assert "ends at an interruption when that comes sooner" not in text
