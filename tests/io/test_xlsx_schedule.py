"""The workbook of a plan whose capacity varies by month (issue 14): the Schedule sheet, the
cohort tables, the staged Monte Carlo on the Sensitivity sheet and the round trip.

The LibreOffice recalculation of these workbooks (every formula equal to the engine to 1e-9,
and a Schedule edit against the engine) is in tests/system/test_xlsx_recalculation.py with the
other cases, their printing in tests/system/test_xlsx_print.py.
"""
from __future__ import annotations

import io

import openpyxl
import pytest

from service.xlsx.server_sources import SERVERS_NOTE
from service.xlsx.schedule_sheet import HEADER_ROW
from service.i18n.labels import strategy_label
from service.xlsx.strategy_sheet import TABLE_HEADER_ROW
from service.xlsx.summary import TABLE_ROW
from service.xlsx.roundtrip import scenario_from_xlsx
from tests.support.xlsx_cases import case_plan, growth_workbook
from tests.support.xlsx_cases import plan_workbook

YELLOW = "FFFFF2CC"


@pytest.fixture(scope="module")
def growth():
    return growth_workbook()


def cells(ws):
    return {c.coordinate: c for row in ws.iter_rows() for c in row if c.value is not None}


def test_schedule_sheet_lists_every_decision_point_as_input_cells(growth):
    plan, _, wb = growth
    ws = wb["Schedule"]
    staged = plan.strategies["staged"]
    rows = [[c for c in row] for row in ws.iter_rows(min_row=HEADER_ROW + 2)
            if row[0].value]
    months = [row[0].value for row in rows]
    assert months == sorted(months) and len(months) == 20      # quarterly over 60 months
    decided = {d.month: d for d in staged.schedule}
    assert set(decided) <= set(months)
    offers = [o.id for o in plan.scenario.commitments]
    by_type = 4 + len(offers)           # the one type's (`owned`) buy column; C adds the types
    for row in rows:
        d = decided.get(row[0].value)
        assert row[by_type].value == (d.buy.get("owned", 0) + d.buy_servers if d else 0)
        assert row[2].value == f"=SUM({row[by_type].coordinate})"
        assert [row[4 + k].value for k in range(len(offers))] == [
            (d.commit.get(o, 0) if d else 0) for o in offers]
        for c in (row[0], row[by_type], *row[4:4 + len(offers)]):
            assert c.fill.fgColor.rgb == YELLOW, c.coordinate       # inputs
        assert row[1].data_type == "f"                              # month index
    assert ws.page_setup.orientation == "landscape"
    assert "&A, page &P of &N" in ws.oddFooter.right.text


def test_staged_cohorts_read_the_schedule_and_proposed_cohorts_the_assumptions(growth):
    plan, _, wb = growth
    staged = cells(wb["staged"])
    counts = [c.value for c in staged.values() if isinstance(c.value, str)
              and c.value.startswith("='Schedule'!$G$")]
    assert len(counts) == 20              # a server cohort per row, reading its type's cell
    commits = [c.value for c in staged.values() if isinstance(c.value, str)
               and c.value.startswith("='Schedule'!$") and c.value[13] in "EF"]
    assert len(commits) == 40                                   # per row and offer
    proposed = cells(wb["proposed"])
    refs = {c.value for c in proposed.values() if isinstance(c.value, str)}
    assert {"=proposed_schedule_1_buy_servers", "=proposed_schedule_3_buy_servers",
            "=proposed_schedule_2_commit_1y", "=position_servers_1_count",
            "=position_commitments_1_gpus"} <= refs
    # servers online is a formula over the static chain and the cohorts in every sheet
    for name in plan.strategies:
        ws = wb[name]
        heads = {ws.cell(TABLE_HEADER_ROW + 1, c).value: c for c in range(1, ws.max_column + 1)}
        assert ws.cell(TABLE_HEADER_ROW + 2, heads["Servers online"]).data_type == "f"
        assert ws.cell(TABLE_HEADER_ROW + 2, heads["All cohorts: capex"]).data_type == "f"


def test_a_schedule_that_sells_keeps_the_engines_server_cohorts_and_says_so():
    plan = case_plan("schedule_sales")
    wb = openpyxl.load_workbook(io.BytesIO(plan_workbook(plan)))
    ws = wb["proposed"]
    assert ws["A2"].value == SERVERS_NOTE
    table = next(c.row for c in ws["A"] if c.value == "Cohort")
    kinds = [ws.cell(table + 1 + i, 3).data_type for i in range(len(plan.strategies[
        "proposed"].plan.servers))]
    assert kinds and set(kinds) == {"n"}                        # counts are the engine's


def test_sensitivity_sheet_has_the_staged_schedule_held_fixed(growth):
    plan, _, wb = growth
    ws = wb["Sensitivity"]
    labels = {c.value: ws.cell(c.row, 3).value for c in ws["A"] if c.value}
    staged = plan.uncertainty.staged
    assert "Staged schedule held fixed (against Cloud only (best mix))" in labels   # words
    assert labels["Probability it beats the best static plan"] == pytest.approx(
        staged["probability_beats_best_static"])
    column = [ws.cell(c.row, 3).value for c in ws["A"]]
    assert any(v == pytest.approx(staged["saving_p90"], rel=1e-15) for v in column
               if isinstance(v, float))


def test_summary_reads_every_sheet(growth):
    plan, _, wb = growth
    ws = wb["Summary"]
    first = TABLE_ROW + 2        # 1-based: the row under the header
    names = [ws.cell(first + i, 1).value for i in range(len(plan.strategies))]
    assert names == [strategy_label(name) for name in plan.strategies]   # words, not keys
    for i, name in enumerate(plan.strategies):
        assert ws.cell(first + i, 5).value == f"='{name}'!$B$6"
    texts = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    assert not any("without a formula sheet" in t for t in texts)


def test_round_trip_reads_the_scenario_back(growth):
    plan, data, _ = growth
    assert scenario_from_xlsx(data) == plan.scenario


def test_summary_cash_by_year_has_every_year_of_every_roll_up(growth):
    # the growth plan's contracts pay after the horizon on some sheets only (cloud_only,
    # staged): the Summary's cash by year still has that column, 0 for the others
    plan, _, wb = growth
    ws = wb["Summary"]
    head = next(r for r in ws.iter_rows() if r[0].value == "Strategy" and r[2].value == "2027")
    titles = [c.value for c in head[2:] if c.value]
    assert titles == ["2027", "2028", "2029", "2030", "2031", "after the horizon", "Total"]
    rows = {r[0].value: r for r in ws.iter_rows(min_row=head[0].row + 1,
                                                max_row=head[0].row + len(plan.strategies))}
    assert rows["Cloud only (best mix)"][7].value == "='cloud_only'!$G$39"
    assert rows["All on demand"][7].value == 0
