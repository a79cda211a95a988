"""CSV text: encodings, separators, quoting, blank lines, shapes and limits."""
from __future__ import annotations

import time

import numpy as np
import pytest
from numpy.testing import assert_allclose

from service.ingest import IngestError, Limits, read_usage
from tests.support.ingest_fixtures import csv_bytes

HOURLY = ["timestamp,gpu_hours", "2027-01-01T00:00:00,3", "2027-01-01T01:00:00,4.5"]


@pytest.mark.parametrize("data", [
    csv_bytes(*HOURLY),                                       # plain
    b"\xef\xbb\xbf" + csv_bytes(*HOURLY),                     # UTF-8 with BOM (Excel)
    csv_bytes(*HOURLY, newline="\r\n"),                       # Windows line ends
    csv_bytes(*(line.replace(",", ";") for line in HOURLY)),  # semicolon (European Excel)
    csv_bytes(*(line.replace(",", "\t") for line in HOURLY)),  # tab
    csv_bytes('"timestamp","gpu_hours"', '"2027-01-01T00:00:00","3"',
              '"2027-01-01T01:00:00","4.5"'),                 # every field quoted
])
def test_csv_variants_read_the_same(data):
    result = read_usage(data, "usage.csv")
    assert_allclose(result.profile.steady, [3.0, 4.5])
    assert result.summary["format"] == "csv"


def test_semicolon_with_decimal_comma_in_quotes_is_reported():
    # European exports write 4,5; inside quotes it is one field but not a number
    data = csv_bytes("timestamp;gpu_hours", '2027-01-01T00:00:00;"4,5"')
    with pytest.raises(IngestError, match=r"row 2, column 'gpu_hours': expected a number >= 0, "
                                          r"got '4,5'") as info:
        read_usage(data, "eu.csv")
    assert info.value.problems[0] == {"row": 2, "column": "gpu_hours",
                                      "message": "expected a number >= 0, got '4,5'"}


def test_quoted_team_with_separator():
    data = csv_bytes("timestamp,gpu_hours,team", '2027-01-01,24,"research, vision"')
    assert read_usage(data, "q.csv").profile.teams == {"research, vision": 24.0}


@pytest.mark.parametrize("encoding,data", [
    ("cp1252", "timestamp,gpu_hours,team\n2027-01-01,3,équipe\n".encode("cp1252")),
    ("utf-16", "timestamp,gpu_hours\n2027-01-01,3\n".encode("utf-16")),
])
def test_other_encodings_ask_for_utf8(encoding, data):
    with pytest.raises(IngestError, match="UTF-8") as info:
        read_usage(data, "legacy.csv")
    assert "CSV UTF-8" in str(info.value)
    if encoding == "cp1252":
        assert info.value.problems[0]["row"] == 2   # the line of the first bad byte


@pytest.mark.parametrize("data", [b"", b"   \n\n", b"\xef\xbb\xbf"])
def test_empty_file(data):
    with pytest.raises(IngestError, match="empty.csv: the file is empty") as info:
        read_usage(data, "empty.csv")
    assert info.value.problems == [{"row": None, "column": None, "message": "the file is empty"}]


def test_header_only():
    with pytest.raises(IngestError, match="has a header but no data rows") as info:
        read_usage(csv_bytes("timestamp,gpu_hours"), "header.csv")
    assert info.value.problems[0]["row"] == 1


def test_blank_lines_keep_file_row_numbers():
    data = csv_bytes("timestamp,gpu_hours", "2027-01-01T00:00:00,3", "", "2027-01-01T01:00:00,x")
    with pytest.raises(IngestError) as info:
        read_usage(data, "blank.csv")
    assert info.value.problems[0]["row"] == 4


def test_row_with_extra_fields_named():
    data = csv_bytes("timestamp,gpu_hours", "2027-01-01T00:00:00,3", "2027-01-01T01:00:00,4,9")
    with pytest.raises(IngestError, match="this row has 3 fields") as info:
        read_usage(data, "extra.csv")
    assert info.value.problems[0]["row"] == 3


