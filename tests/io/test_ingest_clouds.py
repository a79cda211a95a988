"""Azure cost details (actual, amortized) and Google Cloud billing exports: GPU-hours, pricing,
commitments, idle reservations, currencies, and row/column errors."""
from __future__ import annotations

import csv
import io

import pytest
from numpy.testing import assert_allclose

from service.ingest import IngestError, read_usage
from tests.support.ingest_fixtures import SAMPLES, xlsx

RESERVATION = "/providers/Microsoft.Capacity/reservationOrders/7e3d/reservations/b2c3"


def read(name: str):
    return read_usage((SAMPLES / name).read_bytes(), name)


def edit(name: str, row: int, column: str, value: str, rows: int | None = None) -> bytes:
    """The sample with one cell changed (row 2 is the first data row)."""
    table = list(csv.reader(io.StringIO((SAMPLES / name).read_text())))
    table[row - 1][table[0].index(column)] = value
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(table[:rows])
    return out.getvalue().encode()


def test_azure_actual_cost():
    result = read("azure_cost_details_actual_sample.csv")
    s = result.summary
    assert s["format"] == "azure" and s["period"] == "day" and s["periods"] == 7
    assert s["cost_basis"] == "actual"
    # per day: 2 ND96isr H100 v5 on a reservation x 24 h x 8 GPUs; NC24ads A100 v4 24 h;
    # NV36ads A10 v5 2.4 units of "10 Hours"; NC4as T4 v3 spot 12 h
    assert s["pricing_categories"] == pytest.approx({"on_demand": 7 * 48.0,
                                                     "committed": 7 * 384.0, "spot": 7 * 12.0})
    assert s["commitments"] == {RESERVATION: 7 * 384.0}
    assert s["gpu_cost"]["EUR"] == {"on_demand": pytest.approx(7 * 81.10)}
    assert s["gpu_cost"]["USD"]["committed"] == 0.0           # actual cost: paid at purchase
    assert s["teams"] == pytest.approx({"llm": 2688.0, "vision": 336.0, "(no team)": 84.0})
    # licence meters, storage and the reservation purchase are skipped
    assert s["skipped_rows"] == 7 * 2 + 1
    assert_allclose(result.profile.interruptible, [12.0] * 7)


def test_azure_amortized_cost_and_unused_reservations():
    result = read("azure_cost_details_amortized_sample.csv")
    s = result.summary
    assert s["cost_basis"] == "amortized"
    assert s["pricing_categories"] == {"on_demand": 168.0, "committed": 2688.0, "spot": 0.0}
    assert s["idle_commitment_cost"] == {"USD": pytest.approx(7 * 350.0)}
    assert s["idle_commitments"][RESERVATION] == {"currency": "USD", "cost": 2450.0,
                                                 "gpu_hours": 7 * 48.0}
    assert s["gpu_cost"]["USD"]["committed"] == pytest.approx(7 * 2832.0)
    # EA tags come without braces: "team": "llm","env": "prod"
    assert s["teams"] == {"llm": 2688.0, "vision": 168.0}
    assert any("unused reservations" in w for w in result.warnings)


def test_azure_in_a_workbook():
    rows = list(csv.reader(io.StringIO(
        (SAMPLES / "azure_cost_details_amortized_sample.csv").read_text())))
    result = read_usage(xlsx({"Usage details": rows}), "azure.xlsx")
    assert result.summary["pricing_categories"]["committed"] == 2688.0


@pytest.mark.parametrize("column, value, message", [
    ("date", "31/05/2026", r"row 2, column 'date': cannot read '31/05/2026' as a date-time"),
    ("quantity", "-48", r"row 2, column 'quantity': expected a quantity >= 0, got '-48'"),
    ("quantity", "", r"row 2, column 'quantity': missing quantity"),
])
def test_azure_bad_cells_on_gpu_rows(column, value, message):
    data = edit("azure_cost_details_actual_sample.csv", 2, column, value)
    with pytest.raises(IngestError, match=message):
        read_usage(data, "azure.csv")


def test_azure_missing_column():
    text = (SAMPLES / "azure_cost_details_actual_sample.csv").read_text()
    text = text.replace(",unitOfMeasure,", ",unit,", 1)
    with pytest.raises(IngestError, match="Azure cost details export but lacks the columns "
                                          "unitOfMeasure"):
        read_usage(text.encode(), "azure.csv")


def test_gcp_billing_export():
    result = read("gcp_billing_export_sample.csv")
    s = result.summary
    assert s["format"] == "gcp" and s["period"] == "hour" and s["periods"] == 24
    assert s["pricing_categories"] == {"on_demand": 48.0, "committed": 384.0, "spot": 48.0}
    assert s["commitments"] == {"commitments/cud-h100-1y": 384.0}
    # cost net of the committed use discount credit: (156.74 - 19.20) x 24
    assert s["gpu_cost"]["USD"]["committed"] == pytest.approx(24 * (156.74 - 19.2))
    assert s["commitment_fees"] == {"USD": pytest.approx(24 * 45.0)}
    assert s["teams"] == {"llm": 384.0, "vision": 96.0}
    hourly = result.profile.steady + result.profile.interruptible
    assert_allclose(hourly, [22.0] * 12 + [18.0] * 12)


@pytest.mark.parametrize("column, value, message", [
    ("usage_start_time", "yesterday", r"row 2, column 'usage_start_time': cannot read "
                                      r"'yesterday'"),
    ("usage.amount", "a lot", r"row 2, column 'usage.amount': expected a quantity >= 0, got "
                              r"'a lot'"),
])
def test_gcp_bad_cells_on_gpu_rows(column, value, message):
    with pytest.raises(IngestError, match=message):
        read_usage(edit("gcp_billing_export_sample.csv", 2, column, value), "gcp.csv")


def test_gcp_missing_column():
    text = (SAMPLES / "gcp_billing_export_sample.csv").read_text().replace(
        ",usage.unit,", ",unit,", 1)
    with pytest.raises(IngestError, match="lacks the columns usage.unit"):
        read_usage(text.encode(), "gcp.csv")


def test_gcp_underscore_column_names():
    text = (SAMPLES / "gcp_billing_export_sample.csv").read_text()
    header, rest = text.split("\n", 1)
    assert read_usage((header.replace(".", "_") + "\n" + rest).encode(),
                      "gcp.csv").summary["gpu_hours"] == 480.0


def test_gcp_machine_type_only_in_labels_of_vcpu_rows_is_not_gpu_time():
    text = (SAMPLES / "gcp_billing_export_sample.csv").read_text()
    lines = [line for line in text.splitlines() if "GPU running" not in line]
    with pytest.raises(IngestError, match="no GPU instance usage found in this Google Cloud"):
        read_usage("\n".join(lines).encode(), "gcp.csv")


def test_gcp_credit_of_400_digits_is_read_as_an_unreadable_amount():
    # json.loads gives a Python int of 400 digits, which pandas.to_numeric could not convert
    # (OverflowError, a 500 before). It is infinite, so its row's cost is left out as any
    # unreadable cost is: 23 of the 24 committed rows, 23 x (156.74 - 19.20) = 3,163.42.
    text = (SAMPLES / "gcp_billing_export_sample.csv").read_text()
    bad = text.replace('""amount"": -19.2', '""amount"": -' + "9" * 400, 1)
    s = read_usage(bad.encode(), "gcp.csv").summary
    assert s["gpu_hours"] == 480.0
    assert s["gpu_cost"]["USD"]["committed"] == pytest.approx(23 * (156.74 - 19.2))
