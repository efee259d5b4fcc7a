"""Machinery of the build backend's tests: a wheelhouse for offline frontends, projects written
under ``tmp_path``, frontends run as subprocesses, and fresh virtual environments.

Everything slow happens once per session (``conftest.py``): the wheelhouse (the array-vectorize
wheel of ``dist/`` plus hatchling and the runtime dependencies, fetched with ``pip download`` into
``target/test-wheelhouse`` the first time and reused after) and a *base* environment holding the
runtime dependencies (numpy, array-api-compat, array-vectorize) and hatchling. A test's fresh
environment is ``python -m venv --without-pip`` plus a ``.pth`` line that puts the base's
site-packages after its own: the package under test is installed into the fresh environment
alone, with the real installer, and nothing of it exists anywhere else.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "finance_pkg"

#: Marked functions of the example project, as module:qualname.
EXAMPLE_FUNCTIONS = (
    "finance_pkg.options:norm_cdf",
    "finance_pkg.options:black_scholes_call",
    "finance_pkg.options:black_scholes_put",
    "finance_pkg.options:barrier_call",
    "finance_pkg.options:digital_call",
    "finance_pkg.rates:discount_factor",
    "finance_pkg.rates:annuity_payment",
    "finance_pkg.rates:future_value",
    "finance_pkg.rates:compound_value",
    "finance_pkg.rates:income_tax",
    "finance_pkg.risk:huber_loss",
    "finance_pkg.risk:soft_threshold",
    "finance_pkg.risk:value_at_risk",
    "finance_pkg.risk:max_drawdown_step",
)

# Outer variables that would change a build or a run: never inherited by the subprocesses.
_CONTROLLED = (
    "PYTHONPATH",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONPYCACHEPREFIX",
    "PYTHONSTARTUP",
    "PYTHONWARNINGS",
    "SOURCE_DATE_EPOCH",
    "ARRAY_VECTORIZE_CACHE",
    "ARRAY_VECTORIZE_NO_COMPILE",
    "ARRAY_VECTORIZE_DEBUG",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_FIND_LINKS",
    "PIP_NO_INDEX",
    "PIP_REQUIRE_VIRTUALENV",
    "VIRTUAL_ENV",
)

#: Third-party wheels the frontends and the fresh environments need, beside array-vectorize's
#: (editables: hatchling's editable wheels; flit-core: the test of another wrapped backend).
THIRD_PARTY = ("hatchling", "editables", "flit-core", "array-api-compat", "numpy")


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _CONTROLLED and not k.startswith("PIP_")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.update(extra)
    return env


def run(args, *, cwd=None, env=None, check=True, timeout=300) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env or clean_env(), capture_output=True, text=True, timeout=timeout
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"command failed ({proc.returncode}): {' '.join(map(str, args))}\n"
            f"--- stdout\n{proc.stdout[-6000:]}\n--- stderr\n{proc.stderr[-6000:]}"
        )
    return proc


# ---------------------------------------------------------------------------- the wheelhouse


def array_vectorize_wheel(scratch: Path) -> Path:
    """The array-vectorize wheel the frontends install: $ARRAY_VECTORIZE_WHEEL, else the one in
    dist/ (`make wheel`), else one built now with maturin (once per session)."""
    explicit = os.environ.get("ARRAY_VECTORIZE_WHEEL")
    if explicit:
        return Path(explicit)
    built = sorted((REPO / "dist").glob("array_vectorize-*.whl"))
    if not built:
        out = scratch / "array-vectorize-dist"
        run([sys.executable, "-m", "maturin", "build", "--profile", "dev", "--out", out, "--quiet"], cwd=REPO, timeout=1200)
        built = sorted(out.glob("array_vectorize-*.whl"))
    wheel = built[-1]
    with zipfile.ZipFile(wheel) as zf:
        if "array_vectorize/build/__init__.py" not in zf.namelist():
            raise AssertionError(f"{wheel} has no array_vectorize/build: it is stale, run `make wheel`")
    return wheel


def third_party_wheels() -> Path:
    """hatchling, numpy, array-api-compat and their dependencies as wheels, downloaded once."""
    cache = Path(os.environ.get("ARRAY_VECTORIZE_TEST_WHEELHOUSE", REPO / "target" / "test-wheelhouse"))
    cache.mkdir(parents=True, exist_ok=True)
    have = {p.name.split("-")[0].lower().replace("_", "-") for p in cache.glob("*.whl")}
    if not all(name in have for name in THIRD_PARTY):
        run([sys.executable, "-m", "pip", "download", "--no-cache-dir", "--only-binary=:all:", "-d", cache, *THIRD_PARTY], timeout=600)
    return cache


@dataclass
class Wheelhouse:
    """Where the offline frontends find everything: --find-links for pip and `build`."""

    array_vectorize: Path  # the wheel
    dirs: tuple[Path, ...]

    def pip_env(self, **extra: str) -> dict[str, str]:
        # PIP_* variables reach the pip that `python -m build` runs in its isolated environment.
        return clean_env(PIP_NO_INDEX="1", PIP_FIND_LINKS=" ".join(str(d) for d in self.dirs), **extra)


# ---------------------------------------------------------------------------- environments


def site_packages(venv: Path) -> Path:
    return Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))


def python_of(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def pip_into(venv: Path, *args, env=None) -> subprocess.CompletedProcess:
    """The test interpreter's pip installing into `venv` (`pip --python`): no pip in the venv."""
    return run([sys.executable, "-m", "pip", "--python", python_of(venv), *args], env=env)


