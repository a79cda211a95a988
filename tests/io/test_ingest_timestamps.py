"""Timestamps: ISO with offsets, dates, months, Excel serials; ambiguous dates refused."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal

from service.ingest import IngestError, read_usage
from service.ingest.timestamps import mixed_written_periods, parse, shapes, written_period
from tests.support.ingest_fixtures import csv_bytes


def stamps(*values):
    out, problems = parse(pd.Series(list(values), dtype=object), np.arange(2, 2 + len(values)),
                          "timestamp")
    assert problems == []
    return out.astype(str).tolist()


@pytest.mark.parametrize("value,expected", [
    ("2027-01-31T13:00:00", "2027-01-31T13:00:00"),        # ISO date-time
    ("2027-01-31 13:00", "2027-01-31T13:00:00"),           # space, no seconds
    ("2027-01-31T13:00:00Z", "2027-01-31T13:00:00"),       # Z
    ("2027-01-31T15:00:00+02:00", "2027-01-31T13:00:00"),  # offset -> UTC
    ("2027-01-31T08:00:00-0500", "2027-01-31T13:00:00"),   # offset without colon
    ("2027-01-31", "2027-01-31T00:00:00"),                 # date
    ("2027-01", "2027-01-01T00:00:00"),                    # month
    (46418, "2027-01-31T00:00:00"),                        # Excel serial (number)
    ("46418.5", "2027-01-31T12:00:00"),                    # Excel serial written as text
    ("13/02/2027", "2027-02-13T00:00:00"),                 # day first, unambiguous
])
def test_one_timestamp(value, expected):
    assert stamps(value) == [expected]


def test_small_numbers_are_not_serials():
    # a bare year or a row number in the timestamp column is not read as a 1900s date
    _out, problems = parse(pd.Series([46388, 12], dtype=object), np.array([2, 3]), "date")
    assert problems == [{"row": 3, "column": "date", "message": "12 is not an Excel date serial "
                         "(expected 25569 = 1970-01-01 to 73050 = 2099-12-31)"}]


def test_excel_serials_in_csv():
    data = csv_bytes("date,gpu_hours", "46388,24", "46389,48")
    profile = read_usage(data, "serial.csv").profile
    assert profile.period == "day"
    assert str(profile.starts[0]) == "2027-01-01T00"


def test_mixed_offsets_become_utc():
    assert stamps("2027-03-28T00:00:00+01:00", "2027-03-28T03:00:00+02:00") == [
        "2027-03-27T23:00:00", "2027-03-28T01:00:00"]


def test_slash_dates_resolved_by_the_column():
    # 13/02 shows the column is day/month, so 01/02 is 1 February
    assert stamps("13/02/2027", "01/02/2027") == ["2027-02-13T00:00:00", "2027-02-01T00:00:00"]
    assert stamps("02/13/2027", "02/01/2027") == ["2027-02-13T00:00:00", "2027-02-01T00:00:00"]


def test_ambiguous_date_names_the_row():
    data = csv_bytes("date,gpu_hours", "01/02/2027,5", "03/02/2027,5")
    with pytest.raises(IngestError, match=r"row 2, column 'date': '01/02/2027' is ambiguous: "
                                          r"it could be day/month or month/day") as info:
        read_usage(data, "amb.csv")
    assert info.value.problems[0]["row"] == 2


def test_contradictory_slash_dates():
    data = csv_bytes("date,gpu_hours", "13/02/2027,5", "02/14/2027,5")
    with pytest.raises(IngestError, match="written day/month here but month/day in row 3"):
        read_usage(data, "mix.csv")


@pytest.mark.parametrize("value,message", [
    ("banana", r"cannot read 'banana' as a timestamp"),
    ("2027-13-45", r"cannot read '2027-13-45' as a timestamp"),
    ("", r"empty timestamp"),
    ("99999999", r"is not an Excel date serial"),
])
def test_unparseable_timestamp(value, message):
    data = csv_bytes("timestamp,gpu_hours", "2027-01-01T00:00:00,1", f"{value},2")
    with pytest.raises(IngestError, match=message) as info:
        read_usage(data, "bad.csv")
    assert (info.value.problems[0]["row"], info.value.problems[0]["column"]) == (3, "timestamp")


def test_offset_profile_lands_in_utc_hours():
    data = csv_bytes("timestamp,gpu_hours", "2027-01-01T01:00:00+01:00,1",
                     "2027-01-01T02:00:00+01:00,2")
    profile = read_usage(data, "tz.csv").profile
    assert_array_equal(profile.starts, np.array(["2027-01-01T00", "2027-01-01T01"],
                                                dtype="datetime64[h]"))


def test_half_hour_offset_is_not_an_hour_start():
    data = csv_bytes("timestamp,gpu_hours", "2027-01-01T01:00:00+05:30,1",
                     "2027-01-01T02:00:00+05:30,2")
    with pytest.raises(IngestError, match=r"2026-12-31 19:30:00 \(UTC\) is not the start of an "
                                          r"hour") as info:
        read_usage(data, "ist.csv")
    assert info.value.problems[0]["row"] == 2


WRITTEN_AS = [("2027-01", "month"), ("2027-01-31", "day"), (" 2027-01-31 ", "day"),
              ("2027-01-31T13:00", "hour"), ("2027-01-31 13", "hour"),
              ("2027-01-31T13:00:00+02:00", "hour"), ("31/01/2027", "day"),
              ("1.2.2027 10:00", "hour"), ("see 01/02/2027", "day"),   # found by search
              ("２０２７-０１", "month"),         # full-width digits are \d to Python's re
              ("46418", ""), ("", ""), ("nan", ""), ("2027-1-31", ""), ("1/2/27", "")]


@pytest.mark.parametrize("value,kind", WRITTEN_AS)
def test_written_period_of_one_value(value, kind):
    assert written_period(value.strip()) == kind


def test_shapes_judge_each_row_as_its_own_value():
    """Issue 23: mixed_written_periods matched every row with Python's re (0.5 s of a 0.55 s
    read of 200,000 rows). It now judges each distinct shape once, a shape being the value with
    its ASCII digits written as 0; the kind of each row must be the kind of its own value, for
    values of every kind, non-ASCII digits and multi-byte characters among them."""
    values = pd.Series([v.strip() for v, _ in WRITTEN_AS] + ["2027-09-30T23:59", "한 2027-01",
                                                            "9/9/2099", "2098-12"]).astype(str)
    codes, forms = shapes(values)
    assert len(forms) < len(values)             # shapes are shared: 2027-09-30T23:59 ...
    assert [written_period(forms[c]) for c in codes] == [written_period(v) for v in values]
    assert forms[codes[0]] == "0000-00" and forms[codes[9]] == "２０２７-０１"


def test_mixed_periods_are_named_from_the_shapes():
    rows = np.arange(2, 6)
    text = pd.Series(["2027-01-01T00:00", "2027-01-01T01:00", "2027-01-02", "2027-01-03"])
    (found,) = mixed_written_periods(text, rows, "timestamp")
    assert found["row"] == 4 and found["message"].startswith(
        "mixed periods: row 2 (2027-01-01T00:00) is an hour like 1 more; row 4 (2027-01-02) "
        "is a day like 1 more.")
