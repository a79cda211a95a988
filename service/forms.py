"""Scenario forms generated from the pydantic schema (one source of truth, design 9.2).

Every input comes from a ``Scenario`` field: its label, unit, help, source, bounds, default,
input type and whether it is one of the essentials are read through ``field_meta`` and the
field's annotation; nothing is retyped here. Percentages and money are shown and read back by
``service.form_values``. Submitted values go to pydantic as strings (lax mode parses them) so
that each problem comes back as the field's own message.
"""
from __future__ import annotations

import re
import typing
from dataclasses import dataclass, field
from typing import Any, Optional

from pydantic import BaseModel, ValidationError
from werkzeug.datastructures import MultiDict

from models.fields import field_meta
from models.scenario import CommitmentOffer, LoanFinancing, Scenario
from service import form_values as fv
from service.clip import clip
from service.form_fields import (SHOWN_INPUT, FormField, _unwrap, format_value,  # noqa: F401
                                 make_field)

GENERAL = "general"
SECTION_TITLES = {
    GENERAL: "Scenario", "finance": "Finance", "owned": "Owned servers",
    "on_demand": "On demand", "commitments": "Cloud commitments", "spot": "Spot",
    "cloud_data": "Cloud storage and egress", "cloud_terms": "Cloud provider terms",
    "profile": "Usage profile options", "proposed": "Proposed capacity",
    "uncertainty": "Uncertainty ranges",
}
EXTRA_COMMITMENT_ROWS = 1  # blank rows offered for a new commitment offer
NEW_OFFER = CommitmentOffer().model_dump(mode="json")  # defaults shown in a blank offer row
DEFAULTS = Scenario().model_dump(mode="json")


@dataclass
class FormSection:
    key: str
    title: str
    fields: list[FormField] = field(default_factory=list)
    rows: list[list[FormField]] = field(default_factory=list)  # commitments only
    errors: list[str] = field(default_factory=list)

    @property
    def all_fields(self) -> list[FormField]:
        return self.fields + [f for row in self.rows for f in row]


def section_fields(model: type[BaseModel], prefix: str, values: dict,
                   raw: Optional[MultiDict], currency: str) -> list[FormField]:
    out = []
    defaults = DEFAULTS.get(prefix) or {}
    for key, info in model.model_fields.items():
        if prefix == "owned" and key == "financing":
            out.extend(financing_fields(values.get("financing") or {}, raw, currency))
            continue
        if prefix == "proposed" and key == "committed_gpus":
            continue  # one input per offer, added by build_form
        out.append(make_field(f"{prefix}.{key}", info, values.get(key), raw,
                              defaults.get(key), currency))
    return out


LOAN_DEFAULTS = LoanFinancing().model_dump(mode="json")


def financing_fields(values: dict, raw: Optional[MultiDict], currency: str
                     ) -> list[FormField]:
    info = Scenario.model_fields["owned"].annotation.model_fields["financing"]
    kind = FormField("owned.financing.kind", info.title or "Financing", "method",
                     info.description or "", kind="select", options=("cash", "loan"),
                     value=raw.get("owned.financing.kind", "cash") if raw is not None
                     else values.get("kind", "cash"), default="cash")
    loan = {**LOAN_DEFAULTS, **values}
    out = [kind]
    for key, sub in LoanFinancing.model_fields.items():
        if key != "kind":
            spec = make_field(f"owned.financing.{key}", sub, loan.get(key), raw,
                              LOAN_DEFAULTS.get(key), currency)
            spec.help = (spec.help + " Used when financing is 'loan'.").strip()
            out.append(spec)
    return out


