"""README.md's "Use it in your project", run as a newcomer runs it: its shell session command for
command as written, in a stand-in for a fresh clone whose HOME is a scratch directory (the session
makes `~/venvs/analysis`), pip reaching PyPI for NumPy and the wheelhouse for array-vectorize. The
shown output is compared with what the commands print.

The stand-in clone holds the Makefile, `examples/demo.py` and a `dist/` with the array-vectorize
wheel that `make test-deps` built, so `make wheelhouse` takes that wheel as it would in a clone
where `make demo` or `make test` ran, instead of building it again (test_example_readme.py does
the same)."""

from __future__ import annotations

import shutil

from buildenv import INSTALL_SECTION, REPO, array_vectorize_wheel, clean_env, console_sessions, readme_section, run_sessions


def test_use_it_in_your_project_runs_as_written(tmp_path):
    sessions = console_sessions(readme_section(INSTALL_SECTION))
    commands = [c for c, _ in sessions]
    assert commands[0] == "make wheelhouse" and any("pip install" in c for c in commands)

    clone = tmp_path / "array-vectorize"
    (clone / "examples").mkdir(parents=True)
    shutil.copy(REPO / "examples" / "demo.py", clone / "examples" / "demo.py")
    (clone / "Makefile").symlink_to(REPO / "Makefile")
    wheel = array_vectorize_wheel(tmp_path / "scratch")
    (clone / "dist").mkdir()
    (clone / "dist" / wheel.name).symlink_to(wheel)
    home = tmp_path / "home"
    home.mkdir()

    run_sessions(sessions, clone, clean_env(HOME=str(home)), timeout=900)
    # The environment is the user's own: array-vectorize went there, and nowhere else was needed.
    installed = list((home / "venvs" / "analysis").glob("lib/python*/site-packages/array_vectorize"))
    assert len(installed) == 1
