"""Flask application factory (design 2, 9.4): blueprints auth, scenarios, plans, api."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional

from flask import Flask, redirect, request, send_file, url_for
from flask.json.provider import DefaultJSONProvider
from flask.sessions import SecureCookieSessionInterface
from flask_wtf.csrf import CSRFProtect
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.routing import IntegerConverter

from service import api, auth, plans, scenarios
from service.api import revisions as api_revisions, views as api_views  # noqa: F401
from service.api import actuals as api_actuals, scenarios as api_scenarios  # noqa: F401
from service.api import replan as api_replan  # noqa: F401
from service.api import focus_owned as api_focus_owned  # noqa: F401
from service.auth import views as auth_views  # noqa: F401
from service.web import locale as i18n
from service.allocator import tune_allocator
from service.clip import short_name
from service.forms.scenario import label_for
from service.presets.gpu_prices import source_text as preset_source
from service.paths import STATIC, TEMPLATES
# the route modules of each blueprint: importing them adds their routes to its blueprint
from service.plans import actuals_views, compare, replan_views, views as plan_views  # noqa: F401
from service.plans import focus_views, variance_download  # noqa: F401
from service.scenarios import contract_attach, live_views, views as scenario_views  # noqa: F401
from service.scenarios import alert_settings  # noqa: F401
from service.scenarios.contract_choices import choice_value
from service.web import config as cfg
from service.web import db, errors, health, idempotency, users
from service.plans.jobs import queue, records, runner
from service.plans import alert_posts as alert_task
from service.plans.jobs.memory import check_cap
from service.web.access import MAX_ID
from service.web.users import login_required

csrf = CSRFProtect()

# Scripts only from our own origin: chart data travels in <script type="application/json">
# blocks that static/js/*.js reads, so no inline script is ever needed.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; "
       "base-uri 'self'; form-action 'self'; frame-ancestors 'none'")


class SessionInterface(SecureCookieSessionInterface):
    """Session cookies get the Secure flag on every HTTPS request, not only when configured
    (``SESSION_COOKIE_SECURE`` still forces it, e.g. behind a TLS proxy that does not say
    so in the request)."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"] or request.is_secure)


class RowId(IntegerConverter):
    """``<int:...>`` in every route: ASCII digits up to 1,999,999,999, inside the range of the
    Integer id columns (int4 on PostgreSQL). Anything larger is no id of ours: 404 by routing,
    never an OverflowError (SQLite) or a DataError (PostgreSQL) inside a query. The bound is in
    the pattern itself: a value that matches the pattern and then fails a ``max`` check made
    werkzeug answer 405 instead of 404 on routes with one rule per method."""

    regex = r"[0-9]{1,9}|1[0-9]{9}"

    def __init__(self, map, *args, **kwargs):
        kwargs.setdefault("max", MAX_ID)
        super().__init__(map, *args, **kwargs)


class TooDeep(ValueError):
    """JSON nested deeper than the decoder's recursion limit."""


class BoundedJSONProvider(DefaultJSONProvider):
    """JSON bodies nested thousands of levels deep make the decoder raise RecursionError, which
    is no ValueError and so became a 500. As a ValueError, Flask answers it like any other
    broken JSON body (400), and ``request.get_json(silent=True)`` gives None."""

    def loads(self, s, **kwargs):
        try:
            return super().loads(s, **kwargs)
        except RecursionError:
            raise TooDeep("the JSON is nested too deeply (about 1,000 levels or more)") \
                from None


CACHEABLE = {"static", "plotly_js"}   # the same public bytes for everyone


def create_app(test_config: Optional[Mapping[str, Any]] = None) -> Flask:
    tune_allocator()   # the process that serves plans keeps numpy's temporaries in its heap
    instance = Path(test_config.get("INSTANCE_PATH")) if test_config and \
        test_config.get("INSTANCE_PATH") else cfg.instance_path()
    instance.mkdir(parents=True, exist_ok=True)
    app = Flask(__name__, instance_path=str(instance), instance_relative_config=True,
                template_folder=str(TEMPLATES), static_folder=str(STATIC))
    app.session_interface = SessionInterface()
    app.json = BoundedJSONProvider(app)
    app.url_map.converters["int"] = RowId   # before any blueprint adds its rules
    app.config.from_mapping(cfg.defaults(instance))
    app.config.from_pyfile("config.py", silent=True)
    app.config.from_prefixed_env()
    app.config.update(cfg.from_environment())
    if test_config:
        app.config.update(test_config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = cfg.ensure_secret_key(instance)
    hops = int(app.config.get("PROXY_HOPS") or 0)
    if hops > 0:
        # the client's own address behind nginx: the per-address login limit needs it
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)

    db.init_app(app)
    records.check_budgets(app.config["JOB_BUDGETS"])
    app.config["JOB_MEMORY_MB"] = check_cap(app.config["JOB_MEMORY_MB"])
    huey = queue.init_app(app, runner.run_job)   # plan jobs: service.plans.jobs
    alert_task.init_app(app, huey)        # alert webhook posts (issue 43): service.plans.alerts
    cfg.make_private(instance)            # after the database and queue files exist
    i18n.init_app(app)
    idempotency.init_app(app)
    csrf.init_app(app)
    errors.init_app(app)
    users.init_app(app)   # g.user, before the views of every blueprint
    health.init_app(app)                  # /healthz, and the page banner when plans stall
    app.register_blueprint(auth.bp)
    app.register_blueprint(scenarios.bp)
    app.register_blueprint(plans.bp)
    app.register_blueprint(api.bp)
    csrf.exempt(api.bp)  # bearer tokens, no cookies: CSRF cannot apply
    app.jinja_env.filters["commitment_choice"] = choice_value
    # a scenario field by its schema label, never its path (a review's "about")
    app.jinja_env.filters["field_label"] = label_for
    app.jinja_env.globals["field_label"] = label_for
    app.jinja_env.filters["short_name"] = short_name   # a name cut on a word boundary
    # a price preset's source as a revision recorded it (English), in the page's language
    app.jinja_env.filters["preset_source"] = preset_source


    @app.get("/")
    @login_required
    def index():
        return redirect(url_for("scenarios.index"))

    @app.get("/vendor/plotly.min.js")
    def plotly_js():
        # The chart library comes from the installed plotly package: no CDN, works offline.
        import plotly  # noqa: PLC0415 (heavy: loaded the first time the chart library is asked for)
        path = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
        return send_file(path, mimetype="text/javascript", max_age=86400)

    @app.after_request
    def security_headers(response):
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Referrer-Policy"] = "same-origin"
        if request.endpoint not in CACHEABLE:
            # pages, downloads and API answers hold one user's data: never in a shared cache
            response.headers["Cache-Control"] = "no-store"
        return response

    return app
