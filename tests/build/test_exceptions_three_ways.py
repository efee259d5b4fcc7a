"""The program's own exception classes (D11) give byte-identical generated source on the three ways
in: the decorator (live compile), the import hook's static compile and the build backend's
artifact; the backend records the class's MRO as an assumption the live module satisfies."""

from __future__ import annotations

import importlib
import sys
import uuid

from array_vectorize import _core
from array_vectorize.api import compile_live
from array_vectorize.build import config, precompile
from array_vectorize.build.wheelfile import Entry
from array_vectorize.precompiled import assumptions_hold

MODULE = '''\
import math

from array_vectorize import vectorize


class OrbitError(ArithmeticError):
    """An orbit that does not close."""


class EscapeError(OrbitError):
    pass


def semi_major_axis(r, v, mu):
    energy = v * v / 2.0 - mu / r
    if energy >= 0.0:
        raise EscapeError(f"escape trajectory at v={v}")
    return -mu / (2.0 * energy)


@vectorize
def period(r, v, mu):
    try:
        a = semi_major_axis(r, v, mu)
    except EscapeError:
        return math.inf
    if a > 1e12:
        raise OrbitError("beyond the model", a) from None
    return 2.0 * math.pi * math.sqrt(a * a * a / mu)
'''


def test_decorator_hook_and_backend_give_the_same_source(tmp_path, monkeypatch):
    name = f"avexc_{uuid.uuid4().hex[:10]}"
    (tmp_path / f"{name}.py").write_text(MODULE)
    static = [e for e in _core.compile_module(MODULE, str(tmp_path / f"{name}.py")) if e["name"] == "period"]
    assert static and static[0]["status"] == "ok", static
    dist_info = f"{name}-0.1.0.dist-info"
    entries = {f"{name}/__init__.py": Entry(b""), f"{name}/m.py": Entry(MODULE.encode())}
    artifacts, report = precompile.precompile(entries, dist_info, config.from_table({}), str(tmp_path))
    (artifact,) = [e.data.decode() for k, e in artifacts.items() if k.endswith("period.py")]
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        mod = importlib.import_module(name)
        original = mod.period._vectorized_original
        options = {"protect_domains": False, "fallback": False, "optimize": sys.flags.optimize > 0}
        live, _ = compile_live(original, options)
        assert live["source"] == static[0]["source"] == artifact == mod.period.source
        assert assumptions_hold(original, static[0]["assumptions"])
        # A live class of another MRO than the text showed fails the assumption.
        monkeypatch.setattr(mod, "EscapeError", type("EscapeError", (ValueError,), {}))
        assert not assumptions_hold(original, static[0]["assumptions"])
    finally:
        sys.modules.pop(name, None)
