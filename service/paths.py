"""Where bundled files live: in the checkout, or in an installed wheel's copy of them.

A checkout keeps templates/, static/, migrations/ and samples/ at its top; a wheel carries
copies in service/bundled/ (setup.py), and its instance folder defaults to
``<prefix>/var/buyrent-instance`` as Flask's does for an installed application.
"""
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
INSTALLED = (PACKAGE / "bundled").is_dir()        # a checkout never has one (build output)
ROOT = PACKAGE / "bundled" if INSTALLED else PACKAGE.parent
DEFAULT_INSTANCE = (Path(sys.prefix) / "var" / "buyrent-instance" if INSTALLED
                    else ROOT / "instance")
SAMPLES = ROOT / "samples"
SAMPLE_USAGE = SAMPLES / "usage_hourly.csv"
TEMPLATES = ROOT / "templates"
SHARED_REFERENCE = ROOT.parent / "shared" / "reference"
STATIC = ROOT / "static"
MIGRATIONS = ROOT / "migrations"
# A committed copy of shared/reference/gpu_prices_catalog.csv (source columns kept) with two
# Seoul (ap-northeast-2) rows read from the same catalog file at the same commit, so that
# presets work on clones without ../shared.
PRESET_CATALOG = PACKAGE / "presets" / "gpu_prices_catalog.csv"
# Country settings (currency, VAT, tariffs), each value dated and sourced
CONTEXT_PRESETS = PACKAGE / "presets" / "context_presets.json"
