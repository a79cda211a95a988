"""Field helpers: every assumption is declared once, with label, unit, bounds and source.

Forms, the JSON schema, the CLI and the xlsx Assumptions sheet read these attributes back
through :func:`field_meta`, so nothing about an assumption is written twice.
"""
from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field
from pydantic.fields import FieldInfo

# Frozen, no unknown keys, NaN/inf refused everywhere (allow_inf_nan=False).
SECTION_CONFIG = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False,
                            validate_default=True)


def field(default: Any, label: str, unit: str, help: str = "", source: str = "",
          essential: bool = False, schema: dict | None = None, guard: tuple[str, ...] = (),
          **bounds: Any) -> Any:
    """A scenario field: default, human label, unit, help text and the source of the default.

    Parameters
    ----------
    default : object
        Default value.
    label : str
        Human label (English; the catalogs translate it).
    unit : str
        Unit as shown, e.g. ``"currency per GPU-hour"``, ``"fraction"``; its first word sets the
        input kind (:func:`unit_kind`).
    help : str, default ''
        Help text.
    source : str, default ''
        Where the default comes from.
    essential : bool, default False
        One of the dozen inputs a reviewer checks first: the short form shows them and folds
        every other field under "advanced".
    schema : dict, optional
        JSON Schema keys the bounds cannot say, e.g. the bounds of each item of a list.
    guard : tuple of str, default ()
        The bounds (``"ge"``, ``"le"``...) that only keep absurd input out, such as the
        largest number the engine is sized for, rather than say a real-world limit: forms do
        not show them as guidance (pydantic still enforces them).
    **bounds
        Pydantic constraints, e.g. ``ge``, ``le``.

    Returns
    -------
    pydantic.fields.FieldInfo
        The field, its description "label [unit]. help Source: source."
    """
    description = f"{label} [{unit}]. {help}".strip()
    if source:
        description += f" Source: {source}."
    extra = {"unit": unit, "source": source, "help": help}
    if essential:
        extra["essential"] = True
    if guard:
        extra["guard"] = list(guard)
    extra.update(schema or {})
    return Field(default, title=label, description=description, json_schema_extra=extra,
                 **bounds)


def unit_kind(unit: str) -> str:
    """How a value of this unit is entered and shown.

    Parameters
    ----------
    unit : str
        The field's unit.

    Returns
    -------
    str
        "percent" for fractions (0.1 is typed and shown as 10 %), "money" for amounts of the
        scenario's currency, else "plain".

    Examples
    --------
    >>> unit_kind("fraction per year"), unit_kind("currency per server"), unit_kind("kW")
    ('percent', 'money', 'plain')
    """
    if unit.startswith("fraction"):
        return "percent"
    if unit.startswith("currency"):
        return "money"
    return "plain"


def field_meta(info: FieldInfo) -> dict[str, Any]:
    """Label, unit, help, source and numeric bounds of a field, for forms and sheets.

    Parameters
    ----------
    info : pydantic.fields.FieldInfo
        A field made by :func:`field`, or a plain pydantic Field (its description is the help).

    Returns
    -------
    dict
        ``label``, ``unit``, ``help``, ``source``, ``essential``, ``kind``, ``guard`` (the
        bounds that are no real-world limit) and whichever of ``ge``, ``gt``, ``le``, ``lt``
        the field has.
    """
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    bounds: dict[str, Any] = {}
    for meta in info.metadata:
        for key in ("ge", "gt", "le", "lt"):
            value = getattr(meta, key, None)
            if value is not None:
                bounds[key] = value
    unit = extra.get("unit", "")
    # a plain pydantic Field (mappings and tables of rows) says its help in its description
    help_text = extra.get("help", "") if extra else (info.description or "")
    return {"label": info.title or "", "unit": unit, "help": help_text,
            "source": extra.get("source", ""), "essential": bool(extra.get("essential")),
            "kind": unit_kind(unit), "guard": tuple(extra.get("guard", ())), **bounds}
