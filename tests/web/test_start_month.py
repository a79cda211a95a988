"""The plan's first month in the service (issue 23): the month after the later of the usage's
end and the current month (service.clock gives the month; the test suite pins it at 2026-12,
tests/conftest.py), a revision's plan as of the month it was made, and the upload preview's
notes on short or old usage."""
from __future__ import annotations

import io
import re

import pytest

from service import clock

# 19 days of 8 GPUs a day, ending 2024-09, as the FOCUS export of the issue
OLD_ROWS = [{"timestamp": f"2024-09-{d:02d}", "gpu_hours": 192.0} for d in range(1, 20)]
OLD_CSV = "timestamp,gpu_hours\n" + "".join(f"{r['timestamp']},{r['gpu_hours']}\n"
                                            for r in OLD_ROWS)


def test_the_suite_plans_as_of_a_pinned_month():
    assert clock.current_month() == "2026-12"
    assert clock.planning_month("2031-05-04T10:00:00Z") == "2026-12"   # the pin wins


def test_the_month_is_today_or_the_revisions_when_not_pinned(monkeypatch):
    monkeypatch.delenv(clock.ENV)
    assert re.fullmatch(r"\d{4}-\d{2}", clock.current_month())
    assert clock.planning_month("2031-05-04T10:00:00Z") == "2031-05"
    assert clock.planning_month(None) == clock.current_month()
    monkeypatch.setenv(clock.ENV, "December")
    with pytest.raises(ValueError, match="BUYRENT_CURRENT_MONTH must be a month as YYYY-MM"):
        clock.current_month()


def test_api_plans_an_old_export_from_after_the_current_month(api):
    """Issue 23: usage ending 2024-09 planned from 2024-10, in the past. As of 2026-12 the plan
    starts 2027-01 and its warnings say the usage is short (19 days) and old (27 months)."""
    response = api(json={"scenario": {"uncertainty": {"draws": 0}}, "usage": OLD_ROWS})
    assert response.status_code == 200, response.get_data(as_text=True)
    doc = response.get_json()
    assert doc["months"][0] == "2027-01"
    assert any(w.startswith("The usage covers 19.0 days (456 hours), less than a year")
               for w in doc["warnings"])
    assert ("The usage ends in 2024-09, 27 months before the current month (2026-12); a plan "
            "of it starts in 2027-01 and lays this older pattern from there.") in doc["warnings"]


def test_api_warns_of_a_start_set_in_the_past(api):
    response = api(json={"scenario": {"finance": {"start_month": "2024-10"},
                                      "uncertainty": {"draws": 0}}, "usage": OLD_ROWS})
    doc = response.get_json()
    assert doc["months"][0] == "2024-10"
    assert any(w.startswith("The plan starts in 2024-10, before the current month (2026-12)")
               for w in doc["warnings"])


def test_upload_preview_says_the_usage_is_short_and_old(login):
    response = login("ana").post(
        "/scenarios/1/usage", data={"usage": (io.BytesIO(OLD_CSV.encode()), "old.csv")},
        content_type="multipart/form-data")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    warnings = re.search(r'<ul class="warnings">(.*?)</ul>', html, re.S).group(1)
    assert "less than a year" in warnings
    assert "The usage ends in 2024-09, 27 months before the current month (2026-12)" in warnings
    korean = login("ana").post(
        "/scenarios/1/usage", data={"usage": (io.BytesIO(OLD_CSV.encode()), "old.csv")},
        content_type="multipart/form-data", headers={"Accept-Language": "ko"})
    warnings = re.search(r'<ul class="warnings">(.*?)</ul>', korean.get_data(as_text=True),
                         re.S).group(1)
    assert "2024-09" in warnings and "The usage ends" not in warnings
