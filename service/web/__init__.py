"""The web application shared by every blueprint: the factory, configuration, database and
tables, accounts and sessions, access rules, error pages and the production servers."""
