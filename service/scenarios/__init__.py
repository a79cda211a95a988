"""The scenarios blueprint: the list, the scenario form (service/forms), usage uploads, the
live plan panel beside the form (its document: service/plans/live.py) and the commitments
attached from a contract file."""
from flask import Blueprint

bp = Blueprint("scenarios", __name__, url_prefix="/scenarios")
