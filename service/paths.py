"""Where bundled files live, relative to the checkout."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
SAMPLE_USAGE = SAMPLES / "usage_hourly.csv"
TEMPLATES = ROOT / "templates"
SHARED_REFERENCE = ROOT.parent / "shared" / "reference"
