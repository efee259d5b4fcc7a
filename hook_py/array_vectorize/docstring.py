"""The vectorized function's docstring: the original's, with ``(array-vectorized)`` before the
summary and the scalar source in a Notes section (NumPy style when the original uses NumPy
section headers, Google style otherwise)."""

from __future__ import annotations

import re
import textwrap
import types

PREFIX = "(array-vectorized)"
_NUMPY_HEADER = re.compile(r"^\s*[A-Z][A-Za-z ]+\n\s*-{3,}\s*$", re.MULTILINE)
_WHITESPACE_ONLY = re.compile("^[ \t]+$", re.MULTILINE)  # textwrap's own


def _dedent(source: str) -> str:
    """`textwrap.dedent(source)`. A source whose first line starts in column 0 (the compiler's
    scalar source of a module-level function) has no margin to remove: dedent then only empties
    its whitespace-only lines, and its search for the margin (a third of the docstring's cost at
    decoration, docs/benchmarks.md) is skipped."""
    if source[:1] not in ("", " ", "\t", "\n"):
        return _WHITESPACE_ONLY.sub("", source)
    return textwrap.dedent(source)


def _cleandoc(doc: str) -> str:
    """`inspect.cleandoc` (importing inspect costs milliseconds at import)."""
    lines = doc.expandtabs().split("\n")
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    margin = min(indents) if indents else 0
    lines = [lines[0].lstrip()] + [line[margin:] for line in lines[1:]]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines)


def _inspect_source(fn: types.FunctionType) -> str | None:
    import inspect

    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        return None


def vectorized_docstring(fn: types.FunctionType, scalar_source: str | None = None) -> str:
    """`fn`'s docstring, prefixed, with its scalar source in a Notes section. Pass the source
    when it is at hand (the compiler returns it): `inspect.getsource` tokenizes the file."""
    if scalar_source is None:
        scalar_source = _inspect_source(fn)
    doc = _cleandoc(fn.__doc__) if fn.__doc__ else ""
    summary, _, rest = doc.partition("\n")
    head = f"{PREFIX} {summary}".rstrip() if summary else f"{PREFIX} Vectorized `{fn.__name__}`."
    parts = [head]
    if rest.strip():
        parts.append(rest.strip("\n"))
    if scalar_source:
        source = _dedent(scalar_source).rstrip()
        if _NUMPY_HEADER.search(doc):
            notes = "Notes\n-----\nVectorized from this scalar source::\n\n" + textwrap.indent(source, "    ")
        else:
            notes = "Notes:\n    Vectorized from this scalar source::\n\n" + textwrap.indent(source, "        ")
        parts.append(notes)
    return "\n\n".join(parts)
