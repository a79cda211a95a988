"""XLSX workbooks: which sheet, cell types, other spreadsheet formats, mislabelled files."""
from __future__ import annotations

import datetime as dt
import io
import zipfile

import pytest
from numpy.testing import assert_allclose

from service.ingest import IngestError, Limits, read_usage
from tests.support.ingest_fixtures import SAMPLES, csv_bytes, raw_xlsx, sheet_xml, xlsx

ROWS = [["timestamp", "gpu_hours"], ["2027-01-01T00:00:00", 3], ["2027-01-01T01:00:00", 4]]


def test_sheet_named_usage_wins_and_others_are_warned():
    book = xlsx({"readme": [["notes"]], "Usage": ROWS, "old": [["x"]]})
    result = read_usage(book, "b.xlsx")
    assert_allclose(result.profile.steady, [3, 4])
    assert result.warnings[0] == "read sheet 'Usage'; ignored the other sheets: 'readme', 'old'"
    assert result.summary["format"] == "xlsx"


def test_first_visible_sheet_without_usage():
    book = xlsx({"hidden": [["x"]], "data": ROWS, "other": [["y"]]}, hidden=("hidden",))
    result = read_usage(book, "b.xlsx")
    assert_allclose(result.profile.steady, [3, 4])
    assert "read sheet 'data'" in result.warnings[0]


def test_date_cells_and_numbers():
    rows = [["Date", "GPU Hours", "Team"], [dt.datetime(2027, 1, 1), 24.0, "a"],
            [dt.datetime(2027, 1, 2), 48, "a"]]
    result = read_usage(xlsx({"usage": rows}, date_columns=(0,)), "d.xlsx")
    assert result.profile.period == "day"
    assert_allclose(result.profile.steady, [24, 48])


def test_excel_serial_numbers_as_timestamps():
    rows = [["date", "gpu_hours"], [46388, 5], [46389, 6]]   # 2027-01-01, 2027-01-02
    profile = read_usage(xlsx({"usage": rows}), "s.xlsx").profile
    assert str(profile.starts[0]) == "2027-01-01T00"


def test_bad_cell_named_with_file_row():
    rows = [["timestamp", "gpu_hours"], ["2027-01-01T00:00:00", 3], [None, None],
            ["2027-01-01T01:00:00", "three"]]
    with pytest.raises(IngestError, match=r"row 4, column 'gpu_hours': expected a number >= 0, "
                                          r"got 'three'"):
        read_usage(xlsx({"usage": rows}), "bad.xlsx")


@pytest.mark.parametrize("value, quoted", [(-5.5, "-5.5"), (-3.0, "-3"), (-2, "-2")])
def test_a_bad_number_cell_is_quoted_as_written_not_as_numpy(value, quoted):
    # the sheet's numbers come as numpy floats: the message said "np.float64(-5.5)" (issue 23)
    rows = [["timestamp", "gpu_hours"], ["2027-01-01T00:00:00", value],
            ["2027-01-01T01:00:00", 3]]
    with pytest.raises(IngestError) as info:
        read_usage(xlsx({"usage": rows}), "neg.xlsx")
    assert info.value.problems[0]["message"] == (f"negative value {quoted}; expected a number "
                                                 ">= 0")


def test_empty_sheet():
    with pytest.raises(IngestError, match="the sheet is empty"):
        read_usage(xlsx({"usage": []}), "empty.xlsx")


def test_header_only_sheet():
    with pytest.raises(IngestError, match="has a header but no data rows") as info:
        read_usage(xlsx({"usage": [["timestamp", "gpu_hours"]]}), "h.xlsx")
    assert info.value.problems[0]["row"] == 1


def test_values_without_header():
    rows = [["timestamp", "gpu_hours", None], ["2027-01-01", 3, "stray"]]
    with pytest.raises(IngestError, match="column C has values but no header") as info:
        read_usage(xlsx({"usage": rows}), "n.xlsx")
    assert info.value.problems[0]["column"] == "C"


