"""The run-time half, in process: a package "installed" by hand (its files plus the artifacts the
build adds, byte-compiled as an installer does) is imported, and the decorator takes its code from
the artifacts, or compiles when they do not match what it decorates."""

from __future__ import annotations

import compileall
import importlib
import inspect
import json
import os
import sys
import textwrap
import uuid
from pathlib import Path

import numpy as np
import pytest

import array_vectorize
from array_vectorize import emit, wheel_artifacts
from array_vectorize.build import config, precompile
from array_vectorize.build.wheelfile import Entry

MODULE = '''\
import math

from array_vectorize import vectorize

LIMIT = 2.0


def _half(v):
    return 0.5 * v


@vectorize
def clipped(x):
    """Clip at LIMIT."""
    if x > LIMIT:
        return LIMIT
    return _half(x) + math.sqrt(abs(x))


class Rules:
    @vectorize(protect_domains=True)
    def safe_log(x):
        return math.log(x) if x > 0.0 else 0.0
'''


def _install(tmp_path: Path, text: str = MODULE, *, byte_compile: bool = True, runtime: tuple = ()) -> tuple[str, Path]:
    """Writes package `name` with module `m` and its artifacts under a site directory; the
    qualnames of `runtime` are left to run time (``[tool.array-vectorize] runtime``)."""
    name = f"avlookup_{uuid.uuid4().hex[:10]}"
    site = tmp_path / "site"
    dist_info = f"{name}-0.1.0.dist-info"
    entries = {f"{name}/__init__.py": Entry(b""), f"{name}/m.py": Entry(text.encode())}
    table = {"runtime": [f"{name}.m:{q}" for q in runtime]}
    artifacts, report = precompile.precompile(entries, dist_info, config.from_table(table), str(tmp_path))
    assert sorted(report.runtime) == sorted(f"{name}.m:{q}" for q in runtime)
    for arcname, entry in {**entries, **artifacts}.items():
        path = site / arcname
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(entry.data)
    if byte_compile:
        assert compileall.compile_dir(str(site / name / "__vectorized__"), quiet=2)
    return name, site


@pytest.fixture
def importer(monkeypatch):
    imported = []

    def do_import(name: str, site: Path):
        monkeypatch.syspath_prepend(str(site))
        imported.append(name)
        return importlib.import_module(f"{name}.m")

    yield do_import
    for name in imported:
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]
    wheel_artifacts.forget()


def _delta(before: dict) -> dict:
    after = array_vectorize.stats()
    return {k: after[k] - before.get(k, 0) for k in ("compiled", "precompiled_hits")}


def test_installed_artifacts_are_used_without_compiling(tmp_path, importer, monkeypatch):
    name, site = _install(tmp_path)
    monkeypatch.setenv("ARRAY_VECTORIZE_NO_COMPILE", "1")
    # A direct lookup: the decorator never lists a directory.
    for fn in ("listdir", "scandir", "walk"):
        monkeypatch.setattr(os, fn, lambda *a, **k: pytest.fail("wheel_artifacts scanned the file system"))
    before = array_vectorize.stats()
    mod = importer(name, site)
    monkeypatch.undo()
    assert _delta(before) == {"compiled": 0, "precompiled_hits": 2}

    x = np.array([-4.0, -1.0, 0.0, 0.25, 1.0, 2.0, 9.0])
    expected = np.array([mod.clipped._vectorized_original(v) for v in x.tolist()])
    assert np.array_equal(mod.clipped(x), expected)
    expected = np.array([mod.Rules.safe_log._vectorized_original(v) for v in x.tolist()])
    assert np.array_equal(mod.Rules.safe_log(x), expected)

    manifest = json.loads((site / name / "__vectorized__" / "m.json").read_text())
    artifact = (site / name / "__vectorized__" / "m" / "clipped.py").read_text()
    vec = mod.clipped
    assert vec.source == artifact
    assert artifact.startswith(inspect.getsource(vec))
    # The code object came from the installer's .pyc, under the name emit gives generated code.
    assert vec.__code__.co_filename == emit.code_filename("clipped", artifact)
    assert vec.__doc__ == manifest["functions"][0]["doc"]
    assert vec.__doc__.startswith("(array-vectorized) Clip at LIMIT.")


def test_without_byte_compiled_files_the_artifacts_still_serve(tmp_path, importer, monkeypatch):
    name, site = _install(tmp_path, byte_compile=False)
    monkeypatch.setenv("ARRAY_VECTORIZE_NO_COMPILE", "1")
    before = array_vectorize.stats()
    mod = importer(name, site)
    assert _delta(before) == {"compiled": 0, "precompiled_hits": 2}
    assert mod.clipped(np.array([3.0]))[0] == 2.0


def test_edited_module_is_compiled_not_served(tmp_path, importer):
    name, site = _install(tmp_path)
    path = site / name / "m.py"
    path.write_text(path.read_text().replace("LIMIT = 2.0", "LIMIT = 3.0"))
    before = array_vectorize.stats()
    mod = importer(name, site)
    assert _delta(before) == {"compiled": 2, "precompiled_hits": 0}
    assert mod.clipped(np.array([3.5]))[0] == 3.0  # the new LIMIT


