"""The import contracts of .importlinter (issue 13): models/ pure and below service/, no import
cycle inside models/ or service/, the web layer never imports the command line, readers and
writers apart from the web. import-linter reads every import, those inside functions too.

The tests are layered the same way: every test file in tests/engine, tests/io, tests/web or
tests/system; engine tests import nothing from service, io tests no Flask app module; helpers
in tests/support, fixtures only through conftest.py."""
from __future__ import annotations

import ast
import re
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
    assert "Contracts: 9 kept, 0 broken." in done.stdout


def test_a_broken_contract_is_reported(tmp_path):
    # the check can fail: models imports numpy, which this contract forbids
    config = tmp_path / "broken.ini"
    config.write_text("[importlinter]\nroot_packages =\n    models\ninclude_external_packages = "
                      "True\n\n[importlinter:contract:x]\nname = no numpy\ntype = forbidden\n"
                      "source_modules =\n    models\nforbidden_modules =\n    numpy\n")
    done = lint(config)
    assert done.returncode != 0 and "BROKEN" in done.stdout


def test_the_plan_command_does_not_load_the_web_stack(tmp_path):
    # the dispatcher (service/cli/main.py) imports the module of the command that runs and no
    # other: `buyrent plan` refusing a file loaded Flask, SQLAlchemy and Alembic through the
    # web commands' module (issue 23, 2.1 s against 1.1 s now: bench/cli_refusal.py), and
    # openpyxl through the upload guards; nor the scenario model (pydantic), the engine
    # (scipy, models.plan), the workbook writer (xlsxwriter, also through the usage templates)
    # or babel (through service.i18n's languages): service/cli/plan_compute.py loads those
    # once the usage file is read
    bad = tmp_path / "bad.csv"
    bad.write_text("timestamp,gpu_hours\n2026-01,abc\n")
    code = ("import sys; from service.cli.main import main; code = main(['plan', sys.argv[1]]); "
            "print(code, sorted(m for m in ('flask', 'sqlalchemy', 'alembic', 'plotly', "
            "'openpyxl', 'service.app', 'service.web', 'scipy', 'models.plan', "
            "'service.cli.plan_compute', 'xlsxwriter', 'babel', 'pydantic', 'models.scenario') "
            "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code, str(bad)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "2 []"
    assert "row 2, column 'gpu_hours'" in done.stderr
    code = ("import sys; import service.cli.main as cli; cli.build_parser(['serve']); "
            "print('service.cli.plan' in sys.modules, 'service.app' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=True)
    assert done.stdout.strip() == "False True"     # serve loads the app, not the plan's table


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


# --- the tests are layered as the code is (issue 13) ----------------------------------------

TESTS = ROOT / "tests"
LAYERS = ("engine", "io", "web", "system")


def imports(path: Path, top_only: bool = False) -> set[str]:
    """Every module a file imports (at the top, and inside functions unless ``top_only``);
    ``from a import b`` gives both ``a`` and ``a.b`` (b may be a module)."""
    found = set()
    tree = ast.parse(path.read_text(), str(path))
    for node in (tree.body if top_only else ast.walk(tree)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def module_file(name: str) -> Path | None:
    """The source of a project module (tests.*, service.*), without importing it."""
    base = ROOT.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def reachable(path: Path) -> set[str]:
    """What a test file imports, through the tests.support modules it uses too."""
    seen, todo, out = set(), [path], set()
    while todo:
        for name in imports(todo.pop()):
            out.add(name)
            source = module_file(name) if name.startswith("tests.support") else None
            if source is not None and source not in seen:
                seen.add(source)
                todo.append(source)
    return out


def imports_flask(name: str) -> bool:
    """Whether a project module imports Flask when it is loaded (service.i18n asks Flask for
    the request's locale inside a function only, and serves the CLI as well)."""
    source = module_file(name)
    return source is not None and any(
        n == "flask" or n.startswith("flask.") for n in imports(source, top_only=True))


def layer_files(layer: str) -> list[Path]:
    return sorted((TESTS / layer).glob("*.py"))


def test_every_test_file_lives_in_a_layer_folder():
    files = sorted(TESTS.rglob("test_*.py"))
    outside = [str(p.relative_to(TESTS)) for p in files if p.parent.name not in LAYERS
               or p.parent.parent != TESTS]
    assert outside == []
    assert {p.parent.name for p in files} == set(LAYERS)
    assert sorted(p.name for p in TESTS.glob("*.py")) == ["__init__.py", "conftest.py"]


def test_no_test_file_imports_another_test_file_or_a_conftest():
    bad = {str(p.relative_to(TESTS)): sorted(n for n in imports(p) if n.startswith("tests.")
                                             and not n.startswith("tests.support"))
           for layer in (*LAYERS, "support") for p in layer_files(layer)}
    assert {k: v for k, v in bad.items() if v} == {}


def test_engine_tests_import_nothing_from_service():
    bad = {p.name: sorted(n for n in reachable(p) if n == "service" or n.startswith("service."))
           for p in layer_files("engine")}
    assert {k: v for k, v in bad.items() if v} == {}


def test_io_tests_import_no_flask_app_module():
    # a Flask app module is one that imports Flask (the factory, blueprints, sessions, ...)
    bad = {p.name: sorted(n for n in reachable(p) if n.split(".")[0] in ("service", "flask")
                          and (n.startswith("flask") or n == "service.app.create_app"
                               or imports_flask(n)))
           for p in layer_files("io")}
    assert {k: v for k, v in bad.items() if v} == {}


def test_the_layering_checks_can_fail(tmp_path):
    # the same readers on files that break each rule
    engine = tmp_path / "test_engine.py"
    engine.write_text("def test_x():\n    from service.ingest import load_usage\n")
    web = tmp_path / "test_web.py"
    web.write_text("from service.app import create_app\n")
    assert "service.ingest" in reachable(engine)
    assert "service.app.create_app" in reachable(web)
    # the app's own modules are found as Flask modules (whatever their names), ingest is not
    modules = [".".join(f.relative_to(ROOT).with_suffix("").parts)
               for f in (ROOT / "service").rglob("*.py")]
    assert sum(imports_flask(name) for name in modules) >= 5
    assert not imports_flask("service.ingest")
