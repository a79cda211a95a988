"""service/api/openapi.py: the OpenAPI 3.1 document at /api/v1/openapi.json is valid, needs no login,
lists every API route with the models the views validate with, and is the same for every app.
Schemathesis fuzzes the live API against it in tests/system/test_api_fuzz.py."""
from __future__ import annotations

from openapi_spec_validator import OpenAPIV31SpecValidator, validate

from models.ranges import BY_PATH
from models.scenario import Scenario
from service.app import create_app
from service.api.openapi import PlanRequest
from tests.support.client import TEST_CONFIG


def test_document_is_valid_openapi_31_and_needs_no_login(app):
    response = app.test_client().get("/api/v1/openapi.json")   # no token, no cookie
    assert response.status_code == 200 and response.mimetype == "application/json"
    doc = response.get_json()
    assert doc["openapi"].startswith("3.1.")
    validate(doc)   # raises on any violation of the OpenAPI 3.1 schema
    assert not list(OpenAPIV31SpecValidator(doc).iter_errors())


def test_document_lists_every_api_route_with_its_models(app):
    doc = app.test_client().get("/api/v1/openapi.json").get_json()
    routes = {(rule.rule.replace("<int:", "{").replace(">", "}"), method.lower())
              for rule in app.url_map.iter_rules() if rule.rule.startswith("/api/v1/")
              and rule.endpoint != "api.openapi"
              for method in rule.methods - {"HEAD", "OPTIONS"}}
    documented = {(path, method) for path, ops in doc["paths"].items() for method in ops}
    assert documented == routes
    schemas = doc["components"]["schemas"]
    # the request models are the ones the views validate with, the scenario the engine's own
    assert set(schemas["Scenario"]["properties"]) == set(Scenario.model_fields)
    assert set(schemas["PlanRequest"]["properties"]) == set(PlanRequest.model_fields)
    body = doc["paths"]["/api/v1/plans"]["post"]["requestBody"]["content"]
    assert set(body) == {"application/json", "multipart/form-data"}
    assert doc["security"] == [{"bearer": []}]


def test_document_is_the_same_for_every_app(app, tmp_path):
    other = create_app({**TEST_CONFIG, "INSTANCE_PATH": str(tmp_path / "other")})
    try:
        assert other.test_client().get("/api/v1/openapi.json").get_json() == \
            app.test_client().get("/api/v1/openapi.json").get_json()
    finally:
        other.extensions["buyrent_engine"].dispose()


def test_openapi_shows_the_ranges_by_path(app):
    schemas = app.test_client().get("/api/v1/openapi.json").get_json()["components"]["schemas"]
    assert sorted(schemas["Ranges"]["properties"]) == sorted(BY_PATH)   # served sorted
    assert schemas["Uncertainty"]["properties"]["ranges"]["$ref"] == \
        "#/components/schemas/Ranges"
    low = schemas["FxRateRange"]["properties"]["low"]
    assert (low["minimum"], low["maximum"], low["default"]) == (-0.99, 0, -0.1)


def test_cross_field_rules_are_stated_in_the_schema(app):
    """Each rule the server checks across fields (models/scenario.py validators) is said in
    its model's description, and what JSON Schema can say it says (issue 23)."""
    schemas = app.test_client().get("/api/v1/openapi.json").get_json()["components"]["schemas"]
    stated = {
        "Owned": ["power_kw_idle`` <= ``power_kw_max", "does not increase with age"],
        "Position": ["adds up to at most 100,000"],
        "Proposed": ["or ``servers`` and ``committed_gpus``, not both",
                     "at most one decision a month", "multiple of its ``block_gpus``"],
        "Decision": ["adds up to ``sell_servers``", "multiple of its ``block_gpus``"],
        "Scenario": ["ids of ``commitments`` are unique", "``fx.rate`` is required",
                     "10,000,000 GPUs in an hour", "ids of ``server_types`` are unique",
                     "names one of ``server_types``"],
    }
    for model, phrases in stated.items():
        for phrase in phrases:
            assert phrase in schemas[model]["description"].replace("\n", " "), (model, phrase)
    resale = schemas["Owned"]["properties"]["resale_fraction_by_year"]["items"]
    assert (resale["minimum"], resale["maximum"]) == (0, 1)
    for model, name, key in (("Decision", "sell_from",
                              r"^([A-Za-z0-9_-]{1,20}:)?\d{4}-(0[1-9]|1[0-2])$"),
                             ("Decision", "commit", r"^[A-Za-z0-9_-]{1,20}$"),
                             ("Decision", "buy", r"^[A-Za-z0-9_-]{1,20}$"),
                             ("Decision", "sell", r"^[A-Za-z0-9_-]{1,20}$"),
                             ("Proposed", "servers_by_type", r"^[A-Za-z0-9_-]{1,20}$"),
                             ("Proposed", "committed_gpus", r"^[A-Za-z0-9_-]{1,20}$")):
        mapping = schemas[model]["properties"][name]
        assert mapping["patternProperties"] == {key: {"type": "integer", "minimum": 0}}
        assert mapping["additionalProperties"] is False
