"""Downloadable usage templates, generated here so they always match what ingest reads."""
from __future__ import annotations

import datetime as dt
import io

import xlsxwriter

HEADER = ["timestamp", "gpu_hours", "workload", "team"]
EXAMPLE = [
    ["2027-01-01T00:00:00", 24.0, "steady", "serving"],
    ["2027-01-01T00:00:00", 64.0, "interruptible", "research"],
    ["2027-01-01T01:00:00", 22.5, "steady", "serving"],
    ["2027-01-01T01:00:00", 64.0, "interruptible", "research"],
    ["2027-01-01T02:00:00", 21.0, "steady", "serving"],
]
INSTRUCTIONS = [
    ("Column", "Required", "What to write"),
    ("timestamp", "yes", ("Start of the period: 2027-01-31T13:00 (hour), 2027-01-31 (day) or "
     "2027-01 (month); an Excel date cell also works. One period length per file. Offsets such "
     "as +02:00 are converted to UTC. Not 01/02/2027: write ISO dates.")),
    ("gpu_hours", "yes (or gpus)", ("GPU-hours used in the period, a number >= 0. Instead you "
     "may give a 'gpus' column: the average number of GPUs busy over the period.")),
    ("workload", "no", ("steady (serving, interactive: cannot be interrupted) or interruptible "
     "(checkpointed training, batch jobs). Empty or missing = steady. Alternatively a true/false "
     "'interruptible' column.")),
    ("team", "no", "Any label, kept for reporting."),
    ("", "", ""),
    ("Rules", "", ("Several rows for the same period (one per team or workload) are added up. "
     "Periods missing inside the range count as zero usage. Headers ignore case, spaces and "
     "punctuation (GPU Hours = gpu_hours). Only the sheet named 'usage' is read (else the "
     "first visible sheet). No formulas without values, no merged cells.")),
    ("Limits", "", "20 MB, 500,000 rows, 50 columns."),
    ("Also read", "", ("FOCUS 1.0 billing exports, AWS Cost and Usage Reports (legacy CUR) and "
     "Slurm 'sacct --parsable2 --format=JobID,Start,End,AllocTRES,Partition,Account' output, "
     "uploaded as they are.")),
]


def usage_template_csv() -> bytes:
    lines = [",".join(HEADER)] + [",".join(str(v) for v in row) for row in EXAMPLE]
    return ("\n".join(lines) + "\n").encode("utf-8")


def usage_template_xlsx() -> bytes:
    out = io.BytesIO()
    book = xlsxwriter.Workbook(out, {"in_memory": True})
    book.set_properties({"created": dt.datetime(2026, 11, 30)})   # same bytes on every call
    bold = book.add_format({"bold": True})
    wrap = book.add_format({"text_wrap": True, "valign": "top"})
    usage = book.add_worksheet("usage")
    usage.write_row(0, 0, HEADER, bold)
    for r, row in enumerate(EXAMPLE, start=1):
        usage.write_row(r, 0, row)
    usage.set_column(0, 0, 22)
    usage.set_column(1, 3, 14)
    usage.freeze_panes(1, 0)
    notes = book.add_worksheet("instructions")
    for r, row in enumerate(INSTRUCTIONS):
        notes.write_row(r, 0, row, bold if r == 0 else wrap)
    notes.set_column(0, 1, 14)
    notes.set_column(2, 2, 90)
    book.close()
    return out.getvalue()
