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
from typing import Any, Literal, Mapping, Optional

from pydantic import BaseModel, ValidationError
from werkzeug.datastructures import MultiDict

from models.fields import field_meta
from models.ranges import RANGE_MODELS, legacy_path
from models.scenario import Scenario, market_of
from models.scenario_cloud import CommitmentOffer
from models.scenario_owned import LoanFinancing, ServerType
from models.scenario_position import PositionCommitment, PositionServers
from models.scenario_schedule import Decision, DemandScenario, Risk
from service import form_values as fv
from service.clip import clip
from service.forms.fields import (SHOWN_INPUT, FormField, _unwrap, format_value,  # noqa: F401
                                 make_field)
from service.i18n import N_, gettext as _
from service.i18n.labels import offer_name, option_word
from service.i18n.validation import bound_message, error_message

GENERAL = "general"
SECTION_TITLES = {  # English; shown through section_title() in the reader's language
    GENERAL: N_("Scenario"), "finance": N_("Finance"), "owned": N_("Owned servers"),
    "on_demand": N_("On demand"), "commitments": N_("Cloud commitments"), "spot": N_("Spot"),
    "cloud_data": N_("Cloud storage and egress"), "cloud_terms": N_("Cloud provider terms"),
    "fx": N_("Exchange rate"),
    "profile": N_("Usage profile options"), "position": N_("What you hold today"),
    "staging": N_("Staged plan"), "proposed": N_("Proposed capacity"),
    "uncertainty": N_("Uncertainty ranges"), "server_types": N_("Server types"),
}


def section_title(key: str) -> str:
    return _(SECTION_TITLES[key]) if key in SECTION_TITLES else key


EXTRA_ROWS = 1  # blank rows offered at the end of every table, for a new row
DEFAULTS = Scenario().model_dump(mode="json")


@dataclass(frozen=True)
class TableSpec:
    """A scenario field that is a list of rows, edited as one block of inputs per row."""

    path: str                  # dotted path of the field: "position.servers"
    model: type[BaseModel]     # one row
    key_field: str             # a row with this blank is a blank row and is not kept
    # English words, marked for the catalogs (N_) and shown through _() where used
    row_title: str             # "Commitment offer %(number)s"
    too_many: str              # the message about too many rows
    blank_hint: str            # what to fill in to add a blank row
    remove_label: str = N_("Remove this row")
    essential_label: str = ""  # "%(key)s commitment": label suffix of a row's essential inputs


TABLES = (
    TableSpec("commitments", CommitmentOffer, "id", N_("Commitment offer %(number)s"),
              N_("At most %(limit)s commitment offers: the form posted row %(row)s (rows are "
                 "numbered 0 to %(last)s)."),
              N_("fill in an id to add it"), N_("Remove this offer"),
              N_("%(key)s commitment")),
    TableSpec("position.servers", PositionServers, "purchased", N_("Servers owned %(number)s"),
              N_("At most %(limit)s server purchases: the form posted row %(row)s (rows are "
                 "numbered 0 to %(last)s)."),
              N_("fill in the purchase month to add them")),
    TableSpec("position.commitments", PositionCommitment, "id",
              N_("Signed commitment %(number)s"),
              N_("At most %(limit)s signed commitments: the form posted row %(row)s (rows are "
                 "numbered 0 to %(last)s)."),
              N_("fill in a contract id to add it")),
    TableSpec("server_types", ServerType, "id", N_("Server type %(number)s"),
              N_("At most %(limit)s server types: the form posted row %(row)s (rows are "
                 "numbered 0 to %(last)s)."),
              N_("fill in a type id to add it"), N_("Remove this server type")),
    TableSpec("staging.demand_scenarios", DemandScenario, "name",
              N_("Demand scenario %(number)s"),
              N_("At most %(limit)s demand scenarios: the form posted row %(row)s (rows are "
                 "numbered 0 to %(last)s)."),
              N_("fill in a name to add it"), N_("Remove this scenario")),
    TableSpec("proposed.schedule", Decision, "month", N_("Decision %(number)s"),
              N_("At most %(limit)s schedule decisions: the form posted row %(row)s (rows "
                 "are numbered 0 to %(last)s)."),
              N_("fill in a month to add it")),
)
TABLE_BY_PATH = {t.path: t for t in TABLES}
ROW_INDEX = re.compile(r"(%s)\.([0-9]+)\." % "|".join(re.escape(t.path) for t in TABLES))


