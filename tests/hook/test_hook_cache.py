"""The import hook's cache: cold and warm imports, invalidation by content, corrupted files,
CPython's bytecode switches, concurrency, and the kill switches. Each import runs in a fresh
interpreter (``hookproj.Project``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time

import pytest
from hookproj import CALLS, MARKED, Project, cache_name

from array_vectorize.hook import cachefile
from array_vectorize.hook.cli import header_key

IMPORT_MOD = "import mod\nout = {'f': mod.f.source, 'g': mod.g.source}"


def valid_entries(path) -> list[dict]:
    return cachefile.decode_cache(path.read_bytes(), None)


def test_cold_import_compiles_and_writes_the_cache(project: Project):
    project.write("mod.py", MARKED)
    res = project.run(IMPORT_MOD)
    assert res.stats["compiled"] == 2  # both functions, by the hook's static compile
    assert res.hook_stat("hook_modules_compiled") == 1
    assert res.hook_stat("hook_cache_writes") == 1
    assert res.stats["hook_hits"] == 2  # the decorators used the hook's code
    assert res.stats["disk_cache_hits"] == 0  # which was compiled now, not read from a file
    path = project.root / "__pycache__" / cache_name("mod")
    assert project.cache_files() == [path]
    entries = valid_entries(path)
    assert [(e["qualname"], e["status"]) for e in entries] == [("f", "ok"), ("g", "ok")]
    assert all(e.get("doc", "").startswith("(array-vectorized)") for e in entries)
    # The code of each generated entry function, named after the generated source.
    assert all(e["code"].co_filename.startswith("<array-vectorize ") for e in entries)
    assert [e["code"].co_name for e in entries] == [e["entry"] for e in entries]
    assert project.temp_files() == []


def test_warm_import_compiles_nothing(project: Project):
    project.write("mod.py", MARKED)
    cold = project.run(IMPORT_MOD)
    path = project.cache_files()[0]
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    warm = project.run(IMPORT_MOD)
    assert warm.stats["compiled"] == 0
    assert warm.hook_stat("hook_cache_hits") == 1
    assert warm.stats["disk_cache_hits"] == warm.stats["hook_hits"] == 2
    assert warm.hook_stat("hook_cache_writes") == 0
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before  # read, not rewritten
    assert warm.out == cold.out
    # Only cached code runs: compiling is forbidden, and nothing needs it.
    locked = project.run(IMPORT_MOD, env={"ARRAY_VECTORIZE_NO_COMPILE": "1"})
    assert locked.stats["compiled"] == 0 and locked.out == cold.out


def test_editing_one_constant_recompiles_only_that_module(project: Project):
    project.write("pkg/__init__.py", "")
    project.write("pkg/a.py", MARKED)
    project.write("pkg/b.py", MARKED.replace("SCALE = 2.0", "SCALE = 5.0"))
    body = CALLS + "import pkg.a, pkg.b\nout = [pkg.a.f(_x, _y).tolist(), pkg.b.f(_x, _y).tolist(), pkg.a.f.source]"
    first = project.run(body)
    assert first.hook_stat("hook_modules_compiled") == 2
    files = {p.name: p.read_bytes() for p in project.cache_files()}
    # A different length as well as a different value, so that CPython's own mtime-and-size check
    # of the .pyc cannot serve the old bytecode if the edit lands in the same second.
    project.write("pkg/a.py", MARKED.replace("SCALE = 2.0", "SCALE = 3.25"))
    second = project.run(body)
    assert second.hook_stat("hook_modules_compiled") == 1
    assert second.hook_stat("hook_cache_hits") == 1
    assert second.stats["compiled"] == 2  # a's two functions, nothing of b
    assert "3.25" in second.out[2] and "2.0 *" not in second.out[2]
    assert second.out[1] == first.out[1]
    assert second.out[0] != first.out[0]
    after = {p.name: p.read_bytes() for p in project.cache_files()}
    b_name = cache_name("b")
    assert after[b_name] == files[b_name]
    # The new results are CPython's for the edited source.
    check = project.run(
        CALLS + "import pkg.a\nout = [pkg.a.f._vectorized_original(a, b) for a, b in zip(_x.tolist(), _y.tolist())]",
        hook=False,
    )
    assert second.out[0] == check.out


def test_a_moved_tree_still_hits(project: Project, tmp_path):
    project.write("mod.py", MARKED)
    project.run(IMPORT_MOD)
    moved = Project(tmp_path / "elsewhere" / "deeper")
    shutil.copytree(project.root, moved.root, dirs_exist_ok=True)
    res = moved.run(IMPORT_MOD + "\nout['file'] = mod.__file__")
    assert res.out["file"].startswith(str(moved.root))
    assert res.stats["compiled"] == 0 and res.hook_stat("hook_cache_hits") == 1


def _truncate(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _flip_payload(data: bytes) -> bytes:
    i = cachefile.HEADER_SIZE + (len(data) - cachefile.HEADER_SIZE) // 2
    return data[:i] + bytes([data[i] ^ 0x10]) + data[i + 1 :]


def _flip_key(data: bytes) -> bytes:
    i = 12 + 5  # inside the key
    return data[:i] + bytes([data[i] ^ 0x01]) + data[i + 1 :]


def _bad_length(data: bytes) -> bytes:
    return data + b"\0"


CORRUPTIONS = {
    "empty": lambda data: b"",
    "truncated-header": lambda data: data[:20],
    "truncated": _truncate,
    "garbage": lambda data: bytes(range(256)) * 40,
    "bit-flip-payload": _flip_payload,
    "bit-flip-key": _flip_key,
    "trailing-bytes": _bad_length,
    "foreign-format": lambda data: data[:8] + (99).to_bytes(4, "little") + data[12:],
}


@pytest.fixture(scope="module")
def warm_cache(tmp_path_factory) -> tuple[Project, bytes]:
    """A project imported once: its cache file's valid bytes."""
    proj = Project(tmp_path_factory.mktemp("seed") / "proj")
    proj.write("mod.py", MARKED)
    proj.run(IMPORT_MOD)
    return proj, proj.cache_files()[0].read_bytes()


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_corrupted_cache_files_heal(warm_cache, tmp_path, corruption):
    seed, valid = warm_cache
    project = Project(tmp_path / "proj")
    shutil.copytree(seed.root, project.root, dirs_exist_ok=True)
    path = project.cache_files()[0]
    path.write_bytes(CORRUPTIONS[corruption](valid))
    healed = project.run(IMPORT_MOD)
    assert healed.hook_stat("hook_cache_invalid") == 1
    assert healed.hook_stat("hook_modules_compiled") == 1 and healed.hook_stat("hook_cache_writes") == 1
    assert path.read_bytes() == valid  # rewritten whole (deterministic content)
    again = project.run(IMPORT_MOD)
    assert again.stats["compiled"] == 0 and again.hook_stat("hook_cache_hits") == 1
    assert again.out == healed.out