def new_venv(path: Path, base: Path | None = None) -> Path:
    run([sys.executable, "-m", "venv", "--without-pip", path])
    if base is not None:
        # After the venv's own site-packages: what the test installs shadows nothing of it.
        (site_packages(path) / "_base_env.pth").write_text(str(site_packages(base)) + "\n")
    return path


# ---------------------------------------------------------------------------- projects and wheels


def write_project(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def copy_example(dest: Path) -> Path:
    shutil.copytree(EXAMPLE, dest, ignore=shutil.ignore_patterns("__pycache__", "dist", "build", "*.egg-info"))
    return dest


def pyproject(name: str, extra: str = "") -> str:
    return textwrap.dedent(
        f"""\
        [build-system]
        requires = ["array-vectorize"]
        build-backend = "array_vectorize.build"

        [project]
        name = "{name}"
        version = "0.1.0"
        description = "a test project"
        dependencies = ["array-vectorize"]
        """
    ) + textwrap.dedent(extra)


def tree_snapshot(root: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every path under root with its mode, mtime and bytes: equal snapshots, untouched tree."""
    snap = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        snap[str(path.relative_to(root))] = (st.st_mode, st.st_mtime_ns, path.read_bytes() if path.is_file() else b"")
    return snap


def check_record(wheel: Path) -> list[str]:
    """Checks RECORD against every entry of `wheel`; returns the entry names."""
    with zipfile.ZipFile(wheel) as zf:
        names = [i.filename for i in zf.infolist()]
        record_name = next(n for n in names if n.endswith(".dist-info/RECORD"))
        rows = list(csv.reader(io.StringIO(zf.read(record_name).decode("utf-8"))))
        listed = {row[0]: row for row in rows}
        assert len(listed) == len(rows), "RECORD lists an entry twice"
        assert set(listed) == set(names), f"RECORD and the zip differ: {set(listed) ^ set(names)}"
        assert listed[record_name][1:] == ["", ""]
        for name in names:
            if name == record_name:
                continue
            data = zf.read(name)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert listed[name][1] == f"sha256={digest}", f"{name}: hash in RECORD is wrong"
            assert listed[name][2] == str(len(data)), f"{name}: size in RECORD is wrong"
        assert names[-1] == record_name, "RECORD is not the last entry"
    return names


# ---------------------------------------------------------------------------- README sessions

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


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


def same_output(shown: list[str], printed: list[str]) -> bool:
    """Line for line; numbers equal to 1e-7 relative (the last printed digit may round apart)."""
    if len(shown) != len(printed):
        return False
    for a, b in zip(shown, printed):
        if NUMBER.sub("#", a).split() != NUMBER.sub("#", b).split():
            return False
        for x, y in zip(NUMBER.findall(a), NUMBER.findall(b)):
            if not math.isclose(float(x), float(y), rel_tol=1e-7, abs_tol=1e-12):
                return False
    return True


def run_sessions(sessions: list[tuple[str, list[str]]], cwd: Path, env: dict[str, str], timeout: float) -> None:
    """Runs the commands of `sessions` in one bash (stopping at the first that fails, a pipe's
    included) and asserts each printed what its session shows, where it shows something."""
    script = ["set -e -o pipefail"]
    for n, (command, _) in enumerate(sessions):
        script += [f"echo '@@ command {n}'", command]
    proc = subprocess.run(["bash", "-c", "\n".join(script)], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"--- stdout\n{proc.stdout[-6000:]}\n--- stderr\n{proc.stderr[-6000:]}"
    printed = re.split(r"^@@ command \d+\n", proc.stdout, flags=re.M)[1:]
    assert len(printed) == len(sessions)
    for (command, shown), out in zip(sessions, printed):
        if shown:
            assert same_output(shown, out.splitlines()), f"$ {command}\nshown:\n{shown}\nprinted:\n{out}"


#: The heading of README.md's section on installing array-vectorize into one's own environment.
INSTALL_SECTION = "## Use it in your project"


def readme_section(heading: str) -> str:
    """The text of README.md's section `heading`, up to the next heading of its level."""
    text = (REPO / "README.md").read_text()
    start = text.index(heading + "\n")
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end >= 0 else len(text)]


def readme_without(heading: str) -> str:
    """README.md without its section `heading`."""
    return (REPO / "README.md").read_text().replace(readme_section(heading), "")
