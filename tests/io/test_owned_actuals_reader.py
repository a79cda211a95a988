"""The owned fleet's actuals file (service/owned_actuals.py, issue 43): recognised by its header,
the template read back, every refusal by row and column and in Korean (no English left), and
GPU busy time from DCGM and nvidia-smi files added to the months by hand."""
from __future__ import annotations

import pytest

from models.owned_actuals import Fleet, fleet_of
from service.actuals import read_bill_data
from service.i18n.ingest_refusals import refusal
from service.ingest.core import IngestError
from service.owned_actuals import (COLUMNS, is_busy_time, is_owned_actuals, read_owned,
                                   template_csv)
from tests.support.paths import SAMPLES

FLEET = Fleet("2027-01", 0.1, 0.0, {"h100": 8.0, "b200": 8.0},
              held=({"type": "h100", "count": 2, "purchased": "2025-03", "price": 330000.0},))
HEAD = ",".join(COLUMNS)


def refused(text: str) -> IngestError:
    with pytest.raises(IngestError) as caught:
        read_owned("owned.csv", text.encode(), FLEET)
    return caught.value


def test_recognised_by_header_and_the_template_reads():
    assert is_owned_actuals(template_csv())
    assert is_owned_actuals(b"\xef\xbb\xbfMonth;Servers Online\n")     # BOM, ';', any case
    for name in ("focus_1.3_sample.csv", "usage_hourly.csv", "dcgm_busy_sample.csv"):
        assert not is_owned_actuals((SAMPLES / name).read_bytes()[:4096]), name
    assert is_busy_time((SAMPLES / "dcgm_busy_sample.csv").read_bytes())
    assert is_busy_time((SAMPLES / "nvidia_smi_sample.csv").read_bytes())
    assert not is_busy_time(template_csv())
    rows = read_owned("template.csv", template_csv(), Fleet("2027-01", 0.1, 0.0, {"server": 8}))
    assert [(r.month, r.servers_online, r.purchased, r.delivered) for r in rows] == [
        ("2027-01", 7, 7, "2027-01"), ("2027-02", 7, 0, None)]
    assert rows[0].energy_kwh == 52000 and rows[1].energy_cost == 4900


CASES = [  # (rows, row, column, English, Korean)
    ("2027-1,h100,1", 2, "month", "2027-1 is not a month written YYYY-MM",
     "2027-1: YYYY-MM 형식의 월이 아닙니다"),
    ("2027-01,a100,1", 2, "server_type", "a100 is not a server type of the plan; its types "
     "are h100, b200", "a100: 계획의 서버 유형이 아닙니다"),
    ("2027-01,h100,", 2, "servers_online", "an empty cell; write the servers online, 0 for "
     "none", "빈 셀입니다"),
    ("2027-01,h100,-1", 2, "servers_online", "-1 is not a number from 0 to 1e+13",
     "-1: 0부터 1e+13까지의 숫자가 아닙니다"),
    ("2027-01,h100,1,,5,6", 2, "energy_cost", "energy is given both in kWh and as a cost",
     "전력이 kWh와 비용으로 모두"),
    ("2027-01,h100,1,,,,,,,1.5,1,2027-01", 2, "purchased", "1.5 is not a whole number of "
     "servers", "1.5: 서버 수는 정수여야 합니다"),
    ("2027-01,h100,1,,,,,,,1,,2027-01", 2, "purchase_price", "servers bought need their "
     "price per server", "서버당 가격"),
    ("2027-01,h100,1,,,,,,,1,5,", 2, "delivered", "an empty cell is not a month written "
     "YYYY-MM: servers bought need the month they were delivered", "빈 셀: YYYY-MM"),
    ("2027-01,h100,1\n2027-01,,1", 3, "month", "2027-01 of type h100 is given twice (rows 2 "
     "and 3)", "두 번 있습니다(2행과 3행)"),
    ("2027-01,h100,3", 2, "servers_online", "3 servers online but 2 held in 2027-01",
     "가동 서버 3대, 2027-01에 보유한 서버 2대"),
    ("2027-01,h100,2,,,,,,,,,,3,100", 2, "sold", "3 servers sold but 2 held in 2027-01",
     "판매한 서버 3대"),
    ("2027-01,h100,1,6000", 2, "busy_gpu_hours", "6000 busy GPU-hours but the servers online "
     "have 5952", "실사용 GPU 시간 6000, 가동 서버의 용량 5952"),
]


@pytest.mark.parametrize("rows,row,column,english,korean", CASES)
def test_each_refusal_by_row_and_column_in_english_and_korean(rows, row, column, english,
                                                              korean):
    exc = refused(HEAD + "\n" + rows + "\n")
    assert [(p["row"], p["column"]) for p in exc.problems] == [(row, column)], exc
    assert english in exc.problems[0]["message"]
    ko = refusal(str(exc), exc.problems, "ko")
    assert korean in ko and f"{row}행, '{column}' 열" in ko, ko
    assert english not in ko and " is not " not in ko and " but " not in ko, ko


