"""The scenarios blueprint: the list, the forms generated from the schema, usage uploads, the
live plan beside the form and the commitments attached from a contract file."""
from flask import Blueprint

bp = Blueprint("scenarios", __name__, url_prefix="/scenarios")
