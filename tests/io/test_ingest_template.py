"""The downloadable templates read back as valid usage, and the xlsx explains itself."""
from __future__ import annotations

import io

import openpyxl
from numpy.testing import assert_allclose

from service.ingest import read_usage
from service.ingest.template import HEADER, usage_template_csv, usage_template_xlsx


def test_csv_template_reads_back():
    data = usage_template_csv()
    assert data.decode().splitlines()[0] == ",".join(HEADER)
    result = read_usage(data, "template.csv")
    assert result.profile.period == "hour"
    assert_allclose(result.profile.interruptible, [64, 64, 0])
    assert result.warnings == []


def test_xlsx_template_reads_back_and_has_instructions():
    data = usage_template_xlsx()
    result = read_usage(data, "template.xlsx")
    assert_allclose(result.profile.steady, [24, 22.5, 21])
    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True)
    assert book.sheetnames == ["usage", "instructions"]
    text = " ".join(str(c) for row in book["instructions"].iter_rows(values_only=True)
                    for c in row if c)
    for column in HEADER + ["gpus", "interruptible"]:
        assert column in text
    book.close()


def test_templates_are_deterministic():
    assert usage_template_csv() == usage_template_csv()
    assert usage_template_xlsx() == usage_template_xlsx()
