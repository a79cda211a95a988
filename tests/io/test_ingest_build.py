"""Period inference, same-period sums, duplicates, gaps and the summary."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from service.ingest import IngestError, read_usage
from tests.support.ingest_fixtures import csv_bytes


@pytest.mark.parametrize("rows,period", [
    (["2027-01-01T00:00:00,1", "2027-01-01T01:00:00,1"], "hour"),
    (["2027-01-01T00:00:00,1", "2027-01-01T03:00:00,1"], "hour"),   # gaps keep the period
    (["2027-01-01,1", "2027-01-02,1"], "day"),
    (["2027-01-01T00:00,1", "2027-01-02T00:00,1"], "day"),         # midnight date-times
    (["2027-01,1", "2027-02,1"], "month"),
    (["2027-01-01,1", "2027-02-01,1", "2027-03-01,1"], "month"),   # first-of-month dates
    (["2027-01-01,1", "2027-01-03,1"], "day"),
])
def test_period_inferred(rows, period):
    assert read_usage(csv_bytes("timestamp,gpu_hours", *rows), "p.csv").profile.period == period


def test_single_month_row_is_a_month_with_a_note():
    result = read_usage(csv_bytes("timestamp,gpu_hours", "2027-03,100"), "one.csv")
    assert result.profile.period == "month"
    assert any("one row only" in w for w in result.warnings)


def test_not_on_the_hour():
    with pytest.raises(IngestError, match="is not the start of an hour") as info:
        read_usage(csv_bytes("timestamp,gpu_hours", "2027-01-01T00:00:00,1",
                             "2027-01-01T00:30:00,1"), "half.csv")
    assert info.value.problems[0]["row"] == 3


def test_mixed_hourly_then_daily():
    rows = [f"2027-01-01T{h:02d}:00:00,1" for h in range(5)] + \
        [f"2027-01-{d:02d},24" for d in range(2, 7)]
    with pytest.raises(IngestError, match=r"mixed periods: row 2 \(2027-01-01T00:00:00\) is an "
                                          r"hour like 4 more; row 7 \(2027-01-02\) is a day "
                                          r"like 4 more") as info:
        read_usage(csv_bytes("timestamp,gpu_hours", *rows), "mixed.csv")
    assert info.value.problems[0] == {"row": 7, "column": "timestamp",
                                      "message": info.value.problems[0]["message"]}


def test_mixed_periods_written_row_by_row_are_refused():
    # issue 11 item A.3: an hour, a day and a month were read as three hours with a
    # 2,000-GPU peak; the error names every row and the period it is written as
    data = csv_bytes("timestamp,gpu_hours", "2027-01-01T00,4", "2027-01-02,96", "2027-02,2000")
    with pytest.raises(IngestError) as info:
        read_usage(data, "mixed.csv")
    message = info.value.problems[0]["message"]
    assert ("row 2 (2027-01-01T00) is an hour; row 3 (2027-01-02) is a day; row 4 (2027-02) "
            "is a month") in message


def test_mixed_daily_then_monthly():
    rows = [f"2027-01-{d:02d},24" for d in range(1, 6)] + \
        [f"2027-{m:02d},700" for m in range(2, 7)]
    with pytest.raises(IngestError, match=r"mixed periods: row 2 \(2027-01-01\) is a day like 4 "
                                          r"more; row 7 \(2027-02\) is a month like 4 more"):
        read_usage(csv_bytes("timestamp,gpu_hours", *rows), "mixed.csv")


def test_same_period_rows_are_summed():
    data = csv_bytes("timestamp,gpu_hours,team", "2027-01-01,10,a", "2027-01-01,5,b",
                     "2027-01-02,1,a")
    result = read_usage(data, "sum.csv")
    assert_allclose(result.profile.steady, [15, 1])
    assert result.summary["duplicates"] == 0


def test_identical_rows_are_reported_as_likely_duplicates():
    data = csv_bytes("timestamp,gpu_hours,team", "2027-01-01,10,a", "2027-01-02,4,a",
                     "2027-01-01,10,a")
    result = read_usage(data, "dup.csv")
    assert result.summary["duplicates"] == 1
    assert any("identical to an earlier row" in w for w in result.warnings)
    assert_allclose(result.profile.steady, [20, 4])


def test_duplicate_timestamp_with_other_value_is_an_error():
    data = csv_bytes("timestamp,gpu_hours", "2027-01-01T00:00:00,10", "2027-01-01T01:00:00,4",
                     "2027-01-01T00:00:00,12")
    with pytest.raises(IngestError, match=r"row 4, column 'timestamp': duplicate timestamp: "
                                          r"same timestamp as row 2 with a different value"):
        read_usage(data, "dupts.csv")


def test_missing_periods_are_zero_and_warned():
    data = csv_bytes("timestamp,gpu_hours", "2027-01-01T00:00:00,1", "2027-01-01T04:00:00,2")
    result = read_usage(data, "gap.csv")
    assert_allclose(result.profile.steady, [1, 0, 0, 0, 2])
    assert result.summary["missing_periods"] == 3
    assert any(w.startswith("3 hours between") for w in result.warnings)


def test_unsorted_rows_are_placed_by_time():
    data = csv_bytes("timestamp,gpu_hours", "2027-01-03,3", "2027-01-01,1", "2027-01-02,2")
    assert_allclose(read_usage(data, "u.csv").profile.steady, [1, 2, 3])


def test_summary_fields_and_json():
    data = csv_bytes("timestamp,gpu_hours,workload,team", "2027-01-01T00:00:00,10,steady,a",
                     "2027-01-01T01:00:00,30,interruptible,b")
    summary = read_usage(data, "s.csv").summary
    assert summary == {
        "format": "csv", "rows": 2, "period": "hour", "periods": 2,
        "first": "2027-01-01T00:00:00", "last": "2027-01-01T01:00:00", "gpu_hours": 40.0,
        "steady_gpu_hours": 10.0, "interruptible_gpu_hours": 30.0, "peak_gpus": 30.0,
        "teams": {"a": 10.0, "b": 30.0}, "pricing_categories": {}, "skipped_rows": 0,
        "missing_periods": 0, "duplicates": 0}
    json.dumps(summary, allow_nan=False)


def test_peak_gpus_of_daily_rows_is_per_hour():
    summary = read_usage(csv_bytes("date,gpu_hours", "2027-01-01,48", "2027-01-02,240"),
                         "d.csv").summary
    assert summary["peak_gpus"] == 10.0


def test_span_limit():
    with pytest.raises(IngestError, match=r"from 1900-01-01T01 to 2027-01-01T01: more than 20 "
                                          r"years"):
        read_usage(csv_bytes("timestamp,gpu_hours", "1900-01-01T01:00:00,1",
                             "2027-01-01T01:00:00,1"), "span.csv")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 23), st.floats(0, 1e4, allow_nan=False),
                          st.sampled_from(["steady", "interruptible"]),
                          st.sampled_from(["a", "b", "c"])), min_size=1, max_size=40))
def test_totals_are_kept(rows):
    # whatever the rows, the profile holds exactly their GPU-hours (rows with equal keys and
    # different values are the one refused case)
    keys = {}
    for hour, value, workload, team in rows:
        keys.setdefault((hour, workload, team), set()).add(value)
    lines = [f"2027-01-01T{h:02d}:00:00,{v!r},{w},{t}" for h, v, w, t in rows]
    data = csv_bytes("timestamp,gpu_hours,workload,team", *lines)
    if any(len(values) > 1 for values in keys.values()):
        with pytest.raises(IngestError, match="duplicate timestamp"):
            read_usage(data, "h.csv")
        return
    result = read_usage(data, "h.csv")
    assert_allclose(result.profile.gpu_hours, sum(float(repr(r[1])) for r in rows), rtol=1e-12)
    inter = sum(r[1] for r in rows if r[2] == "interruptible")
    assert_allclose(result.profile.interruptible.sum(), inter, rtol=1e-12, atol=1e-9)
    assert np.all(result.profile.steady >= 0)


SPAN = ("the timestamps run from {} to {}: more than 20 years; a usage file may span at most "
        "20 years (split it, or keep its latest years)")


@pytest.mark.parametrize("first, last, period, refused", [
    ("1900-01", "9999-12", "M", True),    # 97,200 months: read in 10 s before, a 2.6 MB page
    ("2006-01", "2025-12", "M", False),   # 240 months = 20 years exactly
    ("2006-01", "2026-01", "M", True),    # 241 months
    ("2006-01-15", "2026-01-14", "D", False),   # 20 years to the day: ends 2026-01-15 00:00
    ("2006-01-15", "2026-01-15", "D", True),
    ("2006-01-15T05", "2026-01-15T04", "h", False),   # 175,320 hours, ends 2026-01-15 05:00
    ("2006-01-15T05", "2026-01-15T05", "h", True),
])
def test_a_file_spans_at_most_20_years(first, last, period, refused):
    stamps = np.arange(np.datetime64(first, period), np.datetime64(last, period) + 1)
    data = csv_bytes("timestamp,gpu_hours", *(f"{t},1" for t in stamps))
    if not refused:
        assert read_usage(data, "span.csv").summary["periods"] == len(stamps)
        return
    with pytest.raises(IngestError) as info:
        read_usage(data, "span.csv")
    assert info.value.problems == [{"row": None, "column": "timestamp",
                                    "message": SPAN.format(first, last)}]
