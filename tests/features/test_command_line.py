"""``python -m array_vectorize show`` never runs the file it reads; ``python -m array_vectorize
check PATH`` reports what the build backend would, with an exit status for CI; every command's
``--help`` says what its arguments are. All run as a user runs them, in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from array_vectorize.build import precompile as build_precompile
from array_vectorize.build.config import Config
from array_vectorize.build.errors import BuildError
from array_vectorize.build.wheelfile import Entry


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "array_vectorize", *args], capture_output=True, text=True, cwd=cwd)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


# --------------------------------------------------------------------------- show


SIDE_EFFECTS = """\
    import math
    import os
    from array_vectorize import vectorize

    with open({witness!r}, "w") as log:  # a module that does something when it runs
        log.write("the module ran")
    print("the module ran")
    SCALE = float(os.environ.get("WEATHER_SCALE", "2.5"))  # only the running module knows this value

    @vectorize
    def pressure_altitude(p_hpa):
        return 44307.69 * (1.0 - (p_hpa / 1013.25) ** 0.190284)

    def dew_point(t, rh):
        def gamma(t, rh):
            return math.log(rh / 100.0) + 17.62 * t / (243.12 + t)
        g = gamma(t, rh)
        return 243.12 * g / (17.62 - g)

    @vectorize
    def scaled(x):
        return x * SCALE
"""


@pytest.mark.parametrize(
    "name, status, message",
    [
        ("pressure_altitude", 0, None),
        ("dew_point", 0, None),
        ("dew_pont", 2, "no function dew_pont; did you mean 'dew_point'?"),
        ("dew_point.gamma", 2, "dew_point.gamma is defined inside dew_point"),
        ("dew_point.<locals>.gamma", 2, "dew_point.<locals>.gamma is defined inside dew_point"),
        ("scaled", 1, "scaled reads `SCALE`, whose value only the running module has"),
    ],
)
def test_show_never_imports_or_runs_the_module(tmp_path, name, status, message):
    witness = tmp_path / "ran.txt"
    module = write(tmp_path / "weather.py", SIDE_EFFECTS.format(witness=str(witness)))
    res = run("show", f"{module}:{name}")
    assert not witness.exists(), "show ran the module"
    assert "the module ran" not in res.stdout + res.stderr
    assert res.returncode == status, res.stderr
    if message is None:
        assert res.stdout.startswith(f"def {name}(")
    else:
        assert message in res.stderr and res.stdout == ""


def test_show_reads_the_other_modules_of_the_package_without_importing_them(tmp_path):
    witness = tmp_path / "ran.txt"
    write(tmp_path / "thermo" / "__init__.py", f"open({str(witness)!r}, 'w').write('package ran')\n")
    write(tmp_path / "thermo" / "units.py", f"open({str(witness)!r}, 'w').write('units ran')\ndef to_kelvin(c):\n    return c + 273.15\n")
    module = write(
        tmp_path / "thermo" / "gas.py",
        """\
        from .units import to_kelvin

        def density(p, t_celsius):
            return p / (287.05 * to_kelvin(t_celsius))
        """,
    )
    res = run("show", f"{module}:density")
    assert res.returncode == 0, res.stderr
    assert "273.15" in res.stdout and not witness.exists()


# --------------------------------------------------------------------------- check


PACKAGE = {
    "pyproject.toml": """\
        [project]
        name = "gridcalc"
        version = "1.0"

        [tool.array-vectorize]
        runtime = ["gridcalc.late:calibrated"]
    """,
    "src/gridcalc/__init__.py": "",
    "src/gridcalc/units.py": """\
        def to_kelvin(c):
            return c + 273.15
    """,
    "src/gridcalc/physics.py": """\
        from array_vectorize import vectorize
        from .units import to_kelvin

        @vectorize
        def air_density(p, t_celsius):
            return p / (287.05 * to_kelvin(t_celsius))
    """,
    "src/gridcalc/late.py": """\
        import os
        from array_vectorize import vectorize
        GAIN = float(os.environ.get("GRID_GAIN", "1.5"))

        @vectorize
        def calibrated(x):
            return x * GAIN
    """,
}

BROKEN = {
    "src/gridcalc/report.py": """\
        import os
        from array_vectorize import vectorize
        OFFSET = float(os.environ.get("GRID_OFFSET", "0.5"))

        @vectorize
        def logged(x):
            print(x)
            return x + 1.0

        @vectorize
        def shifted(x):
            return x - OFFSET
    """,
}


def make_project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        write(root / name, text)
    return root


def test_check_passes_a_package_the_build_would_build(tmp_path):
    project = make_project(tmp_path, PACKAGE)
    res = run("check", "src", cwd=project)
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    assert res.stdout == (
        "array_vectorize check: 2 marked functions in 2 modules under src: 1 compile, "
        "1 left to run time by [tool.array-vectorize] runtime\n"
    )


def test_check_reports_what_the_build_reports_and_fails(tmp_path):
    project = make_project(tmp_path, {**PACKAGE, **BROKEN})
    res = run("check", "src", cwd=project)
    assert res.returncode == 1
    assert res.stdout == (
        "array_vectorize check: 4 marked functions in 3 modules under src: 1 compile, "
        "1 left to run time by [tool.array-vectorize] runtime, 2 cannot be precompiled\n"
    )
    assert "src/gridcalc/report.py:7:5: print() has side effects and cannot be vectorized" in res.stderr
    assert "src/gridcalc/report.py:10: gridcalc.report:shifted can only be compiled once its module runs" in res.stderr
    assert "To fix:" in res.stderr
    # The build's own message, for the wheel these files make (the same code, in process).
    entries = {
        path[len("src/"):]: Entry((project / path).read_bytes()) for path in sorted({**PACKAGE, **BROKEN}) if path.startswith("src/")
    }
    cwd = os.getcwd()
    os.chdir(project)
    try:
        with pytest.raises(BuildError) as build:
            build_precompile.precompile(entries, "gridcalc-1.0.dist-info", Config(runtime=["gridcalc.late:calibrated"]), str(project))
    finally:
        os.chdir(cwd)
    assert res.stderr == build.value.message + "\n"


def test_check_of_one_file_and_of_a_missing_path(tmp_path):
    project = make_project(tmp_path, {**PACKAGE, **BROKEN})
    res = run("check", "src/gridcalc/physics.py", cwd=project)
    assert (res.returncode, res.stderr) == (0, "")
    assert "1 marked function in 1 module under src/gridcalc/physics.py: 1 compile" in res.stdout
    res = run("check", "nowhere", cwd=project)
    assert (res.returncode, res.stderr) == (2, "nowhere: no such file or directory\n")


def test_check_of_the_examples_that_the_build_precompiles():
    examples = Path(__file__).resolve().parents[2] / "examples"
    res = run("check", str(examples / "finance_pkg"))
    assert res.returncode == 0, res.stderr
    assert ": 0 compile" not in res.stdout


# --------------------------------------------------------------------------- --help


@pytest.mark.parametrize(
    "command, words",
    [
        ("show", ["FILE.py:FUNCTION", "never imported or run", "CLASS.METHOD"]),
        ("check", ["PATH", "file:line:col", "Exit status 0", "pre-commit"]),
        ("cache", ["info", "clear", "PATH", "__pycache__", "default: the current one"]),
    ],
)
def test_every_command_s_help_describes_its_arguments(command, words):
    res = run(command, "--help")
    assert res.returncode == 0
    text = " ".join(res.stdout.split())
    for word in words:
        assert word in text, (word, res.stdout)
