"""A function wrapped (``functools.wraps``) before ``@vectorize`` sees it.

``@vectorize`` over ``@logged`` receives the wrapper: its code is the wrapper's, its name and
``__wrapped__`` the function's. Compiling the function inside would silently drop what the wrapper
does; so the decorator refuses, with a message that names the wrapper and where both are defined,
positioned at the wrapped function's ``def`` (not at a line computed from the wrapper's code).
With ``fallback=True`` the wrapper runs element by element, as CPython would call it.
"""

from __future__ import annotations

import importlib.util
import textwrap

import numpy as np
import pytest

from array_vectorize import VectorizationError

MODULE = textwrap.dedent('''\
    import functools
    from array_vectorize import vectorize

    CALLS = []


    def audited(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            CALLS.append(fn.__name__)
            return fn(*args, **kwargs)
        return wrapper


    def premium(age, base):
        if age > 65:
            return base * 1.5
        return base
    ''')


def load(tmp_path, text, name):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def test_wrapper_under_vectorize_is_refused_at_the_real_position(tmp_path):
    text = MODULE + textwrap.dedent('''

        @vectorize
        @audited
        def surcharge(age, base):
            return base * 2.0 if age < 25 else base
        ''')
    with pytest.raises(VectorizationError) as info:
        load(tmp_path, text, "wrapped_mod")
    message = str(info.value)
    path = tmp_path / "wrapped_mod.py"
    lines = text.splitlines()
    def_line = lines.index("def surcharge(age, base):") + 1
    wrapper_line = lines.index("    @functools.wraps(fn)") + 1
    assert f"{path}:{def_line}:1:" in message
    assert "audited.<locals>.wrapper" in message and f"{path}:{wrapper_line}" in message
    assert "def surcharge(age, base):" in message  # the quoted line is the real one
    assert "if 1:" not in message
    [diag] = info.value.diagnostics
    assert (diag["path"], diag["line"], diag["col"]) == (str(path), def_line, 1)


def test_wrapper_from_another_module(tmp_path):
    lib, lib_path = load(tmp_path, MODULE, "audit_lib")
    from array_vectorize import vectorize

    with pytest.raises(VectorizationError) as info:
        vectorize(lib.audited(lib.premium))
    message = str(info.value)
    assert f"{lib_path}:{MODULE.splitlines().index('def premium(age, base):') + 1}:1:" in message
    assert "audited.<locals>.wrapper" in message


def test_fallback_calls_the_wrapper_per_element(tmp_path):
    lib, _ = load(tmp_path, MODULE, "audit_lib2")
    from array_vectorize import vectorize

    vec = vectorize(lib.audited(lib.premium), fallback=True)
    ages, bases = np.array([30.0, 70.0, 66.0]), np.array([100.0, 100.0, 80.0])
    got = vec(ages, bases)
    assert got.tolist() == [lib.premium(a, b) for a, b in zip(ages.tolist(), bases.tolist())]
    assert lib.CALLS == ["premium"] * 3  # the wrapper ran on every element


def test_vectorize_under_the_wrapper_keeps_both(tmp_path):
    text = MODULE + textwrap.dedent('''

        @audited
        @vectorize
        def surcharge(age, base):
            return base * 2.0 if age < 25 else base
        ''')
    mod, _ = load(tmp_path, text, "wrapped_ok")
    ages, bases = np.array([20.0, 40.0]), np.array([10.0, 10.0])
    assert mod.surcharge(ages, bases).tolist() == [20.0, 10.0]
    assert mod.CALLS == ["surcharge"]
