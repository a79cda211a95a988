"""A scenario read from a file a person uploads: the JSON the command line plans
(``buyrent plan --scenario FILE``) or a buyrent plan workbook (its Assumptions sheet).

The JSON is read by the loader the command line uses (``models.scenario.scenario_from_json``:
JSON types checked strictly, old files' flat uncertainty keys upgraded by the schema), so a
file the command line plans is a file the page accepts; a workbook by the reader of the edit
page's "Load into the form" (``service.xlsx.roundtrip.scenario_from_xlsx``). What is wrong is
said as the page shows it: one sentence for a file that is no scenario at all, and one line
per field, named by its label, for a scenario that breaks the schema.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Optional

from pydantic import ValidationError

from models.scenario import Scenario, scenario_from_json
from service.forms.scenario import GENERAL, label_for, section_title
from service.i18n import DEFAULT, _, current_locale
from service.i18n.ingest_refusals import refusal
from service.i18n.validation import error_message
from service.xlsx.roundtrip import OLE_MAGIC, WorkbookError, scenario_from_xlsx

ZIP_MAGIC = b"PK\x03\x04"


@dataclass(frozen=True)
class FieldProblem:
    """One field of the file's scenario that breaks the schema, as a page shows it."""
    label: str                  # "Owned servers: PUE", in the reader's language
    message: str                # "Input should be greater than or equal to 1"
    cell: Optional[str] = None  # where a workbook holds it: "Assumptions!C12"
    english: bool = False       # the message is pydantic's English (no translation knows it)


class ScenarioFileError(ValueError):
    """A file that gives no scenario: ``message`` says why, ``problems`` by field when its
    scenario breaks the schema (empty when the file is not a scenario at all)."""

    def __init__(self, message: str, problems: list[FieldProblem] | None = None):
        super().__init__(message)
        self.message = message
        self.problems = problems or []


def is_workbook(data: bytes, filename: str) -> bool:
    """An .xlsx by its name, or a zip or OLE container whatever its name (a workbook saved as
    "scenario.json" by mistake is read as what it is)."""
    return filename.lower().endswith(".xlsx") or data.startswith((ZIP_MAGIC, OLE_MAGIC))


def read_scenario_file(data: bytes, filename: str) -> Scenario:
    """The scenario of an uploaded scenario JSON or buyrent workbook.

    Raises
    ------
    ScenarioFileError
        An empty file, a file that is not JSON (or not UTF-8), JSON that is not an object, a
        workbook the reader refuses, or a scenario that breaks the schema (by field).
    """
    if not data.strip():
        raise ScenarioFileError(_("The file is empty: choose a scenario file (.json) or a "
                                  "buyrent workbook (.xlsx)."))
    if is_workbook(data, filename):
        return _from_workbook(data)
    return _from_json(data)


def _from_json(data: bytes) -> Scenario:
    try:
        text = data.decode("utf-8")     # as the command line reads the file
    except UnicodeDecodeError:
        raise ScenarioFileError(_("The file is not UTF-8 text: a scenario file is JSON "
                                  "saved as UTF-8.")) from None
    try:
        value = json.loads(text)        # the line and column of broken JSON
    except json.JSONDecodeError as exc:
        raise ScenarioFileError(_(
            "The file is not JSON (line %(line)s, column %(column)s cannot be read): a "
            "scenario file is one JSON object of assumptions, such as the command line's "
            "--scenario reads.", line=exc.lineno, column=exc.colno)) from None
    except RecursionError:
        raise ScenarioFileError(_("The file's JSON is nested too deeply to be a "
                                  "scenario.")) from None
    if not isinstance(value, dict):
        raise ScenarioFileError(_("The file holds JSON but not a scenario: a scenario file is "
                                  "one JSON object ({...}) of assumptions."))
    try:
        return scenario_from_json(text)
    except ValidationError as exc:
        raise ScenarioFileError(_("The file's scenario is invalid:"),
                                [problem(item) for item in exc.errors()]) from None


def _from_workbook(data: bytes) -> Scenario:
    try:
        return scenario_from_xlsx(data)
    except WorkbookError as exc:
        if exc.problems:
            raise ScenarioFileError(_("The workbook's scenario is invalid:"),
                                    [problem(item, cell) for item, cell in exc.problems]) \
                from None
        raise ScenarioFileError(_("Cannot read the workbook: %(reason)s",
                                  reason=refusal(str(exc)))) from None


def problem(item: dict, cell: Optional[str] = None) -> FieldProblem:
    """A pydantic error item as a page names it: the field's label, never its path (a rule
    of the whole scenario is the Scenario's)."""
    loc = [str(part) for part in item["loc"]]
    if loc[:2] == ["owned", "financing"] and loc[2:3] in (["cash"], ["loan"]):
        del loc[2]      # the tag of the financing union is no field
    path = ".".join(loc)
    message = error_message(item, label_for)
    english = current_locale() != DEFAULT and \
        message == str(item.get("msg", "")).removeprefix("Value error, ")
    return FieldProblem(label_for(path) if path else section_title(GENERAL), message, cell,
                        english)
