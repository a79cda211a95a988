"""The JSON API blueprint (``/api/v1``, bearer tokens) and its OpenAPI document."""
from flask import Blueprint

bp = Blueprint("api", __name__, url_prefix="/api/v1")
