"""The import contracts of .importlinter (issue 13): models/ pure and below service/, no import
cycle inside models/ or service/, the web layer never imports the command line, readers and writers apart
from the web. import-linter reads every import, those inside functions too."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT = Path(sys.executable).parent / "lint-imports"


def lint(config: Path) -> subprocess.CompletedProcess:
    assert LINT.exists(), "import-linter is a test dependency (pyproject [test])"
    return subprocess.run([str(LINT), str(config)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_every_import_contract_is_kept():
    done = lint(ROOT / ".importlinter")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "Contracts: 6 kept, 0 broken." in done.stdout


def test_a_broken_contract_is_reported(tmp_path):
    # the check can fail: models imports numpy, which this contract forbids
    config = tmp_path / "broken.ini"
    config.write_text("[importlinter]\nroot_packages =\n    models\ninclude_external_packages = "
                      "True\n\n[importlinter:contract:x]\nname = no numpy\ntype = forbidden\n"
                      "source_modules =\n    models\nforbidden_modules =\n    numpy\n")
    done = lint(config)
    assert done.returncode != 0 and "BROKEN" in done.stdout


def test_the_plan_command_does_not_load_the_web_stack():
    # the few imports left inside functions keep Flask out of `buyrent plan`
    code = "import sys, service.cli; print('flask' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=True)
    assert done.stdout.strip() == "False"
