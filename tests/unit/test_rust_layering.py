"""Shape of the Rust core (`src/`): no import circle between modules, no file over 800 lines, no
function over 120 lines unless the line before it says why (`// long: ...`); at the top of `src/`
only the five files and the stage folders (issue 25), and no folder of `src/lower/` with more
than 10 files at its top (a family that grows past it splits into folders).

Modules are read from the paths the code names: `use crate::...`, `use super::...`, a child
named from its directory's `mod.rs`, and `crate::...` paths written inline. Between top-level
modules a directory counts as one module (`src/lower/*` is `lower`). Inside a directory its
files must not import each other in a circle either; a file's reads of its own directory's
`mod.rs` are left out there, since the parent module owns the types its files extend (the
`impl Lowerer` of every `lower/` file) and names the children it declares.
"""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
MAX_FILE_LINES = 800
MAX_FN_LINES = 120

MAX_LOWER_FOLDER_FILES = 10
# What `src/` holds at its top: the crate root, the pipeline, and the services every stage shares.
TOP_FILES = {"lib.rs", "pipeline.rs", "diagnostics.rs", "env.rs", "python.rs"}
# One folder per stage, in pipeline order; `pipeline/` holds the pipeline's own parts.
STAGE_FOLDERS = {"static_module", "frontend", "lower", "ir", "analysis", "rewrite", "codegen", "host", "pipeline"}

# Files and functions over the limit, each with the reason (none today).
KNOWN_LONG_FILES: dict[str, str] = {}
KNOWN_LONG_FNS: set[tuple[str, str]] = set()

USE = re.compile(r"\b(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.S)
INLINE = re.compile(r"\b(?:crate|super)(?:::[A-Za-z_][A-Za-z0-9_]*)+")
FN = re.compile(r"^(\s*)(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:unsafe\s+)?fn\s+(\w+)")


def module_of(path: Path) -> tuple[str, ...]:
    """`src/ir/mod.rs` -> ("ir",); `src/ir/op.rs` -> ("ir", "op"); `src/lib.rs` -> ()."""
    rel = path.relative_to(SRC).with_suffix("")
    parts = rel.parts
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return tuple(parts)


def is_test_only(path: Path) -> bool:
    """A test-only helper (`testing.rs`), or a module's unit tests in a file of their own
    (`tests.rs`, declared `#[cfg(test)] mod tests;` by its parent, which is checked)."""
    if path.name == "testing.rs":
        return True
    if path.name != "tests.rs":
        return False
    parent = path.parent / "mod.rs"
    if not parent.exists():
        parent = path.parent.with_suffix(".rs")
    return re.search(r"#\[cfg\(test\)\]\s*mod\s+tests\s*;", parent.read_text()) is not None


def modules() -> dict[tuple[str, ...], Path]:
    """Every module of the crate but the test-only helpers and unit-test files."""
    return {module_of(p): p for p in sorted(SRC.rglob("*.rs")) if not is_test_only(p)}


def code(path: Path) -> str:
    """The file without comments, string literals (which may mention paths) and its unit tests
    (test code may use the whole crate: `src/pipeline/testing.rs` compiles through the pipeline)."""
    text = path.read_text()
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)
    text = re.sub(r"//[^\n]*", "", text)
    tests = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
    return text[: tests.start()] if tests else text


def expand(tree: str) -> list[str]:
    """`a::{b, c::{d, e}}` -> ["a::b", "a::c::d", "a::c::e"]."""
    tree = re.sub(r"\s+", "", tree)
    if "{" not in tree:
        return [tree]
    head, _, rest = tree.partition("{")
    inner = rest[: rest.rindex("}")]
    items, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    items.append(cur)
    out = []
    for item in filter(None, items):
        out.extend(head + sub for sub in expand(item))
    return out


def resolve(path: str, here: tuple[str, ...], is_mod: bool, known: set) -> tuple[str, ...] | None:
    """The deepest known module a path names, or None when it names none (an external crate)."""
    segs = [s for s in path.split("::") if s]
    if " as " in path or not segs:
        segs = path.split(" as ")[0].split("::")
    # The module whose scope the path is written in: a file's own module.
    base = list(here)
    if segs[0] == "crate":
        base, segs = [], segs[1:]
    elif segs[0] == "self":
        segs = segs[1:]
    elif segs[0] == "super":
        while segs and segs[0] == "super":
            base = base[:-1]
            segs = segs[1:]
    elif is_mod and (*here, segs[0]) in known:
        pass  # a child module named from its parent's mod.rs
    else:
        return None
    best = None
    for i in range(len(segs) + 1):
        cand = tuple(base + segs[:i])
        if cand in known:
            best = cand
    return best


def dependencies() -> dict[tuple[str, ...], set[tuple[str, ...]]]:
    mods = modules()
    known = set(mods)
    deps: dict[tuple[str, ...], set[tuple[str, ...]]] = {m: set() for m in mods}
    for mod, path in mods.items():
        text = code(path)
        is_mod = path.name in ("mod.rs", "lib.rs")
        paths = [p for tree in USE.findall(text) for p in expand(tree)]
        paths += INLINE.findall(text)
        for p in paths:
            target = resolve(p, mod, is_mod, known)
            if target is not None and target != mod and target != ():
                deps[mod].add(target)
    return deps


def find_cycle(graph: dict) -> list | None:
    state: dict = {}
    stack: list = []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m) :] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def fmt(cycle) -> str:
    return " -> ".join("::".join(m) for m in cycle)


