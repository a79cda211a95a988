"""GPUs per cloud instance type or per-GPU SKU, and finding them in billing-export text.

The table (instance_gpus.csv, next to this file) names its sources in its header. A row is either
an instance type (``billed=instance``: GPU-hours = instance-hours x gpus, gpus may be a fraction
for partial-GPU sizes) or a per-GPU SKU (``billed=gpu``: Google Cloud bills each GPU apart from
the VM, so one unit of usage is one GPU). Texts that name a VM's vCPU or RAM component, a
commitment fee or a workstation licence are never GPU usage, even when they name a GPU machine.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from service.ingest.exports import by_value

TABLE = Path(__file__).with_name("instance_gpus.csv")
# Google bills an A2/A3/G2 VM as "A2 Instance Core", "A2 Instance Ram" and a GPU SKU; the core and
# RAM rows may carry the machine type in their labels, but they are not GPU time.
COMPONENT = re.compile(r"instance core|instance ram|core running|ram running|\bvcpu|"
                       r"commitment v\d|virtual workstation|sole tenancy|\blicen[cs]e")
SPOT = re.compile(r"\bspot\b|preemptible|low priority")
SEPARATOR = r"[^a-z0-9]{0,2}"


@lru_cache(maxsize=1)
def table() -> pd.DataFrame:
    return pd.read_csv(TABLE, comment="#", dtype={"gpus": str})


def _tokens(name: str) -> list[str]:
    tokens = re.findall(r"[a-z0-9]+", name.lower())
    if tokens and tokens[0] == "standard":   # Azure: Standard_ND96isr_H100_v5 or ND96isr H100 v5
        tokens = tokens[1:]
    return tokens


@lru_cache(maxsize=1)
def _matcher() -> tuple[re.Pattern, dict[str, int], dict[str, np.ndarray]]:
    """The regex of every name, its table row by joined tokens, and per-row columns (the last
    entry of each column stands for 'no match')."""
    rows, patterns = {}, []
    rows_table = table()
    for i, name in enumerate(rows_table.instance_type):
        tokens = _tokens(name)
        rows["".join(tokens)] = i
        prefix = r"(?:standard[_ ])?" if name.lower().startswith("standard") else ""
        patterns.append(prefix + SEPARATOR.join(map(re.escape, tokens)))
    patterns.sort(key=len, reverse=True)   # p5.48xlarge before p5.4xlarge, A100 80GB before A100
    regex = re.compile(r"(?<![a-z0-9])(" + "|".join(patterns) + r")(?![a-z0-9])")
    columns = {
        "name": np.array(list(rows_table.instance_type) + [""], dtype=object),
        "gpus": np.array([float(Fraction(g)) for g in rows_table.gpus] + [0.0]),
        "per_gpu": np.array(list(rows_table.billed == "gpu") + [False]),
        "cloud": np.array(list(rows_table.cloud) + [""], dtype=object),
        "accelerator": np.array(list(rows_table.accelerator) + [""], dtype=object)}
    return regex, rows, columns


@dataclass
class GpuMatch:
    """Per input text: which table row it names (-1: none), how many GPUs one unit of its usage
    is, and what its words say."""

    row: np.ndarray        # index into instance_gpus.csv, -1 when no GPU is named
    gpus: np.ndarray       # GPUs per unit of usage (instance-hour or GPU-hour) [GPUs]
    spot: np.ndarray       # bool: the text says spot, preemptible or low priority
    component: np.ndarray  # bool: the text names a VM's vCPU/RAM part, a fee or a licence

    def _column(self, key: str) -> np.ndarray:
        return _matcher()[2][key][self.row]          # row -1 picks the 'no match' entry

    @property
    def name(self) -> np.ndarray:
        """Instance type or SKU as the table writes it, '' when none."""
        return self._column("name")

    @property
    def per_gpu(self) -> np.ndarray:
        """bool: a per-GPU SKU (Google Cloud)."""
        return self._column("per_gpu")

    @property
    def cloud(self) -> np.ndarray:
        return self._column("cloud")

    @property
    def accelerator(self) -> np.ndarray:
        """The GPU type (H100, L4, A100 ...), '' when none."""
        return self._column("accelerator")


def match_gpus(text: pd.Series) -> GpuMatch:
    """Find GPU instance types and per-GPU SKUs in texts (computed once per distinct text)."""
    regex, rows, columns = _matcher()
    codes, uniques = pd.factorize(text, use_na_sentinel=True)
    lowered = [str(u).lower() for u in uniques]
    component = np.array([bool(COMPONENT.search(low)) for low in lowered] + [False])
    hits = [None if c else regex.search(low) for low, c in zip(lowered, component)]
    row = np.array([rows["".join(_tokens(h.group(1)))] if h else -1 for h in hits] + [-1],
                   dtype=np.int32)
    spot = np.array([bool(SPOT.search(low)) for low in lowered] + [False])
    codes = np.asarray(codes)
    return GpuMatch(row[codes], columns["gpus"][row][codes], spot[codes], component[codes])


def first_match(texts: list[pd.Series]) -> GpuMatch:
    """Several text columns of the same rows: the first column that names a GPU wins; a row
    any column calls a component (vCPU, RAM, fee) has no GPUs; spot if any column says so."""
    out = match_gpus(texts[0])
    for text in texts[1:]:
        m = match_gpus(text)
        take = (out.row < 0) & (m.row >= 0)
        out = GpuMatch(np.where(take, m.row, out.row), np.where(take, m.gpus, out.gpus),
                       out.spot | m.spot, out.component | m.component)
    return GpuMatch(np.where(out.component, -1, out.row), np.where(out.component, 0.0, out.gpus),
                    out.spot, out.component)


def hours_per_unit(units: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(hours per unit of usage, the unit is already GPU time) for each usage-unit text.

    Hours, Hrs, "1 Hour", "10 Hours" (Azure packs), Instance-Hours and seconds (Google Cloud GPU
    SKUs) are time; GPU-Hours is GPU time. Compound units such as GB-Hours or vCPU-Hours are not
    instance time: 0.
    """
    def parse(cell: str) -> tuple[float, bool]:
        m = UNIT.match(cell.strip().lower())
        if not m:
            return 0.0, False
        count = float(m.group(1)) if m.group(1) else 1.0
        per = 1.0 if m.group(3) else 1 / 60 if m.group(4) else 1 / 3600
        return count * per, bool(m.group(2))
    hours = by_value(units, lambda s: np.array([parse(c)[0] for c in s], dtype=float))
    gpu_time = by_value(units, lambda s: np.array([parse(c)[1] for c in s], dtype=bool))
    return hours, gpu_time


UNIT = re.compile(r"^(\d+(?:\.\d+)?)?\s*(gpu[- _]?)?(?:instance[- _]?)?"
                  r"(?:(hours?|hrs?|hr|h)|(minutes?|mins?)|(seconds?|secs?|s))$")


def gpus_per_instance(text: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(instance type or SKU found or '', GPUs per unit of usage or 0) for each text."""
    found = match_gpus(text)
    return found.name, found.gpus