def test_edited_module_under_no_compile_raises(tmp_path, importer, monkeypatch):
    name, site = _install(tmp_path)
    path = site / name / "m.py"
    path.write_text(path.read_text() + "\n# edited after the build\n")
    monkeypatch.setenv("ARRAY_VECTORIZE_NO_COMPILE", "1")
    with pytest.raises(array_vectorize.CompileDisabledError, match=r"m\.clipped would be compiled"):
        importer(name, site)


@pytest.mark.parametrize(
    "tamper",
    [
        lambda m: m.update(build_id="0.0.0+another-compiler"),
        lambda m: m.update(format=999),
        lambda m: m.update(module="someone.else"),
        lambda m: m["functions"][0].update(source_sha256="0" * 64),
    ],
    ids=["build-id", "format", "module", "artifact-hash"],
)
def test_foreign_or_stale_manifest_is_ignored(tmp_path, importer, tamper):
    name, site = _install(tmp_path)
    manifest_path = site / name / "__vectorized__" / "m.json"
    manifest = json.loads(manifest_path.read_text())
    tamper(manifest)
    manifest_path.write_text(json.dumps(manifest))
    before = array_vectorize.stats()
    importer(name, site)
    delta = _delta(before)
    assert delta["compiled"] >= 1 and delta["compiled"] + delta["precompiled_hits"] == 2


def test_corrupt_manifest_is_ignored(tmp_path, importer):
    name, site = _install(tmp_path)
    (site / name / "__vectorized__" / "m.json").write_bytes(b"\x00{not json")
    before = array_vectorize.stats()
    importer(name, site)
    assert _delta(before) == {"compiled": 2, "precompiled_hits": 0}


def test_docstring_of_another_interpreter_is_rebuilt(tmp_path, importer):
    name, site = _install(tmp_path)
    manifest_path = site / name / "__vectorized__" / "m.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["doc_key"]["cache_tag"] = "otherpython-399"
    for fn in manifest["functions"]:
        fn["doc"] = "wrong"
    manifest_path.write_text(json.dumps(manifest))
    before = array_vectorize.stats()
    mod = importer(name, site)
    assert _delta(before) == {"compiled": 0, "precompiled_hits": 2}
    assert mod.clipped.__doc__.startswith("(array-vectorized) Clip at LIMIT.")


def test_functions_of_modules_without_artifacts_are_unaffected(tmp_path, importer):
    name = f"avlookup_{uuid.uuid4().hex[:10]}"
    pkg = tmp_path / "site" / name
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "m.py").write_text(textwrap.dedent(MODULE))
    before = array_vectorize.stats()
    importer(name, tmp_path / "site")
    assert _delta(before) == {"compiled": 2, "precompiled_hits": 0}


def test_serves_tells_the_import_hook_what_the_wheel_covers(tmp_path):
    name, site = _install(tmp_path)
    module_file = str(site / name / "m.py")
    assert wheel_artifacts.serves(module_file, f"{name}.m")
    wheel_artifacts.forget()
    assert not wheel_artifacts.serves(module_file, "another.name")
    wheel_artifacts.forget()
    assert not wheel_artifacts.serves(str(site / name / "__init__.py"), name)
    wheel_artifacts.forget()


def test_a_function_left_to_run_time_under_no_compile_raises_when_called_and_its_module_imports(
    tmp_path, importer, monkeypatch
):
    """Issue 31: `[tool.array-vectorize] runtime` lists a function for the decorator to compile
    at import; with compiling forbidden, its module still imports (its precompiled functions
    run), and the listed function raises CompileDisabledError when called, naming the listing."""
    text = MODULE.replace("import math\n", "import math\nimport os\n") + textwrap.dedent(
        """

        GAIN = float(os.environ.get("SENSOR_GAIN", "2.0"))  # read when the module runs


        @vectorize
        def amplified(x):
            return x * GAIN
        """
    )
    name, site = _install(tmp_path, text, runtime=("amplified",))
    manifest = json.loads((site / name / "__vectorized__" / "m.json").read_text())
    assert manifest["runtime"] == ["amplified"]
    assert [f["qualname"] for f in manifest["functions"]] == ["clipped", "Rules.safe_log"]
    monkeypatch.setenv("ARRAY_VECTORIZE_NO_COMPILE", "1")
    before = array_vectorize.stats()
    mod = importer(name, site)
    assert _delta(before) == {"compiled": 0, "precompiled_hits": 2}
    assert mod.clipped(np.array([3.0]))[0] == 2.0
    assert "Not compiled yet" in mod.amplified.source and "left it to run time" in mod.amplified.source
    with pytest.raises(array_vectorize.CompileDisabledError) as info:
        mod.amplified(np.array([1.0]))
    message = str(info.value)
    assert f"{name}.m.amplified is listed in [tool.array-vectorize] runtime of the project that built its wheel" in message
    assert f'take "{name}.m:amplified" out of `runtime`' in message
    # Allowed to compile, the same function compiles at its next call.
    monkeypatch.delenv("ARRAY_VECTORIZE_NO_COMPILE")
    assert mod.amplified(np.array([1.5]))[0] == 3.0
    assert _delta(before) == {"compiled": 1, "precompiled_hits": 2}
