"""A strategy that breaks the scenario's limits, in the reader's words (issue 37, item 1): the
card's sentence and the CLI's mark and lines, in English and Korean (the engine's figures are
tests/engine/test_plan_limits.py's)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from models.plan_limits import POWER
from service.i18n.sentences import breach_text
from tests.support.paths import ROOT

BUDGET_700K = {"capital_budget_per_year": 700_000}


@pytest.mark.parametrize("lang, words", [
    ("en", "it needs 569 kW in 2027-01; the hall has 260 kW."),
    ("ko", "2027-01에 569 kW가 필요하지만 시설의 전력은 260 kW입니다.")])
def test_a_breach_in_words(app, lang, words):
    with app.test_request_context():
        text = breach_text({"limit": POWER, "needed": 569.2, "allowed": 260.0,
                            "when": "2027-01"}, "USD", lang)
    assert text == words


def test_the_cli_marks_and_explains_a_plan_that_breaks_a_limit(tmp_path):
    """`buyrent plan` with a $700k budget: the best static plan's row is marked (!) and the
    line under the table says what it spends against the budget, in English and Korean."""
    path = tmp_path / "budget.json"
    path.write_text(json.dumps({"staging": BUDGET_700K, "uncertainty": {"draws": 0}}))
    out = {}
    for lang in ("en", "ko"):
        run = subprocess.run([sys.executable, "-m", "service.cli.main", "plan", "--scenario",
                              str(path), "--lang", lang], cwd=ROOT, capture_output=True,
                             text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        out[lang] = run.stdout
    optimal_row = next(line for line in out["en"].splitlines() if line.startswith("optimal"))
    assert optimal_row.endswith(" !")
    assert "Breaks the scenario's limits (!), so never recommended:" in out["en"]
    assert "it spends $2.6M in 2027 against a capital budget of $700.0k a year." in out["en"]
    assert "시나리오의 한도를 넘음(!), 따라서 추천하지 않음:" in out["ko"]
    assert "연간 자본 예산" in out["ko"]