@dataclass
class FormRow:
    index: int
    fields: list[FormField]
    blank: bool = False


@dataclass
class RowTable:
    spec: TableSpec
    title: str
    help: str
    rows: list[FormRow] = field(default_factory=list)
    # a blank row with the index ROW_SLOT, for the "add row" button (static/js/rows.js)
    template: Optional[FormRow] = None

    @property
    def max_rows(self) -> int:
        return table_limit(self.spec)


ROW_SLOT = "__row__"   # stands for a row index in the template row; never posted


@dataclass
class FormSection:
    key: str
    title: str
    fields: list[FormField] = field(default_factory=list)
    tables: list[RowTable] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def all_fields(self) -> list[FormField]:
        return self.fields + [f for t in self.tables for row in t.rows for f in row.fields]


def schema_field(path: str):
    """The FieldInfo of a dotted path of sections ("position.servers")."""
    model: Any = Scenario
    info = None
    for part in path.split("."):
        info = model.model_fields[part]
        model = info.annotation
    return info


def default_at(path: str) -> Any:
    value: Any = DEFAULTS
    for part in path.split("."):
        value = (value or {}).get(part)
    return value


def section_fields(model: type[BaseModel], prefix: str, values: dict,
                   raw: Optional[MultiDict], currency: dict) -> list[FormField]:
    out = []
    defaults = DEFAULTS.get(prefix) or {}
    for key, info in model.model_fields.items():
        if f"{prefix}.{key}" in TABLE_BY_PATH:
            continue  # a table of rows, built by build_table
        if prefix == "owned" and key == "financing":
            out.extend(financing_fields(values.get("financing") or {}, raw, currency))
            continue
        if prefix == "proposed" and key == "committed_gpus":
            continue  # one input per offer, added by build_form
        if prefix == "staging" and key == "risk":     # issue 27: its two fields, nested
            given, base = values.get("risk") or {}, defaults.get("risk") or {}
            out.extend(make_field(f"staging.risk.{k}", sub, given.get(k), raw, base.get(k),
                                  currency) for k, sub in Risk.model_fields.items())
            continue
        if prefix == "uncertainty" and key == "ranges":
            out.extend(range_fields(values.get("ranges") or {}, raw, defaults.get("ranges")
                                    or {}, currency))
            continue
        out.append(make_field(f"{prefix}.{key}", info, values.get(key), raw,
                              defaults.get(key), currency))
    return out


RANGES = "uncertainty.ranges"


def range_fields(values: dict, raw: Optional[MultiDict], defaults: dict, currency: dict
                 ) -> list[FormField]:
    """The ends of every uncertainty range, named ``uncertainty.ranges.<path>.<end>`` (the
    path a pydantic error of that end has: ``uncertainty.ranges.owned.pue.low``)."""
    out = []
    for path, model in RANGE_MODELS.items():
        given, base = values.get(path) or {}, defaults.get(path) or {}
        for end, info in model.model_fields.items():
            out.append(make_field(f"{RANGES}.{path}.{end}", info, given.get(end), raw,
                                  base.get(end), currency))
    return out


def read_ranges(raw: MultiDict) -> dict[str, dict[str, Any]]:
    return {path: {end: parse_value(info, raw.get(f"{RANGES}.{path}.{end}"))
                   for end, info in model.model_fields.items()}
            for path, model in RANGE_MODELS.items()}


