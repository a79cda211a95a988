"""Locale formats, the engine-message renderer, the Korean workbook and CLI (issue 15)."""
from __future__ import annotations

import io
import json
import re
import subprocess
import sys

import pytest
from babel.messages.mofile import write_mo
from babel.support import Translations

import service.i18n as i18n
from models.messages import Message, Money, Months, Number, Percent
from service.i18n import formats, sentences, using_locale
from tests.support.plans import PRODUCT, compute_plan
from service.paths import ROOT, SAMPLES
from tests.support.xlsx_cases import korean_workbook as write_korean_workbook
from tests.support.engine_cases import robust_case
from tests.support.xlsx_cases import plan_workbook


@pytest.mark.parametrize("value, currency, kind, locale, text", [
    (1_234_567.891, "KRW", "total", "ko", "₩1,234,568"),       # won: no decimals, ₩
    (1_234_567.891, "KRW", "total", "en", "₩1,234,568"),
    (-2_500_000, "KRW", "total", "ko", "-₩2,500,000"),
    (1_234_567.891, "USD", "total", "en", "$1,234,568"),        # totals >= 100 are whole
    (1_234_567.891, "USD", "total", "ko", "US$1,234,568"),
    (42.5, "USD", "total", "en", "$42.50"),                     # small totals keep cents
    (6.88, "USD", "rate", "en", "$6.88"),                       # per GPU-hour: 2 to 4 decimals
    (2.2036, "USD", "rate", "ko", "US$2.2036"),
    (9500, "KRW", "rate", "ko", "₩9,500"),
    (120.5, "KRW", "rate", "ko", "₩121"),                      # a tie: half away from zero
    (17_216_223_206, "KRW", "card", "ko", "₩172.2억"),         # a card's headline in 억
    (99_000_000, "KRW", "card", "ko", "₩99,000,000"),
    (17_216_223_206, "KRW", "card", "en", "₩17,216,223,206"),                       # won: never decimals (issue 24)
    (8_600_000, "USD", "short", "en", "$8.6M"),
    (8_600_000_000, "KRW", "short", "ko", "₩86억"),             # Korean units of 10^4 / 10^8
    (None, "USD", "total", "en", "-"),
    (float("nan"), "USD", "total", "en", "-"),
])
def test_money(value, currency, kind, locale, text):
    assert formats.money(value, currency, kind, locale) == text


@pytest.mark.parametrize("call, text", [
    (lambda: formats.percent(0.256, 1, "ko"), "25.6%"),
    (lambda: formats.percent(0.5, 0, "en"), "50%"),
    (lambda: formats.number(12345.678, 1, "ko"), "12,345.7"),
    (lambda: formats.number(8760, None, "en"), "8,760"),
    (lambda: formats.months(12, "ko"), "1년"), (lambda: formats.months(36, "ko"), "3년"),
    (lambda: formats.months(18, "ko"), "18개월"), (lambda: formats.months(1, "en"), "1 month"),
    (lambda: formats.months(24, "en"), "2 years"),
])
def test_numbers_percent_months(call, text):
    assert call() == text


@pytest.fixture
def engine_catalog(monkeypatch):
    """A Korean catalog holding engine templates, as the lead's conversion will add them."""
    from babel.messages.pofile import read_po
    with (i18n.TRANSLATIONS / "ko" / "LC_MESSAGES" / "messages.po").open("rb") as fp:
        catalog = read_po(fp, locale="ko")      # ours, plus the engine's templates below
    catalog.add("Buy {servers} servers, saving {saving} ({share}) over {term}; "
                "{hours} GPU-hours.",
                "서버 {servers}대 구매, {term} 동안 {saving}({share}) 절감, GPU {hours}시간.")
    catalog.add("Spot is infeasible for {strategy}.", "{strategy}에는 스팟이 맞지 않습니다.")
    catalog.add("Broken {x}.", "깨진 {y}.")
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    korean = Translations(buffer)
    real = i18n.translations
    monkeypatch.setattr(i18n, "translations",
                        lambda lang: korean if i18n.normalize(lang) == "ko" else real(lang))


