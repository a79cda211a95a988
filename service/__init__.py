"""buyrent service: everything with I/O, one package per area (README, Layout).

The Flask factory is ``service.app.create_app``; nothing here imports Flask, so ``buyrent
plan`` runs without it.
"""

import os as _os

# BUYRENT_GROWTH_RANGE_SCENARIOS=0: plans without demand scenarios get no robust plan from the
# growth range (issue 27's default; models.robust.FROM_RANGE), in this process and the plan
# jobs' children, which inherit the environment. The test suite sets it (tests/conftest.py):
# the default adds 3-30 s to each of its hundreds of plans that test something else.
if _os.environ.get("BUYRENT_GROWTH_RANGE_SCENARIOS") == "0":
    import models.robust as _robust
    _robust.FROM_RANGE = False
