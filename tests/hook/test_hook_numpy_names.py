"""NumPy names imported by name or under an alias, a module alias re-exporting `math` and NumPy
functions and helpers (`from . import numeric as math`), and builtins as written (`round`'s
keywords and a per-call ndigits, `math.modf`, `dict(a=...)` tables) through the import hook, in
a fresh interpreter (issue 27, D16): the hook compiles every function of the corpus package
tests/corpus/kit_numpy itself (nothing deferred), to the decorator's source, with its values."""

from __future__ import annotations

from pathlib import Path

from hookproj import Project

KIT = Path(__file__).resolve().parents[1] / "corpus" / "kit_numpy"

PROBE = """
import numpy as np
from kit_numpy import geodesy, optics, tax
a = np.array([0.0, 12.5, 45.0, -30.0, 89.9, np.nan])
n = np.array([1.0, 1.33, 1.5, 2.4, 1.0003, 1.2])
m = np.array([0.0, 2.675, 12570.005, 50270.0, 80000.555, 1e12])
calls = [
    (geodesy, "haversine_m", (a, a / 2, -a, a)), (geodesy, "initial_bearing_deg", (a, a / 2, -a, a)),
    (geodesy, "reduced_latitude_deg", (a,)), (geodesy, "prime_vertical_radius", (a,)),
    (geodesy, "mercator_y", (a,)), (geodesy, "barometric_pressure", (a * 100,)),
    (geodesy, "geoid_offset", (a,)), (geodesy, "grid_cell", (a,)),
    (optics, "refraction_angle_deg", (a, n, n[::-1])), (optics, "fresnel_rs", (a / 60, n, n[::-1])),
    (optics, "brewster_deg", (n, n[::-1])), (optics, "numerical_aperture", (n[::-1], n)),
    (optics, "beam_radius", (n / 1000, a, n / 1e6)), (optics, "transmitted_fraction", (n, a)),
    (optics, "optical_density_gain", (n / 3,)), (optics, "signed_delay_ns", (a, n)),
    (tax, "income_tax", (m,)), (tax, "vat_inclusive", (m, 0.2, 2)), (tax, "cash_rounding", (m,)),
    (tax, "pounds_and_pence", (m,)), (tax, "months_of_service", (m / 1000,)), (tax, "payroll_deduction", (m, 0)),
]
out = {
    name: {"source": getattr(mod, name).source, "value": repr(getattr(mod, name)(*args).tolist())}
    for mod, name, args in calls
}
"""


def test_kit_compiles_in_the_hook_as_in_the_decorator(project: Project):
    for path in sorted(KIT.glob("*.py")):
        project.write(f"kit_numpy/{path.name}", path.read_text())
    plain = project.run(PROBE, hook=False)
    cold = project.run(PROBE)
    warm = project.run(PROBE)
    functions = len(plain.out)
    assert functions == 22
    # The hook compiled every function itself (nothing deferred to the decorator) and the warm
    # import read them back from its cache.
    assert cold.stats["hook_hits"] == functions and warm.stats["disk_cache_hits"] == functions, (cold.stats, warm.stats)
    assert plain.stats["hook_hits"] == 0
    for name, got in plain.out.items():
        assert cold.out[name] == warm.out[name] == got, name
        assert "np." not in got["source"] and "numpy" not in got["source"], name
