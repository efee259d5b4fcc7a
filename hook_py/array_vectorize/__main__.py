"""Command line: ``python -m array_vectorize show FILE.py:FUNCTION`` prints generated source;
``python -m array_vectorize cache info|clear PATH`` inspects the import hook's cache."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path


def show(target: str) -> int:
    path, sep, qualname = target.rpartition(":")
    if not sep or not path or not qualname:
        print("usage: python -m array_vectorize show FILE.py:FUNCTION", file=sys.stderr)
        return 2
    from . import _core

    try:
        source = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return _usage_error(f"{path}: no such file or directory")
    except (OSError, UnicodeDecodeError) as exc:
        return _usage_error(f"{path}: cannot read it: {exc}")
    # Static first: nothing of the user's module runs.
    try:
        for entry in _core.compile_module(source, path, qualname):
            if entry["qualname"] == qualname and entry["status"] == "ok":
                print(_sites_comment(entry, path) + entry["source"], end="")
                return 0
            if entry["qualname"] == qualname and entry["status"] == "error":
                print(entry["error"], file=sys.stderr)
                return 1
    except _core.VectorizationError as exc:
        print(exc, file=sys.stderr)
        return 1
    # The function reads names only the running module defines: import it and decorate.
    from .api import vectorize

    spec = importlib.util.spec_from_file_location("__array_vectorize_show__", path)
    if spec is None or spec.loader is None:
        print(f"cannot import {path}", file=sys.stderr)
        return 1
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    obj = module
    for part in qualname.split("."):
        if not hasattr(obj, part):
            return _usage_error(f"{path}: no function {qualname}{_did_you_mean(part, obj)}")
        obj = getattr(obj, part)
    fn = getattr(obj, "_vectorized_original", obj)
    if not callable(fn):
        return _usage_error(f"{path}: {qualname} is a {type(fn).__name__}, not a function")
    from .api import _canonical_options, compile_live

    try:
        vectorize(fn)  # the decorator's own checks (a wrapped function, ...)
        compiled, _ = compile_live(fn, _canonical_options())
    except _core.VectorizationError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(_sites_comment(compiled, path) + compiled["source"], end="")
    return 0


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


def _did_you_mean(name: str, namespace: object) -> str:
    import difflib

    members = getattr(namespace, "__dict__", {})
    candidates = [n for n, v in members.items() if callable(v) and not n.startswith("__")]
    close = difflib.get_close_matches(name, candidates, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m array_vectorize")
    sub = parser.add_subparsers(dest="command", required=True)
    p_show = sub.add_parser("show", help="print the generated source of FILE.py:FUNCTION")
    p_show.add_argument("target")
    p_cache = sub.add_parser("cache", help="inspect or clear the import hook's cache")
    p_cache.add_argument("action", choices=["info", "clear"])
    p_cache.add_argument("path", nargs="?", default=".")
    args = parser.parse_args(argv)
    if args.command == "show":
        return show(args.target)
    from .hook import cli

    return cli.cache_info(args.path) if args.action == "info" else cli.cache_clear(args.path)


if __name__ == "__main__":
    sys.exit(main())