MESSAGE = Message("Buy {servers} servers, saving {saving} ({share}) over {term}; "
                  "{hours} GPU-hours.",
                  {"servers": 4, "saving": Money(8_600_000_000, "KRW"),
                   "share": Percent(0.544, 1), "term": Months(36),
                   "hours": Number(12345.6, 1)})


def test_renderer_translates_template_and_formats_each_parameter(engine_catalog):
    assert sentences.render(MESSAGE, "ko") == \
        "서버 4대 구매, 3년 동안 ₩86억(54.4%) 절감, GPU 12,345.6시간."
    assert sentences.render(MESSAGE, "en") == \
        "Buy 4 servers, saving ₩8.6B (54.4%) over 3 years; 12,345.6 GPU-hours."
    # the JSON form in the plan document renders the same
    assert sentences.render(json.loads(json.dumps(MESSAGE.as_json())), "ko") == \
        sentences.render(MESSAGE, "ko")


def test_string_parameters_naming_strategies_are_translated(engine_catalog):
    m = Message("Spot is infeasible for {strategy}.", {"strategy": "optimal"})
    assert sentences.render(m, "ko") == "최적 조합에는 스팟이 맞지 않습니다."


def test_broken_translation_falls_back_to_english(engine_catalog):
    m = Message("Broken {x}.", {"x": Number(3)})
    assert sentences.render(m, "ko") == "Broken 3."


def test_documents_with_and_without_messages(engine_catalog):
    old = {"explanation": "Buy 4 servers.", "warnings": ["Old warning."]}
    assert sentences.explanation(old, "ko") == "Buy 4 servers."          # English fallback
    assert not sentences.explanation_translated(old, "ko")
    assert sentences.document_warnings(old, "ko") == [("Old warning.", False)]
    spot = Message("Spot is infeasible for {strategy}.", {"strategy": "cloud_only"})
    new = {**old, "explanation_messages": [MESSAGE.as_json()],
           "warnings": ["Ingest said this.", spot.text],
           "warning_messages": [spot.as_json()]}
    assert sentences.explanation(new, "ko").startswith("서버 4대 구매")
    assert sentences.explanation_translated(new, "ko")
    assert sentences.document_warnings(new, "ko") == [
        ("Ingest said this.", False), ("클라우드만(최적 조합)에는 스팟이 맞지 않습니다.", True)]


@pytest.fixture(scope="module")
def korean_workbook(tmp_path_factory, sample_plan):
    return write_korean_workbook(tmp_path_factory.mktemp("ko") / "plan-ko.xlsx",
                                 sample_plan[1].plan)


def test_korean_workbook_words(korean_workbook, sample_plan):
    import openpyxl
    wb = openpyxl.load_workbook(korean_workbook)
    assert wb.sheetnames[:3] == ["요약", "가정", "프로필"]
    assert {"전부 온디맨드", "최적 조합", "손익분기점", "민감도"} <= set(wb.sheetnames)
    summary = [c for row in wb["요약"].iter_rows(values_only=True) for c in row if c]
    assert "구매 대 임차 계획" in summary and "전략" in summary
    assumptions = [c for row in wb["가정"].iter_rows(values_only=True) for c in row if c]
    assert "온디맨드 가격" in assumptions and "GPU 시간당 금액" in assumptions
    # formulas and defined names do not depend on the language
    assert wb.defined_names["owned_pue"].attr_text.startswith("'가정'!")


def test_korean_workbook_restores_the_scenario(korean_workbook, sample_plan):
    from service.xlsx.roundtrip import scenario_from_xlsx
    assert scenario_from_xlsx(korean_workbook.read_bytes()) == sample_plan[0]


