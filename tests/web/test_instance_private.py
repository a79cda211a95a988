"""The instance folder holds the database, the queue and the secret key: nobody but the
service's own user may read them (issue 40: a red team found them 0644 in a 0755 folder)."""
from __future__ import annotations

import stat

from service.app import create_app


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_instance_folder_and_its_files_are_the_services_alone(tmp_path):
    instance = tmp_path / "instance"
    instance.mkdir(mode=0o755)
    (instance / "config.py").write_text("")
    (instance / "config.py").chmod(0o644)
    create_app({"INSTANCE_PATH": str(instance)})
    assert mode(instance) == 0o700
    files = {p.name: mode(p) for p in instance.iterdir()}
    assert {"buyrent.sqlite3", "queue.sqlite3", "secret_key", "config.py"} <= set(files)
    assert set(files.values()) == {0o600}, files
