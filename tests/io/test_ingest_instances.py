"""The instance table: AWS, Azure NC/ND/NV (partial GPUs), Google Cloud machine types and per-GPU
SKUs, components that are never GPU time, usage units."""
from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pytest
from numpy.testing import assert_allclose

from service.ingest import instances


@pytest.mark.parametrize("text, name, gpus, per_gpu", [
    # AWS descriptions and usage types
    ("$55.04 per On Demand Linux p5.48xlarge Instance Hour", "p5.48xlarge", 8, False),
    ("USE1-BoxUsage:p5.4xlarge", "p5.4xlarge", 1, False),          # not p5.48xlarge
    ("USE1-SpotUsage:g6e.12xlarge", "g6e.12xlarge", 4, False),
    # Azure: ARM size, meter name, product text
    ("Standard_ND96isr_H100_v5", "Standard_ND96isr_H100_v5", 8, False),
    ("ND96isr H100 v5", "Standard_ND96isr_H100_v5", 8, False),
    ("Virtual Machines NCadsA100v4 Series - NC24ads A100 v4 - US East",
     "Standard_NC24ads_A100_v4", 1, False),
    ("NC24 Windows", "Standard_NC24", 4, False),                    # not NC24ads
    ("NV6ads A10 v5", "Standard_NV6ads_A10_v5", 1 / 6, False),      # a sixth of an A10
    ("NV36ads A10 v5 Spot", "Standard_NV36ads_A10_v5", 1, False),
    # Google Cloud machine types and per-GPU SKUs
    ("a3-highgpu-8g", "a3-highgpu-8g", 8, False),
    ("g2-standard-24", "g2-standard-24", 2, False),                # G2 counts are not linear
    ("g2-standard-32", "g2-standard-32", 1, False),
    ("Nvidia Tesla A100 GPU running in Americas", "Nvidia Tesla A100 GPU", 1, True),
    ("Nvidia Tesla A100 80GB GPU running in EMEA", "Nvidia Tesla A100 80GB GPU", 1, True),
    ("Spot Preemptible Nvidia L4 GPU running in Americas", "Nvidia L4 GPU", 1, True),
    ("H200 141GB GPU running in Americas", "H200 141GB GPU", 1, True),
    ("A4 Nvidia B200 (1 gpu slice) running in Americas", "A4 Nvidia B200 (1 gpu slice)", 1,
     True),
])
def test_names_found(text, name, gpus, per_gpu):
    found = instances.match_gpus(pd.Series([text]))
    assert found.name[0] == name
    assert found.gpus[0] == pytest.approx(gpus)
    assert found.per_gpu[0] == per_gpu


@pytest.mark.parametrize("text", [
    "A2 Instance Core running in Americas", "A3 Instance Ram running in Americas",
    "Commitment v1: Nvidia Tesla A100 GPU in Americas for 1 Year",
    "Nvidia Tesla T4 Virtual Workstation GPU running in Americas", "m5.xlarge",
    "Standard_D4s_v5", "n2-standard-8", ""])
def test_not_gpu_time(text):
    found = instances.match_gpus(pd.Series([text]))
    assert found.gpus[0] == 0


def test_component_in_one_column_overrules_a_machine_type_in_another():
    found = instances.first_match([pd.Series(["A3 Instance Core running in Americas", "x"]),
                                   pd.Series(["a3-highgpu-8g", "a3-highgpu-8g"])])
    assert list(found.gpus) == [0, 8]


def test_spot_words():
    found = instances.match_gpus(pd.Series(["NC4as T4 v3 Low Priority", "NC4as T4 v3"]))
    assert list(found.spot) == [True, False]


@pytest.mark.parametrize("unit, hours, gpu_time", [
    ("Hours", 1, False), ("Hrs", 1, False), ("1 Hour", 1, False), ("10 Hours", 10, False),
    ("Instance-Hours", 1, False), ("seconds", 1 / 3600, False), ("GPU-Hours", 1, True),
    ("GB-Hours", 0, False), ("vCPU-Hours", 0, False), ("LCU-Hours", 0, False),
    ("GB-Mo", 0, False), ("", 0, False)])
def test_units(unit, hours, gpu_time):
    per, gpu = instances.hours_per_unit(pd.Series([unit]))
    assert_allclose(per, [hours])
    assert gpu[0] == gpu_time


def test_every_row_has_a_known_source_and_a_positive_gpu_count():
    table = instances.table()
    header = instances.TABLE.read_text().split("cloud,instance_type")[0]
    for source in table.source.unique():
        assert f"#   {source}" in header, source
    assert all(Fraction(g) > 0 for g in table.gpus)
    assert set(table.billed) == {"instance", "gpu"}
    assert not table.instance_type.duplicated().any()
    azure = table[table.cloud == "azure"].instance_type
    assert {s.split("_")[1][:2] for s in azure} == {"NC", "ND", "NV"}
    gcp = set(table[(table.cloud == "gcp") & (table.billed == "instance")].instance_type)
    assert {t.split("-")[0] for t in gcp} == {"a2", "a3", "a4", "g2"}
