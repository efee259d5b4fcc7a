"""The tax-benefit example (examples/tax_benefit: a parameter dict, a filing-status Enum,
brackets through `bisect`, a class of credit rules, a dict of dependant weights, checks that
raise) through the three ways in: the decorator, the import hook (a fresh interpreter, cold then
warm from the hook's cache) and a wheel built by `pip wheel` with `array_vectorize.build`,
installed in a fresh environment where compiling is forbidden. Every way gives the decorator's
source byte for byte, and every function equals CPython running the scalar original per
household."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from buildenv import REPO, clean_env, new_venv, pip_into, python_of, run

EXAMPLE = REPO / "examples" / "tax_benefit"
FUNCTIONS = ("income_tax", "marginal_rate", "child_credit", "net_income")

# Runs in the interpreter under test: every marked function against its scalar original, the
# generated source next to what the decorator generates for the live function.
PROBE = r"""
import json, math
import numpy as np
import array_vectorize
from array_vectorize.api import compile_live
import tax_benefit
from tax_benefit import rules

after_import = array_vectorize.stats()
gross = np.array([0.0, -0.0, 1.0, 9_000.0, 14_600.0, 26_200.0, 45_000.0, 120_000.0, 200_000.0, 200_000.5,
                  250_000.0, 401_500.0, 609_350.0, 7e5, 1e9, 1e300, math.inf])
children = np.array([0, 1, 2, 3, 4, 6, 0, 2, 1, 3, 5, 0, 1, 2, 3, 0, 1])
report = {"after_import": after_import, "functions": {}}
for name in FUNCTIONS:
    vec = getattr(rules, name)
    original = vec._vectorized_original
    same = True
    for status in rules.FilingStatus:
        args = (children, gross) if name == "child_credit" else (gross, children) if name == "net_income" else (gross,)
        got = np.asarray(vec(*args, status, rules.PARAMS_2024), dtype=np.float64)
        with np.errstate(all="ignore"):
            expected = [original(*[a[i].item() for a in args], status, rules.PARAMS_2024) for i in range(gross.size)]
        same &= bool(np.array_equal(got, np.array(expected, dtype=np.float64), equal_nan=True))
    try:
        vec(np.array([1.0, -2.0]) if name != "child_credit" else np.array([1, -2]), *([np.array([1.0, 1.0])] if name in ("child_credit", "net_income") else []), rules.FilingStatus.SINGLE, rules.PARAMS_2024)
        raised = None
    except ValueError as exc:
        raised = str(exc)
    live, _ = compile_live(original, {"protect_domains": False, "fallback": False, "optimize": False})
    report["functions"][name] = {"matches_cpython": same, "source": vec.source, "live_source": live["source"], "raised": raised}
print("REPORT:" + json.dumps(report))
""".replace("FUNCTIONS", repr(FUNCTIONS))


def _report(proc: subprocess.CompletedProcess) -> dict:
    lines = [line for line in proc.stdout.splitlines() if line.startswith("REPORT:")]
    assert lines, proc.stdout + proc.stderr
    return json.loads(lines[0][len("REPORT:") :])


def _check(report: dict) -> dict[str, str]:
    assert sorted(report["functions"]) == sorted(FUNCTIONS)
    for name, r in report["functions"].items():
        assert r["matches_cpython"], name
        assert r["source"] == r["live_source"], name
        assert r["raised"] and ("non-negative" in r["raised"] or "cannot be negative" in r["raised"]), (name, r["raised"])
    return {name: r["source"] for name, r in report["functions"].items()}


def test_through_the_import_hook_cold_and_warm(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(EXAMPLE / "src", src, ignore=shutil.ignore_patterns("__pycache__"))
    env = clean_env(PYTHONPATH=str(src))
    code = "import array_vectorize.auto\n" + PROBE
    cold = _report(run([sys.executable, "-c", code], env=env, cwd=tmp_path))
    warm = _report(run([sys.executable, "-c", code], env=env, cwd=tmp_path))
    assert cold["after_import"]["hook_hits"] == len(FUNCTIONS), cold["after_import"]
    assert warm["after_import"]["disk_cache_hits"] == len(FUNCTIONS), warm["after_import"]
    assert _check(cold) == _check(warm)


def test_through_a_wheel_built_by_pip_with_the_backend(tmp_path, wheelhouse, base_env):
    project = tmp_path / "tax_benefit"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", "dist", "build", "*.egg-info"))
    out = tmp_path / "wheels"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", out, project], env=wheelhouse.pip_env())
    (wheel,) = out.glob("tax_benefit-*.whl")
    venv = new_venv(tmp_path / "venv", base=base_env)
    pip_into(venv, "install", "--no-deps", "--no-index", wheel)
    report = _report(run([python_of(venv), "-c", PROBE], env=clean_env(ARRAY_VECTORIZE_NO_COMPILE="1"), cwd=venv))
    assert report["after_import"]["precompiled_hits"] == len(FUNCTIONS), report["after_import"]
    assert report["after_import"]["compiled"] == 0
    wheel_sources = _check(report)
    # The hook compiles the same text from the same module: byte-identical to the wheel's.
    src = tmp_path / "src"
    shutil.copytree(EXAMPLE / "src", src, ignore=shutil.ignore_patterns("__pycache__"))
    hooked = _report(run([sys.executable, "-c", "import array_vectorize.auto\n" + PROBE], env=clean_env(PYTHONPATH=str(src)), cwd=tmp_path))
    assert _check(hooked) == wheel_sources
