"""GPUs per cloud instance type, and finding instance types in billing-export text.

The table (instance_gpus.csv, next to this file) is a copy of the project's reference catalog
so that ingest works where ../shared is absent; its header names the sources and commits.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

TABLE = Path(__file__).with_name("instance_gpus.csv")


@lru_cache(maxsize=1)
def table() -> pd.DataFrame:
    return pd.read_csv(TABLE, comment="#")


def _key(name: str) -> str:
    tokens = re.findall(r"[a-z0-9]+", name.lower())
    if tokens and tokens[0] == "standard":   # Azure writes Standard_ND96isr_H100_v5 or ND96isr H100 v5
        tokens = tokens[1:]
    return "".join(tokens)


@lru_cache(maxsize=1)
def _matcher() -> tuple[re.Pattern, dict[str, int], dict[str, str]]:
    gpus, canonical = {}, {}
    patterns = []
    for name, count in zip(table().instance_type, table().gpus):
        tokens = re.findall(r"[a-z0-9]+", name.lower())
        if tokens[0] == "standard":
            tokens = tokens[1:]
        gpus[_key(name)] = int(count)
        canonical[_key(name)] = name
        patterns.append(r"(?:standard[_ ])?" * (name.lower().startswith("standard"))
                        + r"[._ -]?".join(map(re.escape, tokens)))
    patterns.sort(key=len, reverse=True)
    regex = re.compile(r"(?<![a-z0-9])(" + "|".join(patterns) + r")(?![a-z0-9])")
    return regex, gpus, canonical


def gpus_per_instance(text: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(instance type found or '', GPUs per instance or 0) for each text."""
    regex, gpus, canonical = _matcher()
    codes, uniques = pd.factorize(text.fillna("").astype(str).str.lower())
    found = [regex.search(u) for u in uniques]
    names = np.array([canonical[_key(m.group(1))] if m else "" for m in found] + [""],
                     dtype=object)
    counts = np.array([gpus.get(_key(m.group(1)), 0) if m else 0 for m in found] + [0])
    return names[codes], counts[codes]
