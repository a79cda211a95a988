"""The plans blueprint: a revision's plan page and downloads, reviews, the audit log and the
comparison of two plans; the plan cache, the revisions and the live plan of unsaved form values
behind them, which the scenarios and API blueprints use too (one layer down from them)."""
from flask import Blueprint

bp = Blueprint("plans", __name__)
