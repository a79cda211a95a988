"""Every refusal and warning of the suite's broken, hostile and wrong-period files in Korean
(issue 24).

The suite's usage-file tests run once with a recorder (tests/support/refusal_recorder.py):
whatever file a test builds, each problem it is refused for (by row and column), each warning,
each skipped commitment's reason and each error of the usage against the plan is kept. Read in
Korean, none of them may hold an English word but the proper names, formats, column names and
the file's own values (quoted, or written as code: ``gpu_hours``, ``ConsumedUnit``,
``DCGM_FI_DEV_GPU_UTIL``).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from service.i18n import using_locale
from service.i18n.ingest_refusals import refusal, where
from service.i18n.sentences import is_translated, plain
from tests.support.paths import ROOT

# Proper names (products, formats, standards) and the column names and values the formats
# define, which a Korean reader types as they are.
ALLOWED = {
    "AWS", "Azure", "Google", "Cloud", "FOCUS", "Contract", "Commitment", "Slurm", "sacct",
    "DCGM", "Prometheus", "exporter", "promtool", "tsdb", "dump", "Excel", "LibreOffice",
    "OpenDocument", "Unicode", "Savings", "Plans", "DataLoader", "API", "CLI", "CPU", "GPU",
    "SKU", "ID", "ISO", "PDF", "PNG", "JPEG", "RAR", "RTF", "OLE", "XML", "DOCTYPE", "ENTITY",
    "CSV", "UTC", "USD", "EUR", "KRW", "NULL", "NaN", "nan", "True", "False", "TZ", "zip",
    "xlsx", "xls", "xlsb", "xlsm", "ods", "csv", "txt", "gzip", "Parquet",
    # columns and values of the usage table, sacct, FOCUS and busy-time files
    "timestamp", "team", "workload", "interruptible", "steady", "gpus", "gpu", "host", "id",
    "start", "payment", "currency", "none", "partial", "all", "Start", "End", "Unknown", "Spend",
    "Usage",
    "metric", "labels", "value", "busy", "true", "false", "yes", "no", "x",
}
QUOTED = re.compile(r"'[^']*'(?:\.\.\. \([\d,]+ characters\))?|\[[^\]]*\]|\"[^\"]*\"")
CODE = re.compile(r"[A-Za-z0-9]*(?:[_./\-][A-Za-z0-9]+)+|[A-Za-z]*[0-9][A-Za-z0-9]*|"
                  r"[a-z]+[A-Z][A-Za-z]*|[A-Z][a-z]+[A-Z][A-Za-z]*|\b[A-Z]{1,3}(?=열)")


def english_words(text: str) -> set[str]:
    """The English words of a Korean message, outside quoted values and code-like names (a
    spreadsheet's column letters: "AB열")."""
    bare = CODE.sub(" ", QUOTED.sub(" ", text))
    return {w for w in re.findall(r"[A-Za-z]+", bare) if w not in ALLOWED}


@pytest.fixture(scope="module")
def heard(tmp_path_factory):
    out = tmp_path_factory.mktemp("refusals") / "heard.json"
    done = subprocess.run([sys.executable, "-m", "tests.support.refusal_recorder", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:]
    return json.loads(out.read_text())


def test_the_suite_refuses_many_kinds_of_file(heard):
    problems = {p["message"] for r in heard["refusals"] for p in r["problems"]}
    assert len(heard["refusals"]) > 150 and len(problems) > 150
    assert heard["warnings"] and heard["skip_reasons"] and heard["errors"]


def test_every_problem_warning_and_reason_reads_in_korean(heard):
    texts = sorted({p["message"] for r in heard["refusals"] for p in r["problems"]}
                   | set(heard["warnings"]) | set(heard["skip_reasons"])
                   | set(heard["errors"]))
    english = {}
    with using_locale("ko"):
        for text in texts:
            korean = plain(text)
            if not is_translated(text) or not re.search("[가-힣]", korean) \
                    or english_words(korean):
                english[text[:200]] = (korean[:200], sorted(english_words(korean)))
    assert english == {}
    with using_locale("en"):
        assert [plain(t) for t in texts] == texts


def test_whole_refusals_keep_their_rows_and_columns_in_korean(heard):
    """The message above the problem table ("usage.csv: row 3, column 'x': ...") is rebuilt
    from the problems: the same rows and columns, the file's name, Korean words."""
    checked = 0
    with using_locale("ko"):
        for item in heard["refusals"]:
            message, problems = item["message"], item["problems"]
            korean = refusal(message, problems)
            head = message.split(": ", 1)[0]
            assert korean.startswith(head) and re.search("[가-힣]", korean), (message, korean)
            for p in problems:
                if p["row"] is not None:
                    assert f"{p['row']}행" in korean, (message, korean)
                if p["column"] is not None:
                    assert repr(p["column"]) in korean, (message, korean)
            checked += 1
    assert checked > 150
    with using_locale("en"):
        assert all(refusal(i["message"], i["problems"]) == i["message"]
                   for i in heard["refusals"])


@pytest.mark.parametrize("row, column, korean", [
    (3, "gpu_hours", "3행, 'gpu_hours' 열"), (1, None, "1행"), (None, "team", "'team' 열"),
    (None, None, ""),
])
def test_a_problem_names_its_place_in_korean(row, column, korean):
    with using_locale("ko"):
        assert where(row, column) == korean


def test_the_cli_refuses_in_korean(tmp_path):
    """``buyrent plan --lang ko`` says what is wrong with a usage file in Korean."""
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"timestamp,gpu_hours\n2027-01-01T00:00,x\n")
    done = subprocess.run([sys.executable, "-m", "service.cli.main", "plan", str(bad),
                           "--lang", "ko"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip() == ("buyrent: bad.csv: 2행, 'gpu_hours' 열: 0 이상의 숫자여야 "
                                   "하는데 'x'입니다")
