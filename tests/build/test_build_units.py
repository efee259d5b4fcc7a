"""The backend's parts in process, without a frontend: configuration, the reproducible wheel
writer and the precompile step on hand-made wheel contents."""

from __future__ import annotations

import io
import json
import textwrap
import zipfile
from pathlib import Path

import pytest
from buildenv import EXAMPLE, EXAMPLE_FUNCTIONS, check_record

import array_vectorize
from array_vectorize import _core
from array_vectorize.build import BuildError, config, precompile, wheelfile
from array_vectorize.build.wheelfile import Entry

DIST_INFO = "proj-0.1.0.dist-info"


# ---------------------------------------------------------------------------- configuration


def test_zero_configuration_wraps_hatchling():
    cfg = config.from_table({})
    assert cfg.backend == "hatchling.build"
    assert cfg.backend_requires == ["hatchling>=1.21"]
    assert cfg.runtime == []


def test_unknown_key_is_an_error_with_did_you_mean():
    with pytest.raises(BuildError) as info:
        config.from_table({"runtme": ["a:b"]}, "proj/pyproject.toml")
    assert "proj/pyproject.toml: [tool.array-vectorize]: unknown key 'runtme'; did you mean 'runtime'?" in str(info.value)
    with pytest.raises(BuildError, match="known keys: backend, backend-requires, runtime"):
        config.from_table({"zzz": 1})


def test_bad_values_are_errors():
    with pytest.raises(BuildError, match="backend must be a PEP 517 backend name"):
        config.from_table({"backend": 3})
    with pytest.raises(BuildError, match='must be "module:qualname"'):
        config.from_table({"runtime": ["pkg.mod.f"]})
    with pytest.raises(BuildError, match="runtime must be a list"):
        config.from_table({"runtime": "pkg.mod:f"})
    with pytest.raises(BuildError, match="backend cannot be array_vectorize.build itself"):
        config.from_table({"backend": "array_vectorize.build"})


def test_other_backends_and_their_requirements():
    assert config.from_table({"backend": "flit_core.buildapi"}).backend_requires == ["flit_core>=3.4"]
    assert config.from_table({"backend": "some_backend.api"}).backend_requires == ["some-backend"]
    cfg = config.from_table({"backend": "some_backend.api", "backend-requires": ["some-backend==2"]})
    assert cfg.backend_requires == ["some-backend==2"]


