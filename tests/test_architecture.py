"""The import contracts of .importlinter (issue 13): models/ pure and below service/, no import
cycle inside models/ or service/, the web layer never imports the command line, readers and writers apart
from the web. import-linter reads every import, those inside functions too."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).parent / "lint-imports"


def lint(config: Path) -> subprocess.CompletedProcess:
    assert LINT.exists(), "import-linter is a test dependency (pyproject [test])"
    return subprocess.run([str(LINT), str(config)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_every_import_contract_is_kept():
    done = lint(ROOT / ".importlinter")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "Contracts: 7 kept, 0 broken." in done.stdout


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
    code = "import sys, service.cli.main; print('flask' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=True)
    assert done.stdout.strip() == "False"


def test_every_design_reference_resolves_to_a_section_of_docs_design():
    """Comments cite the design notes as "design 4.4" or "design 5.3a"; each must name a
    heading of the repository's own docs/design.md, so no reference points outside it."""
    root = ROOT
    headings = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?[a-z]?)\.? ",
                              (root / "docs" / "design.md").read_text(), re.M))
    assert {"4.4", "5.3a", "9"} <= headings       # the pattern reads both heading levels
    cited: dict[str, list[str]] = {}
    for folder in ("models", "service", "templates", "bench", "scripts", "static"):
        for path in (root / folder).rglob("*"):
            if path.suffix not in (".py", ".html", ".js", "") or not path.is_file():
                continue
            text = path.read_text(errors="ignore")
            for ref in re.findall(r"\bdesign (\d+(?:\.\d+)?[a-z]?)\b", text):
                cited.setdefault(ref, []).append(str(path.relative_to(root)))
    assert len(cited) >= 10                        # the search finds the references
    missing = {ref: places for ref, places in cited.items() if ref not in headings}
    assert not missing, f"design sections cited but absent from docs/design.md: {missing}"
