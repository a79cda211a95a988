"""buyrent service: everything with I/O (web app, CLI, ingest, export).

``create_app`` is imported lazily so that ``buyrent plan`` does not load Flask.
"""


def create_app(test_config=None):
    """The Flask application (see :mod:`service.app`)."""
    from service.app import create_app as _create_app
    return _create_app(test_config)
