"""`pip install .` (issue 23): the wheel built from the sources carries its compiled catalogs,
templates, static files, migrations and samples (setup.py), so the web app it installs starts
and serves /login in Korean from a fresh virtualenv, away from any checkout.

The wheel is built by pip with build isolation (setuptools and Babel from the local package
index or pip's cache) from a copy of the sources without any .mo file. The virtualenv gets the
wheel alone (--no-deps); its dependencies are this interpreter's site-packages, listed in a .pth
file (a listed directory's own .pth files are not read, so the checkout's editable install is
not on the path: the test asserts that the package imported is the installed one)."""
from __future__ import annotations

import json
import shutil
import site
import subprocess
import sys
import textwrap
import zipfile

from tests.support.paths import ROOT

SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "models", "service",
           "templates", "static", "migrations", "samples")
CHILD = textwrap.dedent("""
    import json, sys
    import service
    from service.app import create_app
    app = create_app({"TESTING": True, "SECRET_KEY": "wheel-test", "INSTANCE_PATH": sys.argv[1]})
    page = app.test_client().get("/login", headers={"Accept-Language": "ko"})
    print(json.dumps({"service": service.__file__, "status": page.status_code,
                      "html": page.get_data(as_text=True)}))
""")


def run(*args, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=600,
                          **kwargs)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def test_a_wheel_in_a_fresh_virtualenv_serves_login_in_korean(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns(
                "__pycache__", "*.pyc", "*.mo", "bundled"))
        else:
            shutil.copy2(path, src / name)
    assert not list(src.rglob("*.mo"))               # the build has to compile them
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp_path / "dist", src)
    wheel = next((tmp_path / "dist").glob("buyrent-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"service/translations/ko/LC_MESSAGES/messages.mo",
            "service/bundled/templates/auth/login.html", "service/bundled/migrations/env.py",
            "service/bundled/static/js/app.js",
            "service/bundled/samples/usage_hourly.csv"} <= names
    env = tmp_path / "env"
    run(sys.executable, "-m", "venv", "--without-pip", env)
    python = env / "bin" / "python"
    env_site = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"
                   ).stdout.strip()
    (tmp_path / env_site / "dependencies.pth").write_text("\n".join(site.getsitepackages()))
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "-q", wheel)
    out = run(python, "-I", "-c", CHILD, tmp_path / "instance", cwd=tmp_path).stdout
    answer = json.loads(out.splitlines()[-1])
    assert answer["service"].startswith(env_site)    # the installed package, not the checkout
    assert answer["status"] == 200
    assert '<html lang="ko"' in answer["html"] and "로그인" in answer["html"]
