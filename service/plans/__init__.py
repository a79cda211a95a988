"""The plans blueprint: a revision's plan page and downloads, reviews, the audit log and the
comparison of two plans; the plan cache and the revisions behind them."""
from flask import Blueprint

bp = Blueprint("plans", __name__)