@pytest.mark.parametrize("row", [2, 3])   # the first data row, which pandas reads as an index
def test_row_of_200k_extra_fields_refused_at_once(row):
    # 400 KB: 200,000 extra fields on one row. pandas read a first data row wider than the
    # header as an index: 42-54 s, then a message about its timestamps. Now one pass over
    # that row (about 10 ms); 2 s is a margin no loaded machine should reach.
    lines = ["timestamp,gpu_hours", "2027-01-01T00:00:00,3", "2027-01-01T01:00:00,4"]
    lines[row - 1] += ",1" * 200_000
    started = time.perf_counter()
    with pytest.raises(IngestError, match="this row has 200,?002 fields, the header has") as info:
        read_usage(csv_bytes(*lines), "extra.csv")
    assert time.perf_counter() - started < 2.0
    assert info.value.problems[0]["row"] == row


def test_unclosed_quote_named():
    data = csv_bytes("timestamp,gpu_hours", "2027-01-01,1", '"2027-01-02,2')
    with pytest.raises(IngestError, match="a quoted field starting here is never closed") as info:
        read_usage(data, "quote.csv")
    assert info.value.problems[0]["row"] == 3


def test_file_without_header():
    with pytest.raises(IngestError, match="the first row looks like data: the file needs a "
                                          "header row") as info:
        read_usage(csv_bytes("2027-01-01,1", "2027-01-02,2"), "nohead.csv")
    assert info.value.problems[0]["row"] == 1


def test_size_limit():
    data = csv_bytes(*HOURLY)
    with pytest.raises(IngestError, match=rf"the file is {len(data)} bytes; the limit is 10 bytes"):
        read_usage(data, "big.csv", Limits(max_bytes=10))


def test_size_limit_default_is_20_mb():
    assert Limits().max_bytes == 20_000_000
    with pytest.raises(IngestError, match="the limit is 20,000,000 bytes"):
        read_usage(b"x" * 20_000_001, "huge.csv")


def test_row_limit():
    lines = ["timestamp,gpu_hours"] + [f"2027-01-01T{h:02d}:00:00,1" for h in range(6)]
    with pytest.raises(IngestError, match="has 6 data rows; the limit is 5"):
        read_usage(csv_bytes(*lines), "rows.csv", Limits(max_rows=5))
    assert read_usage(csv_bytes(*lines), "rows.csv", Limits(max_rows=6)).summary["rows"] == 6


def test_column_limit():
    header = "timestamp,gpu_hours," + ",".join(f"c{i}" for i in range(60))
    with pytest.raises(IngestError, match="has 62 columns; the limit is 50") as info:
        read_usage(csv_bytes(header, "2027-01-01," + "1," * 61), "wide.csv")
    assert info.value.problems[0]["row"] == 1


def test_many_problems_first_20_then_a_count():
    lines = ["timestamp,gpu_hours"] + [f"2027-01-01T{h:02d}:00:00,-1" for h in range(24)]
    with pytest.raises(IngestError, match=r"and 4 more problems \(24 in all\)") as info:
        read_usage(csv_bytes(*lines), "neg.csv")
    problems = info.value.problems
    assert len(problems) == 21
    assert [p["row"] for p in problems[:20]] == list(range(2, 22))
    assert problems[20]["row"] is None


def test_message_starts_with_file_name():
    with pytest.raises(IngestError) as info:
        read_usage(csv_bytes("when,gpu_hours", "2027-01-01,1"), "dir/sub/usage.csv")
    assert str(info.value).startswith("usage.csv: ")


def test_20_years_of_hours_parse_to_hourly_profile():
    hours = np.arange(175_320)   # 2000-01-01 to 2019-12-31: the longest span a file may have
    stamps = np.datetime64("2000-01-01T00", "h") + hours
    body = "\n".join(f"{s}:00:00,{h % 50}" for s, h in zip(stamps.astype(str), hours))
    result = read_usage(("timestamp,gpu_hours\n" + body).encode(), "long.csv")
    assert result.summary["periods"] == 175_320
    assert result.profile.gpu_hours == float((hours % 50).sum())