def range_info(path: str):
    """The FieldInfo of a range end's dotted path (``uncertainty.ranges.owned.pue.low``)."""
    range_path, _dot, end = path[len(RANGES) + 1:].rpartition(".")
    model = RANGE_MODELS.get(range_path)
    return model.model_fields.get(end) if model is not None else None


LOAN_DEFAULTS = LoanFinancing().model_dump(mode="json")


def financing_fields(values: dict, raw: Optional[MultiDict], currency: dict
                     ) -> list[FormField]:
    info = Scenario.model_fields["owned"].annotation.model_fields["financing"]
    kind = FormField("owned.financing.kind", _(info.title or "Financing"), _("method"),
                     _(info.description or ""), kind="select", options=("cash", "loan"),
                     value=raw.get("owned.financing.kind", "cash") if raw is not None
                     else values.get("kind", "cash"), default="cash")
    loan = {**LOAN_DEFAULTS, **values}
    out = [kind]
    for key, sub in LoanFinancing.model_fields.items():
        if key != "kind":
            spec = make_field(f"owned.financing.{key}", sub, loan.get(key), raw,
                              LOAN_DEFAULTS.get(key), currency)
            spec.help = (spec.help + " " + _("Used when financing is 'loan'.")).strip()
            out.append(spec)
    return out


def blank_row(spec: TableSpec) -> dict:
    """The values a blank row shows: the row model's defaults without its key."""
    return {**spec.model().model_dump(mode="json"), spec.key_field: ""}


def build_table(spec: TableSpec, values: Optional[list], raw: Optional[MultiDict],
                currency: dict) -> RowTable:
    """One block of inputs per row, and blank rows for new ones."""
    info = schema_field(spec.path)
    values = list(values or [])
    defaults = list(default_at(spec.path) or [])
    table = RowTable(spec, _(info.title) if info.title else spec.path,
                     _(field_meta(info)["help"]))
    count = row_count(raw, spec) if raw is not None else len(values) + EXTRA_ROWS
    for i in range(count):
        row_values = values[i] if i < len(values) else blank_row(spec)
        base = defaults[i] if i < len(defaults) else blank_row(spec)
        fields, key = row_fields(spec, str(i), row_values, base, raw, currency)
        table.rows.append(FormRow(i, fields, blank=not key))
    blank = blank_row(spec)
    table.template = FormRow(-1, row_fields(spec, ROW_SLOT, blank, blank, None, currency)[0],
                             blank=True)
    return table