def build_form(data: dict, raw: Optional[MultiDict] = None,
               errors: Optional[dict[str, list[str]]] = None,
               preset_fields: Optional[dict[str, str]] = None) -> list[FormSection]:
    """Sections of form fields for scenario ``data`` (a model_dump), or for a re-shown post."""
    errors = errors or {}
    sections: list[FormSection] = []
    currency = form_currency(data, raw)
    name = make_field("name", Scenario.model_fields["name"], data.get("name"), raw,
                      DEFAULTS["name"])
    name.essential = True  # every scenario needs a name people recognise
    sections.append(FormSection(GENERAL, SECTION_TITLES[GENERAL], [name]))
    offers = list(data.get("commitments") or [])
    default_offers = DEFAULTS["commitments"]
    for key, info in Scenario.model_fields.items():
        if key == "name":
            continue
        section = FormSection(key, SECTION_TITLES.get(key, key))
        if key == "commitments":
            count = (commitment_row_count(raw) if raw is not None
                     else len(offers) + EXTRA_COMMITMENT_ROWS)
            for i in range(count):
                values = offers[i] if i < len(offers) else {**NEW_OFFER, "id": ""}
                base = (default_offers[i] if i < len(default_offers)
                        else {**NEW_OFFER, "id": ""})
                row = [make_field(f"commitments.{i}.{k}", sub, values.get(k), raw,
                                  base.get(k), currency)
                       for k, sub in CommitmentOffer.model_fields.items()]
                offer_id = row[0].value.strip()
                for spec in row[1:]:
                    # an offer's essential input names its offer; a blank row has none yet
                    spec.essential = spec.essential and bool(offer_id)
                    if spec.essential:
                        spec.label = f"{spec.label} ({offer_id} commitment)"
                row[0].essential = False
                row.append(FormField(f"commitments.{i}.remove", "Remove this offer",
                                     kind="checkbox",
                                     checked=raw is not None and
                                     raw.get(f"commitments.{i}.remove") == "true"))
                section.rows.append(row)
        else:
            section.fields = section_fields(info.annotation, key, data.get(key) or {}, raw,
                                            currency)
        if key == "proposed":
            committed = (data.get("proposed") or {}).get("committed_gpus") or {}
            info_c = info.annotation.model_fields["committed_gpus"]
            for offer in offers:
                name = f"proposed.committed_gpus.{offer['id']}"
                section.fields.append(FormField(
                    name, f"{info_c.title} - {offer['id']}", "GPUs",
                    info_c.description or "", optional=True, kind="number",
                    attrs={"min": "0", "step": "1", "inputmode": "numeric"},
                    value=clip(raw.get(name, ""), SHOWN_INPUT) if raw is not None
                    else format_value(committed.get(offer["id"]))))
        sections.append(section)
    for section in sections:
        for spec in section.all_fields:
            spec.error = "; ".join(errors.get(spec.name, []))
            if preset_fields and spec.name in preset_fields:
                spec.preset = preset_fields[spec.name]
        section.errors = errors.get(section.key, [])
    return sections


def form_currency(data: dict, raw: Optional[MultiDict]) -> str:
    """The currency money inputs are labelled with (the posted one when re-showing a form)."""
    text = (raw.get("finance.currency", "") if raw is not None else
            (data.get("finance") or {}).get("currency", "")) or DEFAULTS["finance"]["currency"]
    return text.strip()[:3].upper() or DEFAULTS["finance"]["currency"]


def max_offers() -> int:
    """The schema's limit on commitment offers (``max_length`` of ``Scenario.commitments``)."""
    limits = [m.max_length for m in Scenario.model_fields["commitments"].metadata
              if hasattr(m, "max_length")]
    return limits[0]


def max_commitment_rows() -> int:
    """Rows a form may post: every offer the schema allows, plus the blank rows shown."""
    return max_offers() + EXTRA_COMMITMENT_ROWS


ROW_INDEX = re.compile(r"commitments\.([0-9]+)\.")


def commitment_row_count(raw: MultiDict) -> int:
    """Rows posted, from the highest index; never more than :func:`max_commitment_rows` (a
    post naming row 99999999999 must not make the form build that many rows)."""
    indices = [int(m.group(1)[:6]) for k in raw if (m := ROW_INDEX.match(k))]
    return min(max(indices) + 1, max_commitment_rows()) if indices else 0


def too_many_rows(raw: MultiDict) -> Optional[str]:
    """The message for a post with a commitment row beyond the schema's limit, else None."""
    limit = max_commitment_rows()
    for key in raw:
        m = ROW_INDEX.match(key)
        if m and (len(m.group(1)) > 6 or int(m.group(1)) >= limit):
            return (f"At most {max_offers()} commitment offers: the form posted row "
                    f"{clip(m.group(1))} (rows are numbered 0 to {limit - 1}).")
    return None


def form_to_data(raw: MultiDict) -> tuple[dict, list[int]]:
    """Nested scenario data from a posted form, and the form row of each kept offer."""
    data: dict[str, Any] = {"name": raw.get("name", "")}
    for key, info in Scenario.model_fields.items():
        if key in ("name", "commitments"):
            continue
        section: dict[str, Any] = {}
        for sub, sub_info in info.annotation.model_fields.items():
            name = f"{key}.{sub}"
            if key == "owned" and sub == "financing":
                kind = raw.get("owned.financing.kind", "cash")
                financing: dict[str, Any] = {"kind": kind}
                if kind == "loan":
                    for loan_key in LoanFinancing.model_fields:
                        if loan_key != "kind":
                            financing[loan_key] = raw.get(f"owned.financing.{loan_key}", "")
                section["financing"] = financing
            elif key == "proposed" and sub == "committed_gpus":
                prefix = "proposed.committed_gpus."
                section[sub] = {k[len(prefix):]: v.strip() for k, v in raw.items()
                                if k.startswith(prefix) and v.strip()}
            else:
                section[sub] = parse_value(sub_info, raw.get(name))
        data[key] = section
    offers, rows = [], []
    for i in range(commitment_row_count(raw)):
        if raw.get(f"commitments.{i}.remove") == "true" or not raw.get(f"commitments.{i}.id",
                                                                         "").strip():
            continue
        offers.append({k: parse_value(sub, raw.get(f"commitments.{i}.{k}"))
                       for k, sub in CommitmentOffer.model_fields.items()})
        rows.append(i)
    data["commitments"] = offers
    kept = {offer["id"] for offer in offers}
    data["proposed"]["committed_gpus"] = {k: v for k, v in
                                          data["proposed"]["committed_gpus"].items() if k in kept}
    return data, rows


