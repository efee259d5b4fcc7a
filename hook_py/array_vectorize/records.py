"""The records that cross the seams of the Python side, declared in one place: the environment
of a compile (bindings) and what the Rust core returns for it (``_core.compile_function``,
``_core.compile_module``: ``_core.pyi``), a function as the import hook's cache holds it, as a
wheel's manifest holds it, and what the decorator gets in place of compiling
(``precompiled.lookup``). ARCHITECTURE.md ("The core's Python interface") says what each field
means.

They are TypedDicts and tuples, not classes: these records travel as dicts and tuples through
marshal (the hook's cache) and JSON (a wheel's manifest), and a warm import reads every entry of
its module's cache file, so a conversion into objects would cost every import. None is changed
in place once made: a stage that adds to a record makes a new one of the next type
(``ModuleFunction`` -> ``CachedFunction`` in hook/compile.py; ``ManifestFunction`` ->
``WheelFunction`` in wheel_artifacts.py).

Declared for type checkers only: ``import array_vectorize`` loads no ``typing``
(tests/unit/test_layering.py), and the modules name these types in annotations, which
``from __future__ import annotations`` leaves unevaluated.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import CodeType
    from typing import Any, Dict, List, Literal, Optional, Tuple, TypedDict, Union

    # ---- bindings: a free name of the function as the compiler sees it (the env) -------------

    #: ``("const", value)``: a bool, int or float, or a tuple, list or dict of those (D8, D15).
    ConstBinding = Tuple[Literal["const"], Any]
    #: ``("math",)``, ``("numpy",)`` (D16), ``("bisect_module",)`` (D15), ``("array",)`` (D8).
    ModuleBinding = Tuple[Literal["math", "numpy", "bisect_module", "array"]]
    #: ``("math_member", "sqrt")``, ``("builtin", "abs")``, ``("bisect", "bisect_left")``.
    MemberBinding = Tuple[Literal["math_member", "builtin", "bisect"], str]
    #: ``("function" | "classmethod", source, path, first_line, qualname, env)``: a helper (D7).
    FunctionBinding = Tuple[Literal["function", "classmethod"], str, str, int, str, "Env"]
    #: ``("namespace", {attribute: binding})``: a class or module read through its attributes.
    NamespaceBinding = Tuple[Literal["namespace"], "Env"]
    #: ``("enum", members)`` (D14), ``("exception", mro)`` (D11).
    ClassBinding = Tuple[Literal["enum", "exception"], Tuple[str, ...]]
    #: ``("object", type name)`` (a uniform module-level object, D14), ``("callable", what)``
    #: (fallback=True's element loop), ``("unsupported", what)``.
    OpaqueBinding = Tuple[Literal["object", "callable", "unsupported"], str]
    #: ``("namedtuple", class name, fields)``: a namedtuple class (issue 27, D13).
    NamedTupleBinding = Tuple[Literal["namedtuple"], str, Tuple[str, ...]]
    Binding = Union[
        ConstBinding, ModuleBinding, MemberBinding, FunctionBinding, NamespaceBinding, ClassBinding, OpaqueBinding,
        NamedTupleBinding,
    ]
    #: name -> binding; in a helper's env also ``"=<param>"`` -> the default its ``def`` computed.
    Env = Dict[str, Binding]

    # ---- assumptions: what a static compile took a free name to be (precompiled.py checks) ----

    #: ``("function" | "classmethod", name, line)``: a function of the module, found by its name
    #: and first line.
    AssumedFunction = Tuple[Literal["function", "classmethod"], str, int]
    #: ``("module_function", name, line, module, sha256)``: a function of another module of the
    #: program (issue 12), whose file's bytes the compile read.
    AssumedModuleFunction = Tuple[Literal["module_function"], str, int, str, str]
    #: ``("stdlib_function", name, module, sha256)``: a function of the standard library (issue
    #: 31), pinned by the sha256 of its own text (its file and line change between versions).
    AssumedStdlibFunction = Tuple[Literal["stdlib_function"], str, str, str]
    #: ``("stdlib_method", class, name, module, sha256)``: a method of a standard library class
    #: read through a module-level instance (issue 27: `IQ.cdf`), pinned by the instance's type and
    #: the sha256 of its module's text.
    AssumedStdlibMethod = Tuple[Literal["stdlib_method"], str, str, str, str]
    AssumedBinding = Union[
        ConstBinding,
        ModuleBinding,
        MemberBinding,
        ClassBinding,
        OpaqueBinding,
        NamedTupleBinding,
        AssumedFunction,
        AssumedModuleFunction,
        AssumedStdlibFunction,
        AssumedStdlibMethod,
    ]
    #: ``(name, binding)``; a dotted name for a class attribute (``"Const.R"``), ``module:name``
    #: for a name read in another module of the program.
    Assumption = Tuple[str, AssumedBinding]
    #: ``(kind, name)``: a value emit binds as a global of the generated module: ``"array"`` (a
    #: global array, D8), ``"callee"`` (a fallback callee), ``"object"`` (D14; what an exception's
    #: message or a call site reads, D21, D23), ``"scalar"`` (``_vec_scalar_<f>``: the scalar
    #: original of the recursive function ``f``, D19).
    Hidden = Tuple[Literal["array", "callee", "object", "scalar"], str]
    #: ``(kind, what, line)``: a call the generated code runs element by element, ``"residue"``
    #: (D19) or ``"call_site"`` (D23); ``stats()`` counts them, ``show`` lists them.
    ElementSite = Tuple[Literal["residue", "call_site"], str, int]

    class Options(TypedDict, total=False):
        protect_domains: bool
        fallback: bool
        optimize: bool
        nan_on_raise: bool
        pinned_namespace: bool

    class Diagnostic(TypedDict):
        """One problem of a ``VectorizationError`` (its ``diagnostics``)."""

        code: str
        message: str
        path: str
        line: int
        col: int
        end_line: int
        end_col: int
        text: str

    # ---- what the core returns ----------------------------------------------------------------

    class Generated(TypedDict):
        """The generated module of one function: ``source == fast_source + exact_source``."""

        source: str
        entry: str
        fast_source: str
        exact_source: str
        exact_entry: str
        #: The functions of out-of-line helpers (D7) that ``fast_source`` defines besides the
        #: entry, and that ``exact_source`` defines besides the exact body (codegen's list, never
        #: found by searching the text).
        helpers: List[str]
        exact_helpers: List[str]
        #: Whether the int body calls only ``xp`` functions and lane-wise helpers, so a large
        #: int64 call may run in blocks (runtime/blocked.py; codegen's fact, issue 30).
        int_lanewise: bool
        #: The mixed body's kinds (``i``/``f`` per array parameter) when it is lane-wise, so a
        #: large call of them may run in blocks (issue 30); else None.
        mixed_lanewise: Optional[str]
        hidden: List[Hidden]
        assumptions: List[Assumption]
        scalar_source: str
        element_sites: List[ElementSite]

    class CompiledFunction(Generated, total=False):
        """``_core.compile_function``'s result; ``ir``, ``float_ir`` and ``int_ir`` (the exact
        body's, the float fast path's and the int body's optimized IR) when ``options["ir"]``,
        and ``mixed_ir`` (the mixed body's, issue 30) then too when the function has one."""

        ir: str
        float_ir: str
        int_ir: str
        mixed_ir: str

    class FunctionRecord(TypedDict, total=False):
        """What every record of one marked function holds: where it is, with which options it
        was compiled, and what the decorator needs of its generated module."""

        qualname: str
        line: int  # the first decorator's line, co_firstlineno
        options: Options
        entry: str
        helpers: List[str]
        exact_helpers: List[str]
        int_lanewise: bool
        #: The mixed body's kinds (``i``/``f`` per array parameter) when it is lane-wise, so a
        #: large call of them may run in blocks (issue 30); else None.
        mixed_lanewise: Optional[str]
        hidden: List[Hidden]
        assumptions: List[Assumption]
        element_sites: List[ElementSite]

    class Outcome(TypedDict, total=False):
        """How the static compile of a marked function ended: ``"ok"``, ``"deferred"`` (the
        names it waits for: the decorator compiles it) or ``"error"`` (the problems)."""

        status: Literal["ok", "deferred", "error"]
        deferred: List[str]
        error: str
        diagnostics: List[Diagnostic]

    class ModuleFunction(FunctionRecord, Outcome, total=False):
        """One marked function of ``_core.compile_module``: an ``"ok"`` one carries the fields
        of ``Generated``."""

        name: str
        source: str
        fast_source: str
        exact_source: str
        exact_entry: str
        scalar_source: str

    # ---- what the hook caches, what a wheel ships -----------------------------------------------

    class CachedFunction(FunctionRecord, Outcome, total=False):
        """A ``ModuleFunction`` as the hook's cache holds it (hook/compile.py ``cached``), without
        what a warm import never reads. One of status ``"ok"`` holds every field a warm import
        reads, also when empty (hook/cachefile.py ``entries_problem``): the module's text whole
        (``source``) with the length of its entry's part (``fast_len``); ``code``, the entry
        function's code object (None when it could not be made, or the function reads hidden
        values); ``doc``, the vectorized docstring, or else ``scalar_source`` to build it."""

        exact_entry: str
        source: str
        fast_len: int
        scalar_source: str
        code: CodeType | None
        doc: str

    class ManifestFunction(FunctionRecord, total=False):
        """A precompiled function in a wheel's manifest (build/precompile.py writes it,
        wheel_artifacts.py reads it; JSON, so the assumptions' tuples are lists and their
        constants tagged until read): its generated module is the file ``file``, whole."""

        name: str
        exact_entry: str
        file: str
        source_sha256: str
        doc: str

    class WheelFunction(ManifestFunction, total=False):
        """What a wheel gives the decorator: the manifest's function, read, with its module's
        text (``fast_source``: the whole module, which ``code``, from the installer's .pyc,
        defines)."""

        fast_source: str
        code: CodeType

    #: Where a record of the hook comes from: its compile of the module just now (``"hook"``),
    #: its cache file (``"cache"``); a wheel's come from its artifacts (``"wheel"``).
    HookOrigin = Literal["hook", "cache"]
    #: ``precompiled.lookup``'s answer: where the record comes from, and the record (a new one
    #: with ``unbound``, the names whose check waits for the first call, when some are not bound
    #: yet: issue 31).
    Found = Union[Tuple[HookOrigin, CachedFunction], Tuple[Literal["wheel"], WheelFunction]]
