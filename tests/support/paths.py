"""Where the tests find the repository, its samples and their own data (tests/data), from any
layer folder; pure paths, so engine tests can use them without importing service."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
DATA = ROOT / "tests" / "data"
SAMPLE_USAGE = SAMPLES / "usage_hourly.csv"
SAMPLE_SCENARIO = SAMPLES / "scenario_h100.json"
