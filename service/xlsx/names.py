"""Defined names of the plan workbook, made from scenario field paths and checked.

Every input cell of the Assumptions sheet is a workbook-level name that formulas read
(``=owned_pue``). The name comes from the field's path through :func:`defined_name`, which
first checks that the path resolves to a value of the scenario schema (a field of a section, an
item of one of its lists or mappings: ``commitments[1].discount``, ``position.servers[2].count``,
``proposed.schedule[1].commit[1y]``, ``uncertainty.ranges[owned.pue].low``) and then that the
name is one Excel accepts. Every name the workbook defines goes through :func:`define`, so a
name that Excel would take for a cell (``fx1``) or cut (over 255 characters) fails the export
here instead of breaking formulas in the file.
"""
from __future__ import annotations

import inspect
import re
import types
import typing
from typing import Any, Optional

from pydantic import BaseModel

from models.ranges import RANGE_MODELS
from models.scenario import Scenario

MAX_LENGTH = 255                                     # Excel's limit for a defined name
NAME = re.compile(r"^[A-Za-z_\\][A-Za-z0-9_.\\]*$")  # first a letter, _ or \; no spaces
CELL = re.compile(r"^[A-Za-z]{1,3}[0-9]+$")          # A1 ... XFD1048576 (fx1, pue2)
R1C1 = re.compile(r"^([RrCc]|[Rr][0-9]*[Cc][0-9]*|[Rr][0-9]+|[Cc][0-9]+)$")
# a key: a list index, an offer or type id, a purchase month, or a fleet's type:YYYY-MM
SEGMENT = re.compile(r"^(?P<field>[a-z_]+)(?:\[(?P<key>[A-Za-z0-9_:-]+)\])?$")
RANGE_ROW = re.compile(r"^uncertainty\.ranges\[(?P<path>[a-z_.*0-9\[\]]{1,100})\]"
                       r"\.(?P<end>[a-z_]{1,20})$")


class BadName(ValueError):
    """A path that is no scenario value, or a name Excel would not accept."""


def range_row(path: str, end: str) -> str:
    """The sheet path of one end of a range: ``uncertainty.ranges[owned.pue].low``."""
    return f"uncertainty.ranges[{path}].{end}"


def _unwrap(annotation: Any) -> Any:
    """X of Optional[X] and of Annotated[X, ...]."""
    if typing.get_origin(annotation) is typing.Annotated:
        return _unwrap(typing.get_args(annotation)[0])
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return _unwrap(args[0])
    return annotation


def _models(annotation: Any) -> list[type[BaseModel]]:
    """The sections a value of this annotation can be (both kinds of financing)."""
    annotation = _unwrap(annotation)
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        return [annotation]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [m for arg in typing.get_args(annotation) for m in _models(arg)]
    return []


def resolve(path: str):
    """The pydantic field a sheet path names; raises :class:`BadName` if it names none."""
    if path == "name":
        return Scenario.model_fields["name"]
    row = RANGE_ROW.match(path)
    if row:
        model = RANGE_MODELS.get(row.group("path"))
        if model is None or row.group("end") not in model.model_fields:
            raise BadName(f"{path!r}: no uncertainty range has this path and end; the "
                          f"ranges are {', '.join(RANGE_MODELS)}")
        return model.model_fields[row.group("end")]
    models: list[type[BaseModel]] = [Scenario]
    info = None
    for part in path.split("."):
        m = SEGMENT.match(part)
        fields = [mod.model_fields[m.group("field")] for mod in models
                  if m and m.group("field") in mod.model_fields]
        if not fields:
            raise BadName(f"{path!r}: {part!r} is not a field here")
        info = fields[0]
        annotation = _unwrap(info.annotation)
        if m.group("key") is not None:
            annotation = _item(path, part, annotation, m.group("key"))
        models = _models(annotation)
    if models or _is_table(info, path):
        raise BadName(f"{path!r} names a section or a table, not a value")
    return info


def _item(path: str, part: str, annotation: Any, key: str) -> Any:
    """The annotation of one item of a list (``[1]``, counted from 1) or a mapping."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is tuple:
        if not key.isdigit() or int(key) < 1:
            raise BadName(f"{path!r}: items of {part.split('[')[0]!r} are numbered from 1")
        return args[0]
    if origin is dict:
        return args[1]
    raise BadName(f"{path!r}: {part.split('[')[0]!r} is neither a list nor a mapping")


def _is_table(info, path: str) -> bool:
    """A tuple of sections named without an item (``commitments``)."""
    annotation = _unwrap(info.annotation)
    args = typing.get_args(annotation)
    return (typing.get_origin(annotation) is tuple and not path.endswith("]")
            and bool(args) and bool(_models(args[0])))


def excel_name(name: str) -> str:
    """The name, if Excel accepts it as a defined name; else :class:`BadName`."""
    if not name or len(name) > MAX_LENGTH:
        raise BadName(f"defined name {name[:40]!r}... is {len(name)} characters; Excel allows "
                      f"1 to {MAX_LENGTH}")
    if not NAME.match(name):
        raise BadName(f"defined name {name!r} has characters Excel does not allow in a name")
    if CELL.match(name) or R1C1.match(name):
        raise BadName(f"defined name {name!r} reads as a cell reference")
    return name


def defined_name(path: str) -> str:
    """The defined name of a scenario value: ``owned.pue`` -> ``owned_pue``,
    ``commitments[1].id`` -> ``commitments_1_id``, ``name`` -> ``scenario_name``,
    ``uncertainty.ranges[commitments[*].discount].low`` ->
    ``uncertainty_ranges_commitments_all_discount_low``."""
    resolve(path)
    if path == "name":
        return "scenario_name"
    name = path.replace("[*]", "_all").replace("[", "_").replace("]", "").replace(".", "_")
    return excel_name(re.sub(r"[^A-Za-z0-9_]", "_", name))


def list_name(path: str) -> str:
    """The name of a whole list of values (``owned.resale_fraction_by_year``)."""
    info = resolve(path)
    if typing.get_origin(_unwrap(info.annotation)) is not tuple:
        raise BadName(f"{path!r} is not a list")
    return defined_name(path)


def define(workbook, name: str, target: str, names: Optional[set[str]] = None) -> None:
    """Define a checked workbook-level name (``names``: the ones defined so far, to refuse a
    second definition)."""
    excel_name(name)
    if names is not None:
        if name.lower() in names:   # Excel compares names without case
            raise BadName(f"defined name {name!r} is defined twice")
        names.add(name.lower())
    workbook.define_name(name, target)
