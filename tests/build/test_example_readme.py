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
import re
import shlex
import subprocess
import sys

from buildenv import EXAMPLE, REPO, array_vectorize_wheel, clean_env, copy_example, run

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def console_sessions(markdown: str) -> list[tuple[str, list[str]]]:
    """(command, shown output lines) of every ```console block (indented ones too, as in a list),
    in order. A command starts at `$ ` and goes on over the following lines until its quotes
    close."""
    sessions: list[tuple[str, list[str]]] = []
    for indent, block in re.findall(r"^( *)```console\n(.*?)^\1```", markdown, re.S | re.M):
        lines = [line[len(indent) :] for line in block.splitlines()]
        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            if not line.startswith("$ "):
                sessions[-1][1].append(line)
                continue
            command = line[2:]
            while not _complete(command):
                command += "\n" + lines[i]
                i += 1
            sessions.append((command, []))
    return sessions


def _complete(command: str) -> bool:
    try:
        shlex.split(command)
    except ValueError:  # an open quote: the command goes on on the next line
        return False
    return True


def _same_output(shown: list[str], printed: list[str]) -> bool:
    """Line for line; numbers equal to 1e-7 relative (the last printed digit may round apart)."""
    if len(shown) != len(printed):
        return False
    for a, b in zip(shown, printed):
        if _NUMBER.sub("#", a).split() != _NUMBER.sub("#", b).split():
            return False
        for x, y in zip(_NUMBER.findall(a), _NUMBER.findall(b)):
            if not math.isclose(float(x), float(y), rel_tol=1e-7, abs_tol=1e-12):
                return False
    return True


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

    script = ["set -e"]
    for n, command in enumerate(commands):
        script += [f"echo '@@ command {n}'", command]
    env = clean_env()
    env["LC_ALL"] = "C"  # `ls` sorts by bytes, as shown
    proc = subprocess.run(
        ["bash", "-c", "\n".join(script)], cwd=clone, env=env, capture_output=True, text=True, timeout=1200
    )
    assert proc.returncode == 0, f"--- stdout\n{proc.stdout[-6000:]}\n--- stderr\n{proc.stderr[-6000:]}"
    printed = re.split(r"^@@ command \d+\n", proc.stdout, flags=re.M)[1:]
    assert len(printed) == len(sessions)
    for (command, shown), out in zip(sessions, printed):
        if shown:
            assert _same_output(shown, out.splitlines()), f"$ {command}\nshown:\n{shown}\nprinted:\n{out}"

    # What the README shows is what CPython computes, element by element, with the scalar original.
    prices_line = next(line for _, shown in sessions for line in shown if line.startswith("["))
    probe = (
        "import json, sys, numpy as np\n"
        f"sys.path.insert(0, {str(clone / 'examples' / 'finance_pkg' / 'src')!r})\n"
        "from finance_pkg.options import black_scholes_call as f\n"
        "print(json.dumps([f._vectorized_original(s, 100.0, 0.03, 0.2, 1.0) for s in np.linspace(80, 120, 5).tolist()]))"
    )
    expected = json.loads(run([sys.executable, "-c", probe]).stdout)
    shown_prices = [float(x) for x in _NUMBER.findall(prices_line)]
    assert len(shown_prices) == len(expected)
    assert all(math.isclose(a, b, rel_tol=1e-8) for a, b in zip(shown_prices, expected))


def test_top_readme_shows_the_example_commands():
    """README.md's build-backend commands are the example README's, so they are tested too."""
    example = [c for c, _ in console_sessions((EXAMPLE / "README.md").read_text())]
    top = [c for c, _ in console_sessions((REPO / "README.md").read_text())]
    assert "make wheelhouse" in top
    assert [c for c in top if c not in example] == []


def test_sessions_are_parsed_command_by_command():
    text = '```console\n$ echo "a\nb"\na\nb\n$ true\n```\n'
    assert console_sessions(text) == [('echo "a\nb"', ["a", "b"]), ("true", [])]
