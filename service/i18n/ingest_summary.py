"""The upload preview's "what the reader found" table in the reader's language."""
from __future__ import annotations

from typing import Any

from service.i18n import N_, gettext
from service.i18n import formats
from service.i18n.charts import source_label
from service.i18n.labels import PERIODS, timestamp

KEYS = {
    "format": N_("Format"), "rows": N_("Rows read"), "period": N_("Period"),
    "periods": N_("Periods"), "first": N_("First period"), "last": N_("Last period"),
    "gpu_hours": N_("GPU-hours"), "steady_gpu_hours": N_("Steady GPU-hours"),
    "interruptible_gpu_hours": N_("Interruptible GPU-hours"), "peak_gpus": N_("Peak GPUs"),
    "teams": N_("GPU-hours by team"), "pricing_categories": N_("GPU-hours by pricing"),
    "skipped_rows": N_("Skipped rows"), "missing_periods": N_("Missing periods"),
    "duplicates": N_("Duplicate rows"), "jobs": N_("Jobs"),
    "partitions": N_("GPU-hours by partition"),
}
FORMATS = {"csv": "CSV", "xlsx": "XLSX", "focus": "FOCUS 1.0", "aws_cur": "AWS CUR",
           "slurm": "Slurm sacct"}


def _value(key: str, value: Any) -> str:
    if isinstance(value, dict):
        if not value:
            return "-"
        names = source_label if key == "pricing_categories" else str
        return ", ".join(f"{names(k)}: {formats.number(v) if isinstance(v, (int, float)) else v}"
                         for k, v in value.items())
    if key == "format":
        return FORMATS.get(str(value), str(value))
    if key in ("first", "last"):
        return timestamp(value)
    if key == "period":
        return gettext(PERIODS[value]) if value in PERIODS else str(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return formats.number(value)


def summary_rows(summary: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, value) rows of an ingest summary."""
    return [(gettext(KEYS[k]) if k in KEYS else k.replace("_", " "), _value(k, v))
            for k, v in summary.items()]
