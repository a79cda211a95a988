"""Restoring a scenario from a plan workbook or its Assumptions sheet (issue 5, design 6)."""
from __future__ import annotations

import functools
import io
import math
import zipfile

import openpyxl
import pytest

from tests.support.plans import compute_plan
from models.scenario import Scenario
from service.xlsx.roundtrip import WorkbookError, scenario_from_xlsx
from tests.support.xlsx_cases import (CASES, FLEET_CASES, LOAN_TAX_REPLACEMENT, SAMPLES, case,
                                      flat_monthly, plan_workbook, sample_scenario)

INJECTIONS = ('=HYPERLINK("http://x","y")', "@SUM(A1)", "+cmd|' /C calc'!A0", "-2+3",
              "\t=1+1", "\r=1+1")
PROFILE = flat_monthly(6)


def workbook_of(scenario: Scenario) -> bytes:
    return _workbook(scenario.model_dump_json())


@functools.lru_cache(maxsize=None)
def _workbook(scenario_json: str) -> bytes:
    return plan_workbook(compute_plan(Scenario.model_validate_json(scenario_json), PROFILE))


def edit(data: bytes, changes: dict[str, object], keep_only_assumptions: bool = False) -> bytes:
    wb = openpyxl.load_workbook(io.BytesIO(data))
    ws = wb["Assumptions"]
    for row in ws.iter_rows():
        if row[0].value in changes:
            row[2].value = changes[row[0].value]
    if keep_only_assumptions:
        for name in list(wb.sheetnames):
            if name != "Assumptions":
                del wb[name]
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


# Every sample, the fleet of server types too (issue 26: its workbook is written).
ALL_SAMPLES = sorted(SAMPLES.glob("scenario_*.json"))


@pytest.mark.parametrize("path", ALL_SAMPLES, ids=lambda p: p.stem)
def test_identity_for_every_sample_scenario(path):
    scenario = sample_scenario(path.name)
    assert scenario_from_xlsx(workbook_of(scenario)) == scenario


@pytest.mark.parametrize("name", CASES + FLEET_CASES)
def test_identity_for_every_test_case(name):
    scenario, profile = case(name)
    assert scenario_from_xlsx(plan_workbook(compute_plan(scenario, profile))) == scenario


def test_identity_for_the_default_and_odd_scenarios():
    for scenario in (Scenario(), Scenario(commitments=[]),
                     Scenario.model_validate({**LOAN_TAX_REPLACEMENT,
                                              "finance": {"start_month": "2030-07"}}),
                     Scenario(spot={"price_per_gpu_hour": 0.0},
                              profile={"interruptible_share": 0.25},
                              cloud_terms={"prices_include_vat": True, "vat_rate": 0.19})):
        assert scenario_from_xlsx(workbook_of(scenario)) == scenario


def test_floats_that_need_17_digits_survive():
    rate = -math.log(1 - 0.2) / 730   # a Spot Advisor bucket converted (design 4.2)
    scenario = Scenario(spot={"interruptions_per_instance_hour": rate},
                        owned={"pue": 0.1 + 0.2 + 1.0, "electricity_price_per_kwh": 1 / 3})
    assert float(f"{rate:.16G}") != rate or float(f"{1 / 3:.16G}") != 1 / 3
    assert scenario_from_xlsx(workbook_of(scenario)) == scenario
    edited = scenario_from_xlsx(edit(workbook_of(scenario), {"owned.pue": 1.25}))
    assert edited.owned.pue == 1.25 and edited.spot.interruptions_per_instance_hour == rate


@pytest.mark.parametrize("text", INJECTIONS)
def test_injected_text_stays_text_after_a_round_trip(text):
    scenario = Scenario(name=text)
    data = workbook_of(scenario)
    assert scenario_from_xlsx(data).name == text
    wb = openpyxl.load_workbook(io.BytesIO(data))
    for sheet, cell in (("Summary", "B2"), ("Assumptions", "C5")):
        assert wb[sheet][cell].data_type == "s"


