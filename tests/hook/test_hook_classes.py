"""The corpus package tests/corpus/kit_classes (classes used as namespaces holding tables, rows
of bands, a module-level settings object; issue 27 part 2) through the import hook in a fresh interpreter: the hook compiles
every marked function itself (nothing deferred to the decorator), to the decorator's source,
with its values."""

from __future__ import annotations

from pathlib import Path

from hookproj import Project

KIT = Path(__file__).resolve().parents[1] / "corpus" / "kit_classes"

PROBE = """
import importlib, inspect
import numpy as np
columns = {"t": np.array([0.0, 3.98, 20.0, -12.5, np.nan, np.inf]),
           "e": np.array([0.0, 50.0, 100.5, 400.0, 1234.5, np.inf]),
           "i": np.array([0.0, 12570.0, 50270.5, 110000.0, 2e5, np.nan]),
           "k": np.array([0, 1, 2, 3, 4, -1]), "band": np.array([0, 1, 2, 2, 1, 0])}
out = {}
for module in MODULES:
    mod = importlib.import_module(f"kit_classes.{module}")
    for name, fn in vars(mod).items():
        if not hasattr(fn, "_vectorized_original") or fn.__module__ != mod.__name__:
            continue
        codes = ARGS[f"{module}.{name}"]
        try:
            got = fn(*[columns[c] for c in codes])
            value = repr([g.tolist() for g in got] if isinstance(got, tuple) else got.tolist())
        except Exception as e:
            value = f"{type(e).__name__}: {e}"
        out[f"{module}.{name}"] = {"source": fn.source, "value": value}
"""

MODULES = ("thermo", "process", "tax_rules", "coords")
ARGS = {
    "thermo.heat_capacity_water": ["t"],
    "thermo.density_water": ["t"],
    "thermo.molar_enthalpy_change": ["t", "t"],
    "thermo.heat_capacity_ice": ["t"],
    "thermo.fit_coefficient": ["k"],
    "thermo.electricity_bill": ["e", "band"],
    "process.within_tolerance": ["t"],
    "process.smoothed": ["t", "e", "t"],
    "process.clamp_to_limits": ["e"],
    "process.lag_weight": ["k"],
    "process.deviation_in_spans": ["e"],
    "tax_rules.income_tax": ["i"],
    "tax_rules.scottish_income_tax": ["i"],
    "tax_rules.national_insurance": ["i"],
    "tax_rules.marginal_band": ["i"],
    "tax_rules.take_home": ["i"],
    "coords.polar_radius": ["t", "e"],
    "coords.rotate": ["t", "e", "t"],
    "coords.bearing_quadrant": ["t", "e"],
    "coords.latitude_of": ["t", "e", "t"],
    "coords.arc_from_origin_m": ["t", "e", "t"],
}


def test_kit_compiles_in_the_hook_as_in_the_decorator(project: Project):
    for path in sorted(KIT.glob("*.py")):
        project.write(f"kit_classes/{path.name}", path.read_text())
    probe = f"MODULES = {MODULES!r}\nARGS = {ARGS!r}\n" + PROBE
    plain = project.run(probe, hook=False)
    cold = project.run(probe)
    functions = len(plain.out)
    assert functions == len(ARGS)
    # The hook compiled every function itself (nothing deferred to the decorator).
    assert cold.stats["hook_hits"] == functions, cold.stats
    assert plain.stats["hook_hits"] == 0
    for name, got in plain.out.items():
        assert cold.out[name] == got, name
