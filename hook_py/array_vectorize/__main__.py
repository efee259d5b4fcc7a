"""Command line: ``python -m array_vectorize show FILE.py:FUNCTION`` prints generated source
(never running the file); ``python -m array_vectorize check PATH`` compiles every marked function
under PATH as the build backend does (build/check.py); ``python -m array_vectorize cache
info|clear PATH`` inspects the import hook's cache."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path


def show(target: str) -> int:
    """Prints the generated source of FILE.py:FUNCTION, compiled statically from the file's text
    as the import hook and the build backend compile it: the module is never imported or run."""
    path, sep, qualname = target.rpartition(":")
    if not sep or not path or not qualname:
        print("usage: python -m array_vectorize show FILE.py:FUNCTION", file=sys.stderr)
        return 2
    try:
        data = Path(path).read_bytes()
        source = importlib.util.decode_source(data)
    except FileNotFoundError:
        return _usage_error(f"{path}: no such file or directory")
    except (OSError, UnicodeDecodeError, SyntaxError) as exc:
        return _usage_error(f"{path}: cannot read it: {exc}")
    from . import _core
    from .build.check import ModulesOnDisk, module_root
    from .build.precompile import module_name, program_modules

    # The module's name and the other modules of its package, as the build finds them.
    root = module_root(path)
    install = os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")
    module = module_name(install) if install.endswith(".py") else None
    package, modules = None, None
    if module is not None:
        package, modules = program_modules(source, module, install, ModulesOnDisk([root]), lambda p: os.path.join(root, p))
    try:
        entries = _core.compile_module(source, path, qualname, package, modules)
    except _core.VectorizationError as exc:
        print(exc, file=sys.stderr)
        return 1
    for entry in entries:
        if entry["qualname"] != qualname:
            continue
        if entry["status"] == "ok":
            print(_sites_comment(entry, path) + entry["source"], end="")
            return 0
        if entry["status"] == "error":
            print(entry["error"], file=sys.stderr)
            return 1
        if "<locals>" in qualname:  # a factory's function its module never makes from its text
            return _usage_error(f"{path}: {_not_found(source, qualname)}")
        names = ", ".join(f"`{d}`" if d.isidentifier() else d for d in entry.get("deferred") or ())
        print(
            f"{path}:{entry['line']}: {qualname} reads {names}, whose value only the running module has "
            "(`show` compiles from the file's text and never runs it, as the build backend does); "
            f"`vectorize({qualname}).source` in Python shows the code compiled from the live function",
            file=sys.stderr,
        )
        return 1
    return _usage_error(f"{path}: {_not_found(source, qualname)}")


def _not_found(source: str, qualname: str) -> str:
    """Why `qualname` names no function `show` can compile in `source` (read with ``ast``: the
    module is not run), with the closest name that it can."""
    import ast
    import difflib

    shown: list[str] = []  # module-level functions and the methods of module-level classes
    nested: dict[str, str] = {}  # "outer.inner" and "outer.<locals>.inner" -> "outer"
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        tree = ast.Module(body=[], type_ignores=[])
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)

    def visit_nested(node: ast.AST, prefix: str, top: str) -> None:
        for child in ast.walk(node):
            if isinstance(child, functions) and child is not node:
                nested[f"{prefix}.{child.name}"] = nested[f"{prefix}.<locals>.{child.name}"] = top

    for stmt in tree.body:
        if isinstance(stmt, functions):
            shown.append(stmt.name)
            visit_nested(stmt, stmt.name, stmt.name)
        elif isinstance(stmt, ast.ClassDef):
            for member in stmt.body:
                if isinstance(member, functions):
                    shown.append(f"{stmt.name}.{member.name}")
                    visit_nested(member, f"{stmt.name}.{member.name}", f"{stmt.name}.{member.name}")
    if qualname in nested:
        inner = qualname.rpartition(".")[2]
        return (
            f"{qualname} is defined inside {nested[qualname]}: `show` compiles the functions of a module, "
            f"the methods of its classes, and a nested function only where the module's top-level code "
            f"calls {nested[qualname]} with arguments its text gives, since its free names are "
            f"only bound when {nested[qualname]} runs; `vectorize({inner}).source` where it is defined shows its code"
        )
    close = difflib.get_close_matches(qualname, shown, n=1)
    return f"no function {qualname}" + (f"; did you mean {close[0]!r}?" if close else "")


def _sites_comment(compiled: dict, path: str) -> str:
    """Comment lines naming the calls the generated code runs element by element (D19, D23)."""
    lines = []
    for kind, what, line in compiled.get("element_sites", ()):
        if kind == "residue":
            lines.append(
                f"# {path}:{line}: `{what}` recurses deeper than the compiler inlined it on some elements: its "
                "scalar original finishes those elements one by one (D19, _vec_residue)\n"
            )
        else:
            lines.append(f"# {path}:{line}: `{what}(...)` runs element by element (D23, _vec_call_site)\n")
    return "".join(lines) + ("\n" if lines else "")


def _usage_error(message: str) -> int:
    """A mistake in the command line: one line on stderr, exit status 2 (as `cache` and argparse)."""
    print(message, file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m array_vectorize",
        description="Look at what array-vectorize makes of a file, check a source tree, manage the import hook's cache.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p_show = sub.add_parser(
        "show",
        help="print the generated source of FILE.py:FUNCTION, without running the file",
        description=(
            "Print the code array-vectorize generates for one function of a file, compiled from the "
            "file's text as the import hook and the build backend compile it: the file is never "
            "imported or run. The function need not be marked with @vectorize."
        ),
    )
    p_show.add_argument(
        "target",
        metavar="FILE.py:FUNCTION",
        help="a Python file and a function defined at its top level, or a method as CLASS.METHOD (examples/demo.py:soft_threshold)",
    )
    p_check = sub.add_parser(
        "check",
        help="compile every marked function under PATH as the build backend does; exit status 1 if one cannot be",
        description=(
            "Compile every function marked with @vectorize in the .py files under PATH statically, as "
            "array_vectorize.build does for a wheel (nothing is run; [tool.array-vectorize] runtime of "
            "the nearest pyproject.toml applies). Prints each problem as file:line:col with what to do, "
            "then a summary line. Exit status 0 when all compile, 1 when one cannot, 2 for a wrong PATH: "
            "for CI and pre-commit."
        ),
    )
    p_check.add_argument("path", metavar="PATH", help="a package directory, a source tree (src/) or one .py file")
    p_cache = sub.add_parser(
        "cache",
        help="list or remove the import hook's cache files under PATH",
        description=(
            "The import hook caches the code it generates for a module in its __pycache__ directory "
            "(or under PYTHONPYCACHEPREFIX), in files named *.array-vectorize-<version>.avc. "
            "`info` lists those under PATH with their state (fresh, stale, other, corrupt) and what they "
            "hold; `clear` removes them."
        ),
    )
    p_cache.add_argument("action", choices=["info", "clear"], help="info: list the cache files; clear: remove them")
    p_cache.add_argument("path", nargs="?", default=".", metavar="PATH", help="the directory to search (default: the current one)")
    args = parser.parse_args(argv)
    if args.command == "show":
        return show(args.target)
    if args.command == "check":
        from .build.check import check

        return check(args.path)
    from .hook import cli

    return cli.cache_info(args.path) if args.action == "info" else cli.cache_clear(args.path)


if __name__ == "__main__":
    sys.exit(main())