def test_header_refusals():
    exc = refused("month,colour\n2027-01,red\n")
    assert [(p["row"], p["column"]) for p in exc.problems] == [(1, "colour"), (1, None)]
    ko = refusal(str(exc), exc.problems, "ko")
    assert "알 수 없는 열입니다" in ko and "servers_online 열이 없습니다" in ko, ko
    empty = refused(HEAD + "\n")
    assert "no rows of owned actuals" in str(empty)
    assert "자체 보유 실적 행이 없습니다" in refusal(str(empty), empty.problems, "ko")


def test_kwh_needs_the_energy_price_in_the_reporting_currency():
    """A plan whose owned costs are in another currency prices energy in it: kWh would need an
    exchange rate, so the file gives energy as a cost."""
    doc = {"months": ["2027-01"], "currencies": {"reporting": "USD", "owned": "KRW"},
           "scenario": {"owned": {"electricity_price_per_kwh": 150.0},
                        "position": {"servers": [{"count": 2, "purchased": "2025-03"}]}}}
    fleet = fleet_of(doc)
    assert fleet.kwh_currency == "KRW"
    with pytest.raises(IngestError) as caught:
        read_owned("o.csv", (HEAD + "\n2027-01,,1,,500\n").encode(), fleet)
    assert [(p["row"], p["column"]) for p in caught.value.problems] == [(2, "energy_kwh")]
    assert "in KRW, not its reporting currency" in str(caught.value)
    ko = refusal(str(caught.value), caught.value.problems, "ko")
    assert "KRW" in ko and "reporting" not in ko, ko
    assert read_owned("o.csv", (HEAD + "\n2027-01,,1,,,40\n").encode(), fleet)[0].energy_cost \
        == 40
    same = fleet_of({**doc, "currencies": {"reporting": "USD", "owned": "USD"}})
    assert same.kwh_currency is None


def test_a_later_delivery_and_a_sale_count_in_their_months():
    """A server bought in January and delivered in March is not held in February; a server
    sold in February leaves it."""
    text = (HEAD + "\n2027-01,h100,2,,,,,,,1,300000,2027-03\n2027-02,h100,3\n")
    assert refused(text).problems[0]["message"] == "3 servers online but 2 held in 2027-02"
    ok = read_owned("o.csv", (HEAD + "\n2027-01,h100,2,,,,,,,1,300000,2027-03\n"
                              "2027-02,h100,1,,,,,,,,,,1,90000\n2027-03,h100,2\n").encode(),
                    FLEET)
    assert [r.servers_online for r in ok] == [2, 1, 2]
    assert refused(HEAD + "\n2027-02,h100,1,,,,,,,,,,1,9\n2027-03,h100,2\n").problems[0][
        "message"] == "2 servers online but 1 held in 2027-03"


def dcgm(month: str) -> bytes:
    """2 GPUs sampled hourly at 0.5 for three hours: 2 x 3 x 0.5 x 1 h = 3 busy GPU-hours."""
    return ("timestamp,gpu,DCGM_FI_PROF_GR_ENGINE_ACTIVE\n" + "".join(
        f"{month}-05T0{h}:00:00Z,{g},0.5\n" for h in range(3) for g in range(2))).encode()


# 2 GPUs sampled hourly at 25 % for two hours: 2 x 2 x 0.25 x 1 h = 1 busy GPU-hour
SMI = ("timestamp, index, utilization.gpu [%]\n" + "".join(
    f"2027/01/06 0{h}:00:00.000, {g}, 25 %\n" for h in range(2) for g in range(2))).encode()
OWNED = (HEAD + "\n2027-01,h100,1\n2027-02,h100,1,100\n").encode()


def test_busy_time_from_dcgm_and_nvidia_smi_by_hand():
    months = read_bill_data([("o.csv", OWNED), ("dcgm.csv", dcgm("2027-01")),
                             ("smi.csv", SMI)], "USD", FLEET)
    assert [(m.month, m.owned["busy_gpu_hours"]) for m in months] == [("2027-01", 4.0),
                                                                      ("2027-02", 100.0)]


@pytest.mark.parametrize("files,english,korean", [
    ([("dcgm.csv", dcgm("2027-01"))], "GPU busy time is read with the owned fleet's actuals",
     "GPU 실사용 시간은 자체 보유 실적과 함께 읽습니다"),
    ([("o.csv", OWNED), ("dcgm.csv", dcgm("2027-02"))], "busy time of 2027-02 is also in the "
     "owned actuals' busy_gpu_hours",
     "2027-02의 실사용 시간이 자체 보유 실적의 busy_gpu_hours에도"),
    ([("o.csv", OWNED), ("dcgm.csv", dcgm("2027-03"))], "busy time of 2027-03 has no owned "
     "actuals of that month", "2027-03의 실사용 시간에 해당하는 월의 자체 보유 실적이 없습니다"),
])
def test_busy_time_refusals(files, english, korean):
    with pytest.raises(IngestError) as caught:
        read_bill_data(files, "USD", FLEET)
    assert english in str(caught.value) and "dcgm.csv" in str(caught.value)
    ko = refusal(str(caught.value), caught.value.problems, "ko")
    assert korean in ko and english not in ko, ko


def test_owned_actuals_need_a_plan_fleet():
    with pytest.raises(IngestError, match="read against a plan's owned fleet"):
        read_bill_data([("o.csv", OWNED)], "USD", None)