def test_cli_prints_korean(tmp_path):
    out = tmp_path / "plan.xlsx"
    done = subprocess.run([sys.executable, "-m", "service.cli.main", "plan",
                           str(SAMPLES / "usage_monthly.csv"), "--lang", "ko", "--xlsx",
                           str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "현재가치 비용" in done.stdout and "권장(*)" in done.stdout
    assert "워크북을" in done.stdout
    import openpyxl
    assert openpyxl.load_workbook(out).sheetnames[0] == "요약"
    bad = subprocess.run([sys.executable, "-m", "service.cli.main", "plan", "--lang", "fr"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--lang" in bad.stderr


def test_using_locale_is_scoped():
    with using_locale("ko-KR"):
        assert i18n.current_locale() == "ko" and i18n.gettext("Scenarios") == "시나리오"
        with using_locale("en"):
            assert i18n.gettext("Scenarios") == "Scenarios"
    assert i18n.current_locale() == "en"


@pytest.mark.parametrize("name", [
    "aws_cur_sample.csv", "azure_cost_details_actual_sample.csv",
    "azure_cost_details_amortized_sample.csv", "focus_1.1_sample.csv", "focus_1.2_sample.csv",
    "focus_1.3_sample.csv", "gcp_billing_export_sample.csv", "slurm_sacct_sample.txt",
    "usage_busy_sample.zip", "usage_sample.xlsx"])
def test_ingest_preview_is_korean(name):
    """Every warning and every row label of the upload preview of the sample billing exports
    (FOCUS, AWS CUR, Azure, Google Cloud), Slurm, XLSX and GPU busy time (DCGM) reads in
    Korean; the English text stays what the reader wrote (it is what plans store)."""
    from service.i18n.ingest_summary import summary_rows
    from service.ingest import read_upload
    result = read_upload((SAMPLES / name).read_bytes(), name)
    assert result.warnings, name   # each sample exercises at least one warning
    with using_locale("ko"):
        for text in result.warnings:
            assert sentences.is_translated(text), text
            korean = sentences.warnings([text], None)[0]
            assert re.search("[가-힣]", korean) and korean != text, korean
        for label, _value, translated in summary_rows(result.summary):
            assert translated and re.search("[가-힣]", label), label
    with using_locale("en"):
        assert sentences.warnings(result.warnings, None) == result.warnings


@pytest.mark.parametrize("lines", [
    ["timestamp,gpu_hours", "2026-01,10", "2026-02," + "9" * 400],        # too large
    ["timestamp,gpu_hours", "2026-01,10,1,1", "2026-02,1"],               # row too wide
    ["timestamp,gpu_hours", "1990-01,1", "2026-01,1"],                    # spans > 20 years
])
def test_ingest_refusals_of_issue_23_are_korean(lines):
    """The refusals written for issue 23 read in Korean (service.i18n.ingest_warnings), the
    value they quote kept as the file has it."""
    from service.ingest import IngestError, read_usage
    with pytest.raises(IngestError) as info:
        read_usage(("\n".join(lines) + "\n").encode(), "bad.csv")
    english = info.value.problems[0]["message"]
    with using_locale("ko"):
        assert sentences.is_translated(english), english
        korean = sentences.plain(english)
    assert re.search("[가-힣]", korean) and re.sub(r"[^0-9']", "", korean) == re.sub(
        r"[^0-9']", "", english), korean


def test_schedule_words_and_engine_reasons_in_korean():
    """The staged plan's schedule sentences name quarters the Korean way; the engine's fixed
    reasons for a missing staged plan are translated inside the sentence."""
    buy = Message("Buy {n} servers in {quarter}.", {"n": Number(3), "quarter": "2027-Q2"})
    assert sentences.render(buy, "ko") == "2027년 2분기에 서버 3대를 구매하세요."
    assert sentences.render(buy, "en") == "Buy 3 servers in 2027-Q2."
    why = ("spot costs more than on demand in some month; without spot: spot costs more than "
           "on demand in some month")
    korean = sentences.render(Message("No staged plan: {why}.", {"why": why}), "ko")
    assert korean.startswith("단계별 계획 없음: 어떤 달에는 스팟이") and "spot" not in korean
    solver = Message("No staged plan: {why}.", {"why": "the staged MILP did not solve: x"})
    assert "the staged MILP" in sentences.render(solver, "ko")   # the solver's words stay


def test_korean_workbook_labels_have_no_english_words(sample_plan):
    """Labels, headers and notes of the Korean workbook read in Korean: what stays English is
    a proper name, a unit or code, an input value the round trip reads back, or user data."""
    import openpyxl
    book = openpyxl.load_workbook(io.BytesIO(plan_workbook(sample_plan[1].plan, lang="ko")))
    assert english_words(book) == {}


@pytest.mark.robust_default
def test_korean_workbook_of_a_robust_plan_has_no_english_words():
    """Issue 27: the Scenarios sheet and each demand scenario's sheet of a robust plan over the
    growth range's three paths (their names the reader's words) read in Korean too."""
    import openpyxl
    s, profile = robust_case(3, paths=[], months=24, interval=6)
    plan = compute_plan(s, profile, options=PRODUCT)
    book = openpyxl.load_workbook(io.BytesIO(plan_workbook(plan, lang="ko")))
    names = book.sheetnames
    assert "시나리오" in names and [n for n in names if n.startswith("강건 계획 ")] == [
        "강건 계획 낮은 성장", "강건 계획 가장 가능성 높은 성장", "강건 계획 높은 성장"]
    assert english_words(book) == {}


def english_words(book) -> dict[str, tuple]:
    """Cells of a Korean workbook with English words that are no proper name, unit, code,
    input value or user data: {sheet!cell: (words, text)}."""
    allowed = {"GPU", "AWS", "H100", "USD", "KRW", "US", "PUE", "kW", "kWh", "TB", "GB", "FTE",
               "ID",
               "APR", "ISO", "MACRS", "YYYY", "MM", "Excel", "NPV", "P10", "P50", "P90", "PV",
               "CVaR", "EVPI", "VSS",                 # the robust plan's finance terms
               "VAT", "UTC", "CSV", "triangular", "lognormal",   # input codes
               "r_m", "max", "ln",                                # formula notation
               "Spot", "Advisor",                                 # AWS Spot Advisor
               "serving", "research"}                             # the sample's teams
    from service.xlsx.cohorts import COMMIT_ITEMS, SERVER_ITEMS
    keys = {key for key, _label in SERVER_ITEMS + COMMIT_ITEMS}   # the SUMIF key row: codes
    found = {}
    for ws in book.worksheets:
        for row in ws.iter_rows():
            for c in row:
                # the Path, Source, Value, Defined-name and Exact-value columns of the
                # Assumptions sheet are codes, citations and inputs
                skip = ws.title == "가정" and c.column in (1, 3, 5, 7, 8)
                if isinstance(c.value, str) and not c.value.startswith("=") and not skip \
                        and not (ws.title == "요약" and c.coordinate == "B2"):  # scenario name
                    text = c.value.split("출처:")[0]   # a citation names its source
                    words = {w for w in re.findall(r"[A-Za-z][A-Za-z0-9_]+", text)
                             if w not in allowed and not re.fullmatch(r"[SK]\d+", w)}
                    # cohort codes S1, K1 above; the SUMIF keys here, a type's servers online
                    # ("online:<type>") among them
                    if c.value in keys or re.fullmatch(r"online:\S+", c.value):
                        continue
                    if words:
                        found[f"{ws.title}!{c.coordinate}"] = (sorted(words), c.value[:60])
    return found


@pytest.mark.parametrize("lang, direction, text", [
    ("en", {"cheaper": "owned", "when": "above", "other": "on_demand"},
     "owning servers is cheaper than on demand above this utilization"),
    ("en", {"cheaper": "owned", "when": "below", "other": "3y"},
     "owning servers is cheaper than 3y below this utilization"),
    ("ko", {"cheaper": "owned", "when": "above", "other": "spot"},
     "이 가동률보다 높으면 자체 보유가 스팟보다 저렴합니다"),
    ("ko", {"cheaper": "owned", "when": "above", "other": "on_demand"},
     "이 가동률보다 높으면 자체 보유가 온디맨드보다 저렴합니다"),
])
def test_breakeven_directions_name_ways_of_running_work(lang, direction, text):
    # a breakeven's sides are on demand and owning servers, not the strategy "all on demand"
    # ("owned servers is cheaper than all on demand" before)
    assert sentences.direction_text(direction, lang) == text