def test_a_changed_cell_shows_in_the_restored_scenario():
    scenario = sample_scenario("scenario_h100.json")
    data = edit(workbook_of(scenario), {
        "owned.pue": 1.45, "owned.resale_fraction_by_year[2]": 0.4, "commitments[2].discount": 0.5,
        "owned.financing.kind": "loan", "finance.start_month": "2028-01",
        "proposed.committed_gpus[1y]": 24, "name": "Edited in Excel"})
    restored = scenario_from_xlsx(data)
    assert restored.owned.pue == 1.45
    assert restored.owned.resale_fraction_by_year == (0.65, 0.4, 0.30, 0.20, 0.10)
    assert restored.commitments[1].discount == 0.5
    assert restored.owned.financing.kind == "loan" and restored.owned.financing.apr == 0.08
    assert restored.finance.start_month == "2028-01"
    assert restored.proposed.committed_gpus == {"1y": 24}
    assert restored.name == "Edited in Excel"
    unchanged = restored.model_dump(exclude={"owned", "commitments", "finance", "proposed", "name"})
    assert unchanged == scenario.model_dump(exclude={"owned", "commitments", "finance",
                                                     "proposed", "name"})


def test_just_the_assumptions_sheet_restores_the_scenario():
    scenario = Scenario.model_validate(LOAN_TAX_REPLACEMENT)
    data = edit(workbook_of(scenario), {"owned.pue": 1.2}, keep_only_assumptions=True)
    assert openpyxl.load_workbook(io.BytesIO(data)).sheetnames == ["Assumptions"]
    assert scenario_from_xlsx(data) == scenario.with_changes(owned={"pue": 1.2})


def test_a_blank_optional_cell_is_none():
    scenario = Scenario(spot={"price_per_gpu_hour": 2.0})
    data = edit(workbook_of(scenario), {"spot.price_per_gpu_hour": None})
    assert scenario_from_xlsx(data).spot.price_per_gpu_hour is None


def foreign_workbook() -> bytes:
    wb = openpyxl.Workbook()
    wb.active.append(["Date", "Revenue"])
    wb.active.append(["2026-01", 100])
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def zip_of(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, content in members.items():
            z.writestr(name, content)
    return out.getvalue()


def entity_bomb() -> bytes:
    """A plan workbook whose Assumptions sheet XML declares nested entities."""
    good = workbook_of(Scenario())
    src = zipfile.ZipFile(io.BytesIO(good))
    members = {n: src.read(n) for n in src.namelist()}
    sheet = "xl/worksheets/sheet2.xml"
    bomb = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
            b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>')
    members[sheet] = bomb + members[sheet].split(b"?>", 1)[1]
    return zip_of(members)


@pytest.mark.parametrize("data, message", [
    (b"", "empty"),                                                      # nothing uploaded
    (b"timestamp,gpu_hours\n2026-01,5\n", "not an .xlsx"),              # a CSV renamed
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 100, "encrypted"),   # OLE: encrypted / .xls
    (zip_of({"hello.txt": b"hi"}), "not an .xlsx workbook"),            # some other zip
    (foreign_workbook(), "not a buyrent plan"),                          # someone else's sheet
    (workbook_of(Scenario())[:5000], "not an .xlsx|cannot be read"),     # truncated download
    (entity_bomb(), "cannot be read"),                                   # XML entity expansion
])
def test_broken_or_foreign_workbooks_get_a_clear_message(data, message):
    with pytest.raises(WorkbookError, match=message):
        scenario_from_xlsx(data)


@pytest.mark.parametrize("changes, message", [
    ({"owned.pue": 0.5}, r"Assumptions!C\d+ \(owned.pue\): Input should be greater than or"),
    ({"finance.horizon_months": "sixty"}, r"\(finance.horizon_months\): Input should be a valid"),
    ({"commitments[1].payment": "weekly"}, r"\(commitments\[1\].payment\)"),
    ({"owned.financing.kind": "lease"}, r"financing"),
    ({"finance.start_month": "2027-13"}, r"\(finance.start_month\): String should match"),
])
def test_invalid_values_name_the_cell(changes, message):
    data = edit(workbook_of(Scenario()), changes)
    with pytest.raises(WorkbookError, match=message):
        scenario_from_xlsx(data)


@pytest.mark.parametrize("row, message", [
    (["owned.turbo_mode", "Turbo", 1], r"\(owned.turbo_mode\): Extra inputs are not permitted"),
    (["owned..pue", "Typo", 1], r"Assumptions!A\d+: 'owned..pue' is not a scenario field path"),
])
def test_unknown_rows_are_refused(row, message):
    wb = openpyxl.load_workbook(io.BytesIO(workbook_of(Scenario())))
    wb["Assumptions"].append(row)
    out = io.BytesIO()
    wb.save(out)
    with pytest.raises(WorkbookError, match=message):
        scenario_from_xlsx(out.getvalue())


