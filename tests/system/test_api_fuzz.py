"""The API contract on the live app: Schemathesis fuzzing it (waitress in a child process, a
real token) against its OpenAPI 3.1 document (the document itself: tests/web/test_openapi.py).

Every generated request must get: no 5xx, a status code the document lists, a body that
matches the documented schema and content type, and for a request under 1 KB an answer under
1 MB. Examples per operation are bounded (``EXAMPLES``) to keep the suite short on two cores.
"""
from __future__ import annotations

import os
import shutil

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (content_type_conformance,
                                               response_headers_conformance,
                                               response_schema_conformance,
                                               status_code_conformance)

from tests.support.client import TEST_CONFIG
from tests.support.live_server import live_server

# per operation and generation mode; BUYRENT_FUZZ_EXAMPLES=500 fuzzes deeper by hand
EXAMPLES = int(os.environ.get("BUYRENT_FUZZ_EXAMPLES", "25"))
SMALL_REQUEST = 1024     # bytes (URL, headers and body)
LARGE_ANSWER = 1_000_000


# -- Schemathesis against the live app ---------------------------------------------------------

@pytest.fixture(scope="module")
def live_api(tmp_path_factory, seeded_database):
    """(base URL, ana's token): the seeded database behind waitress in a child process."""
    from service.app import create_app
    from service.web.users import create_token
    from service.web.tables import User
    from service.web.db import write_session
    instance = tmp_path_factory.mktemp("schemathesis") / "instance"
    instance.mkdir()
    shutil.copyfile(seeded_database, instance / "buyrent.sqlite3")
    config = {**TEST_CONFIG, "INSTANCE_PATH": str(instance)}
    app = create_app(config)
    with app.app_context():
        with write_session() as s:
            token = create_token(s, s.query(User).filter_by(username="ana").one(), "fuzz")
    app.extensions["buyrent_engine"].dispose()
    with live_server(config) as url:
        yield url, token


@pytest.fixture(scope="module")
def api_schema(live_api):
    url, _ = live_api
    return schemathesis.openapi.from_url(f"{url}/api/v1/openapi.json")


CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance, response_headers_conformance]


def small_request_small_answer(ctx, response, case):
    """A request under 1 KB must not buy an answer over 1 MB (no amplification)."""
    request = response.request
    sent = len(request.url or "") + sum(len(k) + len(v) for k, v in request.headers.items()) \
        + len(request.body or b"")
    if sent < SMALL_REQUEST and len(response.content) > LARGE_ANSWER:
        raise AssertionError(f"{sent} bytes sent, {len(response.content):,} bytes answered")
    return None


# one entry per operation of the document (test_every_operation_is_fuzzed keeps it complete)
OPERATIONS = [("POST", "/api/v1/plans"), ("POST", "/api/v1/scenarios"),
              ("GET", "/api/v1/scenarios/{scenario_id}/revisions"),
              ("POST", "/api/v1/scenarios/{scenario_id}/revisions"),
              ("GET", "/api/v1/jobs/{job_id}"), ("DELETE", "/api/v1/jobs/{job_id}"),
              ("GET", "/api/v1/jobs/{job_id}/plan"),
              ("GET", "/api/v1/jobs/{job_id}/plan.xlsx"),
              ("GET", "/api/v1/scenarios/{scenario_id}/actuals"),
              ("POST", "/api/v1/scenarios/{scenario_id}/actuals"),
              ("GET", "/api/v1/scenarios/{scenario_id}/revisions/{number}/variance"),
              ("POST", "/api/v1/scenarios/{scenario_id}/replan")]


def test_every_operation_is_fuzzed(api_schema):
    found = {(op.ok().method.upper(), op.ok().path) for op in api_schema.get_all_operations()}
    assert found == set(OPERATIONS)


@pytest.mark.parametrize("mode", ["positive", "negative"])
@pytest.mark.parametrize("method,path", OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_api_answers_generated_requests_within_its_contract(api_schema, live_api, method, path,
                                                             mode):
    """Schemathesis generates requests from the document (valid ones, and ones that break it
    on purpose) and checks every answer against it."""
    operation = api_schema[path][method]
    call = caller(live_api)

    @given(case=operation.as_strategy(generation_mode=GenerationMode(mode)))
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def fuzz(case):
        call(case)
    fuzz()


@pytest.mark.parametrize("method,path", OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_api_answers_the_documented_examples(api_schema, live_api, method, path):
    operation = api_schema[path][method]
    call = caller(live_api)
    for strategy in api_schema.get_strategies_from_examples(operation):
        @given(case=strategy)
        @settings(max_examples=3, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        def example(case):
            call(case)
        example()


def caller(live_api):
    """Send a case with the token and check the answer (ana's scenario 1 for a third of the
    generated scenario ids, so the 2xx paths are fuzzed too)."""
    _, token = live_api

    def call(case):
        ids = case.path_parameters if isinstance(case.path_parameters, dict) else {}
        if isinstance(ids.get("scenario_id"), int) and ids["scenario_id"] % 3 == 0:
            ids["scenario_id"] = 1
        case.call_and_validate(headers={"Authorization": f"Bearer {token}"}, timeout=120,
                               checks=CHECKS, additional_checks=[small_request_small_answer])
    return call
