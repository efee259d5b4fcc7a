"""Type stub for the compiled core (src/python.rs). Checked against the module by
tests/unit/test_core_stub.py. The records it takes and returns are declared in records.py."""

from typing import Any

from .records import CompiledFunction, Diagnostic, Env, ModuleFunction

BUILD_ID: str
#: The runtime helper contract: key -> {"name", "params", "ops", "meaning"} (src/codegen/runtime.rs).
RUNTIME_HELPERS: dict[str, dict[str, Any]]
# D16: the NumPy names accepted inside scalar code, {name: {"lowers_to", "semantics"}}, and
# the markdown table docs/numpy.md holds (src/lower/calls/numpy/table.rs).
NUMPY_NAMES: dict[str, dict[str, str]]
NUMPY_TABLE: str
#: The builtins the compiler gives meaning to (src/static_module/mod.rs), read by environment.py.
KNOWN_BUILTINS: tuple[str, ...]

class VectorizationError(ValueError):
    diagnostics: list[Diagnostic]

class InternalError(RuntimeError): ...
class DeferredError(ValueError):
    #: The free names only the live function can resolve.
    names: list[str]

def compile_function(
    source: str,
    path: str,
    first_line: int,
    name: str,
    env: Env,
    options: dict[str, bool] | None = None,
) -> CompiledFunction: ...
def compile_module(
    source: str,
    path: str,
    only: str | None = None,
    package: str | None = None,
    modules: dict[str, tuple[str, str, str | None]] | None = None,
) -> list[ModuleFunction]: ...
def sha256_hex(data: bytes, start: int = 0) -> str: ...
def checksum64(data: bytes, start: int = 0) -> int: ...
def function_text(source: str, name: str) -> str | None: ...
def element_loop(entry: str, params: list[str], posonly: int, kwonly: list[str]) -> str: ...
def first_call_stub(entry: str, params: list[str], posonly: int, kwonly: list[str], note: str) -> str: ...
def write_atomic(path: str, data: bytes, mode: int | None = None) -> None: ...
def scan_tree(root: str) -> list[str]: ...
def horner_f64(out: Any, x: Any, coefficients: list[float], ops: str, times_x: bool) -> bool: ...
def sin_cos_at(x: int, sin: int, cos: int, n: int) -> bool: ...
