"""Usage tables: header matching, the gpus alternative, workload and team, bad values."""
from __future__ import annotations

import pytest
from numpy.testing import assert_allclose

from service.ingest import IngestError, read_usage
from tests.support.ingest_fixtures import csv_bytes


@pytest.mark.parametrize("header", [
    "timestamp,gpu_hours",        # canonical
    "Timestamp,GPU Hours",        # case and spaces
    "DATE,gpu-hours",             # alias, hyphen
    "Period , GPUHours",          # alias, spaces around
    "time,Gpu_Hours",
    "hour,gpu.hours",
])
def test_header_aliases(header):
    data = csv_bytes(header, "2027-01-01T00:00:00,5", "2027-01-01T01:00:00,6")
    assert_allclose(read_usage(data, "h.csv").profile.steady, [5, 6])


def test_month_alias_with_monthly_rows():
    data = csv_bytes("Month,GPU hours", "2027-01,744", "2027-02,0")
    result = read_usage(data, "m.csv")
    assert result.profile.period == "month"
    assert_allclose(result.profile.steady, [744, 0])


def test_missing_column_lists_expected_and_found():
    with pytest.raises(IngestError, match=r"unknown column 'usage'; row 1: missing column "
                                          r"gpu_hours \(or gpus\); row 1: expected "
                                          r"timestamp, gpu_hours .*; found \['timestamp', "
                                          r"'usage'\]") as info:
        read_usage(csv_bytes("timestamp,usage", "2027-01-01,5"), "m.csv")
    assert info.value.problems[0]["row"] == 1


def test_missing_timestamp():
    with pytest.raises(IngestError, match="missing column timestamp"):
        read_usage(csv_bytes("gpu_hours", "5"), "t.csv")


def test_unknown_column_named():
    with pytest.raises(IngestError, match=r"unknown column 'cost_usd'; row 1: expected "
                                          r"timestamp, gpu_hours") as info:
        read_usage(csv_bytes("timestamp,gpu_hours,cost_usd", "2027-01-01,5,10"), "u.csv")
    assert info.value.problems[0] == {"row": 1, "column": "cost_usd",
                                      "message": "unknown column 'cost_usd'"}


def test_two_columns_for_one_field():
    with pytest.raises(IngestError, match="columns 'date' and 'time' both give the timestamp"):
        read_usage(csv_bytes("date,time,gpu_hours", "2027-01-01,00:00,5"), "d.csv")


def test_gpu_hours_and_gpus_together():
    with pytest.raises(IngestError, match="give either gpu_hours or gpus, not both"):
        read_usage(csv_bytes("timestamp,gpu_hours,gpus", "2027-01-01,5,1"), "g.csv")


def test_gpus_column_is_average_gpus_busy():
    # days: 24 h x 2 GPUs; months: 31 days x 24 h x 1 GPU
    daily = read_usage(csv_bytes("date,gpus", "2027-01-01,2", "2027-01-02,0.5"), "d.csv")
    assert_allclose(daily.profile.steady, [48, 12])
    monthly = read_usage(csv_bytes("month,gpus", "2027-01,1", "2027-02,1"), "m.csv")
    assert_allclose(monthly.profile.steady, [744, 672])


def test_workload_splits_steady_and_interruptible():
    data = csv_bytes("timestamp,gpu_hours,workload", "2027-01-01,10,steady",
                     "2027-01-01,30,Interruptible ", "2027-01-02,5,")
    profile = read_usage(data, "w.csv").profile
    assert_allclose(profile.steady, [10, 5])
    assert_allclose(profile.interruptible, [30, 0])
    assert profile.has_workload


def test_unknown_workload_named():
    with pytest.raises(IngestError, match=r"row 3, column 'workload': expected steady or "
                                          r"interruptible, got 'batch'"):
        read_usage(csv_bytes("timestamp,gpu_hours,workload", "2027-01-01,1,steady",
                             "2027-01-02,1,batch"), "w.csv")


@pytest.mark.parametrize("yes,no", [("true", "false"), ("yes", "no"), ("1", "0"), ("Y", "N"),
                                    ("TRUE", "")])
def test_boolean_interruptible(yes, no):
    data = csv_bytes("timestamp,gpu_hours,interruptible", f"2027-01-01,7,{yes}",
                     f"2027-01-01,3,{no}")
    profile = read_usage(data, "b.csv").profile
    assert_allclose(profile.interruptible, [7])
    assert_allclose(profile.steady, [3])


def test_bad_boolean_named():
    with pytest.raises(IngestError, match=r"row 2, column 'interruptible': expected true/false"):
        read_usage(csv_bytes("timestamp,gpu_hours,interruptible", "2027-01-01,7,maybe"), "b.csv")


def test_teams_totals():
    data = csv_bytes("timestamp,gpu_hours,team", "2027-01-01,10,a", "2027-01-01,5,b",
                     "2027-01-02,1,a", "2027-01-02,2,")
    result = read_usage(data, "t.csv")
    assert result.profile.teams == {"a": 11.0, "b": 5.0, "(no team)": 2.0}
    assert result.summary["teams"] == result.profile.teams


@pytest.mark.parametrize("value,message", [
    ("-2", r"negative value '-2'; expected a number >= 0"),          # negative
    ("NaN", r"NaN is not a number of GPU-hours"),                    # NaN
    ("inf", r"'inf' is infinite; expected a finite number >= 0"),    # infinite
    ("-inf", r"'-inf' is infinite"),                                 # minus infinite
    ("lots", r"expected a number >= 0, got 'lots'"),                 # not a number
    ("", r"empty cell; expected a number >= 0"),                     # empty
    # 400 digits: the CSV reader gives a Python int that pandas.to_numeric could not convert
    # (OverflowError, a 500 before); read as past float's range, named by row and column
    ("9" * 400, r"'9{80}'\.\.\. \(400 characters\) is too large; expected a number >= 0"),
    ("-" + "9" * 400, r"negative value '-9{79}'\.\.\. \(401 characters\)"),
    ("1e400", r"'1e400' is too large; expected a number >= 0"),       # a float's overflow
])
def test_bad_hours(value, message):
    data = csv_bytes("timestamp,gpu_hours", "2027-01-01T00:00:00,1", f"2027-01-01T01:00:00,{value}")
    with pytest.raises(IngestError, match=message) as info:
        read_usage(data, "bad.csv")
    assert info.value.problems[0]["row"] == 3
    assert info.value.problems[0]["column"] == "gpu_hours"


def test_problems_from_several_columns_sorted_by_row():
    data = csv_bytes("timestamp,gpu_hours,workload", "2027-01-01,x,steady", "banana,1,steady",
                     "2027-01-03,1,other")
    with pytest.raises(IngestError) as info:
        read_usage(data, "many.csv")
    assert [(p["row"], p["column"]) for p in info.value.problems] == [
        (2, "gpu_hours"), (3, "timestamp"), (4, "workload")]
