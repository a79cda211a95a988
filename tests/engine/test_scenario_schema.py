"""The scenario's JSON Schema is pinned (issue 36, item 3): the form, the JSON API, the CLI and
the Assumptions sheet are generated from it, so moving the sections between modules (they live
in models/scenario_*.py by what they hold) must leave every field, bound, label and the order of
the fields as they were.

When a field is meant to change, write the new schema with
``.venv/bin/python -m tests.engine.test_scenario_schema`` and review the diff of
tests/data/scenario_schema.json in the commit.
"""
from __future__ import annotations

import json
import pathlib

from models.scenario import Scenario

PINNED = pathlib.Path(__file__).parents[1] / "data" / "scenario_schema.json"


def schema_text() -> str:
    # the text, not the dict: a dict compares equal in any order, and the order of the fields
    # is the order of the form and of the Assumptions sheet
    return json.dumps(Scenario.model_json_schema(), indent=1) + "\n"


def test_schema_is_the_pinned_one_field_by_field_in_order():
    pinned, now = PINNED.read_text(), schema_text()
    assert list(json.loads(now)["properties"]) == list(json.loads(pinned)["properties"])
    assert now == pinned


def test_every_section_class_keeps_its_name_in_the_schema():
    # $defs are named by class: a renamed or duplicated section would rename the references
    # stored documents and the OpenAPI page use
    names = set(json.loads(PINNED.read_text())["$defs"])
    assert names == set(Scenario.model_json_schema()["$defs"])
    assert {"Owned", "ServerType", "Staging", "Proposed", "Position"} <= names


if __name__ == "__main__":
    PINNED.write_text(schema_text())
