"""Defined names of the plan workbook (issue 13): made from a scenario field path by one helper
that checks the path and the name; every name the sample workbooks define comes from it."""
from __future__ import annotations

import io

import openpyxl
import pytest
import xlsxwriter

from tests.support.plans import compute_plan
from models.ranges import RANGES
from service.xlsx.assumptions import HEADERS, PATH_COL, derived_rows
from service.xlsx.names import BadName, define, defined_name, excel_name, list_name, resolve
from tests.support.xlsx_cases import case, daily_profile
from tests.support.xlsx_cases import plan_workbook


@pytest.mark.parametrize("path, name", [
    ("owned.pue", "owned_pue"),
    ("name", "scenario_name"),
    ("commitments[1].discount", "commitments_1_discount"),
    ("owned.resale_fraction_by_year[2]", "owned_resale_fraction_by_year_2"),
    ("owned.financing.apr", "owned_financing_apr"),
    ("owned.financing.kind", "owned_financing_kind"),
    ("position.servers[1].count", "position_servers_1_count"),
    ("position.commitments[2].gpus", "position_commitments_2_gpus"),
    ("proposed.committed_gpus[3y-all]", "proposed_committed_gpus_3y_all"),
    ("proposed.schedule[1].buy_servers", "proposed_schedule_1_buy_servers"),
    ("proposed.schedule[2].commit[1y]", "proposed_schedule_2_commit_1y"),
    ("proposed.schedule[1].sell_from[2026-06]", "proposed_schedule_1_sell_from_2026_06"),
    ("uncertainty.draws", "uncertainty_draws"),
    ("uncertainty.ranges[owned.pue].low", "uncertainty_ranges_owned_pue_low"),
    ("uncertainty.ranges[commitments[*].discount].high",
     "uncertainty_ranges_commitments_all_discount_high"),
    ("fx.rate", "fx_rate"),
])
def test_a_path_of_a_scenario_value_gives_its_name(path, name):
    assert defined_name(path) == name


@pytest.mark.parametrize("path, why", [
    ("owned.pue_typo", "'pue_typo' is not a field here"),
    ("owned", "names a section or a table"),
    ("commitments", "names a section or a table"),
    ("owned.pue.low", "'low' is not a field here"),
    ("commitments[0].discount", "numbered from 1"),
    ("commitments[x].discount", "numbered from 1"),
    ("owned.pue[1]", "neither a list nor a mapping"),
    ("Owned.pue", "'Owned' is not a field here"),
    ("owned..pue", "'' is not a field here"),
    ("uncertainty.server_price_low", "'server_price_low' is not a field here"),
    ("uncertainty.ranges[owned.pue_typo].low", "no uncertainty range has this path"),
    ("uncertainty.ranges[owned.pue].distribution", "no uncertainty range has this path"),
    ("uncertainty.ranges", "names a section or a table"),
])
def test_a_path_of_no_scenario_value_is_refused(path, why):
    with pytest.raises(BadName, match=why.replace("[", r"\[").replace(".", r"\.")):
        defined_name(path)


@pytest.mark.parametrize("name", ["fx1", "A1", "XFD1048576", "pue2", "R", "c", "R1C1", "rc",
                                  "R12", "C3", "1y", "a b", "owned-pue", "", "x" * 256])
def test_names_excel_would_not_take_are_refused(name):
    with pytest.raises(BadName):
        excel_name(name)


def test_longest_name_and_ordinary_names_pass():
    for name in ("x" * 255, "owned_pue", "calc_vat", "fx_rate", "_x", "FXA1B"):
        assert excel_name(name) == name


def test_list_name_needs_a_list():
    assert list_name("owned.resale_fraction_by_year") == "owned_resale_fraction_by_year"
    with pytest.raises(BadName, match="not a list"):
        list_name("owned.pue")


def test_every_range_end_resolves():
    for spec in RANGES:
        for end in ("low", "high") + (("distribution",) if spec.distribution else ()):
            path = f"uncertainty.ranges[{spec.path}].{end}"
            assert resolve(path).title.endswith(end)
            assert excel_name(defined_name(path))


def test_a_name_is_defined_once(tmp_path):
    workbook = xlsxwriter.Workbook(str(tmp_path / "x.xlsx"))
    workbook.add_worksheet("S")
    seen: set[str] = set()
    define(workbook, "owned_pue", "=S!$A$1", seen)
    with pytest.raises(BadName, match="defined twice"):
        define(workbook, "OWNED_PUE", "=S!$A$2", seen)
    with pytest.raises(BadName, match="cell reference"):
        define(workbook, "fx1", "=S!$A$3", seen)
    workbook.close()


# the samples, a loan, a position and proposed schedules (with sales), two currencies
WORKBOOKS = ("h100", "growth", "seoul", "loan_tax_replacement", "schedule_loan_tax",
             "schedule_sales", "fx_cloud_schedule")


@pytest.mark.parametrize("name", WORKBOOKS)
def test_every_defined_name_of_a_workbook_comes_from_the_helper(name):
    scenario, _profile = case(name)
    scenario = scenario.with_changes(uncertainty={"draws": 0})   # names do not depend on it
    plan = compute_plan(scenario, daily_profile())
    wb = openpyxl.load_workbook(io.BytesIO(plan_workbook(plan)))
    ws = wb[wb.sheetnames[1]]
    assert [c.value for c in ws[3]][:len(HEADERS)] == list(HEADERS)
    paths = [row[PATH_COL] for row in ws.iter_rows(min_row=4, values_only=True)
             if row[PATH_COL]]
    expected = {defined_name(p) for p in paths} | {list_name("owned.resale_fraction_by_year")}
    derived = {row[0] for row in derived_rows(scenario.as_fleet(), plan.ledger.calc)}
    names = set(wb.defined_names)
    assert names == expected | derived
    assert {excel_name(n) for n in names} == names
    assert {p for p in paths if p.startswith("uncertainty.ranges[")} == {
        f"uncertainty.ranges[{spec.path}].{end}" for spec in RANGES
        for end in ("low", "high") + (("distribution",) if spec.distribution else ())}
    if scenario.proposed.schedule:
        assert "proposed_schedule_1_buy_servers" in names
    if scenario.position.servers:
        assert "position_servers_1_count" in names
