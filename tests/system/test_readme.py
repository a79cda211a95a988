"""The README stays what a newcomer needs (issue 39, item 6): short, the two set-up commands,
a layout that matches the repository, a table of every document in docs/, and no benchmark
figure (those live in docs/benchmarks.md alone)."""
from __future__ import annotations

import os
import re
import subprocess

from tests.support.paths import ROOT

README = (ROOT / "README.md").read_text()


def section(title: str) -> str:
    return README.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_readme_is_short():
    assert len(README.splitlines()) < 200


def test_the_two_set_up_commands_exist():
    setup = section("Set-up: two commands")
    for script in ("scripts/run", "scripts/test"):
        assert f"`{script}`" in setup
        assert os.access(ROOT / script, os.X_OK), script
    assert "\nscripts/test\n" in (ROOT / ".ci" / "run").read_text()     # CI runs exactly it


def test_the_layout_names_every_top_level_entry_and_nothing_else():
    block = section("Layout").split("```")[1]
    named = set()
    for line in block.splitlines():
        first = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        if first and not line.startswith(" "):
            named |= {name.strip().rstrip("/") for name in first.split(",")}
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    top = {path.split("/")[0] for path in tracked} - {
        "README.md", ".gitignore", ".gitattributes", ".dockerignore"}
    named = {".ci" if name == ".ci/run" else name for name in named}
    assert named == top, (sorted(named - top), sorted(top - named))


def test_every_document_is_in_the_table_and_every_row_exists():
    rows = re.findall(r"^\| (docs/[\w.-]+\.md) \|", section("Where the rest lives"), re.M)
    assert len(rows) == len(set(rows))
    assert set(rows) == {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}


def test_no_benchmark_figure_in_the_readme():
    """A time (ms, s, min) is a measurement; it belongs to docs/benchmarks.md."""
    assert re.findall(r"\b\d[\d.,]*(?:-\d[\d.,]*)? ?(?:ms|s|min)\b", README) == []
    assert "docs/benchmarks.md" in README
