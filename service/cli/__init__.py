"""The command line (``buyrent``): the plan command, its terminal report and the web
commands (serve, users)."""
