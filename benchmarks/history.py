"""Benchmark runs as data: one JSON file per run under ``benchmarks/results/``, written by
``run.py`` at the end of every full run (docs/benchmarks.md holds the current figures and how to
read them; the files hold every run, so that a script can compare them).

A run's record (``FORMAT`` 1)::

    {
      "format": 1,
      "title": "what the run was for",
      "date": "2026-12-01T22:35Z",     # UTC, as precise as known (None when not known)
      "commit": "dcf8faf",             # the code measured (None when not known)
      "machine": "...",                # interpreter, libraries, CPU, load, as recorded
      "notes": "...",                  # prose about the run (markdown)
      "sections": [                    # the report as printed, section by section
        {"title": "The bars",
         "tables": [{"columns": [...], "rows": [["cell", ...], ...]}],
         "fields": {"repeats": {"marked module": "31"}, ...},  # `key: value` lines
         "text": "..."}                # anything else, verbatim
      ],
      "figures": {...}                 # run.py's own results, unrounded (runs run.py wrote)
    }

Table cells and fields are the printed text (a figure as printed, ``24x``, ``+0.29``), so records
parsed from an old report and records run.py writes read the same way. ``parse_report`` reads a
report's markdown; ``load_runs`` reads the records, oldest first.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

FORMAT = 1
RESULTS = Path(__file__).resolve().parent / "results"

_HEADING = re.compile(r"^(#{1,6}) (.*)$")
_SEPARATOR = re.compile(r"^\|(\s*:?-+:?\s*\|)+$")
_FIELD = re.compile(r"^(\S.*?):(?: (.*))?$")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip()[1:-1].split("|")]


def _is_table_row(line: str) -> bool:
    s = line.strip()
    return len(s) > 1 and s.startswith("|") and s.endswith("|")


def _section(title: str | None, lines: list[str]) -> dict:
    """A section's tables, `key: value` fields and remaining text, from its lines."""
    tables: list[dict] = []
    fields: dict = {}
    text: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _is_table_row(line) and i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1].strip()):
            columns = _cells(line)
            rows = []
            i += 2
            while i < len(lines) and _is_table_row(lines[i]):
                rows.append(_cells(lines[i]))
                i += 1
            tables.append({"columns": columns, "rows": rows})
            continue
        field = _FIELD.match(line) if not line.startswith(("-", "*", "|", "`")) else None
        children = []
        j = i + 1
        while j < len(lines) and lines[j].startswith("  ") and ": " in lines[j] and not lines[j].lstrip().startswith(("-", "*", "|")):
            children.append(lines[j].strip())
            j += 1
        if field and field.group(2) is None and children:
            fields[field.group(1)] = dict(c.rsplit(": ", 1) for c in children)
            i = j
            continue
        if field and field.group(2) is not None and " " not in field.group(2).strip() and len(field.group(1)) < 60:
            fields[field.group(1)] = field.group(2).strip()
            i += 1
            continue
        text.append(line)
        i += 1
    return {"title": title, "tables": tables, "fields": fields, "text": "\n".join(text).strip()}


def parse_report(markdown: str) -> list[dict]:
    """The sections of a markdown report (run.py's output, or a run's part of an old
    docs/benchmarks.md), one per heading; what comes before the first heading is a section whose
    title is None."""
    sections = []
    title: str | None = None
    lines: list[str] = []
    for line in markdown.splitlines():
        m = _HEADING.match(line)
        if m:
            sections.append(_section(title, lines))
            title, lines = m.group(2).strip(), []
        else:
            lines.append(line.rstrip())
    sections.append(_section(title, lines))
    return [s for s in sections if s["title"] is not None or s["tables"] or s["fields"] or s["text"]]


def file_name(record: dict) -> str:
    """``<date>_<commit>.json``, so that file names sort as the runs ran."""
    date = (record.get("date") or "undated").replace(":", "")
    return f"{date}_{record.get('commit') or 'unknown'}.json"


def write_run(record: dict, directory: Path = RESULTS) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / file_name(record)
    path.write_text(json.dumps({"format": FORMAT, **record}, indent=1, ensure_ascii=False, default=str) + "\n")
    return path


def load_runs(directory: Path = RESULTS) -> list[dict]:
    """Every record under `directory`, oldest first (undated ones by their file name)."""
    return [json.loads(p.read_text()) for p in sorted(directory.glob("*.json"))]
