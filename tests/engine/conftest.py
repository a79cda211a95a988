"""Fixtures of the engine tests: the bundled sample planned by models/ alone (no service; the
hourly sample is read by tests.support.engine_cases.csv_profile)."""
from __future__ import annotations

import json

import pytest

from tests.support.plans import compute_plan
from models.profile import UsageProfile
from models.scenario import Scenario
from tests.support.engine_cases import csv_profile
from tests.support.paths import SAMPLE_SCENARIO, SAMPLE_USAGE


@pytest.fixture(scope="module")
def sample_profile() -> UsageProfile:
    return csv_profile(SAMPLE_USAGE)


@pytest.fixture(scope="module")
def sample_scenario() -> Scenario:
    return Scenario.model_validate(json.loads(SAMPLE_SCENARIO.read_text()))


@pytest.fixture(scope="module")
def engine_plan(sample_scenario, sample_profile):
    """The sample plan from models.plan.compute_plan (a Plan; the shared ``sample_plan``
    fixture is the web app's (scenario, plan) pair)."""
    return compute_plan(sample_scenario, sample_profile)
