"""The scout of session 20: scalar functions from physics, engineering, astronomy, weather and
colour code, written for this repository in the styles of public packages of those domains
(`kit_scout_sci`, undecorated as such packages are). Each is decorated here: every function that
compiles is compared element by element with CPython running the scalar original, on domain
values and edge values, on NumPy and array-api-strict (an element CPython raises on by the
exception the call raises first); the package, marked, compiles the same through the decorator,
the import hook's static compile and the build backend; and every function still rejected is
pinned with the reason, a ledger that fails when one starts compiling (update it then)."""

from __future__ import annotations

import importlib
import inspect
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from array_vectorize import VectorizationError, _core, vectorize
from kit_three_ways import assert_package_same_three_ways
from oracle import NAN_TO_INT, check_outcomes, check_raising, grid

KIT = Path(__file__).parent / "kit_scout_sci"
sys.path.insert(0, str(KIT.parent))

MODULES = ("psychrometrics", "atmosphere", "hydraulics", "astronomy", "colorimetry", "radiation", "thermo", "hvac")
# Functions of the package that are not element-wise: a setter of module state, and helpers
# without parameters (the functions that call them are in the corpus).
NOT_ELEMENTWISE = {"hvac.set_unit_system", "hvac.is_ip", "hvac.freezing_point"}
EDGES = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan]
# Where CPython's negative base to a fractional power is complex (docs/semantics.md item 4, then
# a TypeError in `log10` of it) or `x ** 0.5` is NumPy's sqrt (item 10), the edges stay >= 0.
POSITIVE_EDGES = [0.0, 1.0, math.inf, math.nan]
COLUMNS = {
    "t": [-100.5, -100.0, -40.0, -5.0, 0.01, 0.02, 15.0, 25.0, 37.5, 99.9, 150.0, 200.0, 200.5],  # degC
    "r": [0.5, 12.9, 13.0, 50.0, 85.0, 85.1, 100.0, 105.0, -3.0],  # relative humidity, %
    "F": [50.0, 79.0, 80.0, 87.0, 95.0, 112.0, 113.0, 130.0],  # degF
    "K": [150.0, 216.65, 273.15, 273.16, 300.0, 373.15, 647.096, 1000.0, 5778.0],  # kelvin
    "p": [1013.25, 850.0, 500.0, 100.0, 5.0],  # hPa
    "P": [101325.0, 50000.0, 1000.0, 2e6],  # Pa
    "e": [611.0, 2339.0, 1e5, 2e6, -2.0, 1e-3],  # vapour pressure, Pa
    "w": [0.0, 0.005, 0.02],  # mixing ratio
    "m": [0.0, 0.5, 4.8, 10.0, 60.0],  # wind, km/h or m/s
    "h": [0.0, 1000.0, 11000.0, 11000.5, 20000.0, 32000.0, 47000.0, 51000.0, 71000.0, 85999.0, 86000.0, -1.0],  # m
    "z": [0.0, 30.0, 60.0, 85.0, 89.9, 90.0, 90.5, 96.0, 120.0],  # zenith, deg
    "Z": [0.0, 30.0, 60.0, 85.0, 89.9, 90.0],  # zenith, deg, above the horizon
    "R": [100.0, 2039.0, 2040.0, 4000.0, 1e5, 1e7],  # Reynolds
    "d": [0.0, 1e-6, 1e-4, 0.01, 0.05],  # relative roughness
    "v": [0.0, 0.5, 2.0, 10.0],  # m/s
    "L": [0.01, 0.1, 1.0, 100.0],  # m
    "j": [2451545.0, 2460000.5, 2415020.0, 2488070.0, 0.0],  # Julian days
    "T": [-1.0, 0.0, 0.2, 0.25, 1.0],  # Julian centuries
    "a": [-90.0, -66.6, -45.0, 0.0, 23.44, 45.0, 66.6, 70.0, 90.0],  # latitudes, declinations
    "M": [0.0, 0.5, math.pi, 3.0, 6.0, -1.0],  # mean anomalies, rad
    "E": [0.0, 0.0167, 0.5, 0.8, 0.95, 0.99, 1.0, -0.1],  # eccentricities
    "D": [0.1, 10.0, 1e4, 1e9, -5.0],  # parsecs, fluxes
    "Y": [0.5, 0.8856, 1.0, 18.0, 50.0, 100.0],  # luminance
    "l": [5.0, 8.0, 8.1, 50.0, 100.0],  # L*
    "b": [-128.0, -30.0, -1e-3, 0.5, 30.0, 127.0],  # a*, b*
    "c": [1000.0, 1667.0, 2000.0, 4000.0, 4000.5, 6504.0, 25000.0, 25001.0],  # CCT, K
    "x": [0.2, 0.3127, 0.33, 0.45],  # chromaticity
    "u": [0.003, 0.0031308, 0.0031309, 0.018, 0.04045, 0.5, 1.5, -0.1],  # signals
    "W": [1e-7, 5e-7, 1e-5, 1e-3],  # wavelengths, m
    "n": [1.0, 1.33, 1.5, 2.4],  # refractive indices
    "A": [0.0, 12.5, 45.0, 89.9, 90.0, -30.0],  # angles, deg
    "s": [0.1, 0.5, 1.2, 1.5707963267948966],  # angles, rad
    "N": [1.4, 2.8, 16.0],  # f-numbers
    "k": [-0.9, 0.0, 0.5, 0.99],  # beta = v/c
    "q": [0.0, 1.0, 14.5, 100.0],  # exposure values, flows, pressures
    "S": [1e-4, 0.001, 0.02],  # slopes
    "C": [-50.0, -20.0, -5.0, 0.0, 10.0],  # degC, where wind chill is defined
    "o": [4.8, 5.0, 20.0, 60.0],  # wind, km/h, where wind chill is defined
    "G": [100.0, 2040.0, 4000.0, 1e5, 1e7, 1e9],  # Reynolds, where Colebrook's iteration has a solution
}
INTS = {
    "yr": np.array([-4712, 1582, 1900, 1999, 2000, 2024, 2100]),
    "mo": np.array([1, 2, 3, 7, 12]),
    "dd": np.array([1.0, 1.5, 15.25, 31.0, 0.0, -0.0, math.nan]),
}
# Columns whose edges are POSITIVE_EDGES, or these (the others get EDGES).
POSITIVE = {"d", "R", "S"}
OWN_EDGES = {"C": [-0.0, -math.inf, math.nan], "o": [math.inf, math.nan], "G": []}
# name: (columns, [the uniform arguments after them per call: a tuple, or None for none])
CORPUS = {
    "psychrometrics.sat_vapour_pressure": ("t", [None]),
    "psychrometrics.magnus_pressure": ("t", [None, ("ice",)]),
    "psychrometrics.dew_point": ("tr", [None]),
    "psychrometrics.humidity_ratio": ("eP", [None]),
    "psychrometrics.relative_humidity": ("tt", [None]),
    "psychrometrics.dew_point_from_vap_pres": ("te", [None]),
    "psychrometrics.wet_bulb_stull": ("tr", [None]),
    "psychrometrics.heat_index": ("Fr", [None]),
    "psychrometrics.wind_chill": ("Co", [None]),
    "psychrometrics.apparent_temperature": ("trm", [None]),
    "psychrometrics.virtual_temperature": ("Kw", [None]),
    "psychrometrics.potential_temperature": ("pK", [None]),
    "psychrometrics.equivalent_potential_temperature": ("pKK", [None]),
    "atmosphere.isa_temperature": ("h", [None]),
    "atmosphere.isa_pressure": ("h", [None]),
    "atmosphere.alt2pres": ("h", [None]),
    "atmosphere.pres2alt": ("P", [None]),
    "atmosphere.relative_airmass": ("z", [None, ("Kasten1966",), ("simple",), ("young1994",)]),
    "atmosphere.absolute_airmass": ("qP", [None]),
    "atmosphere.linke_turbidity_clear_sky": ("zqh", [None]),
    "atmosphere.scale_height": ("K", [None]),
    "hydraulics.Reynolds": ("vL", [(1000.0, 1e-3), (None, None, 1e-6)]),
    "hydraulics.friction_laminar": ("R", [None]),
    "hydraulics.Blasius": ("R", [None]),
    "hydraulics.Swamee_Jain_1976": ("Rd", [None]),
    "hydraulics.Haaland": ("Rd", [None]),
    "hydraulics.Clamond": ("Rd", [None]),
    "hydraulics.Colebrook_iterative": ("Gd", [None]),
    "hydraulics.friction_factor": ("Rd", [None, ("Haaland",), ("Swamee_Jain_1976", False)]),
    "hydraulics.head_loss": ("dLLv", [None]),
    "hydraulics.orifice_flow": ("qLLL", [None]),
    "hydraulics.Manning_velocity": ("LS", [None]),
    "hydraulics.critical_depth_rectangular": ("qL", [None]),
    "hydraulics.Froude": ("vL", [None, (True,)]),
    "hydraulics.K_sudden_expansion": ("LL", [None, (0.02,)]),
    "hydraulics.terminal_velocity_stokes": ("DLLd", [None]),
    "astronomy.julian_day": ("yr mo dd", [None]),
    "astronomy.julian_century": ("j", [None]),
    "astronomy.sun_mean_longitude": ("T", [None]),
    "astronomy.sun_equation_of_center": ("T", [None]),
    "astronomy.sun_declination": ("T", [None]),
    "astronomy.equation_of_time": ("T", [None]),
    "astronomy.hour_angle_sunrise": ("aa", [None]),
    "astronomy.greenwich_mean_sidereal_time": ("j", [None]),
    "astronomy.solve_kepler": ("ME", [None]),
    "astronomy.true_anomaly": ("ME", [None]),
    "astronomy.distance_modulus": ("D", [None]),
    "astronomy.flux_to_magnitude": ("D", [None]),
    "astronomy.refraction_bennett": ("A", [None]),
    "astronomy.nutation_longitude": ("T", [None]),
    "astronomy.orbital_period_days": ("DD", [None]),
    "astronomy.earth_sun_distance": ("T", [None]),
    "colorimetry.eotf_inverse_sRGB": ("u", [None]),
    "colorimetry.eotf_sRGB": ("u", [None]),
    "colorimetry.oetf_BT709": ("u", [None]),
    "colorimetry.intermediate_lightness_function": ("Y", [None]),
    "colorimetry.lightness_CIE1976": ("Y", [None]),
    "colorimetry.luminance_CIE1976": ("l", [None]),
    "colorimetry.hue_angle": ("bb", [None]),
    "colorimetry.chroma": ("bb", [None]),
    "colorimetry.delta_E_CIE1976": ("lbblbb", [None]),
    "colorimetry.delta_E_CIE1994": ("lbblbb", [None, (True,)]),
    "colorimetry.delta_E_CIE2000": ("lbblbb", [None]),
    "colorimetry.CCT_to_x_Kang2002": ("c", [None]),
    "colorimetry.xy_to_CCT_McCamy1992": ("xx", [None]),
    "colorimetry.luma_Rec709": ("uuu", [None]),
    "colorimetry.whiteness_CIE": ("Yxx", [None]),
    "radiation.planck_radiance": ("WK", [None]),
    "radiation.brightness_temperature": ("WD", [None]),
    "radiation.wien_peak": ("K", [None]),
    "radiation.radiant_exitance": ("K", [None, (0.5,)]),
    "radiation.snell_angle": ("Ann", [None]),
    "radiation.fresnel_reflectance": ("snn", [None]),
    "radiation.thin_lens_image": ("LL", [None]),
    "radiation.exposure_value": ("Nq", [None]),
    "radiation.illuminance_from_ev": ("q", [None]),
    "radiation.beer_lambert": ("dL", [None]),
    "radiation.rayleigh_optical_depth": ("Wp", [None]),
    "radiation.diffraction_limit_arcsec": ("WL", [None]),
    "radiation.doppler_factor": ("k", [None]),
    "thermo.iapws_psat": ("K", [None]),
    "thermo.iapws_tsat": ("q", [None]),
    "thermo.sutherland_viscosity": ("K", [None, ("CO2",)]),
    "thermo.ideal_gas_density": ("PKq", [None]),
    "thermo.speed_of_sound_ideal": ("K", [None]),
    "thermo.water_density_kell": ("t", [None]),
    "thermo.latent_heat_watson": ("KKKq", [None]),
    "thermo.heat_capacity_shomate": ("K", [None]),
    "thermo.celsius_to_kelvin": ("t", [None]),
    "thermo.gravity_at_latitude": ("ah", [None]),
    "hvac.degree_days": ("t", [None, (15.5,)]),
    "hvac.duct_equivalent_diameter": ("LL", [None]),
    "hvac.coil_lmtd": ("tttt", [None]),
    "hvac.sensible_load": ("qt", [None]),
    "hvac.fahrenheit_to_kelvin": ("F", [None]),
    "hvac.fan_power": ("qq", [None, (0.8,)]),
    "hvac.relative_roughness": ("L", [None, ("copper",)]),
    "hvac.wall_u_value": ("L", [None, ("glass",), ("mineral_wool", 8.0, 20.0)]),
}
# More runs of a function of CORPUS on other columns: Pickering's air mass raises a negative
# number to a fractional power below the horizon (complex in CPython, item 4).
MORE_RUNS = {"atmosphere.relative_airmass": ("Z", [("PICKERING2002",)])}
# Calls on which CPython raises for every element: the call raises the first one's exception.
EVERY_ELEMENT_RAISES = {
    "radiation.radiant_exitance": ("K", (1.5,), ValueError),
    "hydraulics.Reynolds": ("vL", (), ValueError),
    "hvac.fan_power": ("qq", (1.5,), ValueError),
    "atmosphere.relative_airmass": ("z", ("bogus",), ValueError),
    "hvac.relative_roughness": ("L", ("zinc",), KeyError),
    "hvac.wall_u_value": ("L", ("wood",), KeyError),
}
UNIFORM_RAISES = {"hvac.relative_roughness"}
# Rejected functions and the reason (a ledger: a function that starts compiling fails its test
# here, and moves to CORPUS).
REJECTED = {
    "astronomy.angular_separation": r"astronomy.py:100:28: `map` is a module or a class used as a namespace",
    "colorimetry.gamut_clip": r"colorimetry.py:174:9: cannot call `warnings.warn`.*pass fallback=\"calls\"",
    # A KeyError of a table read once per call cannot reach the `except` clause per element.
    "thermo.antoine_pressure": r"thermo.py:57:20: a uniform value .* is subscripted once per call, before the elements run",
    "thermo.earth_radius_at_latitude": r"thermo.py:112:9: `constants.Earth` is an attribute that is not a number",
    "hvac.air_density": r"hvac.py:80:30: cannot vectorize a call of `_air_density_coefficients` \(a _lru_cache_wrapper\)",
    "hvac.cop_carnot": r"hvac.py:107:14: a generator expression is supported as the argument of sum",
    "hvac.sum_of_heat_gains": r"hvac.py:102:12: math.fsum\(\) is supported on a tuple or list written in the call",
}
# Functions the static compile (import hook, build backend) leaves to the decorator, with the
# names it could not resolve from the text (`UNITS` is rebound by `set_unit_system`: the decorator
# freezes the value it finds, D8).
STATIC_DEFERRED = {"hydraulics.terminal_velocity_stokes": ["np"], "hvac.degree_days": ["UNITS"]}
# The transcendental functions: the array library's last bits (docs/semantics.md item 9).
ULPS = {}


