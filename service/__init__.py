"""buyrent service: everything with I/O, one package per area (README, Layout).

The Flask factory is ``service.app.create_app``; nothing here imports Flask, so ``buyrent
plan`` runs without it.
"""
