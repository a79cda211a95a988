"""The auth blueprint: login, logout and the profile page (service.auth.views)."""
from flask import Blueprint

bp = Blueprint("auth", __name__)
