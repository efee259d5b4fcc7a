"""The hand-written `_core.pyi` names exactly what the compiled module exports, with the same
parameters (a light stubtest: the stub is parsed, the module introspected), and the records it
returns (declared in records.py) have exactly the fields the core gives them."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from array_vectorize import _core

PACKAGE = Path(__file__).resolve().parents[2] / "hook_py" / "array_vectorize"
STUB = PACKAGE / "_core.pyi"
RECORDS = PACKAGE / "records.py"


def stub_items():
    tree = ast.parse(STUB.read_text())
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    names = {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}
    return functions, classes, names


def test_stub_matches_module():
    functions, classes, names = stub_items()
    public = {n for n in dir(_core) if not n.startswith("_")}
    assert public == set(functions) | classes | names
    for name, node in functions.items():
        stub_params = [a.arg for a in node.args.args]
        real_params = list(inspect.signature(getattr(_core, name)).parameters)
        assert stub_params == real_params, name
    for name in classes:
        assert isinstance(getattr(_core, name), type)


def declared_fields() -> dict[str, tuple[set[str], set[str]]]:
    """records.py's TypedDicts: name -> (required fields, all fields), bases included."""
    classes = {n.name: n for n in ast.walk(ast.parse(RECORDS.read_text())) if isinstance(n, ast.ClassDef)}
    out: dict[str, tuple[set[str], set[str]]] = {}

    def fields(name: str) -> tuple[set[str], set[str]]:
        if name not in out:
            node = classes[name]
            total = not any(k.arg == "total" and not k.value.value for k in node.keywords)
            own = {s.target.id for s in node.body if isinstance(s, ast.AnnAssign)}
            required, every = (set(own) if total else set()), set(own)
            for base in node.bases:
                if isinstance(base, ast.Name) and base.id in classes:
                    r, e = fields(base.id)
                    required, every = required | r, every | e
            out[name] = (required, every)
        return out[name]

    for name in classes:
        fields(name)
    return out


#: Helpers that call the next one twice, past the inlining budget: the core compiles them out of
#: line, as functions of the generated module (D7).
HELPERS = "".join(f"def h{i}(x):\n    return h{i + 1}(x) + h{i + 1}(x * 0.5)\n\n" for i in range(20))
HELPERS += "def h20(x):\n    return x * 2.0 if x > 1.0 else x\n\n"
SOURCE = HELPERS + "def g(x):\n    return h0(x)\n"


def test_compile_function_returns_the_declared_record():
    required, every = declared_fields()["CompiledFunction"]
    got = _core.compile_function("def f(x):\n    return x * 2.0\n", "m.py", 1, "f", {}, {})
    assert required <= set(got) <= every, (required - set(got), set(got) - every)
    with_ir = _core.compile_function("def f(x):\n    return x * 2.0\n", "m.py", 1, "f", {}, {"ir": True})
    irs = {"ir", "float_ir", "int_ir"}
    assert set(with_ir) == set(got) | irs and irs <= every
    # Issue 30: a function with a mixed body (int days, a float hour) has its IR too.
    mixed = _core.compile_function("def f(day, hour):\n    return (day + 29) // 30 + hour / 24.0\n", "m.py", 1, "f", {}, {"ir": True})
    assert set(mixed) == set(with_ir) | {"mixed_ir"} and "mixed_ir" in every
    assert "_vec_mixed_args('if'" in mixed["exact_source"] or '_vec_mixed_args("if"' in mixed["exact_source"]


def test_compile_module_returns_the_declared_records():
    _, every = declared_fields()["ModuleFunction"]
    generated, _ = declared_fields()["Generated"]
    text = "from array_vectorize import vectorize\n\n" + SOURCE.replace("def g", "@vectorize\ndef g")
    text += "\n@vectorize\ndef bad(x):\n    return [x]\n"
    ok, bad = _core.compile_module(text, "m.py")
    assert (ok["status"], bad["status"]) == ("ok", "error")
    assert generated <= set(ok) <= every, (generated - set(ok), set(ok) - every)
    assert set(bad) <= every, set(bad) - every
    # The helper lists are what the two texts define besides their own function.
    assert ok["helpers"] and ok["exact_helpers"], ok["source"]
    for part, names in (("fast_source", ok["helpers"]), ("exact_source", ok["exact_helpers"])):
        defined = [n.name for n in ast.parse(ok[part]).body if isinstance(n, ast.FunctionDef)][1:]
        assert names == defined, (part, names, defined)