#: Helpers that call the next one twice, past the inlining budget: the core compiles them out of
#: line, as functions defined in the generated module's text besides the entry (D7).
OUT_OF_LINE = (
    "from array_vectorize import vectorize\n\n"
    + "".join(f"def h{i}(x):\n    return h{i + 1}(x) + h{i + 1}(x * 0.5)\n\n" for i in range(20))
    + "def h20(x):\n    return x * 2.0 if x > 1.0 else x\n\n\n@vectorize\ndef f(x):\n    return h0(x)\n"
)
CALL_F = "import numpy as np, mod\nout = mod.f(np.array([-1.0, 0.5, 1.5, 3.0])).tolist()"


def _as_previous_format(data: bytes) -> bytes:
    """The cache file as the previous format wrote it: the same records without the core's lists
    of helper functions (emit searched the generated text for them then), under that version."""
    import marshal

    from array_vectorize import _core

    record = marshal.loads(data[cachefile.HEADER_SIZE :])
    record["entries"] = [{k: v for k, v in e.items() if k not in ("helpers", "exact_helpers")} for e in record["entries"]]
    payload = marshal.dumps(record)
    return b"".join(
        [
            data[:8],
            (cachefile.CACHE_FORMAT_VERSION - 1).to_bytes(4, "little"),
            data[12:76],
            len(payload).to_bytes(8, "little"),
            _core.checksum64(payload).to_bytes(8, "little"),
            payload,
        ]
    )


