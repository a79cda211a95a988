"""The web infrastructure every blueprint stands on: configuration, database and tables,
accounts and sessions, access rules, idempotency keys, error pages, the request's language
(locale.py) and the production servers. The factory that assembles it with the blueprints is
service/app.py, one layer up."""