def test_defusedxml_is_active():
    assert openpyxl.DEFUSEDXML is True


def test_two_currency_scenario_comes_back_from_the_workbook(tmp_path):
    # the currencies and the exchange rate are Assumptions rows like any other field
    from tests.support.plans import compute_plan
    from service.xlsx.export import write_plan_xlsx
    from tests.support.xlsx_cases import case
    scenario, profile = case("fx_cloud_schedule")
    path = tmp_path / "fx.xlsx"
    write_plan_xlsx(compute_plan(scenario, profile), path)
    back = scenario_from_xlsx(path.read_bytes())
    assert back == scenario
    assert back.cloud_terms.currency == "USD" and back.fx.rate == 1400
    # the price ties on the Summary sheet say which market's currency they are in (in words)
    labels = {str(c.value) for row in openpyxl.load_workbook(path, read_only=True)["Summary"]
              .iter_rows(max_col=1) for c in row if c.value}
    assert "on-demand price at which buying ties [USD]" in labels
    assert f"server price at which buying ties [{scenario.finance.currency}]" in labels


# --- uncertainty ranges by path (issue 13) ---------------------------------------------------

def test_range_rows_are_read_back_by_path():
    scenario = Scenario.model_validate({"uncertainty": {"draws": 0, "ranges": {
        "owned.server_price": {"low": -0.3, "distribution": "lognormal"},
        "commitments[*].discount": {"high": 0.08}}}})
    data = workbook_of(scenario)
    assert scenario_from_xlsx(data) == scenario
    edited = scenario_from_xlsx(edit(data, {"uncertainty.ranges[owned.pue].high": 0.5,
                                            "uncertainty.ranges[fx.rate].distribution":
                                                "triangular"}))
    assert edited.uncertainty.ranges["owned.pue"].high == 0.5
    assert edited.uncertainty.ranges["fx.rate"].shape == "triangular"
    assert edited.uncertainty.ranges["owned.server_price"].low == -0.3


def test_a_range_end_out_of_bounds_names_its_cell():
    data = edit(workbook_of(Scenario.model_validate({"uncertainty": {"draws": 0}})),
                {"uncertainty.ranges[owned.pue].low": 0.2})
    with pytest.raises(WorkbookError, match=r"Assumptions!C\d+ \(uncertainty\.ranges\[owned\.pue\]"
                                            r"\.low\): Input should be less than or equal to 0"):
        scenario_from_xlsx(data)


def test_a_workbook_with_the_flat_range_rows_of_before_still_loads():
    # workbooks exported before the ranges mapping: one row per flat key
    data = workbook_of(Scenario.model_validate({"uncertainty": {"draws": 0}}))
    wb = openpyxl.load_workbook(io.BytesIO(data))
    ws = wb["Assumptions"]
    renamed = {"uncertainty.ranges[owned.server_price].low": ("uncertainty.server_price_low",
                                                              -0.25),
               "uncertainty.ranges[spot.discount].high": ("uncertainty.spot_discount_high", 0.2)}
    for row in ws.iter_rows():
        if row[0].value in renamed:
            row[0].value, row[2].value = renamed[row[0].value]
    out = io.BytesIO()
    wb.save(out)
    restored = scenario_from_xlsx(out.getvalue())
    assert restored.uncertainty.ranges["owned.server_price"].low == -0.25
    assert restored.uncertainty.ranges["spot.discount"].high == 0.2
    assert restored.uncertainty.ranges["owned.server_price"].high == 0.06


def test_an_unknown_range_path_in_a_workbook_is_refused_with_the_known_ones():
    data = edit(workbook_of(Scenario.model_validate({"uncertainty": {"draws": 0}})), {})
    wb = openpyxl.load_workbook(io.BytesIO(data))
    for row in wb["Assumptions"].iter_rows():
        if row[0].value == "uncertainty.ranges[owned.pue].low":
            row[0].value = "uncertainty.ranges[owned.pue_typo].low"
    out = io.BytesIO()
    wb.save(out)
    with pytest.raises(WorkbookError, match=r"unknown range path 'owned\.pue_typo'; the paths "
                                            r"that have a range are on_demand\.price_per_gpu"):
        scenario_from_xlsx(out.getvalue())
