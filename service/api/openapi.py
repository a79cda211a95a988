"""The JSON API's contract: pydantic models of its requests and answers, and the OpenAPI 3.1
document generated from them (served at ``/api/v1/openapi.json``, no login needed).

The API views validate their bodies with these very models (``PlanRequest``, ``PlanForm``,
``RevisionRequest``, whose ``scenario`` is the engine's own ``Scenario``, and ``Scenario``
itself as the body of ``POST /api/v1/scenarios``), so the document and
the validation cannot drift apart. spectree reads the models and the Flask routes it decorates
(``SPEC.validate(...)``, with its own validation left off: the views answer errors in the
house shape ``{"error": {...}}``) and writes the document; its Swagger pages are not used (they
load scripts from a CDN, which the Content-Security-Policy forbids).
"""
from __future__ import annotations

import copy
import functools
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field
from spectree import Response, SecurityScheme, SecuritySchemeData, SpecTree
from spectree.models import SecureType
from spectree.model_adapter.pydantic_adapter import BaseFile

from models.scenario import Scenario

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
MAX_JSON_ROWS = 200_000
Cell = Union[float, bool, str, None]   # one CSV cell of a usage row


class ErrorDetail(BaseModel):
    """A field of a request (``field``) or a row / column of a usage file that is wrong."""
    model_config = ConfigDict(extra="allow")
    message: str
    field: Optional[str] = None
    row: Optional[int] = None
    column: Optional[str] = None


class ErrorInfo(BaseModel):
    code: str = Field(description="bad_request, unauthorized, forbidden, not_found, conflict, "
                                  "too_large, unsupported_media_type, invalid_input, ...")
    message: str
    details: list[ErrorDetail]


class ErrorBody(BaseModel):
    """Every error answer of the API."""
    error: ErrorInfo


class UsageRow(BaseModel):
    """One period of usage, the columns of a usage CSV by name (docs/README-ingest.md):
    ``timestamp`` and ``gpu_hours`` (or ``gpus``), optionally ``workload`` (steady |
    interruptible) or ``interruptible``, and ``team``."""
    # each row measures its period: gpu_hours or gpus, a number (a row of nulls was valid in
    # the document and refused by the reader: Schemathesis, issue 40)
    model_config = ConfigDict(extra="allow", allow_inf_nan=False, json_schema_extra={
        "anyOf": [{"required": [name], "properties": {name: {"type": "number"}}}
                  for name in ("gpu_hours", "gpus")]})
    __pydantic_extra__: dict[str, Cell]
    timestamp: str = Field(max_length=64, examples=["2026-02-01T13:00", "2026-02-01", "2026-02"])
    gpu_hours: Optional[float] = Field(None, ge=0)
    gpus: Optional[float] = Field(None, ge=0)
    workload: Optional[str] = Field(None, max_length=20)
    interruptible: Optional[Union[bool, str]] = None
    team: Optional[str] = Field(None, max_length=200)


DAILY_EXAMPLE = [{"timestamp": f"2026-02-{d:02d}", "gpu_hours": 200.0 + d} for d in range(1, 29)]


class PlanRequest(BaseModel):
    """A plan of usage rows under a scenario (every scenario field has a default)."""
    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "examples": [{"scenario": {"finance": {"horizon_months": 12}},
                      "usage": DAILY_EXAMPLE}]})
    scenario: Optional[Scenario] = None
    usage: list[UsageRow] = Field(min_length=1, max_length=MAX_JSON_ROWS)


class PlanForm(BaseModel):
    """A usage file (CSV, XLSX, FOCUS, AWS CUR or Slurm sacct) and a scenario as JSON text."""
    usage: BaseFile
    scenario: Optional[str] = Field(None, description="a Scenario as JSON text (default {})")
    busy: Optional[BaseFile] = Field(None, description="optional GPU busy time (DCGM exporter "
                                     "text or CSV, nvidia-smi CSV) for the same hours")


class RevisionRequest(BaseModel):
    """A new revision of a stored scenario; it keeps the latest revision's usage file."""
    model_config = ConfigDict(extra="forbid")
    scenario: Scenario
    note: Optional[str] = Field(None, max_length=500)


class RevisionOut(BaseModel):
    scenario_id: int
    number: int
    content_hash: str = Field(description="SHA-256 of the assumptions and the usage file")
    usage_sha256: Optional[str]


class ScenarioCreated(RevisionOut):
    """A scenario created from a scenario JSON: its first revision, and where it is."""
    url: str = Field(description="the scenario's page (also the Location header)")
    revisions: str = Field(description="its revisions through the API (GET; POST adds one)")


class RevisionList(BaseModel):
    revisions: list[RevisionOut]


class PlanDocument(BaseModel):
    """The plan document (design 9.3); the engine adds sections (breakeven, uncertainty,
    charts, explanation) that are listed here only as further properties."""
    model_config = ConfigDict(extra="allow")
    scenario: dict[str, Any]
    profile: dict[str, Any]
    months: list[str]
    strategies: dict[str, dict[str, Any]]
    savings_vs_on_demand: dict[str, float]
    recommendation: str
    waste: dict[str, Any]
    warnings: list[str]