def test_repeated_header():
    rows = [["timestamp", "gpu_hours", "gpu_hours"], ["2027-01-01", 3, 4]]
    with pytest.raises(IngestError, match="repeats the header 'gpu_hours'"):
        read_usage(xlsx({"usage": rows}), "r.xlsx")


def test_row_limit_counted_before_reading():
    rows = ROWS + [["2027-01-01T02:00:00", 1]]
    with pytest.raises(IngestError, match="has 3 data rows; the limit is 2"):
        read_usage(xlsx({"usage": rows}), "rows.xlsx", Limits(max_rows=2))


def test_column_limit():
    rows = [["timestamp", "gpu_hours"] + [f"c{i}" for i in range(5)],
            ["2027-01-01", 1] + [1] * 5]
    with pytest.raises(IngestError, match="has 7 columns; the limit is 6"):
        read_usage(xlsx({"usage": rows}), "wide.xlsx", Limits(max_columns=6))


@pytest.mark.parametrize("name,match", [
    ("usage.xls", r"an Excel 97-2003 workbook \(.xls\)"),
    ("usage.xlsb", r"an Excel binary workbook \(.xlsb\)"),
    ("usage.xlsm", r"a macro-enabled Excel workbook \(.xlsm\)"),
    ("usage.ods", r"an OpenDocument spreadsheet \(.ods\)"),
])
def test_other_spreadsheet_formats_by_name(name, match):
    with pytest.raises(IngestError, match=match + r".*save it as \.xlsx") as info:
        read_usage(b"PK\x03\x04whatever", name)
    assert info.value.problems[0]["row"] is None


def zipped(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return out.getvalue()


@pytest.mark.parametrize("content,match", [
    (zipped({"mimetype": b"application/vnd.oasis.opendocument.spreadsheet",
             "content.xml": b"<a/>"}), "OpenDocument spreadsheet"),                # .ods renamed
    (zipped({"[Content_Types].xml": b"<Types/>", "xl/workbook.bin": b"\x00"}), "binary workbook"),
    (raw_xlsx(sheet_xml(ROWS), {"xl/vbaProject.bin": b"\x00"}), "macro-enabled"),  # .xlsm renamed
    (zipped({"hello.txt": b"hi"}), "a zip archive, not a workbook"),
])
def test_other_formats_renamed_to_xlsx_by_content(content, match):
    with pytest.raises(IngestError, match=match):
        read_usage(content, "renamed.xlsx")


OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504


def test_encrypted_workbook():
    encrypted = OLE + "EncryptionInfo".encode("utf-16-le") + b"\x00" * 100
    with pytest.raises(IngestError, match="password-protected"):
        read_usage(encrypted, "secret.xlsx")


def test_xls_content_named_xlsx():
    with pytest.raises(IngestError, match=r"Excel 97-2003 workbook \(.xls\)"):
        read_usage(OLE + b"Workbook".ljust(64, b"\x00"), "old.xlsx")


@pytest.mark.parametrize("content,name,match", [
    (csv_bytes("timestamp,gpu_hours", "2027-01-01,1"), "usage.xlsx",
     "named .xlsx but is text"),                                       # CSV renamed .xlsx
    (b"%PDF-1.7\n...", "usage.xlsx", "named .xlsx but is a PDF document"),
    (raw_xlsx(sheet_xml(ROWS)), "usage.csv", "named .csv but is a zip archive"),
    (b"\x89PNG\r\n\x1a\n" + b"\x00" * 20, "usage.csv", "is a PNG image"),
    (csv_bytes("timestamp,gpu_hours", "2027-01-01,1"), "usage.json", "unsupported file type"),
])
def test_file_not_what_its_extension_says(content, name, match):
    with pytest.raises(IngestError, match=match):
        read_usage(content, name)


def test_sample_workbook():
    result = read_usage((SAMPLES / "usage_sample.xlsx").read_bytes(), "usage_sample.xlsx")
    assert result.profile.period == "day"
    assert result.summary["periods"] == 90
    assert set(result.profile.teams) == {"serving", "research"}
    assert result.profile.has_workload
