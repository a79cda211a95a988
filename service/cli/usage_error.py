"""The command line's bad-input error, apart so that the web commands (service/cli/web_commands.py) can
raise it without importing the command line that imports them."""
from __future__ import annotations


class UsageError(Exception):
    """Bad input: printed as one message on stderr, exit code 2."""
