"""Where bundled files live, relative to the checkout."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
SAMPLE_USAGE = SAMPLES / "usage_hourly.csv"
TEMPLATES = ROOT / "templates"
SHARED_REFERENCE = ROOT.parent / "shared" / "reference"
STATIC = ROOT / "static"
MIGRATIONS = ROOT / "migrations"
# A committed copy of shared/reference/gpu_prices_catalog.csv (source columns kept) with two
# Seoul (ap-northeast-2) rows read from the same catalog file at the same commit, so that
# presets work on clones without ../shared.
PRESET_CATALOG = Path(__file__).resolve().parent / "presets" / "gpu_prices_catalog.csv"
# Country settings (currency, VAT, tariffs), each value dated and sourced
CONTEXT_PRESETS = Path(__file__).resolve().parent / "presets" / "context_presets.json"