def function(qualified: str):
    module, name = qualified.split(".")
    return getattr(importlib.import_module(f"kit_scout_sci.{module}"), name)


def column(code: str) -> np.ndarray:
    if code in INTS:
        return INTS[code]
    rng = np.random.default_rng(20)
    finite = [v for v in COLUMNS[code] if math.isfinite(v)]
    low, high = min(finite), max(finite)
    edges = OWN_EDGES.get(code, POSITIVE_EDGES if code in POSITIVE else EDGES)
    return np.concatenate([np.array(COLUMNS[code] + edges), rng.uniform(low, high, 5)])


def arguments(codes: str) -> list[np.ndarray]:
    if " " in codes:  # paired columns, cycled to one length
        columns = [column(c) for c in codes.split()]
        return [np.resize(c, max(len(c) for c in columns)) for c in columns]
    columns = [column(c) for c in codes]
    if len(columns) == 1:
        return columns
    combos = grid(*columns)
    step = max(1, len(combos[0]) // 4000)  # at most some thousands of lanes
    return [c[::step] for c in combos]


_vectorized = {}


def vectorized(qualified: str):
    if qualified not in _vectorized:
        _vectorized[qualified] = vectorize(function(qualified))
    return _vectorized[qualified]


# Functions whose CPython result is a NumPy scalar (they call NumPy's functions, D16).
NUMPY_RESULT = {"atmosphere.relative_airmass"}


def python_result(fn):
    """CPython running `fn`, its NumPy scalar result (a function calling NumPy's functions,
    D16) as the Python number it holds."""

    def oracle(*args):
        out = fn(*args)
        return out.item() if isinstance(out, np.generic) else out

    return oracle


@pytest.mark.parametrize("qualified", sorted(CORPUS) + [f"{q}:more" for q in MORE_RUNS])
def test_matches_cpython(qualified, backend):
    if qualified.endswith(":more"):
        qualified = qualified[: -len(":more")]
        codes, passed = MORE_RUNS[qualified]
    else:
        codes, passed = CORPUS[qualified]
    vec = vectorized(qualified)
    for extra in passed:
        check_outcomes(
            vec, *arguments(codes), *(extra or ()), backend=backend, ulps=ULPS.get(qualified, 0),
            as_values=(NAN_TO_INT,),
            scalar=python_result(vec._vectorized_original) if qualified in NUMPY_RESULT else None,
        )


@pytest.mark.parametrize("qualified", sorted(EVERY_ELEMENT_RAISES))
def test_raises_as_cpython(qualified, backend):
    codes, extra, cls = EVERY_ELEMENT_RAISES[qualified]
    if qualified in UNIFORM_RAISES:
        # A table read once per call (D14) raises CPython's exception, without naming an
        # element (docs/semantics.md item 32).
        args = arguments(codes)
        with pytest.raises(cls) as info:
            function(qualified)(*[a[0].item() for a in args], *extra)
        with pytest.raises(cls) as got:
            vectorized(qualified)(*args, *extra)
        assert got.value.args == info.value.args
        return
    got = check_raising(vectorized(qualified), *arguments(codes), *extra, backend=backend)
    assert type(got) is cls, got


def test_an_element_returning_none_is_an_error_naming_it():
    """D20: `wind_chill` is not defined above 10 degC; CPython's None has no array form."""
    vec = vectorized("psychrometrics.wind_chill")
    assert vec._vectorized_original(12.0, 20.0) is None
    with pytest.raises(TypeError, match="returned None for this element") as info:
        vec(np.array([-5.0, 12.0]), np.array([20.0, 20.0]))
    assert "array-vectorize: raised for element (1,) (flat index 1)" in info.value.__notes__


@pytest.mark.parametrize("qualified", sorted(REJECTED))
def test_rejected_with_the_reason(qualified):
    with pytest.raises(VectorizationError) as info:
        vectorize(function(qualified))
    assert re.search(REJECTED[qualified], str(info.value)), str(info.value)


def test_every_function_is_in_the_corpus_or_the_ledger():
    names = set()
    for module in MODULES:
        mod = importlib.import_module(f"kit_scout_sci.{module}")
        names |= {
            f"{module}.{name}" for name, fn in inspect.getmembers(mod, inspect.isfunction)
            if fn.__module__ == mod.__name__ and not name.startswith("_")
        }
    assert not set(CORPUS) & set(REJECTED)
    assert names == set(CORPUS) | set(REJECTED) | NOT_ELEMENTWISE
    assert len(names) >= 40


def marked(text: str, names: set[str]) -> str:
    """The module with `@vectorize` on the functions named, imported after any `__future__`
    import."""
    lines = text.splitlines(keepends=True)
    out = []
    for line in lines:
        m = re.match(r"def (\w+)\(", line)
        if m and m.group(1) in names:
            out.append("@vectorize\n")
        out.append(line)
        if line.startswith("from __future__ import"):
            out.append("from array_vectorize import vectorize\n")
    text = "".join(out)
    return text if "from array_vectorize import vectorize" in text else "from array_vectorize import vectorize\n" + text


def test_compiles_the_same_three_ways(tmp_path):
    """The package with every compiled function marked: the decorator, the import hook's static
    compile and the build backend give the same source; STATIC_DEFERRED are left to the
    decorator, with the names the text does not resolve."""
    package = tmp_path / "pkg" / "kit_scout_marked"
    package.mkdir(parents=True)
    for path in KIT.glob("*.py"):
        module = path.stem
        names = {q.split(".")[1] for q in CORPUS if q.split(".")[0] == module}
        (package / path.name).write_text(marked(path.read_text(), names) if names else path.read_text())
    sys.path.insert(0, str(package.parent))
    try:
        statics = {}
        for module in MODULES:
            text = (package / f"{module}.py").read_text()
            modules = {
                f"kit_scout_marked.{p.stem}" if p.stem != "__init__" else "kit_scout_marked": (
                    p.read_text(), str(p), __import__("hashlib").sha256(p.read_text().encode()).hexdigest()
                )
                for p in package.glob("*.py")
            }
            for e in _core.compile_module(text, str(package / f"{module}.py"), package="kit_scout_marked", modules=modules):
                statics[f"{module}.{e['name']}"] = e
        deferred = {q: e["deferred"] for q, e in statics.items() if e["status"] == "deferred"}
        assert deferred == STATIC_DEFERRED
        assert {q for q, e in statics.items() if e["status"] != "ok"} == set(STATIC_DEFERRED)
        runtime = [f"kit_scout_marked.{q.replace('.', ':')}" for q in STATIC_DEFERRED]
        compiled = sorted(q for q in CORPUS if q not in STATIC_DEFERRED)
        assert_package_same_three_ways(package, compiled, tmp_path / "build", {"runtime": runtime})
    finally:
        sys.path.remove(str(package.parent))
