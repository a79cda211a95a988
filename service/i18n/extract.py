"""Babel extractors for strings that are data, not literals at a call site.

Every scenario field carries its label, unit, help and source once, on its pydantic field
(models.fields.field()); some are composed (the uncertainty ranges' "X: low"). Instead of
retyping them into a list, these extractors import the schema and yield what the pages and the
workbook will show, each with the field path as a translator comment. babel.cfg maps
models/scenario*.py (the scenario and its section modules) and models/ranges.py to them.
"""
from __future__ import annotations

import csv
import inspect
import io
import json
import pathlib
import sys
import typing
from typing import Any, Iterator

from babel.messages.extract import extract_python
from pydantic import BaseModel

from models.assumptions import ASSUMPTIONS
from models.document_rules import DISTRIBUTION_NOTE, RULES
from models.scenario import Scenario
from models.scenario_owned import LoanFinancing

Extracted = tuple[int, str, str, list[str]]


def schema_texts() -> Iterator[tuple[str, str, str]]:
    """(path, what, text) of every shown text of the scenario schema."""
    for _model, path, what, text in _declared_texts():
        yield path, what, text


def _declared_texts() -> Iterator[tuple[type[BaseModel], str, str, str]]:
    """(section model, path, what, text) of every shown text of the scenario schema: the model
    is the section that declares the field, whose module the catalog's reference names."""
    seen: set[type] = set()

    def walk(model: type[BaseModel], prefix: str) -> Iterator[tuple]:
        if model in seen:
            return
        seen.add(model)
        for name, info in model.model_fields.items():
            path = f"{prefix}{name}"
            extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else None
            if extra is not None:  # declared with field(): label, unit, help, source
                for what, text in (("label", info.title), ("unit", extra.get("unit")),
                                   ("help", extra.get("help")),
                                   ("source", extra.get("source"))):
                    if text:
                        yield model, path, what, text
            else:
                for what, text in (("title", info.title), ("description", info.description)):
                    if text:
                        yield model, path, what, text
            for inner in nested_models(info.annotation):
                yield from walk(inner, f"{path}.")

    yield from walk(Scenario, "")
    yield from walk(LoanFinancing, "owned.financing.")


def _declared_in(model: type[BaseModel], fileobj) -> bool:
    """Whether the section is declared in the file babel extracts (models/scenario*.py: the
    scenario's sections live in one module each by what they hold)."""
    source = sys.modules[model.__module__].__file__
    return pathlib.Path(source).resolve() == pathlib.Path(fileobj.name).resolve()


def nested_models(annotation: Any) -> Iterator[type[BaseModel]]:
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        yield annotation
        return
    for arg in typing.get_args(annotation):
        yield from nested_models(arg)


def assumption_texts() -> Iterator[tuple[str, str, str]]:
    """Labels and units of the uncertainty assumptions (tornado rows)."""
    for a in ASSUMPTIONS:
        yield a.key, "label", a.label
        yield a.key, "unit", a.unit


def _lines(fileobj) -> list[str]:
    return fileobj.read().decode("utf-8").splitlines()


def _line_of(lines: list[str], path: str) -> int:
    """The line that declares the path's last part, or the range of an assumption key (for the
    catalog's #: references)."""
    for part in path.split("."):
        for number, line in enumerate(lines, start=1):
            if line.lstrip().startswith(f'("{part}", '):   # a row of models/ranges.NAMES
                return number
    key = path.rsplit(".", 1)[-1]
    for number, line in enumerate(lines, start=1):
        if line.lstrip().startswith(f"{key}:"):
            return number
    return 1


def _extract(texts, fileobj) -> Iterator[Extracted]:
    lines = _lines(fileobj)
    for path, what, text in texts:
        yield _line_of(lines, path), "gettext", text, [f"{path} ({what})"]


def _of_ranges(path: str) -> bool:
    """Texts of the uncertainty section, declared in models/ranges.py."""
    return path.startswith("uncertainty.")


def scenario_fields(fileobj, keywords, comment_tags, options) -> Iterator[Extracted]:
    """Babel extraction method for models/scenario*.py: the texts of the sections each file
    declares."""
    yield from _extract(((path, what, text) for model, path, what, text in _declared_texts()
                         if not _of_ranges(path) and _declared_in(model, fileobj)), fileobj)


def range_fields(fileobj, keywords, comment_tags, options) -> Iterator[Extracted]:
    """Babel extraction method for models/ranges.py: the uncertainty section's fields and the
    assumptions' labels and units (tornado rows)."""
    texts = [t for t in schema_texts() if _of_ranges(t[0])] + list(assumption_texts())
    yield from _extract(texts, fileobj)


def document_texts() -> Iterator[tuple[str, str, str]]:
    """The rules and notes the plan document states in words (models/document_rules.py)."""
    for key, value in RULES.items():
        if isinstance(value, dict):
            for sub, text in value.items():
                yield f"rules.{key}.{sub}", "rule", text
        else:
            yield f"rules.{key}", "rule", value
    yield "uncertainty.distribution_note", "note", DISTRIBUTION_NOTE


def document_rules(fileobj, keywords, comment_tags, options) -> Iterator[Extracted]:
    """Babel extraction method for models/document_rules.py: its rules, then the literals its
    code marks (Message templates) as the Python extractor finds them."""
    data = fileobj.read()
    for _line, _function, text, comments in _extract(document_texts(), _Bytes(data)):
        yield 1, "gettext", text, comments
    yield from extract_python(_Bytes(data), keywords, comment_tags, options)


class _Bytes:
    """A file object that can be read again (each extractor reads the whole file)."""

    def __init__(self, data: bytes):
        self._io = io.BytesIO(data)

    def __getattr__(self, name):
        return getattr(self._io, name)


def context_presets(fileobj, keywords, comment_tags, options) -> Iterator[Extracted]:
    """Babel extraction method for service/presets/context_presets.json: each preset's label
    and its values' sources (service/presets/context.py shows them through the catalog)."""
    raw = json.loads(fileobj.read().decode("utf-8"))
    for key, item in raw.items():
        yield 1, "gettext", item["label"], [f"context preset {key} (label)"]
        for path, text in item["sources"].items():
            yield 1, "gettext", text, [f"context preset {key}: {path} (source)"]


def gpu_catalog_notes(fileobj, keywords, comment_tags, options) -> Iterator[Extracted]:
    """Babel extraction method for service/presets/gpu_prices_catalog.csv: the note of each
    price row (service/presets/gpu_prices.py shows it through the catalog)."""
    rows = csv.DictReader(io.StringIO(fileobj.read().decode("utf-8")))
    for line, row in enumerate(rows, start=2):
        if (row.get("note") or "").strip() and (row.get("ondemand_per_gpu_hr") or "").strip():
            yield line, "gettext", row["note"], [f"GPU price catalog: {row['cloud']} "
                                                 f"{row['instance_type']} {row['region']} (note)"]