def row_fields(spec: TableSpec, index: str, row_values: dict, base: dict,
               raw: Optional[MultiDict], currency: str) -> tuple[list[FormField], str]:
    """The inputs of one row (named ``{path}.{index}.{key}``) and the row's key value."""
    fields = [make_field(f"{spec.path}.{index}.{k}", sub, row_values.get(k), raw,
                         base.get(k), currency)
              for k, sub in spec.model.model_fields.items()]
    key = next(f for f in fields if f.name.endswith(f".{spec.key_field}")).value.strip()
    for f in fields:
        # a row's essential input names its row; a blank row has none yet
        f.essential = f.essential and bool(key) and not f.name.endswith(f".{spec.key_field}")
        if f.essential and spec.essential_label:
            # an offer is named by its term ("1-year commitment"), never by its id
            named = (offer_name(key, [row_values]) if spec.path == "commitments" else
                     _(spec.essential_label, key=key))
            f.label = f"{f.label} ({named})"
    fields.append(FormField(f"{spec.path}.{index}.remove", _(spec.remove_label), kind="checkbox",
                            checked=raw is not None and
                            raw.get(f"{spec.path}.{index}.remove") == "true"))
    return fields, key


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
    sections.append(FormSection(GENERAL, section_title(GENERAL), [name]))
    offers = list(data.get("commitments") or [])
    for key, info in Scenario.model_fields.items():
        if key == "name":
            continue
        section = FormSection(key, section_title(key))
        if key in TABLE_BY_PATH:
            section.tables.append(build_table(TABLE_BY_PATH[key], data.get(key), raw,
                                              currency))
        else:
            values = data.get(key) or {}
            section.fields = section_fields(info.annotation, key, values, raw, currency)
            for sub in info.annotation.model_fields:
                if f"{key}.{sub}" in TABLE_BY_PATH:
                    section.tables.append(build_table(TABLE_BY_PATH[f"{key}.{sub}"],
                                                      values.get(sub), raw, currency))
        if key == "proposed":
            committed = (data.get("proposed") or {}).get("committed_gpus") or {}
            info_c = info.annotation.model_fields["committed_gpus"]
            for offer in offers:
                name = f"proposed.committed_gpus.{offer['id']}"
                section.fields.append(FormField(
                    name, f"{_(info_c.title)} - {offer_name(offer['id'], offers)}", _("GPUs"),
                    _(info_c.description or ""), optional=True, kind="number",
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
        for table in section.tables:
            section.errors = section.errors + errors.get(table.spec.path, [])
    return sections


def form_currency(data: dict, raw: Optional[MultiDict]) -> dict[str, str]:
    """The currency each market's money inputs are labelled with (reporting, owned, cloud;
    the posted ones when re-showing a form)."""
    def code(section: str, fallback: str) -> str:
        text = (raw.get(f"{section}.currency", "") if raw is not None else
                (data.get(section) or {}).get("currency") or "") or fallback
        return text.strip()[:3].upper() or fallback

    reporting = code("finance", DEFAULTS["finance"]["currency"])
    return {"reporting": reporting, "owned": code("owned", reporting),
            "cloud": code("cloud_terms", reporting)}


def table_limit(spec: TableSpec) -> int:
    """The schema's limit on rows of a table (``max_length`` of its field)."""
    return [m.max_length for m in schema_field(spec.path).metadata
            if hasattr(m, "max_length")][0]


def max_table_rows(spec: TableSpec) -> int:
    """Rows a form may post: every row the schema allows, plus the blank rows shown."""
    return table_limit(spec) + EXTRA_ROWS


def row_count(raw: MultiDict, spec: TableSpec) -> int:
    """Rows of a table posted, from the highest index; never more than
    :func:`max_table_rows` (a post naming row 99999999999 must not make the form build that
    many rows)."""
    indices = [int(m.group(2)[:6]) for k in raw
               if (m := ROW_INDEX.match(k)) and m.group(1) == spec.path]
    return min(max(indices) + 1, max_table_rows(spec)) if indices else 0


def too_many_rows(raw: MultiDict) -> Optional[tuple[str, str]]:
    """(table path, message) for a post with a row beyond the schema's limit, else None."""
    for key in raw:
        m = ROW_INDEX.match(key)
        if not m:
            continue
        spec = TABLE_BY_PATH[m.group(1)]
        limit = max_table_rows(spec)
        if len(m.group(2)) > 6 or int(m.group(2)) >= limit:
            return spec.path, _(spec.too_many, limit=table_limit(spec), row=clip(m.group(2)),
                                last=limit - 1)
    return None


def read_table(raw: MultiDict, spec: TableSpec) -> tuple[list[dict], list[int]]:
    """The kept rows of a posted table (not removed, key filled in) and their form rows."""
    kept, rows = [], []
    for i in range(row_count(raw, spec)):
        prefix = f"{spec.path}.{i}."
        if raw.get(prefix + "remove") == "true" or not raw.get(prefix + spec.key_field,
                                                                 "").strip():
            continue
        kept.append({k: parse_value(sub, raw.get(prefix + k))
                     for k, sub in spec.model.model_fields.items()})
        rows.append(i)
    return kept, rows


def form_to_data(raw: MultiDict) -> tuple[dict, dict[str, list[int]]]:
    """Nested scenario data from a posted form, and for each table the form row of each kept
    row (pydantic's row numbers are of the kept rows)."""
    data: dict[str, Any] = {"name": raw.get("name", "")}
    row_maps: dict[str, list[int]] = {}
    for key, info in Scenario.model_fields.items():
        if key == "name":
            continue
        if key in TABLE_BY_PATH:
            data[key], row_maps[key] = read_table(raw, TABLE_BY_PATH[key])
            continue
        section: dict[str, Any] = {}
        for sub, sub_info in info.annotation.model_fields.items():
            name = f"{key}.{sub}"
            if name in TABLE_BY_PATH:
                section[sub], row_maps[name] = read_table(raw, TABLE_BY_PATH[name])
            elif key == "owned" and sub == "financing":
                kind = raw.get("owned.financing.kind", "cash")
                financing: dict[str, Any] = {"kind": kind}
                if kind == "loan":
                    for loan_key in LoanFinancing.model_fields:
                        if loan_key != "kind":
                            financing[loan_key] = raw.get(f"owned.financing.{loan_key}", "")
                section["financing"] = financing
            elif name == RANGES:
                section[sub] = read_ranges(raw)
            elif name == "staging.risk":
                section[sub] = {k: parse_value(i, raw.get(f"staging.risk.{k}"))
                                for k, i in Risk.model_fields.items()}
            elif key == "proposed" and sub == "committed_gpus":
                prefix = "proposed.committed_gpus."
                section[sub] = {k[len(prefix):]: v.strip() for k, v in raw.items()
                                if k.startswith(prefix) and v.strip()}
            else:
                section[sub] = parse_value(sub_info, raw.get(name))
        data[key] = section
    kept = {offer["id"] for offer in data["commitments"]}
    data["proposed"]["committed_gpus"] = {k: v for k, v in
                                          data["proposed"]["committed_gpus"].items() if k in kept}
    return data, row_maps


def parse_value(info, text: Optional[str]) -> Any:
    inner, optional = _unwrap(info.annotation)
    if inner is bool:
        return text == "true"
    text = (text or "").strip()
    kind = field_meta(info)["kind"]
    if optional and text == "":
        return None     # an override left blank (a server type's resale by year): the default
    if typing.get_origin(inner) is tuple:
        return fv.read_list(text, kind)
    if typing.get_origin(inner) is dict:
        return fv.read_pairs(text, kind)
    if inner in (int, float):
        return fv.read_number(text, kind)
    options = typing.get_args(inner) if typing.get_origin(inner) is Literal else ()
    if options and all(isinstance(o, int) for o in options) and text.isdigit():
        return int(text[:12])  # a choice of numbers (months) comes back as the number
    return text


def error_map(exc: ValidationError, row_maps: dict[str, list[int]], names: set[str],
              displays: Optional[dict[str, str]] = None) -> dict[str, list[str]]:
    """Pydantic errors keyed by form field name (or section key for cross-field rules);
    bounds of percent fields are said in percent, as they were typed."""
    out: dict[str, list[str]] = {}
    displays = displays or {}
    for item in exc.errors():
        loc = [str(part) for part in item["loc"]]
        for path, rows in row_maps.items():
            n = path.count(".") + 1
            if ".".join(loc[:n]) == path and len(loc) > n and loc[n].isdigit():
                loc[n] = str(rows[int(loc[n])]) if int(loc[n]) < len(rows) else loc[n]
        if loc[:2] == ["owned", "financing"] and len(loc) > 2 and loc[2] in ("cash", "loan"):
            del loc[2]
        target = loc[0] if loc else GENERAL
        for end in range(len(loc), 0, -1):
            if ".".join(loc[:end]) in TABLE_BY_PATH:
                target = ".".join(loc[:end])   # the table as a whole (too many rows)
                break
            if ".".join(loc[:end]) in names:
                target = ".".join(loc[:end])
                break
        if loc[:2] == ["owned", "financing"] and target == "owned":
            target = "owned.financing.kind"
        message = (bound_message(item, displays.get(target, fv.PLAIN))
                   or error_message(item, label_for))
        out.setdefault(target, []).append(message)
    return out


def field_names(sections: list[FormSection]) -> set[str]:
    return {f.name for s in sections for f in s.all_fields}


def validate_form(raw: MultiDict, *, sections_when_valid: bool = True
                  ) -> tuple[Optional[Scenario], list[FormSection]]:
    """(scenario, sections): the scenario when valid, else None and sections with messages.
    ``sections_when_valid=False``: no sections for a valid form (a JSON answer of messages
    only: building the form's 250 inputs was half of a live preview's request)."""
    beyond = too_many_rows(raw)
    if beyond is not None:   # refused before any row is built
        data, _rows = form_to_data(raw)
        return None, build_form(data, raw, {beyond[0]: [beyond[1]]})
    data, row_maps = form_to_data(raw)
    try:
        model = Scenario.model_validate(data)
    except ValidationError as exc:
        plain = build_form(data, raw)
        displays = {f.name: f.display for s in plain for f in s.all_fields}
        return None, build_form(data, raw, error_map(exc, row_maps, set(displays), displays))
    return model, build_form(data, raw) if sections_when_valid else []


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
    """(section title, FieldInfo or None) of a dotted scenario path: a row of a table is
    titled by its row ("Offer 2"), a key of a mapping by the mapping's field; a range end by
    its own field (and a flat key of before the ranges mapping as the end it became)."""
    path = legacy_path(path)
    if path.startswith(RANGES + "."):
        return section_title("uncertainty"), (range_info(path) or
                                              schema_field(RANGES))
    parts = path.split(".")
    if parts[0] == "name":
        return "", Scenario.model_fields["name"]
    title = section_title(parts[0])
    model: Any = Scenario
    info = None
    table: Optional[TableSpec] = None
    for i, part in enumerate(parts):
        if part.isdigit() and table is not None:
            title, model, table = _(table.row_title, number=int(part) + 1), table.model, None
            continue
        fields = getattr(model, "model_fields", None)
        if not fields or part not in fields:
            return title, (info if i > 0 else None)
        info = fields[part]
        walked = ".".join(parts[:i + 1])
        table = TABLE_BY_PATH.get(walked)
        model = LoanFinancing if walked == "owned.financing" else info.annotation
        if walked == "owned.financing" and parts[i + 1:i + 2] == ["kind"]:
            break
    return title, info


def label_for(path: str) -> str:
    """Human label of a dotted scenario path, from the schema."""
    title, info = _path_info(path)
    if path == "name":
        return _(info.title or "name")
    if info is None:
        return path
    if not info.title and "." not in path:
        return title    # a section ("staging") by its own title, not "Staged plan: staging"
    field_title = _(info.title) if info.title else path.rsplit(".", 1)[-1]
    # "Exchange rate: Exchange rate" says one thing twice: the field alone
    return field_title if field_title == title else f"{title}: {field_title}"


def show_value(path: str, value: Any, currency: str | Mapping[str, str] = "") -> str:
    """A scenario value as the form shows it, with its unit: "70 %", "300,000 USD" (the
    currency of the value's market when ``currency`` maps markets to codes)."""
    if not isinstance(currency, str):
        currency = currency[market_of(path)]
    _title, info = _path_info(path)
    if isinstance(value, str) and info is not None and typing.get_origin(
            _unwrap(info.annotation)[0]) is Literal:
        return option_word(value)      # a choice ("none", "partial") in the reader's words
    if isinstance(value, bool):         # a page's words, not the JSON's true / false
        return _("Yes") if value else _("No")
    if info is None or value is None or isinstance(value, (dict, str)):
        return "-" if value is None else format_value(value)
    meta = field_meta(info)
    text = fv.show(value, meta["kind"])
    if meta["kind"] == fv.PERCENT:
        return text + " %"
    if meta["kind"] == fv.MONEY:
        return f"{text} {currency}".strip()
    return text
