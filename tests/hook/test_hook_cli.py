"""``python -m array_vectorize cache info|clear PATH``."""

from __future__ import annotations

import subprocess
import sys

from hookproj import MARKED, Project


def cli(project: Project, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "array_vectorize", "cache", *args],
        cwd=project.root,
        env=project.env(env),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_cache_info_and_clear(project: Project, tmp_path):
    project.write("a.py", MARKED)
    project.write("pkg/__init__.py", "")
    project.write("pkg/b.py", MARKED)
    project.run("import a, pkg.b")
    info = cli(project, "info", ".")
    assert info.returncode == 0, info.stderr
    assert info.stdout.count("fresh ") == 2 and "2 cache file(s)" in info.stdout
    assert "2 ok" in info.stdout
    assert "1 record(s) of unmarked sources" in info.stdout  # pkg/__init__.py
    # States: an edited source makes its file stale, a damaged file is reported corrupt.
    project.write("a.py", MARKED.replace("SCALE = 2.0", "SCALE = 4.5"))
    (b_file,) = project.cache_files(project.root / "pkg")
    b_file.write_bytes(b_file.read_bytes()[:-7])
    info = cli(project, "info", str(project.root))
    assert "stale " in info.stdout and "corrupt " in info.stdout, info.stdout
    cleared = cli(project, "clear", ".")
    assert cleared.returncode == 0 and "removed 2 cache file(s), 1 record(s) of unmarked sources" in cleared.stdout
    assert project.cache_files() == []
    assert list(project.root.rglob("*.pyc"))  # CPython's own files are left alone
    assert "0 cache file(s)" in cli(project, "info", ".").stdout
    missing = cli(project, "info", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_cache_info_finds_files_under_the_pycache_prefix(project: Project, tmp_path):
    project.write("a.py", MARKED)
    env = {"PYTHONPYCACHEPREFIX": str(tmp_path / "prefix")}
    project.run("import a", env=env)
    info = cli(project, "info", ".", env=env)
    assert "fresh " in info.stdout and str(tmp_path / "prefix") in info.stdout, info.stdout
    assert "removed 1 cache file(s)" in cli(project, "clear", ".", env=env).stdout
    assert project.cache_files(tmp_path / "prefix") == []