def test_dependencies_are_read():
    deps = dependencies()
    assert ("ir",) in deps[("pipeline",)]
    assert ("lower",) in deps[("lower", "free_names")]
    assert ("lower", "calls", "builtins") in deps[("lower", "free_names")]
    assert ("ir", "op") in deps[("ir", "eval")]


def test_no_import_circle_between_top_level_modules():
    graph: dict = {}
    for mod, targets in dependencies().items():
        if not mod:
            continue
        graph.setdefault(mod[0], set()).update(t[0] for t in targets if t and t[0] != mod[0])
    cycle = find_cycle(graph)
    assert cycle is None, f"import circle: {' -> '.join(cycle)}"


def test_no_import_circle_inside_a_directory():
    deps = dependencies()
    dirs = {m[:-1] for m in deps if len(m) > 1}
    for d in sorted(dirs):
        graph = {
            m: {t for t in targets if t[:-1] == d and len(t) == len(m)}
            for m, targets in deps.items()
            if m[:-1] == d and len(m) == len(d) + 1
        }
        cycle = find_cycle(graph)
        assert cycle is None, f"import circle inside src/{'/'.join(d)}: {fmt(cycle)}"


def test_no_file_over_the_limit():
    too_long = []
    for path in sorted(SRC.rglob("*.rs")):
        rel = path.relative_to(SRC).as_posix()
        n = len(path.read_text().splitlines())
        if n > MAX_FILE_LINES and rel not in KNOWN_LONG_FILES:
            too_long.append(f"src/{rel}: {n} lines")
    assert not too_long, "files over %d lines: %s" % (MAX_FILE_LINES, too_long)


def long_functions(path: Path) -> list[tuple[str, int]]:
    """(name, lines) of every fn longer than the limit whose previous line is not `// long:`."""
    lines = path.read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        m = FN.match(line)
        if not m:
            continue
        indent = m.group(1)
        end = i
        while end < len(lines) and not lines[end].rstrip().endswith(("{", ";")):
            end += 1
        if end >= len(lines) or lines[end].rstrip().endswith(";"):
            continue  # a declaration without a body
        close = indent + "}"
        j = end + 1
        while j < len(lines) and lines[j].rstrip() != close:
            j += 1
        length = j - i + 1
        reason = i > 0 and lines[i - 1].strip().startswith("// long:")
        if length > MAX_FN_LINES and not reason:
            out.append((m.group(2), length))
    return out


def test_no_function_over_the_limit_without_a_reason():
    found = []
    for path in sorted(SRC.rglob("*.rs")):
        rel = path.relative_to(SRC).as_posix()
        for name, n in long_functions(path):
            if (rel, name) not in KNOWN_LONG_FNS:
                found.append(f"src/{rel}: fn {name} ({n} lines)")
    assert not found, "functions over %d lines need `// long: <why>` above them: %s" % (MAX_FN_LINES, found)


def strays_at_top(src: Path) -> list[str]:
    """What stands at the top of `src` beyond the five files and the stage folders."""
    return sorted(
        p.name + ("/" if p.is_dir() else "")
        for p in src.iterdir()
        if not (p.is_file() and p.name in TOP_FILES) and not (p.is_dir() and p.name in STAGE_FOLDERS)
    )


def crowded_folders(lower: Path) -> list[str]:
    """The folders of `lower` (itself included) with more than the limit of files at their top."""
    out = []
    for folder in [lower, *sorted(d for d in lower.rglob("*") if d.is_dir())]:
        n = sum(1 for p in folder.iterdir() if p.is_file() and p.suffix == ".rs")
        if n > MAX_LOWER_FOLDER_FILES:
            out.append(f"{folder.relative_to(lower.parent).as_posix()}/: {n} files")
    return out


def test_src_top_holds_only_the_five_files_and_the_stage_folders():
    assert not strays_at_top(SRC), (
        "at the top of src/ only %s and the stage folders %s; move these into their stage: %s"
        % (sorted(TOP_FILES), sorted(STAGE_FOLDERS), strays_at_top(SRC))
    )


def test_no_lowering_folder_over_the_limit():
    crowded = crowded_folders(SRC / "lower")
    assert not crowded, "folders of src/lower/ over %d files at their top (group a family in a folder): %s" % (
        MAX_LOWER_FOLDER_FILES,
        crowded,
    )


def test_the_checks_can_fail(tmp_path):
    text = "fn f() {\n" + "    x();\n" * 130 + "}\n"
    p = tmp_path / "x.rs"
    p.write_text(text)
    assert long_functions(p) == [("f", 132)]
    p.write_text("// long: one table\n" + text)
    assert long_functions(p) == []
    assert find_cycle({"a": {"b"}, "b": {"a"}}) in (["a", "b", "a"], ["b", "a", "b"])
    assert expand("a::{b, c::{d, e}}") == ["a::b", "a::c::d", "a::c::e"]
    src = tmp_path / "src"
    (src / "lower" / "loops").mkdir(parents=True)
    for name in TOP_FILES | {"module_text.rs"}:
        (src / name).write_text("")
    (src / "scan").mkdir()
    assert strays_at_top(src) == ["module_text.rs", "scan/"]
    for i in range(MAX_LOWER_FOLDER_FILES + 1):
        (src / "lower" / "loops" / f"f{i}.rs").write_text("")
    assert crowded_folders(src / "lower") == ["lower/loops/: 11 files"]
