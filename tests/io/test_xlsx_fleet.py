"""The Excel plan of a fleet of several server types (issue 26), without LibreOffice: each
type's rows on the Assumptions sheet, server cohorts that carry their type and read its rows
through formulas, per-type capacity and volume columns, the Schedule sheet's cells by type, and
a fleet ledger stored before cohorts had types refused. The recalculation against the engine is
in tests/system/test_xlsx_recalculation.py (FLEET_CASES)."""
from __future__ import annotations

import io
import json
import re

import openpyxl
import pytest

from models.ledger import Ledger
from service.xlsx.export import WorkbookUnavailable, plan_xlsx_bytes
from service.xlsx.strategy_sheet import FIRST, LINE_TITLES, TABLE_HEADER_ROW
from tests.support.xlsx_cases import case_plan, header_columns, plan_workbook

KEY_ROW = TABLE_HEADER_ROW - 1      # 1-based: the cohort columns' keys, two above the headers
PARAMS = ("Servers", "Bought (month index)", "Online from (month index)",
          "Leaves at start of (month index)", "Price per server", "Install per server")


@pytest.fixture(scope="module")
def fleet():
    plan = case_plan("fleet_three")
    data = plan_workbook(plan)
    return plan, openpyxl.load_workbook(io.BytesIO(data))


def server_cohorts(ws):
    """(label, what, {parameter header: cell}) of each row of the server cohort table."""
    title = next(r for r in range(FIRST, ws.max_row + 1)
                 if str(ws.cell(r, 1).value or "").startswith("Server cohorts"))
    head = {ws.cell(title + 1, c).value: c for c in range(1, 20) if ws.cell(title + 1, c).value}
    rows = []
    r = title + 2
    while str(ws.cell(r, 1).value or "").startswith("S"):
        rows.append((ws.cell(r, 1).value, ws.cell(r, 2).value,
                     {h: ws.cell(r, c) for h, c in head.items()}))
        r += 1
    return rows


def test_each_type_has_derived_rows_reading_its_overrides(fleet):
    plan, wb = fleet
    names = set(wb.defined_names.keys()) if hasattr(wb.defined_names, "keys") else {
        d.name for d in wb.defined_names.definedName}
    for i, kind in enumerate(plan.scenario.server_types, start=1):
        for field in ("server_price", "useful_life_months", "power_kw_idle",
                      "maintenance_fraction_annual", "electricity_price_per_kwh"):
            assert f"calc_type_{i}_{field}" in names
    ws = wb["Assumptions"]
    formulas = {ws.cell(r, 7).value: ws.cell(r, 3).value for r in range(1, ws.max_row + 1)}
    assert formulas["calc_type_2_server_price"] == (
        "=IF(ISBLANK(server_types_2_server_price),owned_server_price,"
        "server_types_2_server_price)")
    assert formulas["calc_fx_type_2"].startswith("=IF(ISBLANK(server_types_2_currency)")


@pytest.mark.parametrize("strategy", ["staged", "proposed", "optimal", "cloud_only"])
def test_server_cohorts_carry_their_type_and_read_its_rows(fleet, strategy):
    plan, wb = fleet
    ws = wb[strategy]
    ids = [t.id for t in plan.scenario.server_types]
    cohorts = server_cohorts(ws)
    assert len(cohorts) == len(plan.ledger.strategies[strategy].cohorts
                               and [c for c in plan.ledger.strategies[strategy].cohorts
                                    if c.kind == "server"])
    for label, what, cells in cohorts:
        kind = next(t for t in ids if str(what).startswith(t))    # "b200 bought in 2027-07"
        i = ids.index(kind) + 1
        price = cells["Price per server"]
        assert price.data_type == "f", (label, price.value)       # a formula, not a constant
        assert (f"calc_type_{i}_server_price" in price.value
                or re.search(r"position_servers_\d+_price", price.value)), price.value
        assert f"calc_type_{i}_" in cells["Online from (month index)"].value or \
            cells["Online from (month index)"].data_type == "n"
        assert cells["Resale fraction at sale"].data_type == "f"
    # every monthly column of a cohort reads its type: maintenance, depreciation, exchange rate
    keys = {ws.cell(KEY_ROW, c).value: c for c in range(1, ws.max_column + 1)}
    typed = [k for k in keys if str(k).startswith("online:")]
    assert {k.split(":")[1] for k in typed} <= set(ids) and typed
    maint = [ws.cell(FIRST + 1, c).value for c in range(1, ws.max_column + 1)
             if ws.cell(KEY_ROW, c).value == "maint"]
    assert maint and all(re.search(r"calc_type_\d_maintenance_fraction_annual", f)
                         for f in maint)


def test_energy_space_and_staff_add_every_type(fleet):
    plan, wb = fleet
    ws = wb["staged"]
    cols = header_columns(ws)
    n = len(plan.scenario.server_types)
    for line in ("energy", "space", "staff"):
        formula = ws.cell(FIRST + 1, cols[LINE_TITLES[line]]).value
        for i in range(1, n + 1):
            assert f"calc_type_{i}_" in formula, (line, formula)
    for kind in plan.scenario.server_types:
        assert f"Servers online, {kind.id}" in cols
        assert f"Owned {kind.id} [GPU-h of the type]" in cols


def test_schedule_sheet_has_buy_cells_by_type_that_cohorts_read(fleet):
    plan, wb = fleet
    ws = wb["Schedule"]
    heads = [ws.cell(6, c).value for c in range(1, ws.max_column + 1)]
    for kind in plan.scenario.server_types:
        assert f"Buy {kind.id} [servers]" in heads
    staged = wb["staged"]
    counts = [cells["Servers"].value for _, _, cells in server_cohorts(staged)
              if cells["Servers"].data_type == "f"]
    assert any("Schedule" in str(f) for f in counts)    # a purchase's count is a Schedule cell


def test_a_fleet_ledger_stored_without_cohort_types_is_refused():
    """A fleet plan stored before the cohorts carried their types would price every server as
    the owned section's type: no workbook, and the reason said."""
    plan = case_plan("generations")
    data = json.loads(json.dumps(plan.ledger.to_dict()))
    for sl in data["strategies"].values():
        sl.pop("owned_h_by_type")
        for c in sl["cohorts"]:
            c.pop("type")
    with pytest.raises(WorkbookUnavailable, match="compute the plan again"):
        plan_xlsx_bytes(plan.document, Ledger.from_dict(data))
    assert plan_xlsx_bytes(plan.document, plan.ledger)[:2] == b"PK"   # as computed: written
