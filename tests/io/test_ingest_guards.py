"""Hostile and mislabelled files: refused from metadata or bounded scans, before calamine."""
from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
import zipfile

import pytest

from service.ingest import IngestError, Limits, read_usage
from tests.support.ingest_fixtures import ROOT, SAMPLES, raw_xlsx, sheet_xml, zip_bomb

GOOD_ROWS = [["timestamp", "gpu_hours"], ["2027-01-01T00:00:00", 3], ["2027-01-01T01:00:00", 4]]


def test_minimal_raw_workbook_is_read():
    # the hand-built workbook the hostile variants start from is itself valid
    result = read_usage(raw_xlsx(sheet_xml(GOOD_ROWS)), "ok.xlsx")
    assert result.profile.gpu_hours == 7.0


def test_too_many_zip_entries():
    parts = {f"xl/media/image{i}.xml": "<a/>" for i in range(30)}
    with pytest.raises(IngestError, match=r"holds 35 parts; the limit is 20") as info:
        read_usage(raw_xlsx(sheet_xml(GOOD_ROWS), parts), "many.xlsx",
                   Limits(max_zip_entries=20))
    assert info.value.problems[0]["row"] is None


def test_declared_uncompressed_size_over_limit():
    padding = {"xl/big.xml": "<a>" + "x" * 3_000_000 + "</a>"}
    with pytest.raises(IngestError, match=r"unpacks to [\d,]+ bytes; the limit is 2,000,000"):
        read_usage(raw_xlsx(sheet_xml(GOOD_ROWS), padding), "big.xlsx",
                   Limits(max_unzipped_bytes=2_000_000, max_zip_ratio=1e9))


def test_compression_ratio_over_100():
    padding = {"xl/big.xml": "<a>" + " " * 5_000_000 + "</a>"}
    with pytest.raises(IngestError, match=r"'xl/big.xml' expands [\d,]+:1 \(limit 100:1\)"):
        read_usage(raw_xlsx(sheet_xml(GOOD_ROWS), padding), "ratio.xlsx")


@pytest.mark.parametrize("name", ["../evil.xml", "/etc/evil.xml", "xl/../../evil.xml",
                                  "C:/evil.xml"])
def test_unsafe_part_names(name):
    with pytest.raises(IngestError, match="unsafe part name") as info:
        read_usage(raw_xlsx(sheet_xml(GOOD_ROWS), {name: "<a/>"}), "names.xlsx")
    assert name in info.value.problems[0]["message"]


BILLION_LAUGHS = ('<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>')
EXTERNAL = '<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'


@pytest.mark.parametrize("prologue", [BILLION_LAUGHS, EXTERNAL])
def test_doctype_in_sheet_refused(prologue):
    # an XML bomb or external entity in the sheet part never reaches calamine
    with pytest.raises(IngestError, match="declares a DOCTYPE or ENTITY") as info:
        read_usage(raw_xlsx(sheet_xml(GOOD_ROWS, prologue=prologue)), "bomb.xlsx")
    assert "sheet1.xml" in info.value.problems[0]["message"]


def test_doctype_in_other_part_refused():
    styles = '<?xml version="1.0"?>\n' + EXTERNAL + "<styleSheet/>"
    with pytest.raises(IngestError, match=r"'xl/styles.xml' declares a DOCTYPE"):
        read_usage(raw_xlsx(sheet_xml(GOOD_ROWS), {"xl/styles.xml": styles}), "xxe.xlsx")


def test_doctype_in_workbook_part_refused():
    book = raw_xlsx(sheet_xml(GOOD_ROWS))
    archive = zipfile.ZipFile(io.BytesIO(book))
    workbook = archive.read("xl/workbook.xml").decode().replace("\n", "\n" + EXTERNAL, 1)
    with pytest.raises(IngestError, match="DOCTYPE"):
        read_usage(raw_xlsx(sheet_xml(GOOD_ROWS), {"xl/workbook.xml": workbook}), "wb.xlsx")


def test_formula_without_cached_value_named_by_cell():
    extra = {3: '<c r="C3"><f>SUM(B2:B3)</f></c>'}
    rows = [["timestamp", "gpu_hours"], ["2027-01-01T00:00:00", 3], ["2027-01-01T01:00:00", 4]]
    with pytest.raises(IngestError, match=r"cell C3 holds a formula with no saved value") as info:
        read_usage(raw_xlsx(sheet_xml(rows, extra_cells=extra)), "formula.xlsx")
    assert info.value.problems[0]["row"] == 3
    assert info.value.problems[0]["column"] == "C"


