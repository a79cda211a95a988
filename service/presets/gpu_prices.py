"""Cloud price presets from the SkyPilot-derived catalog, with the source kept per value.

The catalog is a committed copy of ``shared/reference/gpu_prices_catalog.csv``. It records the
catalog commit of every price but no retrieval date, so the commit is the date stamp we show.
"""
from __future__ import annotations

import csv
import functools
import re
from dataclasses import dataclass
from typing import Optional

from service.i18n import _
from service.paths import PRESET_CATALOG
from service.presets.fields import rounded


@dataclass(frozen=True)
class Preset:
    id: str
    cloud: str
    instance_type: str
    accelerator: str
    gpus: int
    region: str
    on_demand_per_gpu_hour: float
    spot_per_gpu_hour: Optional[float]
    note: str                # English, from the catalog; shown through the catalog (note_text)
    source: str              # English, as recorded with a revision; shown as source_text
    commit: str = ""         # the catalog commit that dates its prices

    kind = "gpu"

    @property
    def source_text(self) -> str:
        """Where the prices come from, in the reader's language."""
        return source_text(self.source)

    @property
    def note_text(self) -> str:
        """The catalog's note in the reader's language (service/i18n/extract.py extracts it)."""
        return _(self.note) if self.note else ""

    @property
    def label(self) -> str:
        """The chooser's option in the reader's language: the cloud by its name, the instance
        type and region as the cloud spells them (proper names), the price per GPU-hour."""
        return _("%(cloud)s %(instance)s (%(region)s, %(gpus)s GPU) %(price)s per GPU-hour",
                 cloud=CLOUD_NAMES.get(self.cloud, self.cloud),
                 instance=instance_text(self.instance_type), region=self.region, gpus=self.gpus,
                 price=f"${self.on_demand_per_gpu_hour:.2f}")

    def changes(self) -> dict:
        """Scenario sections/fields this preset sets, prices rounded to their field's precision
        in dollars (four places per GPU-hour: the catalog's 1.3492375 is 1.3492)."""
        # the catalog's prices are in dollars: a scenario reporting in another currency
        # converts them at its fx.rate (and is refused until it has one); a context preset
        # never converts them (service/presets/context.py), so the two stack in either order
        spot: dict = {"price_per_gpu_hour": None if self.spot_per_gpu_hour is None else
                      rounded("spot.price_per_gpu_hour", self.spot_per_gpu_hour, "USD")}
        if self.spot_per_gpu_hour is None:
            # no listed spot price (AWS Seoul p5): spot is off rather than priced at the
            # default discount, which would be an assumption presented as the catalog's
            spot["availability"] = 0.0
        return {"cloud_terms": {"currency": "USD"},
                "on_demand": {"price_per_gpu_hour": rounded(
                    "on_demand.price_per_gpu_hour", self.on_demand_per_gpu_hour, "USD")},
                "spot": spot, "commitments": {"block_gpus": self.gpus}}

    def fields(self) -> list[str]:
        """Paths of the scenario fields this preset sets."""
        spot = ["spot.price_per_gpu_hour"] + (["spot.availability"]
                                              if self.spot_per_gpu_hour is None else [])
        return ["cloud_terms.currency", "on_demand.price_per_gpu_hour", *spot,
                "commitments.*.block_gpus"]

    def paths(self, data: dict) -> list[str]:
        """The fields the preset names in this scenario data (a block size per offer)."""
        rows = [f"commitments.{i}.block_gpus" for i in range(len(data.get("commitments") or []))]
        return [p for p in self.fields() if "*" not in p] + rows

    def provenance(self) -> dict:
        return {"id": self.id, "label": self.label, "source": self.source, "note": self.note,
                "fields": self.fields()}

    def marks(self, data: dict) -> dict[str, str]:
        """Where each value it set comes from, by path (shown beside the field)."""
        text = self.source_text + (f" ({self.note_text})" if self.note else "")
        return {path: text for path in self.paths(data)}

    def apply(self, data: dict) -> dict:
        return apply(data, self)


RECORDED_SOURCE = re.compile(r"SkyPilot catalog (?P<file>.+) at commit (?P<commit>\w+)")


def source_text(source: str) -> str:
    """A price preset's source as recorded with a revision ("SkyPilot catalog <repository>
    <file> at commit <commit>", English) in the reader's language; another text as it is."""
    m = RECORDED_SOURCE.fullmatch(source or "")
    if m is None:
        return source
    return _("SkyPilot catalog %(file)s at commit %(commit)s", file=m["file"],
             commit=m["commit"][:7])


# the catalog's cloud keys as the clouds write their own names
CLOUD_NAMES = {"aws": "AWS", "gcp": "GCP", "azure": "Azure", "lambda": "Lambda",
               "nebius": "Nebius"}
GCP_ACCELERATOR = re.compile(r"\(accelerator\) (?P<gpu>\S+) \[(?P<host>\S+) host\]")


def instance_text(instance_type: str) -> str:
    """An instance type as the chooser shows it; Google's GPU-only rows
    ("(accelerator) A100 [a2-highgpu host]") in words."""
    m = GCP_ACCELERATOR.fullmatch(instance_type)
    if m is None:
        return instance_type
    return _("%(gpu)s accelerator on a %(host)s host", gpu=m["gpu"], host=m["host"])


def _number(text: str) -> Optional[float]:
    text = (text or "").strip()
    return float(text) if text else None


@functools.cache
def load_presets() -> dict[str, Preset]:
    presets: dict[str, Preset] = {}
    with open(PRESET_CATALOG, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            price = _number(row["ondemand_per_gpu_hr"])
            if price is None:
                continue
            preset_id = f"{row['cloud']}/{row['instance_type']}/{row['region']}"
            source = (f"SkyPilot catalog {row['catalog_repo']} {row['catalog_path']} at commit "
                      f"{row['catalog_commit'][:7]}")
            presets[preset_id] = Preset(
                preset_id, row["cloud"], row["instance_type"], row["accelerator"],
                int(row["accelerator_count"]), row["region"], price,
                _number(row["spot_min_per_gpu_hr"]), row["note"], source, row["catalog_commit"])
    return presets


def grouped() -> dict[str, list[Preset]]:
    """Presets by GPU model, for the preset chooser."""
    out: dict[str, list[Preset]] = {}
    for preset in load_presets().values():
        out.setdefault(preset.accelerator, []).append(preset)
    return dict(sorted(out.items()))


def apply(data: dict, preset: Preset) -> dict:
    """Scenario data with the preset's prices filled in (validated later by the caller)."""
    data = {**data}
    for section, changes in preset.changes().items():
        if section == "commitments":
            data["commitments"] = [{**offer, **changes} for offer in data.get("commitments", [])]
        else:
            data[section] = {**data.get(section, {}), **changes}
    return data
