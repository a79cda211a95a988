"""models/start.py: the plan's first month (issue 23), a start in the past only when set, and
what the upload preview says about short or old usage. The current month is given, never read
from a clock."""
from __future__ import annotations

import numpy as np
import pytest

from models.document import plan_document
from tests.support.plans import compute_plan
from models.scenario import Scenario
from models.start import default_start_month, months_between, start_warnings, usage_notes
from tests.support.engine_cases import flat_profile, hourly_profile


# the month after the LATER of the usage's last period and the current month
@pytest.mark.parametrize("usage_last, current, start", [
    ("2024-09", None, "2024-10"),         # no current month: the month after the usage
    ("2024-09", "2026-12", "2027-01"),    # an old export plans from after the current month
    ("2026-12", "2026-12", "2027-01"),    # usage to this month: next month
    ("2027-05", "2026-12", "2027-06"),    # usage past the current month: after the usage
])
def test_default_start_is_after_the_later_of_usage_and_current_month(usage_last, current,
                                                                       start):
    first = str(np.datetime64(usage_last, "M") - 11)
    assert default_start_month(flat_profile(1, first, 12), current) == start


def focus_like() -> object:
    """19 days of hourly usage ending in 2024-09, as in the issue's FOCUS export."""
    return hourly_profile(np.full(19 * 24, 8.0), start="2024-09-01T00")


def test_an_old_export_plans_the_future_not_the_past():
    """Issue 23: a FOCUS export ending 2024-09 planned from 2024-10, in the past, with 19 days
    repeated for five years. Read in 2026-12, it plans from 2027-01."""
    s = Scenario.model_validate({"uncertainty": {"draws": 0}})
    doc = plan_document(compute_plan(s, focus_like(), current_month="2026-12"))
    assert doc["months"][0] == "2027-01" and doc["months"][-1] == "2031-12"
    assert not any("before the current month" in w for w in doc["warnings"])
    # pure callers that give no current month plan as before
    assert plan_document(compute_plan(s, focus_like()))["months"][0] == "2024-10"


def test_a_start_in_the_past_only_when_set_and_then_with_a_warning():
    """finance.start_month 2024-10 with the current month 2026-12: 26 months of the plan
    (2024-10 .. 2026-11) lie in the past; the plan says so."""
    s = Scenario.model_validate({"finance": {"start_month": "2024-10"},
                                 "uncertainty": {"draws": 0}})
    doc = plan_document(compute_plan(s, focus_like(), current_month="2026-12"))
    assert doc["months"][0] == "2024-10"
    assert months_between("2024-10", "2026-12") == 26
    warning = next(w for w in doc["warnings"] if "before the current month" in w)
    assert warning.startswith("The plan starts in 2024-10, before the current month "
                              "(2026-12), because finance.start_month sets it: its first 26 "
                              "months are in the past.")
    assert start_warnings(s, "2024-10", None) == []            # no date: nothing to say
    assert start_warnings(s, "2026-12", "2026-12") == []        # this month is not past
    assert start_warnings(Scenario(), "2024-10", "2026-12") == []   # a default start


def test_preview_notes_say_when_usage_is_short_or_old():
    """19 days = 456 hours, less than a year (8,760 h); ending 2024-09, 27 months before
    2026-12 (more than 3). A year of usage ending last month gets neither note."""
    short_old = [m.text for m in usage_notes(focus_like(), "2026-12", "2027-01")]
    assert short_old == [
        "The usage covers 19.0 days (456 hours), less than a year: plans repeat it for their "
        "whole horizon, so any season it does not show is missing from them.",
        "The usage ends in 2024-09, 27 months before the current month (2026-12); a "
        "plan of it starts in 2027-01 and lays this older pattern from there."]
    assert usage_notes(flat_profile(1, "2025-12", 12), "2026-12", "2027-01") == []
    # three months old is still recent
    assert usage_notes(flat_profile(1, "2025-10", 12), "2026-12", "2027-01") == []
