"""Pytest plugin of the mutation check (``run.py`` loads it with ``-p values_only``): a test that
fails on a comparison of generated text (a statement that reads a ``source``: ``vec.source``,
``inspect.getsource``, a snapshot, a static compile's ``["source"]``) is reported as an expected
failure, so a layer catches a mutation only by a wrong value (a result, a raised exception, a
dtype). A real codegen bug gives the same text on every path; only its values can tell
(issue 28 item 13)."""

from __future__ import annotations

import pytest


def _failed_on_text(excinfo) -> bool:
    if not excinfo.errisinstance(AssertionError):
        return False
    entry = excinfo.traceback[-1]  # where the assertion failed
    try:
        statement = str(entry.statement)
    except Exception:  # noqa: BLE001 - no source: count it as a value
        return False
    return "source" in statement


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed and call.excinfo is not None and _failed_on_text(call.excinfo):
        report.outcome = "skipped"
        report.wasxfail = "a comparison of generated text (values_only)"
