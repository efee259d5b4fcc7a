"""README.md's "Use it in your project", run as a newcomer runs it: its shell session command for
command as written, in a stand-in for a fresh clone whose HOME is a scratch directory (the session
makes `~/venvs/analysis`), pip reaching PyPI for NumPy and the wheelhouse for array-vectorize. The
shown output is compared with what the commands print.

The stand-in clone holds the Makefile, `examples/demo.py` and a `dist/` with the array-vectorize
wheel that `make test-deps` built, so `make wheelhouse` takes that wheel as it would in a clone
where `make demo` or `make test` ran, instead of building it again (test_example_readme.py does
the same)."""

from __future__ import annotations

import re
import shutil
import subprocess

from buildenv import INSTALL_SECTION, REPO, array_vectorize_wheel, clean_env, console_sessions, readme_section, same_output


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

    script = ["set -e -o pipefail"]
    for n, command in enumerate(commands):
        script += [f"echo '@@ command {n}'", command]
    env = clean_env(HOME=str(home))
    proc = subprocess.run(["bash", "-c", "\n".join(script)], cwd=clone, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"--- stdout\n{proc.stdout[-6000:]}\n--- stderr\n{proc.stderr[-6000:]}"
    printed = re.split(r"^@@ command \d+\n", proc.stdout, flags=re.M)[1:]
    assert len(printed) == len(sessions)
    for (command, shown), out in zip(sessions, printed):
        if shown:
            assert same_output(shown, out.splitlines()), f"$ {command}\nshown:\n{shown}\nprinted:\n{out}"
    # The environment is the user's own: array-vectorize went there, and nowhere else was needed.
    installed = list((home / "venvs" / "analysis").glob("lib/python*/site-packages/array_vectorize"))
    assert len(installed) == 1