class JobLinks(BaseModel):
    status: str = Field(description="this job (GET it until state is done or failed)")
    plan: Optional[str] = Field(None, description="the plan document, once done")
    xlsx: Optional[str] = Field(None, description="the plan workbook, once done")


class JobStatus(BaseModel):
    """A plan job (202 answers and GET /api/v1/jobs/{id}): the job's row is the truth of
    whether its plan is done; ``stage`` says what is stored so far (static strategies, the
    staged schedule, complete)."""
    id: int
    kind: str = Field(description="plan, workbook, ...")
    state: str = Field(description="waiting | queued | running | done | failed | cancelled")
    stage: Optional[str] = Field(None, description="static | staged | complete")
    attempts: int = Field(description="claims by workers (a stale one is queued again)")
    seconds: Optional[float] = Field(None, description="seconds running, while running")
    queued_at: Optional[float] = None
    started_at: Optional[float] = None
    finished_at: Optional[float] = None
    error: Optional[str] = Field(None, description="why it failed, in the Accept-Language")
    cause: Optional[str] = Field(None, description="why it failed when not the engine's answer "
                                 "for the inputs: budget | memory | worker | crashed")
    retryable: bool = Field(False, description="a failure that runs again when asked for "
                            "(the same POST, or Plan again on the plan page)")
    links: JobLinks


class VarianceEntry(BaseModel):
    """One month (``month``) or the year to date (``from``, ``to``) of a variance document:
    amounts as decimal text in the plan's currency and as whole cents; ``parts`` add up to
    ``total`` to the cent (docs/README-variance.md)."""
    model_config = ConfigDict(extra="allow")
    plan: str
    actual: str
    total: str = Field(description="actual - plan; positive = more spent than planned")
    total_cents: int
    parts: dict[str, str] = Field(description="volume, mix, price, idle_commitments, "
                                  "timing.<line>, other.<line>")
    parts_cents: dict[str, int]


class VarianceDocument(BaseModel):
    """The variance of an approved revision's strategy against the scenario's actual bills:
    the document ``buyrent variance --json`` prints."""
    model_config = ConfigDict(extra="allow")
    strategy: str
    currency: str
    months: list[VarianceEntry]
    ytd: VarianceEntry


class ActualFileOut(BaseModel):
    filename: str
    sha256: str
    size: int


class ActualUploadOut(BaseModel):
    """An upload of actual bills (append-only): the approved revision it was read against and
    the months it holds; for each month the latest upload holding it counts."""
    id: int
    created_at: str
    uploaded_by: str
    revision: int = Field(description="number of the approved revision it was checked against")
    currency: str
    months: list[str]
    files: list[ActualFileOut]


class Baseline(BaseModel):
    """The approved revision the actuals are read against, and the strategy its approval
    approved (the recommended one unless the reviewer named another)."""
    number: int
    content_hash: str
    strategy: str
    recommended: bool
    currency: str


class PlanVsActual(VarianceDocument):
    """The variance document with the forecast (actuals to date, then the plan for the months
    left) and the plan and actual of each cost line over the months with actuals, in cents."""
    forecast: dict[str, Any]
    lines: list[dict[str, Any]]
    outside: list[str] = Field(description="months with actuals outside this plan")


class AlertOut(BaseModel):
    """A threshold crossed by a month of actuals (issue 43), recorded once per month and kind."""
    month: str = Field(description="YYYY-MM")
    kind: str = Field(description="spend_over_plan, commitment_utilization or "
                      "owned_utilization")
    value: str = Field(description="[%] spend over plan, or utilization; two decimals")
    threshold: str = Field(description="[%] the threshold in force when it was recorded")
    revision: int = Field(description="the approved revision it was read against")
    created_at: str


class AlertSettingsOut(BaseModel):
    """The scenario's alert thresholds [%] (null: not set) and which webhook is configured
    (never its URL)."""
    spend_over_plan: Optional[str] = None
    commitment_utilization: Optional[str] = None
    owned_utilization: Optional[str] = None
    webhook: Optional[str] = Field(None, description="'scenario', 'deployment' or null")


class ActualsOut(BaseModel):
    scenario_id: int
    baseline: Optional[Baseline] = Field(None, description="null: no approved revision")
    uploads: list[ActualUploadOut]
    variance: Optional[PlanVsActual] = Field(None, description="null: no actuals within the "
                                             "baseline's months")
    alert_settings: AlertSettingsOut
    alerts: list[AlertOut] = Field(description="thresholds crossed, by month")


class ActualsUploaded(BaseModel):
    """An upload saved: its record, the baseline it was checked against, and where the
    scenario's actuals and variance are (also the Location header)."""
    upload: ActualUploadOut
    baseline: Baseline
    actuals: str


class ReplanOut(BaseModel):
    """A revision re-planned from the actuals (issue 43): which approved revision and last
    actual month it was made from, its first month, whether its plan is stored, its plan page
    and the comparison with the approved revision."""
    scenario_id: int
    number: int
    content_hash: str
    usage_sha256: Optional[str] = None
    replanned_from: int = Field(description="number of the approved revision")
    last_actual: str = Field(description="the last month with actuals, YYYY-MM")
    start_month: str = Field(description="the re-plan's first month, YYYY-MM")
    plan: Literal["computing", "stored"]
    url: str
    compare: str