def parse_value(info, text: Optional[str]) -> Any:
    inner, optional = _unwrap(info.annotation)
    if inner is bool:
        return text == "true"
    text = (text or "").strip()
    kind = field_meta(info)["kind"]
    if typing.get_origin(inner) is tuple:
        return fv.read_list(text, kind)
    if optional and text == "":
        return None
    if inner in (int, float):
        return fv.read_number(text, kind)
    return text


def error_map(exc: ValidationError, rows: list[int], names: set[str],
              displays: Optional[dict[str, str]] = None) -> dict[str, list[str]]:
    """Pydantic errors keyed by form field name (or section key for cross-field rules);
    bounds of percent fields are said in percent, as they were typed."""
    out: dict[str, list[str]] = {}
    displays = displays or {}
    for item in exc.errors():
        loc = [str(part) for part in item["loc"]]
        if loc[:1] == ["commitments"] and len(loc) > 1 and loc[1].isdigit():
            loc[1] = str(rows[int(loc[1])]) if int(loc[1]) < len(rows) else loc[1]
        if loc[:2] == ["owned", "financing"] and len(loc) > 2 and loc[2] in ("cash", "loan"):
            del loc[2]
        target = loc[0] if loc else GENERAL
        for end in range(len(loc), 0, -1):
            if ".".join(loc[:end]) in names:
                target = ".".join(loc[:end])
                break
        if loc[:2] == ["owned", "financing"] and target == "owned":
            target = "owned.financing.kind"
        message = (fv.bound_message(item, displays.get(target, fv.PLAIN))
                   or item["msg"].removeprefix("Value error, "))
        out.setdefault(target, []).append(message)
    return out


def field_names(sections: list[FormSection]) -> set[str]:
    return {f.name for s in sections for f in s.all_fields}


def validate_form(raw: MultiDict) -> tuple[Optional[Scenario], list[FormSection]]:
    """(scenario, sections): the scenario when valid, else None and sections with messages."""
    beyond = too_many_rows(raw)
    if beyond is not None:   # refused before any row is built
        data, _ = form_to_data(raw)
        return None, build_form(data, raw, {"commitments": [beyond]})
    data, rows = form_to_data(raw)
    try:
        return Scenario.model_validate(data), build_form(data, raw)
    except ValidationError as exc:
        plain = build_form(data, raw)
        displays = {f.name: f.display for s in plain for f in s.all_fields}
        return None, build_form(data, raw, error_map(exc, rows, set(displays), displays))


def flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    """Dotted keys of a scenario dump, for comparing two revisions."""
    if isinstance(data, dict):
        out: dict[str, Any] = {}
        for key, value in data.items():
            out.update(flatten(value, f"{prefix}.{key}" if prefix else str(key)))
        return out if out or not prefix else {prefix: {}}
    if isinstance(data, list) and data and isinstance(data[0], dict):
        out = {}
        for i, value in enumerate(data):
            out.update(flatten(value, f"{prefix}.{i}"))
        return out
    return {prefix: data}


def _path_info(path: str):
    """(section title, FieldInfo or None) of a dotted scenario path."""
    parts = path.split(".")
    if parts[0] == "name":
        return "", Scenario.model_fields["name"]
    section_title = SECTION_TITLES.get(parts[0], parts[0])
    info = None
    if parts[0] == "commitments" and len(parts) >= 3:
        info = CommitmentOffer.model_fields.get(parts[2])
        section_title = f"Commitment offer {int(parts[1]) + 1}"
    elif parts[0] in Scenario.model_fields and len(parts) >= 2:
        model = Scenario.model_fields[parts[0]].annotation
        info = getattr(model, "model_fields", {}).get(parts[1])
        if parts[1] == "financing" and len(parts) >= 3:
            info = LoanFinancing.model_fields.get(parts[2]) if parts[2] != "kind" else info
    return section_title, info


def label_for(path: str) -> str:
    """Human label of a dotted scenario path, from the schema."""
    section_title, info = _path_info(path)
    if path == "name":
        return info.title or "name"
    return f"{section_title}: {info.title or path.rsplit('.', 1)[-1]}" if info else path


def show_value(path: str, value: Any, currency: str = "") -> str:
    """A scenario value as the form shows it, with its unit: "70 %", "300,000 USD"."""
    _, info = _path_info(path)
    if info is None or value is None or isinstance(value, (bool, dict, str)):
        return "-" if value is None else format_value(value)
    meta = field_meta(info)
    text = fv.show(value, meta["kind"])
    if meta["kind"] == fv.PERCENT:
        return text + " %"
    if meta["kind"] == fv.MONEY:
        return f"{text} {currency}".strip()
    return text
