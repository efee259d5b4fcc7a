"""The example project's README, run as a newcomer runs it: its shell sessions, command for command
as written, in a fresh copy of the example inside a stand-in for a fresh clone, with pip and
`python -m build` reaching PyPI for what is on it (hatchling, NumPy) and the wheelhouse for
array-vectorize. The shown output is compared with what the commands print, and the prices with
the scalar original.

The stand-in clone holds the Makefile and a `dist/` with the array-vectorize wheel that
`make test-deps` built, so `make wheelhouse` takes that wheel as it would in a clone where
`make demo` or `make test` ran, instead of building it again.
"""

from __future__ import annotations

import json
import math
import sys

from buildenv import (
    EXAMPLE,
    INSTALL_SECTION,
    NUMBER,
    REPO,
    array_vectorize_wheel,
    clean_env,
    console_sessions,
    copy_example,
    readme_without,
    run,
    run_sessions,
)


def test_example_readme_commands_run_as_written(tmp_path):
    readme = (EXAMPLE / "README.md").read_text()
    sessions = console_sessions(readme)
    commands = [c for c, _ in sessions]
    assert commands[:2] == ["make wheelhouse", 'export PIP_FIND_LINKS="$PWD/wheelhouse"']
    assert "pip wheel --no-deps . -w dist/" in commands and "python -m build" in commands

    clone = tmp_path / "array-vectorize"
    copy_example(clone / "examples" / "finance_pkg")
    (clone / "Makefile").symlink_to(REPO / "Makefile")
    wheel = array_vectorize_wheel(tmp_path / "scratch")
    (clone / "dist").mkdir()
    (clone / "dist" / wheel.name).symlink_to(wheel)

    env = clean_env()
    env["LC_ALL"] = "C"  # `ls` sorts by bytes, as shown
    run_sessions(sessions, clone, env, timeout=1200)

    # What the README shows is what CPython computes, element by element, with the scalar original.
    prices_line = next(line for _, shown in sessions for line in shown if line.startswith("["))
    probe = (
        "import json, sys, numpy as np\n"
        f"sys.path.insert(0, {str(clone / 'examples' / 'finance_pkg' / 'src')!r})\n"
        "from finance_pkg.options import black_scholes_call as f\n"
        "print(json.dumps([f._vectorized_original(s, 100.0, 0.03, 0.2, 1.0) for s in np.linspace(80, 120, 5).tolist()]))"
    )
    expected = json.loads(run([sys.executable, "-c", probe]).stdout)
    shown_prices = [float(x) for x in NUMBER.findall(prices_line)]
    assert len(shown_prices) == len(expected)
    assert all(math.isclose(a, b, rel_tol=1e-8) for a, b in zip(shown_prices, expected))


def test_top_readme_shows_the_example_commands():
    """README.md's build-backend commands are the example README's, so they are tested too
    (its "Use it in your project" session is run by test_readme_install.py)."""
    example = [c for c, _ in console_sessions((EXAMPLE / "README.md").read_text())]
    top = [c for c, _ in console_sessions(readme_without(INSTALL_SECTION))]
    assert "make wheelhouse" in top
    assert [c for c in top if c not in example] == []


def test_sessions_are_parsed_command_by_command():
    text = '```console\n$ echo "a\nb"\na\nb\n$ true\n```\n'
    assert console_sessions(text) == [('echo "a\nb"', ["a", "b"]), ("true", [])]