def test_a_cache_file_of_the_previous_format_is_compiled_again(project: Project):
    """The current format added the helper lists: a file of the previous one, whose records lack
    them, is a miss (never an import error, never a function without its helpers) and is written
    again."""
    project.write("mod.py", OUT_OF_LINE)
    cold = project.run(CALL_F)
    path = project.cache_files()[0]
    valid = path.read_bytes()
    assert [e["helpers"] for e in valid_entries(path)][0], "the entry's text defines helper functions"
    path.write_bytes(_as_previous_format(valid))
    healed = project.run(CALL_F, env={"ARRAY_VECTORIZE_DEBUG": "hook"})
    version = cachefile.CACHE_FORMAT_VERSION
    assert f"cache file unusable: format version {version - 1}, expected {version}" in healed.stderr
    assert healed.hook_stat("hook_cache_invalid") == 1 and healed.hook_stat("hook_cache_writes") == 1
    assert healed.out == cold.out
    assert path.read_bytes() == valid
    warm = project.run(CALL_F)
    assert warm.stats["compiled"] == 0 and warm.stats["disk_cache_hits"] == 1 and warm.out == cold.out
    # CPython's own values, element by element (the scalar original).
    scalar = project.run("import mod\nout = [mod.f._vectorized_original(v) for v in (-1.0, 0.5, 1.5, 3.0)]", hook=False)
    assert warm.out == scalar.out


def test_a_warm_function_defines_the_helper_functions_its_record_lists_and_nothing_else(project: Project):
    """A warm import makes each function from its cached code; its first call runs the entry's
    text only when the record lists functions of out-of-line helpers there (D7), and then
    defines exactly those."""
    project.write("mod.py", OUT_OF_LINE)
    project.write("plain.py", MARKED)
    body = (
        "import numpy as np, mod, plain\n_x = np.array([0.5, 2.0])\nmod.f(_x)\nplain.f(_x, _x)\n"
        "out = [sorted(k for k in mod.f.__globals__ if k.startswith('_vec_helper_')), 'f' in plain.f.__globals__,"
        " [k for k in plain.f.__globals__ if k.startswith('_vec_helper_')]]"
    )
    project.run(body)
    warm = project.run(body)
    assert warm.stats["compiled"] == 0 and warm.stats["disk_cache_hits"] == 3
    listed = valid_entries(project.root / "__pycache__" / cache_name("mod"))[0]["helpers"]
    assert listed and warm.out[0] == sorted(listed)
    # No helpers: the entry's text is not run again (it would define `f` in the globals).
    assert warm.out[1] is False and warm.out[2] == []


@pytest.mark.parametrize("how", ["env", "-B"])
def test_dont_write_bytecode_imports_without_writing(project: Project, how):
    project.write("mod.py", MARKED)
    env, flags = ({"PYTHONDONTWRITEBYTECODE": "1"}, ()) if how == "env" else ({}, ("-B",))
    res = project.run(IMPORT_MOD + "\nout['dwb'] = sys.dont_write_bytecode", env=env, flags=flags)
    assert res.out["dwb"] is True
    assert res.stats["compiled"] == 2 and res.stats["hook_hits"] == 2 and res.stats["disk_cache_hits"] == 0
    assert project.cache_files() == [] and not (project.root / "__pycache__").exists()
    # Reading is still allowed, as for .pyc files.
    project.run(IMPORT_MOD)
    res = project.run(IMPORT_MOD, env=env, flags=flags)
    assert res.stats["compiled"] == 0 and res.hook_stat("hook_cache_hits") == 1


def test_unwritable_pycache_still_imports(project: Project):
    project.write("mod.py", MARKED)
    (project.root / "__pycache__").write_text("a file where the directory should be")
    body = CALLS + "import mod\nout = mod.f(_x, _y).tolist()"
    res = project.run(body)
    assert res.stats["compiled"] == 2 and res.hook_stat("hook_cache_write_errors") == 1
    assert res.stderr == ""
    plain = project.run(body, hook=False)
    assert res.out == plain.out
    dbg = project.run(body, env={"ARRAY_VECTORIZE_DEBUG": "hook"})
    assert "cache not written" in dbg.stderr


def test_pycache_prefix_holds_the_cache(project: Project, tmp_path):
    prefix = tmp_path / "prefix"
    project.write("mod.py", MARKED)
    env = {"PYTHONPYCACHEPREFIX": str(prefix)}
    res = project.run(IMPORT_MOD, env=env)
    assert res.hook_stat("hook_cache_writes") == 1
    expected = prefix / project.root.resolve().relative_to("/") / cache_name("mod")
    assert project.cache_files() == []
    assert project.cache_files(prefix) == [expected]
    warm = project.run(IMPORT_MOD, env=env)
    assert warm.stats["compiled"] == 0 and warm.hook_stat("hook_cache_hits") == 1