class ActualsQuery(BaseModel):
    revision: Optional[int] = Field(None, ge=1, description="an approved revision's number "
                                    "(default: the newest approved one)")


class FocusOwnedQuery(BaseModel):
    strategy: Optional[str] = Field(None, max_length=40, description="a strategy of the plan "
                                    "(default: the approved one, else the recommended one)")
    version: Optional[Literal["1.3", "1.4"]] = Field(None, description="FOCUS version of the "
                                                     "columns (default 1.3)")


class ActualsForm(BaseModel):
    """Cloud bills (FOCUS 1.0-1.4, AWS CUR, Azure cost details, Google Cloud billing export),
    the owned fleet's actuals (the owned actuals CSV template) and its GPU busy time (DCGM,
    nvidia-smi): repeat the ``bills`` part for each file."""
    bills: BaseFile
    fx_rate: Optional[float] = Field(
        None, gt=0, description="the exchange rate actually paid, in the plan's reporting "
        "currency per unit of its foreign one: for bills in the foreign currency that give no "
        "amount in the reporting currency (the fx part of the variance)")


def errors(*statuses: int) -> dict[str, type[BaseModel]]:
    return {f"HTTP_{status}": ErrorBody for status in statuses}


SPEC = SpecTree(
    "flask", mode="strict", title="buyrent API", version="1",
    description="Buy-vs-rent plans for GPU compute. Authenticate with "
                "'Authorization: Bearer <token>' (profile page or 'buyrent users token NAME').",
    validation_error_status=422, validation_error_model=ErrorBody,
    security_schemes=[SecurityScheme(name="bearer", data=SecuritySchemeData(
        type=SecureType.HTTP, scheme="bearer", description="an API token (br_...)"))],
    security={"bearer": []},
    # plain model names; nested models (Scenario and its sections) shared by every request
    naming_strategy=lambda model: model.__name__,
    nested_naming_strategy=lambda _parent, child: child)


@functools.cache
def _document() -> dict[str, Any]:
    doc = copy.deepcopy(SPEC.spec)
    plan = doc["paths"]["/api/v1/plans"]["post"]["responses"]["200"]
    plan["description"] = ("The plan document, or the Excel plan when the Accept header "
                           "prefers " + XLSX)
    plan["content"][XLSX] = {"schema": {"type": "string", "format": "binary"}}
    require_tags(doc)
    owned = doc["paths"].get("/api/v1/scenarios/{scenario_id}/revisions/{number}/"
                             "focus-owned.csv")
    if owned is not None:
        owned["get"]["responses"]["200"]["content"] = {"text/csv": {"schema": {
            "type": "string"}}}
    # the multipart request's scenario part is a Scenario as JSON (the server parses it), not
    # any text: an arbitrary string the document allowed answered 400 (Schemathesis, issue 40)
    form = doc["components"]["schemas"]["PlanForm"]["properties"]
    form["scenario"] = {"$ref": "#/components/schemas/Scenario",
                        "description": "a Scenario as JSON (default {})"}
    doc["paths"]["/api/v1/plans"]["post"]["requestBody"]["content"]["multipart/form-data"][
        "encoding"] = {"scenario": {"contentType": "application/json"}}
    return doc


def require_tags(doc: dict[str, Any]) -> None:
    """Each model a discriminator maps to requires its tag property: the server reads a
    ``financing`` without ``kind`` as neither cash nor a loan (422), so the document must not
    offer one (Schemathesis sent ``{}`` and was refused: issue 40)."""
    schemas = doc["components"]["schemas"]

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            tag = node.get("discriminator", {}).get("propertyName")
            for ref in node.get("discriminator", {}).get("mapping", {}).values():
                target = schemas[ref.rsplit("/", 1)[-1]]
                if tag not in target.setdefault("required", []):
                    target["required"].append(tag)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(doc)


def openapi_document() -> dict[str, Any]:
    """The document (built once per process, within an application context)."""
    return _document()


PLAN_RESPONSES = Response(HTTP_200=PlanDocument, HTTP_202=JobStatus,
                          **errors(400, 401, 413, 415, 422, 429))
JOB_RESPONSES = Response(HTTP_200=JobStatus, **errors(401, 404))
JOB_CANCEL_RESPONSES = Response(HTTP_200=JobStatus, **errors(401, 404, 409))
JOB_PLAN_RESPONSES = Response(HTTP_200=PlanDocument, HTTP_202=JobStatus,
                              **errors(401, 404, 409))
# 200: the workbook itself (application/vnd.openxmlformats-officedocument.spreadsheetml.sheet)
JOB_XLSX_RESPONSES = Response("HTTP_200", HTTP_202=JobStatus, **errors(401, 404, 409))
# 200: the CSV itself (text/csv; the document's content added in _document)
FOCUS_OWNED_RESPONSES = Response("HTTP_200", **errors(400, 401, 404, 409))
