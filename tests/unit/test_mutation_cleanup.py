"""The mutation check leaves nothing in the temporary directory however a run ends
(tests/mutation/run.py; docs/testing.md, "Temporary files"): its layer processes run in process
groups of their own with ``TMPDIR`` inside its work directory, an interrupted run kills them all,
and a run killed outright is swept by the next."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mutation"))

import run as mutation  # noqa: E402

# A layer stand-in: writes where its temporary files go and its worker's process id, then waits
# for its worker (which would outlive it, as a fuzz or pytest-xdist worker, were it not killed).
LAYER = """
import subprocess, sys, tempfile
worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
with open(sys.argv[1], "w") as fh:
    fh.write(f"{tempfile.gettempdir()}\\n{worker.pid}")
worker.wait()
"""


def _gone(pid: int) -> bool:
    """The process ended (a zombie not yet reaped counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_stop_ends_a_layer_and_its_workers_which_ran_in_the_work_directory(tmp_path):
    children = mutation._Children()
    children.tmp = str(tmp_path / "tmp")
    os.mkdir(children.tmp)
    report = tmp_path / "report"
    result = {}
    thread = threading.Thread(
        target=lambda: result.update(done=children.run(["-c", LAYER, str(report)], dict(os.environ), 300.0))
    )
    thread.start()
    deadline = time.monotonic() + 60
    while not (report.exists() and report.read_text().count("\n") == 1) and time.monotonic() < deadline:
        time.sleep(0.1)
    tmpdir, worker = report.read_text().split("\n")
    assert tmpdir == children.tmp
    children.stop()
    thread.join(30)
    assert not thread.is_alive()
    assert result["done"][0] != 0  # killed, not finished
    deadline = time.monotonic() + 10
    while not _gone(int(worker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _gone(int(worker))
    # None starts once stopping.
    with pytest.raises(KeyboardInterrupt):
        children.run(["-c", "pass"], dict(os.environ), 10.0)


def test_the_next_run_sweeps_the_work_directory_of_a_killed_one(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dirs = {}
    for name, owner in (("killed", ended.stdout.strip()), ("running", str(os.getpid())), ("unknown", None)):
        path = tmp_path / f"{mutation.WORK_PREFIX}{name}"
        (path / "site0").mkdir(parents=True)
        if owner is not None:
            (path / "owner").write_text(owner)
        dirs[name] = path
    mutation._sweep_killed_runs()
    assert not dirs["killed"].exists()
    assert dirs["running"].exists() and dirs["unknown"].exists()


def test_remove_counts_what_is_left(tmp_path):
    work = tmp_path / "work"
    (work / "a" / "b").mkdir(parents=True)
    (work / "a" / "f").write_text("x")
    assert mutation._remove(str(work)) == 0
    assert not work.exists()