def test_formula_with_cached_value_is_read():
    rows = [["timestamp", "gpu_hours"], ["2027-01-01T00:00:00", 3]]
    extra = {1: '<c r="C1" t="inlineStr"><is><t>team</t></is></c>',
             2: '<c r="C2" t="str"><f>"a"&amp;"b"</f><v>ab</v></c>'}
    result = read_usage(raw_xlsx(sheet_xml(rows, extra_cells=extra)), "cached.xlsx")
    assert result.profile.teams == {"ab": 3.0}


def test_merged_cells_named_by_range():
    tail = '<mergeCells count="1"><mergeCell ref="A2:A3"/></mergeCells>'
    with pytest.raises(IngestError, match=r"merged cells A2:A3") as info:
        read_usage(raw_xlsx(sheet_xml(GOOD_ROWS, tail=tail)), "merged.xlsx")
    assert info.value.problems[0]["row"] == 2


def test_lying_declared_size_is_caught_while_streaming(tmp_path):
    path = tmp_path / "liar.xlsx"
    zip_bomb(path, sheet_bytes=20_000_000, declared=5_000)
    with pytest.raises(IngestError, match="corrupt or its sizes lie"):
        read_usage(path.read_bytes(), "liar.xlsx")


def test_broken_zip():
    with pytest.raises(IngestError, match="not a valid xlsx"):
        read_usage(b"PK\x03\x04" + b"\x00" * 100, "broken.xlsx")


CHILD = textwrap.dedent("""
    import json, resource, sys, time
    sys.path.insert(0, {root!r})
    from service.ingest import IngestError, load_usage
    start = time.perf_counter()
    try:
        load_usage(sys.argv[1])
        outcome = "read"
    except IngestError as exc:
        outcome = str(exc)
    print(json.dumps({{"seconds": time.perf_counter() - start, "outcome": outcome,
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
""")


def run_child(path) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD.format(root=str(ROOT)), str(path)],
                          capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout)


def test_zip_bomb_rejected_fast_with_bounded_memory(tmp_path):
    bomb = tmp_path / "bomb.xlsx"
    zip_bomb(bomb)   # ~1.3 MB holding a ~384 MB sheet
    assert 1_000_000 < bomb.stat().st_size < 1_600_000
    assert zipfile.ZipFile(bomb).getinfo("xl/worksheets/sheet1.xml").file_size > 380_000_000
    baseline = run_child(SAMPLES / "usage_sample.xlsx")
    assert baseline["outcome"] == "read"
    attack = run_child(bomb)
    assert "zip bomb" in attack["outcome"]
    assert attack["seconds"] < 3.0
    assert attack["peak_mb"] - baseline["peak_mb"] < 150


def far_cell_sheet(ref: str) -> str:
    head = sheet_xml(GOOD_ROWS)
    return head.replace("</sheetData>", f'<row r="{ref.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")}">'
                        f'<c r="{ref}"><v>1</v></c></row></sheetData>')


@pytest.mark.parametrize("ref,area", [
    ("XFD1048576", "1,048,576 rows x 16,384 columns"),   # would abort the process in calamine
    ("A9000000", "9,000,000 rows x 26 columns"),
    ("ZZZ300000", "300,000 rows x 18,278 columns"),
])
def test_far_cell_refused_before_calamine_allocates(ref, area):
    with pytest.raises(IngestError, match=f"the sheet spans {area} up to its farthest cell"):
        read_usage(raw_xlsx(far_cell_sheet(ref)), "sparse.xlsx")


def test_wide_but_small_sheet_passes_the_area_check():
    # a reference past Z triggers the exact computation, which lets a small sheet through
    with pytest.raises(IngestError, match="column AB has values but no header"):
        read_usage(raw_xlsx(far_cell_sheet("AB3")), "wide.xlsx")


def test_cell_count_limit():
    with pytest.raises(IngestError, match="the sheet holds 6 cells; the limit is 5"):
        read_usage(raw_xlsx(sheet_xml(GOOD_ROWS)), "cells.xlsx", Limits(max_cells=5))


def test_huge_count_attribute_refused():
    # calamine reserves memory from uniqueCount: 4e9 made it allocate 96 GB and abort
    sst = ('<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/'
           '2006/main" count="4000000000" uniqueCount="4000000000"><si><t>a</t></si></sst>')
    with pytest.raises(IngestError, match=r"'xl/sharedStrings.xml' declares a count of "
                                          r"4,000,000,000 \(limit 6,000,000\)"):
        read_usage(raw_xlsx(sheet_xml(GOOD_ROWS), {"xl/sharedStrings.xml": sst}), "sst.xlsx")
