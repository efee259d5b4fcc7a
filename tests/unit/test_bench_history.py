"""The benchmark runs recorded under benchmarks/results/ (benchmarks/history.py): every file is a
record a script can read, and the report parser keeps tables, fields and text apart."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parents[2] / "benchmarks"


def _load_history():
    name = "array_vectorize_bench_history"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BENCH_DIR / "history.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


history = _load_history()

REPORT = """# array-vectorize benchmarks

Python 3.11.7, NumPy 2.4.6

## The bars

| figure | measured | bar |         |
|--------|---------:|----:|--------:|
| worst  | 1.101 (floor_at) | <= 1.3 | met |

## Import hook

repeats:
  marked module: 31
ratios (CPU time unless noted):
  stdlib: hook on / off, module: 1.09
artifacts in wheel: 210
- a bullet: kept as text
"""


def test_a_report_parses_into_tables_fields_and_text():
    header, bars, hook = history.parse_report(REPORT)
    assert header == {"title": "array-vectorize benchmarks", "tables": [], "fields": {}, "text": "Python 3.11.7, NumPy 2.4.6"}
    assert bars["tables"] == [{"columns": ["figure", "measured", "bar", ""], "rows": [["worst", "1.101 (floor_at)", "<= 1.3", "met"]]}]
    assert hook["fields"] == {
        "repeats": {"marked module": "31"},
        "ratios (CPU time unless noted)": {"stdlib: hook on / off, module": "1.09"},
        "artifacts in wheel": "210",
    }
    assert hook["text"] == "- a bullet: kept as text"


def test_every_recorded_run_is_a_record():
    runs = history.load_runs()
    assert len(runs) >= 8
    for run in runs:
        assert run["format"] == history.FORMAT
        assert run["title"]
        assert run["date"] is None or re.fullmatch(r"\d{4}-\d\d-\d\d(T\d\d:\d\dZ)?", run["date"])
        assert set(run) >= {"commit", "machine", "notes", "sections"}
        for section in run["sections"]:
            for table in section["tables"]:
                assert all(len(row) == len(table["columns"]) for row in table["rows"]), (run["title"], section["title"])
    dated = [r["date"] for r in runs if r["date"]]
    assert dated == sorted(dated), "file names sort as the runs ran"


def test_file_names_sort_by_date(tmp_path):
    record = {"title": "t", "date": "2026-12-01T22:35Z", "commit": "dcf8faf", "machine": None, "notes": "", "sections": []}
    path = history.write_run(record, tmp_path)
    assert path.name == "2026-12-01T2235Z_dcf8faf.json"
    assert json.loads(path.read_text()) == {"format": history.FORMAT, **record}