def test_config_is_read_from_pyproject(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[tool.array-vectorize]\nruntime = ["p.m:f"]\n')
    assert config.load(str(tmp_path)).runtime == ["p.m:f"]
    (tmp_path / "pyproject.toml").write_text("[tool.array-vectorize\n")
    with pytest.raises(BuildError, match="invalid TOML"):
        config.load(str(tmp_path))


def test_get_requires_names_the_wrapped_backend(tmp_path, monkeypatch):
    import array_vectorize.build as backend

    (tmp_path / "pyproject.toml").write_text('[tool.array-vectorize]\nbackend = "not_installed_backend.api"\n')
    monkeypatch.chdir(tmp_path)
    for hook in (
        backend.get_requires_for_build_wheel,
        backend.get_requires_for_build_sdist,
        backend.get_requires_for_build_editable,
    ):
        assert hook() == ["not-installed-backend"]
        assert hook(config_settings={}) == ["not-installed-backend"]
    with pytest.raises(BuildError, match="cannot import the build backend 'not_installed_backend.api'"):
        backend.build_wheel(str(tmp_path / "out"))


def test_requirements_the_wrapped_backend_adds_are_checked_at_build_time():
    # A frontend asks get_requires_* before the wrapped backend is installed; what it would have
    # added is checked when the build hook runs.
    assert config.from_table({}).requires("editable") == ["hatchling>=1.21", "editables~=0.3"]
    assert config.from_table({}).requires("wheel") == ["hatchling>=1.21"]
    assert config.missing_requirements(["pytest>=1", "pytest>=9999", "surely-not-installed-xyz"]) == [
        "pytest>=9999",
        "surely-not-installed-xyz",
    ]
    assert config.missing_requirements(['surely-not-installed-xyz; python_version < "3"']) == []

    import array_vectorize.build as backend

    class Wrapped:
        @staticmethod
        def get_requires_for_build_wheel(config_settings=None):
            return ["surely-not-installed-xyz>=1"]

    with pytest.raises(BuildError, match=r"(?s)needs surely-not-installed-xyz>=1 to build this project.*\[build-system\] requires"):
        backend._check_requirements(Wrapped, "wheel", None)


def test_build_error_is_a_clean_exit():
    err = BuildError("something a user can fix")
    assert isinstance(err, SystemExit)
    assert str(err) == "error: array_vectorize.build: something a user can fix"


def test_hooks_have_the_pep_517_and_660_signatures():
    import inspect

    import array_vectorize.build as backend

    expected = {
        "build_wheel": ["wheel_directory", "config_settings", "metadata_directory"],
        "build_editable": ["wheel_directory", "config_settings", "metadata_directory"],
        "build_sdist": ["sdist_directory", "config_settings"],
        "get_requires_for_build_wheel": ["config_settings"],
        "get_requires_for_build_sdist": ["config_settings"],
        "get_requires_for_build_editable": ["config_settings"],
        "prepare_metadata_for_build_wheel": ["metadata_directory", "config_settings"],
        "prepare_metadata_for_build_editable": ["metadata_directory", "config_settings"],
    }
    for name, params in expected.items():
        sig = inspect.signature(getattr(backend, name))
        assert list(sig.parameters) == params, name
        optional = params if name.startswith("get_requires") else params[1:]
        assert all(sig.parameters[p].default is None for p in optional), name


# ---------------------------------------------------------------------------- the wheel writer


def _entries() -> dict[str, Entry]:
    return {
        f"{DIST_INFO}/WHEEL": Entry(b"Wheel-Version: 1.0\n"),
        "proj/__init__.py": Entry(b"x = 1\n"),
        f"{DIST_INFO}/METADATA": Entry(b"Name: proj\n"),
        "proj.data/scripts/run": Entry(b"#!python\n", executable=True),
        "proj/a,b.py": Entry(b"# a comma in a name\n"),
    }


def test_written_wheel_is_reproducible_and_recorded(tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    a, b = tmp_path / "a.whl", tmp_path / "b.whl"
    wheelfile.write(str(a), _entries())
    wheelfile.write(str(b), dict(reversed(list(_entries().items()))))
    assert a.read_bytes() == b.read_bytes()
    names = check_record(a)
    assert names == [
        "proj.data/scripts/run",
        "proj/__init__.py",
        "proj/a,b.py",
        f"{DIST_INFO}/METADATA",
        f"{DIST_INFO}/WHEEL",
        f"{DIST_INFO}/RECORD",
    ]
    with zipfile.ZipFile(a) as zf:
        for info in zf.infolist():
            assert info.date_time == (1980, 1, 1, 0, 0, 0)
            assert info.compress_type == zipfile.ZIP_DEFLATED
        assert zf.getinfo("proj.data/scripts/run").external_attr >> 16 == 0o100755
        assert zf.getinfo("proj/__init__.py").external_attr >> 16 == 0o100644
    # Reading drops the old RECORD; writing again gives the same bytes.
    wheelfile.write(str(b), wheelfile.read(str(a)))
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize(
    ("epoch", "date_time"),
    [("0", (1980, 1, 1, 0, 0, 0)), ("1700000000", (2023, 11, 14, 22, 13, 20)), ("", (1980, 1, 1, 0, 0, 0))],
)
def test_source_date_epoch(tmp_path, monkeypatch, epoch, date_time):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    wheelfile.write(str(tmp_path / "w.whl"), _entries())
    with zipfile.ZipFile(tmp_path / "w.whl") as zf:
        assert {i.date_time for i in zf.infolist()} == {date_time}


def test_invalid_source_date_epoch(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    with pytest.raises(BuildError, match="SOURCE_DATE_EPOCH must be an integer"):
        wheelfile.write(str(tmp_path / "w.whl"), _entries())


def test_signatures_are_dropped(tmp_path):
    entries = _entries()
    entries[f"{DIST_INFO}/RECORD.jws"] = Entry(b"{}")
    wheelfile.write(str(tmp_path / "w.whl"), entries)
    assert f"{DIST_INFO}/RECORD.jws" not in wheelfile.read(str(tmp_path / "w.whl"))


# ---------------------------------------------------------------------------- precompile


def _project(tmp_path: Path, modules: dict[str, str], layout: str = "src") -> tuple[dict[str, Entry], str]:
    """(wheel entries, source root) of a project whose package files are `modules`."""
    root = tmp_path / "proj"
    entries = {f"{DIST_INFO}/METADATA": Entry(b"Name: proj\n")}
    for rel, text in modules.items():
        data = textwrap.dedent(text).encode()
        where = root / ("src" if layout == "src" else "") / rel
        where.parent.mkdir(parents=True, exist_ok=True)
        where.write_bytes(data)
        entries[rel] = Entry(data)
    return entries, str(root)


def _precompile(entries, root, **table):
    return precompile.precompile(entries, DIST_INFO, config.from_table(table), root)


def _example_entries() -> dict[str, Entry]:
    package = EXAMPLE / "src" / "finance_pkg"
    entries = {f"{DIST_INFO}/METADATA": Entry(b"Name: finance-pkg\n")}
    for path in sorted(package.glob("*.py")):
        entries[f"finance_pkg/{path.name}"] = Entry(path.read_bytes())
    return entries


def test_example_is_fully_precompiled():
    entries = _example_entries()
    artifacts, report = precompile.precompile(entries, DIST_INFO, config.from_table({}), str(EXAMPLE))
    assert sorted(report.precompiled) == sorted(EXAMPLE_FUNCTIONS)
    assert report.runtime == []
    assert report.modules == 3
    for module in ("options", "rates", "risk"):
        manifest = json.loads(artifacts[f"finance_pkg/__vectorized__/{module}.json"].data)
        assert manifest["build_id"] == _core.BUILD_ID
        assert manifest["module"] == f"finance_pkg.{module}"
        assert manifest["source_sha256"] == _core.sha256_hex(entries[f"finance_pkg/{module}.py"].data)
        # Each artifact is byte for byte what compile_module gives for the installed text.
        static = {
            e["qualname"]: e for e in _core.compile_module(entries[f"finance_pkg/{module}.py"].data.decode(), "x.py")
        }
        for fn in manifest["functions"]:
            source = artifacts[f"finance_pkg/__vectorized__/{module}/{fn['file']}"].data.decode()
            assert source == static[fn["qualname"]]["source"]
            assert fn["line"] == static[fn["qualname"]]["line"]
            assert fn["doc"].startswith("(array-vectorized) ")
            assert "Vectorized from this scalar source::" in fn["doc"]


def test_unmarked_modules_get_nothing(tmp_path):
    entries, root = _project(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/plain.py": "import numpy as np\nf = np.vectorize(abs)\n",
            "pkg/marked.py": """\
                from array_vectorize import vectorize

                @vectorize
                def f(x):
                    return x + 1.0
            """,
        },
    )
    artifacts, report = _precompile(entries, root)
    assert sorted(artifacts) == [
        "pkg/__vectorized__/marked.json",
        "pkg/__vectorized__/marked/f.py",
    ]
    assert report.precompiled == ["pkg.marked:f"]


BAD = """\
    from array_vectorize import vectorize
    from .constants import *


    @vectorize
    def ok(x):
        return x * 2.0


    @vectorize
    def scaled(x):
        return x * RATE


    @vectorize
    def listy(x):
        return [x, x]
"""


def test_uncompilable_functions_fail_with_positions_and_what_to_do(tmp_path):
    entries, root = _project(tmp_path, {"pkg/__init__.py": "", "pkg/core.py": BAD})
    with pytest.raises(BuildError) as info:
        _precompile(entries, root)
    message = str(info.value)
    assert message.startswith("error: array_vectorize.build: 2 marked functions cannot be precompiled:")
    # Positions in the source tree (src/ layout), with the line and a caret. RATE comes from a
    # star import, which only the running module resolves: that function is deferred.
    assert "src/pkg/core.py:10: pkg.core:scaled can only be compiled once its module runs: `RATE`" in message
    assert "src/pkg/core.py:17:12: a list or dict cannot be an element of the result" in message
    assert "^^^^" in message
    assert "in pkg.core:listy (marked at src/pkg/core.py:15)" in message
    # Only the deferred function can be left to run time; the rejected one must change (listing it
    # under `runtime` would build a wheel whose import fails with the same message).
    assert 'runtime = ["pkg.core:scaled"]' in message
    assert "pkg.core:listy is rejected by the compiler, in the build and at\nrun time alike: change it" in message
    assert "Or decorate it `@vectorize(fallback=True)`" in message
    assert "Traceback" not in message


def test_rejected_function_with_fallback_may_be_left_to_run_time(tmp_path):
    # The decorator makes element loops of what the compiler rejects under fallback=True, at
    # import: for such a function `runtime` is the right advice, as for a deferred one.
    module = BAD.replace("@vectorize\n    def listy", "@vectorize(fallback=True)\n    def listy")
    assert module != BAD
    entries, root = _project(tmp_path, {"pkg/__init__.py": "", "pkg/core.py": module})
    with pytest.raises(BuildError) as info:
        _precompile(entries, root)
    message = str(info.value)
    assert 'runtime = ["pkg.core:scaled", "pkg.core:listy"]' in message
    assert "is rejected by the compiler" not in message


def test_runtime_list_leaves_functions_to_run_time(tmp_path):
    entries, root = _project(tmp_path, {"pkg/__init__.py": "", "pkg/core.py": BAD})
    artifacts, report = _precompile(entries, root, runtime=["pkg.core:scaled", "pkg.core:list*"])
    assert report.precompiled == ["pkg.core:ok"]
    assert report.runtime == ["pkg.core:scaled", "pkg.core:listy"]
    manifest = json.loads(artifacts["pkg/__vectorized__/core.json"].data)
    assert [f["qualname"] for f in manifest["functions"]] == ["ok"]


def test_runtime_entry_that_matches_nothing_is_an_error(tmp_path):
    entries, root = _project(tmp_path, {"pkg/__init__.py": "", "pkg/core.py": BAD})
    with pytest.raises(BuildError) as info:
        _precompile(entries, root, runtime=["pkg.core:scaled", "pkg.core:listx", "pkg.core:listy"])
    assert "runtime entry 'pkg.core:listx' matches no marked function; did you mean 'pkg.core:listy'?" in str(info.value)


def test_deferred_functions_fail_naming_what_only_run_time_knows(tmp_path):
    entries, root = _project(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/w.py": """\
                import numpy as np
                from array_vectorize import vectorize

                SCALE = float(np.sin(0.5))


                @vectorize
                def f(x):
                    return x * SCALE
            """,
        },
    )
    with pytest.raises(BuildError) as info:
        _precompile(entries, root)
    assert (
        "src/pkg/w.py:7: pkg.w:f can only be compiled once its module runs: "
        "`SCALE` is bound to something the build cannot evaluate"
    ) in str(info.value)
    artifacts, report = _precompile(entries, root, runtime=["pkg.w:*"])
    assert report.runtime == ["pkg.w:f"] and report.precompiled == []
    # No code; the manifest names the function left to run time (issue 31: under
    # ARRAY_VECTORIZE_NO_COMPILE=1 its module still imports, and the function raises when called,
    # saying it is listed).
    assert list(artifacts) == ["pkg/__vectorized__/w.json"]
    manifest = json.loads(artifacts["pkg/__vectorized__/w.json"].data)
    assert (manifest["functions"], manifest["runtime"]) == ([], ["f"])


def test_options_the_build_cannot_read(tmp_path):
    entries, root = _project(
        tmp_path,
        {
            "pkg/o.py": """\
                from array_vectorize import vectorize

                FLAG = True


                @vectorize(protect_domains=FLAG)
                def f(x):
                    return x
            """,
        },
    )
    with pytest.raises(BuildError, match=r"src/pkg/o\.py:6: pkg\.o:f can only be compiled once its module runs: option `protect_domains` is not a literal"):
        _precompile(entries, root)


def test_module_the_compiler_cannot_parse(tmp_path):
    broken = "from array_vectorize import vectorize\n\ndef f(:\n    pass\n"
    entries, root = _project(tmp_path, {"pkg/__init__.py": "", "pkg/broken.py": broken}, layout="flat")
    with pytest.raises(BuildError) as info:
        _precompile(entries, root)
    assert "pkg/broken.py:3:" in str(info.value)
    assert '"pkg.broken:*"' in str(info.value)
    artifacts, report = _precompile(entries, root, runtime=["pkg.broken:*"])
    assert artifacts == {} and report.runtime == ["pkg.broken:*"]
    # A module that only mentions vectorize (numpy's) is none of our business.
    entries, root = _project(tmp_path / "2", {"pkg/np_only.py": "import numpy\nnumpy.vectorize(:\n"})
    assert _precompile(entries, root) == ({}, precompile.Report())


def test_purelib_data_and_flat_layout(tmp_path):
    text = """\
        import array_vectorize

        @array_vectorize.vectorize
        def f(x):
            return x * 3.0

        class Shape:
            @array_vectorize.vectorize
            def area(r):
                return 3.0 * r * r
    """
    entries, root = _project(tmp_path, {"mod.py": text}, layout="flat")
    entries["proj-0.1.0.data/purelib/other.py"] = entries["mod.py"]
    artifacts, report = _precompile(entries, root)
    assert sorted(report.precompiled) == ["mod:Shape.area", "mod:f", "other:Shape.area", "other:f"]
    assert "__vectorized__/mod/Shape.area.py" in artifacts
    assert "proj-0.1.0.data/purelib/__vectorized__/other.json" in artifacts


def test_precompiled_docstring_is_the_decorators(tmp_path):
    from array_vectorize.docstring import vectorized_docstring

    text = '''\
        from array_vectorize import vectorize


        @vectorize
        def f(x, lo=0.0):
            """Clip below.

            Parameters
            ----------
            x : float
            """
            # a comment
            if x < lo:  # early return
                return lo
            return x
    '''
    entries, root = _project(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": text})
    artifacts, _ = _precompile(entries, root)
    (doc,) = [f["doc"] for f in json.loads(artifacts["pkg/__vectorized__/m.json"].data)["functions"]]
    namespace: dict = {}
    path = Path(root) / "src" / "pkg" / "m.py"
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # the live function, for the oracle
    assert doc == vectorized_docstring(namespace["f"]._vectorized_original)


FACTORIES = """\
    import math

    from array_vectorize import vectorize


    def _attenuation(coefficient):
        @vectorize
        def transmitted(depth):
            return math.exp(-coefficient * depth)

        return transmitted


    def _window(low, high):
        @vectorize
        def inside(x):
            return 1.0 if low <= x <= high else 0.0

        return inside


    water = _attenuation(0.0144)
    glass = _attenuation(coefficient=0.02 * 1.5)
    visible = _window(LOW_NM, 700.0)  # LOW_NM comes from a star import
"""


def test_a_factorys_function_is_precompiled_per_call_or_the_build_names_it_and_the_remedy(tmp_path):
    """Issue 31: a marked function made by a factory gets one artifact per call of the factory
    in the module's top-level code whose arguments the text gives; one whose closure the text
    does not give fails the build, naming it and saying how to leave it to run time."""
    module = "from .bands import *\n" + textwrap.dedent(FACTORIES)
    entries, root = _project(tmp_path, {"pkg/__init__.py": "", "pkg/optics.py": module, "pkg/bands.py": "LOW_NM = 380.0\n"})
    with pytest.raises(BuildError) as info:
        _precompile(entries, root)
    message = str(info.value)
    assert message.startswith("error: array_vectorize.build: 1 marked function cannot be precompiled:"), message
    assert "src/pkg/optics.py:16: pkg.optics:_window.<locals>.inside can only be compiled once its module runs" in message
    assert "`low` is bound to something the build cannot evaluate" in message
    assert 'runtime = ["pkg.optics:_window.<locals>.inside"]' in message
    artifacts, report = _precompile(entries, root, runtime=["pkg.optics:_window.*"])
    assert report.precompiled == ["pkg.optics:_attenuation.<locals>.transmitted"] * 2
    assert sorted(artifacts) == [
        "pkg/__vectorized__/optics.json",
        "pkg/__vectorized__/optics/_attenuation.-locals-.transmitted-8.py",
        "pkg/__vectorized__/optics/_attenuation.-locals-.transmitted.py",
    ]
    manifest = json.loads(artifacts["pkg/__vectorized__/optics.json"].data)
    closures = [dict(f["assumptions"])["coefficient"] for f in manifest["functions"]]
    assert closures == [["const", 0.0144], ["const", 0.02 * 1.5]]
    assert manifest["runtime"] == ["_window.<locals>.inside"]


def _elif_chain(n: int) -> str:
    lines = ["from array_vectorize import vectorize", "from . import tables", "", "", "@vectorize", "def band(income):"]
    lines += ["    if income < 0.0:", "        return 0.0"]
    for i in range(1, n + 1):
        lines += [f"    elif income < {i * 1000}.0:", f"        return {i * 0.0001!r}"]
    return "\n".join(lines + ["    return 0.45", ""])


def test_a_module_too_deep_for_pythons_parser_fails_with_a_position(tmp_path):
    # Issue 28 item 9: a 12k-elif module ended the build in a raw MemoryError traceback from
    # ast.parse (CPython's parser cannot hold it). The core's own limit names the position.
    entries, root = _project(tmp_path, {"pkg/__init__.py": "", "pkg/tables.py": "", "pkg/bands.py": _elif_chain(12_000)})
    with pytest.raises(BuildError) as info:
        _precompile(entries, root)
    message = str(info.value)
    assert "src/pkg/bands.py:2009:5: an `if` with more than 1000 `elif` branches is too large to compile; split it" in message
    assert "in pkg.bands:band (marked at src/pkg/bands.py:5)" in message
    assert "Traceback" not in message and "MemoryError" not in message