def test_sixteen_cold_processes_at_once(project: Project):
    project.write("mod.py", MARKED)
    go = project.root / "go"
    # Every process starts, then waits for the same signal, then imports: maximal overlap.
    body = (
        "import os, time\n"
        "while not os.path.exists('go'):\n    time.sleep(0.002)\n" + CALLS + "import mod\nout = mod.f(_x, _y).tolist()"
    )
    procs = [
        subprocess.Popen(
            project.command(body),
            cwd=project.root,
            env=project.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(16)
    ]
    time.sleep(0.5)
    go.write_text("")
    results = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=120)
        results.append(Project.result(p.returncode, stdout, stderr))
    assert all(r.stderr == "" for r in results)
    assert len({repr(r.out) for r in results}) == 1
    files = project.cache_files()
    assert [p.name for p in files] == [cache_name("mod")]
    assert [e["status"] for e in valid_entries(files[0])] == ["ok", "ok"]
    assert project.temp_files() == []
    warm = project.run(body)
    assert warm.stats["compiled"] == 0 and warm.out == results[0].out


def test_optimized_and_normal_runs_do_not_share_entries(project: Project):
    project.write("mod.py", MARKED)
    body = IMPORT_MOD + "\nout['opt'] = sys.flags.optimize"
    opt = project.run(body, flags=("-O",))
    assert opt.out["opt"] == 1 and opt.hook_stat("hook_modules_compiled") == 1
    normal = project.run(body)
    assert normal.hook_stat("hook_modules_compiled") == 1  # not served the -O entries
    names = sorted(p.name for p in project.cache_files())
    assert names == sorted([cache_name("mod"), cache_name("mod", optimize=1)])
    keys = {header_key(p.read_bytes()) for p in project.cache_files()}
    assert len(keys) == 2
    assert project.run(body, flags=("-O",)).hook_stat("hook_cache_hits") == 1
    assert project.run(body).hook_stat("hook_cache_hits") == 1
    # Entries are keyed by level too: an -O file copied over the normal one is rejected.
    (project.root / "__pycache__" / cache_name("mod")).write_bytes(
        (project.root / "__pycache__" / cache_name("mod", optimize=1)).read_bytes()
    )
    res = project.run(body)
    assert res.hook_stat("hook_cache_invalid") == 1 and res.hook_stat("hook_modules_compiled") == 1


def test_cache_switched_off(project: Project):
    project.write("mod.py", MARKED)
    off = {"ARRAY_VECTORIZE_CACHE": "0"}
    for _ in range(2):
        res = project.run(IMPORT_MOD, env=off)
        assert res.stats["compiled"] == 2 and res.hook_stat("hook_modules_compiled") == 1
        assert res.stats["hook_hits"] == 2 and res.stats["disk_cache_hits"] == 0
    assert project.cache_files() == []
    # An existing cache file is not read either.
    project.run(IMPORT_MOD)
    assert project.run(IMPORT_MOD, env=off).hook_stat("hook_cache_hits") == 0


def test_no_compile_without_a_cache_raises_naming_the_variable(project: Project):
    project.write("mod.py", MARKED)
    env = {"ARRAY_VECTORIZE_NO_COMPILE": "1", "ARRAY_VECTORIZE_DEBUG": "hook"}
    res = project.run(IMPORT_MOD, env=env, ok=False)
    assert res.returncode != 0
    assert "CompileDisabledError" in res.stderr and "ARRAY_VECTORIZE_NO_COMPILE" in res.stderr
    assert "mod: skipped (no cache file, and ARRAY_VECTORIZE_NO_COMPILE=1 forbids compiling)" in res.stderr
    assert project.cache_files() == []


def test_a_failed_static_compile_is_not_cached(project: Project):
    project.write("mod.py", MARKED + "\n\ndef broken(:\n    pass\n")
    res = project.run("import mod", ok=False, env={"ARRAY_VECTORIZE_DEBUG": "hook"})
    assert "SyntaxError" in res.stderr  # CPython's own error, as without the hook
    assert "mod: skipped (static compile failed:" in res.stderr
    assert "Traceback" in res.stderr and "array_vectorize/hook" not in res.stderr
    assert project.cache_files() == []


def test_cache_files_are_private_to_the_interpreter(project: Project):
    """The name carries the interpreter's cache tag: another Python never reads this file."""
    project.write("mod.py", MARKED)
    project.run(IMPORT_MOD)
    (path,) = project.cache_files()
    assert f".{sys.implementation.cache_tag}." in path.name
