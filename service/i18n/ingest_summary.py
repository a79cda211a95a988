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
    # billing exports (FOCUS, AWS CUR, Azure, Google Cloud) and GPU busy-time files
    "focus_version": N_("FOCUS version"), "focus_columns": N_("FOCUS columns by version"),
    "commitments": N_("Committed GPU-hours by commitment"),
    "providers": N_("GPU-hours by provider"), "gpu_cost": N_("GPU cost by currency"),
    "price_per_gpu_hour": N_("Price per GPU-hour by currency"),
    "idle_commitment_rows": N_("Unused commitment rows"),
    "idle_commitment_cost": N_("Unused commitment cost"),
    "idle_commitments": N_("Unused commitments"),
    "idle_capacity_reservation_cost": N_("Unused capacity reservation cost"),
    "contract_commitments": N_("GPU-hours by contract commitment"),
    "commitment_fees": N_("Commitment fees"), "cost_basis": N_("Cost basis"),
    "metric": N_("Metric"), "hosts": N_("Hosts"), "gpus": N_("GPUs"), "samples": N_("Samples"),
    "on_demand": N_("on demand"), "committed": N_("committed"), "spot": N_("spot"),
    "other": N_("other"), "cost": N_("cost"), "gpu_hours_idle": N_("idle GPU-hours"),
}
VALUES = {"amortized": N_("amortized"), "actual": N_("actual"),
          "actual or amortized (no purchase or unused commitment rows tell them apart)":
          N_("actual or amortized (no purchase or unused commitment rows tell them apart)")}
FORMATS = {"csv": "CSV", "xlsx": "XLSX", "focus": "FOCUS", "aws_cur": "AWS CUR",
           "slurm": "Slurm sacct", "azure": "Azure cost details",
           "gcp": "Google Cloud billing export", "focus_contract_commitment":
           "FOCUS 1.3 Contract Commitment", "dcgm_prometheus": "DCGM Prometheus",
           "dcgm_csv": "DCGM CSV", "nvidia_smi": "nvidia-smi"}   # proper names stay as they are


def _value(key: str, value: Any) -> str:
    if isinstance(value, dict):
        if not value:
            return "-"
        names = source_label if key == "pricing_categories" else _key_label
        return ", ".join(f"{names(k)}: " + (f"({_value(k, v)})" if isinstance(v, dict)
                                            else _value(k, v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(_value(key, v) for v in value) or "-"
    if value is None:
        return "-"
    if key == "format":
        return FORMATS.get(str(value), str(value))
    if key in ("first", "last", "from", "to", "start"):
        return timestamp(value)
    if key == "period":
        return gettext(PERIODS[value]) if value in PERIODS else str(value)
    if isinstance(value, str) and value in VALUES:
        return gettext(VALUES[value])
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return formats.number(value)


def _key_label(key: Any) -> str:
    return gettext(KEYS[key]) if key in KEYS else str(key)


def summary_rows(summary: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(label, value, label translated?) rows of an ingest summary; the GPU busy time has a
    section of its own on the preview page."""
    return [(gettext(KEYS[k]) if k in KEYS else k.replace("_", " "), _value(k, v), k in KEYS)
            for k, v in summary.items() if k != "busy"]
