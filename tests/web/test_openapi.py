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
