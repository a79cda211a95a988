"""The workbook job alone (issue 38): time ``plan_xlsx_bytes`` per sample and prove a change to
the writer leaves every workbook's content the same.

    python bench/workbook_same.py save DIR [--samples h100,growth,generations,robust]
        compute each sample's complete plan (bench/plan_job.py's job, planning month 2026-12)
        and store its document (strict JSON) and packed ledger in DIR: the workbook job's input
    python bench/workbook_same.py time DIR [--repeat 3] [--out XLSXDIR]
        CPU seconds (time.process_time, best of N) and wall of plan_xlsx_bytes of each stored
        sample, as the workbook job calls it; with --out, write each workbook there
    python bench/workbook_same.py compare OLDDIR NEWDIR
        open each pair of workbooks with openpyxl and compare every sheet (names, order) and
        every cell (value or formula, number format, font, fill, border, alignment), merged
        ranges, column widths, row heights, defined names; prints the differences, exit 1 if any

``compare`` first compares the package's members (every XML part, uncompressed) byte for byte,
leaving out docProps/core.xml (its creation time); the zip bytes themselves are not compared.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("BUYRENT_CURRENT_MONTH", "2026-12")

SAMPLES = ("h100", "growth", "generations", "robust")


def save(directory: Path, names: list[str]) -> None:
    from bench.plan_job import MONTH, SAMPLES as FILES, USAGE
    from models.plan import Planner
    from models.plan_options import PlanOptions
    from models.scenario import Scenario
    from service.ingest import read_usage
    from service.plans.jobs.compute import input_warnings, pack_ledger, strict
    directory.mkdir(parents=True, exist_ok=True)
    for name in names:
        scenario = Scenario.model_validate_json((ROOT / "samples" / FILES[name]).read_text())
        ingested = read_usage(USAGE.read_bytes(), USAGE.name)
        planner = Planner(scenario, ingested.profile, input_warnings(ingested, scenario, MONTH),
                          current_month=MONTH, options=PlanOptions.from_dict(None))
        planner.add_static()
        planner.add_staged(robust=False)
        planner.add_robust()
        plan = planner.plan("complete", uncertainty=True)
        (directory / f"{name}.json").write_text(strict(plan.document))
        (directory / f"{name}.ledger").write_bytes(pack_ledger(plan.ledger))
        print(f"{name}: saved", flush=True)


def time_workbooks(directory: Path, repeat: int, out: Path | None,
                   names: list[str]) -> None:
    from service.plans.jobs.compute import unpack_ledger
    from service.xlsx.export import plan_xlsx_bytes
    from service.xlsx.print_setup import PrintLabel
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name in names:
        if not (directory / f"{name}.json").exists():
            continue
        document = (directory / f"{name}.json").read_text()
        packed = (directory / f"{name}.ledger").read_bytes()
        cpu, wall, data = [], [], b""
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            # as the workbook job: the stored document and ledger read back
            data = plan_xlsx_bytes(json.loads(document), unpack_ledger(packed),
                                   PrintLabel(name), lang="en")
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - t0)
        if out:
            out.mkdir(parents=True, exist_ok=True)
            (out / f"{name}.xlsx").write_bytes(data)
        print(f"{name:<12} CPU best {min(cpu):.3f} s (runs {', '.join(f'{c:.2f}' for c in cpu)})"
              f"  wall best {min(wall):.3f} s  {len(data):,} bytes", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def _style(cell) -> tuple:
    f, a, b = cell.font, cell.alignment, cell.border
    return (cell.number_format, f.b, f.i, f.sz, f.color.rgb if f.color else None,
            cell.fill.fgColor.rgb if cell.fill and cell.fill.fill_type else None,
            a.horizontal, a.vertical, a.wrap_text,
            tuple(getattr(b, side).style for side in ("left", "right", "top", "bottom")))


def member_differences(old: Path, new: Path) -> list[str]:
    """The package's parts that differ, uncompressed (the creation time left out)."""
    import zipfile
    with zipfile.ZipFile(old) as a, zipfile.ZipFile(new) as b:
        if a.namelist() != b.namelist():
            return [f"parts {a.namelist()} != {b.namelist()}"]
        return [f"part {n} differs" for n in a.namelist()
                if n != "docProps/core.xml" and a.read(n) != b.read(n)]


def differences(old: Path, new: Path) -> list[str]:
    import openpyxl
    out = member_differences(old, new)
    a, b = openpyxl.load_workbook(old), openpyxl.load_workbook(new)
    if a.sheetnames != b.sheetnames:
        return [f"sheets {a.sheetnames} != {b.sheetnames}"]
    if sorted((n, str(d.value)) for n, d in a.defined_names.items()) != \
            sorted((n, str(d.value)) for n, d in b.defined_names.items()):
        out.append("defined names differ")
    for name in a.sheetnames:
        x, y = a[name], b[name]
        if sorted(map(str, x.merged_cells.ranges)) != sorted(map(str, y.merged_cells.ranges)):
            out.append(f"{name}: merged ranges differ")
        if {k: v.width for k, v in x.column_dimensions.items()} != \
                {k: v.width for k, v in y.column_dimensions.items()}:
            out.append(f"{name}: column widths differ")
        if {k: v.height for k, v in x.row_dimensions.items()} != \
                {k: v.height for k, v in y.row_dimensions.items()}:
            out.append(f"{name}: row heights differ")
        if (x.max_row, x.max_column) != (y.max_row, y.max_column):
            out.append(f"{name}: size {x.max_row}x{x.max_column} != {y.max_row}x{y.max_column}")
        if str(x.print_area) != str(y.print_area) or str(x.freeze_panes) != str(y.freeze_panes):
            out.append(f"{name}: print area or panes differ")
        for r1, r2 in zip(x.iter_rows(), y.iter_rows()):
            for c1, c2 in zip(r1, r2):
                if c1.value != c2.value or type(c1.value) is not type(c2.value) \
                        or _style(c1) != _style(c2):
                    out.append(f"{name}!{c1.coordinate}: {c1.value!r} {_style(c1)} != "
                               f"{c2.value!r} {_style(c2)}")
                    if len(out) > 50:
                        return out
    # the cached values (what a viewer that does not recalculate shows)
    a, b = (openpyxl.load_workbook(p, data_only=True) for p in (old, new))
    for name in a.sheetnames:
        for r1, r2 in zip(a[name].iter_rows(values_only=True), b[name].iter_rows(values_only=True)):
            if r1 != r2:
                out.append(f"{name}: cached values differ: {r1} != {r2}")
                break
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("save", "time", "compare"))
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--samples", default=",".join(SAMPLES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.action == "save":
        save(args.dirs[0], [n for n in args.samples.split(",") if n])
    elif args.action == "time":
        time_workbooks(args.dirs[0], args.repeat, args.out,
                       [n for n in args.samples.split(",") if n])
    else:
        failed = False
        for name in [n for n in args.samples.split(",") if n]:
            old, new = args.dirs[0] / f"{name}.xlsx", args.dirs[1] / f"{name}.xlsx"
            if not (old.exists() and new.exists()):
                print(f"{name}: no pair of workbooks to compare")
                continue
            found = differences(old, new)
            print(f"{name}: {'SAME' if not found else 'DIFFERENT'}")
            for line in found:
                print("   ", line)
            failed = failed or bool(found)
        return 1 if failed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
