"""Git merge driver for translation catalogs: the union of both sides' entries.

Two branches that each add strings conflict in messages.pot and messages.po on every line
that babel renumbers. Their entries do not really conflict: take every message of either
side, keep a translation wherever one side has it (ours first), and let
`scripts/i18n extract && scripts/i18n update` re-derive references and drop what the merged
code no longer uses. Set up once per clone (docs/README-i18n.md):

    git config merge.pounion.driver ".venv/bin/python scripts/po_union.py %O %A %B"

Usage: po_union.py BASE OURS THEIRS (writes the union into OURS, exit 0).
"""
from __future__ import annotations

import sys

from babel.messages.pofile import read_po, write_po


def read(path: str):
    with open(path, "rb") as f:
        return read_po(f, abort_invalid=False)


def main(base: str, ours: str, theirs: str) -> int:
    mine, other = read(ours), read(theirs)
    for message in other:
        if not message.id:
            continue
        key = (message.id, message.context) if message.context else message.id
        current = mine.get(message.id, message.context)
        if current is None:
            mine[key] = message
        elif not _translated(current) and _translated(message):
            current.string = message.string
        if current is not None:
            current.locations = sorted(set(current.locations) | set(message.locations))
    with open(ours, "wb") as f:
        write_po(f, mine, width=76, sort_by_file=True, include_previous=False)
    return 0


def _translated(message) -> bool:
    s = message.string
    return any(s) if isinstance(s, (list, tuple)) else bool(s)


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
