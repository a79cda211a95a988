"""compose.yaml and its Dockerfile against the code. No Docker runs here or in CI, so what can
be checked without it is: the file parses; every variable it gives a buyrent container is one
the code reads (each changes the configuration) and the URLs it builds are ones the service
accepts (the queue's Redis with a password, beyond loopback); every buyrent command line
parses with the CLI's own parser; the migration runs from a folder the image has; the secrets
of PostgreSQL and Redis are the ones the URLs carry, and come from a git-ignored .env; the
instances start only after the migration. The layout itself runs, without containers, in
tests/system/test_deploy_local.py (scripts/deploy-local)."""
from __future__ import annotations

import re
import shlex
import subprocess
from urllib.parse import urlsplit

import pytest
import yaml

from service.cli.main import build_parser
from service.plans.jobs.queue import QueueRefused, check_url
from service.web import config as cfg
from service.web.db import make_engine
from tests.support.paths import ROOT

COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text())
SERVICES = COMPOSE["services"]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
BUYRENT = sorted(name for name, service in SERVICES.items()
                 if service.get("image") == "buyrent:local")
VARIABLE = re.compile(r"\$\{([A-Z_][A-Z0-9_]*)(?::?[?-][^}]*)?\}")


def instruction(name: str) -> str:
    """The argument of the Dockerfile's (last) instruction ``name``."""
    return [line.split(None, 1)[1] for line in DOCKERFILE.splitlines()
            if line.startswith(name + " ")][-1]


def interpolated(text: str) -> str:
    """``text`` as compose gives it to a container: ``${NAME:?...}`` by a value of NAME."""
    return VARIABLE.sub(lambda m: m.group(1).lower().replace("_", "-") + "-x1", text)


def variables(text: str) -> set[str]:
    return set(VARIABLE.findall(text))


def test_the_services_of_the_two_machine_layout():
    assert set(SERVICES) == {"postgres", "redis", "migrate", "web1", "web2", "worker"}
    assert BUYRENT == ["migrate", "web1", "web2", "worker"]
    assert SERVICES["worker"]["deploy"]["replicas"] == 2
    for name in BUYRENT:
        assert SERVICES[name]["build"] == "."


@pytest.mark.parametrize("name", ["migrate", "web1", "web2", "worker"])
def test_every_variable_given_to_buyrent_is_read_by_it(name, monkeypatch):
    environment = {key: interpolated(value)
                   for key, value in SERVICES[name]["environment"].items()}
    assert set(environment) == {"DATABASE_URL", "BUYRENT_QUEUE_URL", "SECRET_KEY"}
    for key in list(environment) + ["BUYRENT_INSTANCE"]:
        monkeypatch.delenv(key, raising=False)
    for key, value in environment.items():
        monkeypatch.setenv(key, value)
        read = cfg.from_environment()
        assert value in read.values(), f"{key} is not read by service/web/config.py"
        monkeypatch.delenv(key)
    # the instance folder of each container, from the image
    key, _, folder = instruction("ENV").split()[0].partition("=")
    assert key == "BUYRENT_INSTANCE"
    monkeypatch.setenv(key, folder)
    assert str(cfg.instance_path()) == folder


def test_the_urls_are_ones_the_service_accepts():
    environment = {key: interpolated(value)
                   for key, value in SERVICES["web1"]["environment"].items()}
    queue = environment["BUYRENT_QUEUE_URL"]
    check_url(queue)                                     # a password: accepted off loopback
    parts = urlsplit(queue)
    with pytest.raises(QueueRefused):                    # without one it would be refused
        check_url(parts._replace(netloc=f"{parts.hostname}:{parts.port}").geturl())
    engine = make_engine(environment["DATABASE_URL"])
    assert (engine.dialect.name, engine.dialect.driver) == ("postgresql", "psycopg")
    engine.dispose()


def test_the_secrets_are_the_ones_the_urls_carry_and_never_committed():
    raw = SERVICES["web1"]["environment"]
    database = urlsplit(interpolated(raw["DATABASE_URL"]))
    queue = urlsplit(interpolated(raw["BUYRENT_QUEUE_URL"]))
    postgres = SERVICES["postgres"]["environment"]
    assert variables(postgres["POSTGRES_PASSWORD"]) == variables(raw["DATABASE_URL"]) == \
        {"DB_PASSWORD"}
    assert (postgres["POSTGRES_USER"], postgres["POSTGRES_DB"]) == \
        (database.username, database.path.lstrip("/"))
    assert (database.hostname, queue.hostname) == ("postgres", "redis")
    command = SERVICES["redis"]["command"]
    password = command[command.index("--requirepass") + 1]
    assert variables(password) == variables(raw["BUYRENT_QUEUE_URL"]) == {"REDIS_PASSWORD"}
    assert variables(raw["SECRET_KEY"]) == {"SECRET_KEY"}
    for name in BUYRENT:     # one environment for every process (one SECRET_KEY above all)
        assert SERVICES[name]["environment"] == raw
    assert "ports" not in SERVICES["redis"] and "ports" not in SERVICES["postgres"]
    ignored = subprocess.run(["git", "check-ignore", "-q", ".env"], cwd=ROOT)
    assert ignored.returncode == 0, ".env (compose.yaml's secrets) must be git-ignored"


def test_every_buyrent_command_line_parses():
    assert instruction("ENTRYPOINT") == '["buyrent"]'
    assert 'buyrent = "service.cli.main:main"' in (ROOT / "pyproject.toml").read_text()
    lines = {name: SERVICES[name]["command"] for name in ("web1", "web2", "worker")}
    lines["Dockerfile CMD"] = yaml.safe_load(instruction("CMD"))
    for name, argv in lines.items():
        args = build_parser(argv).parse_args(argv)
        assert args.func.__name__ in ("cmd_serve", "cmd_worker"), name
        if name in ("web1", "web2"):
            assert args.no_worker, "a web instance starts no worker: the workers compute"
            published = SERVICES[name]["ports"][0].rsplit(":", 1)[1]
            assert (args.host, str(args.port)) == ("0.0.0.0", published)
            assert str(args.port) in " ".join(SERVICES[name]["healthcheck"]["test"])


def test_the_schema_is_migrated_once_before_the_instances_start():
    migrate = SERVICES["migrate"]
    assert migrate["working_dir"] == instruction("WORKDIR")
    assert shlex.join(migrate["entrypoint"]) == "alembic -c migrations/alembic.ini upgrade head"
    assert (ROOT / "migrations" / "alembic.ini").is_file()
    assert "COPY . ." in DOCKERFILE
    assert migrate["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    for name in ("web1", "web2", "worker"):
        assert SERVICES[name]["depends_on"]["migrate"] == \
            {"condition": "service_completed_successfully"}


def test_the_image_has_chromium_for_the_pdf():
    assert re.search(r"apt-get install [^\n]*\bchromium\b", DOCKERFILE)
    assert "pip install --no-cache-dir ." in DOCKERFILE
    assert instruction("USER") == "buyrent"
