"""The compile thread (src/host/stack.rs): every compile runs on a thread with a 256 MiB stack,
kept for the next compile and ended 200 ms after the last one, so that a process that compiled
holds no extra thread afterwards; a child made by fork() inherits no thread, and compiles on one
of its own instead of waiting for the parent's."""

from __future__ import annotations

import subprocess
import sys

import pytest

CHILD = """
import os, resource, signal, sys, time
from array_vectorize import _core

SRC = "def premium(rate, years):\\n    return rate * years + 1.0\\n"

def compile_once():
    c = _core.compile_function(SRC, "policy.py", 1, "premium", {}, {})
    assert "def premium" in c["source"], c["source"]

def compile_threads():
    names = []
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                names.append(f.read().strip())
        except OSError:
            pass
    return sum(n.startswith("array-vectoriz") for n in names)

compile_once()
kept = compile_threads()
pid = os.fork()
if pid == 0:
    signal.alarm(30)  # a compile waiting for the parent's thread would hang: end it
    compile_once()
    os._exit(0)
_, status = os.waitpid(pid, 0)
deadline = time.monotonic() + 10.0
while compile_threads() and time.monotonic() < deadline:
    time.sleep(0.05)
# Under an address-space limit no thread is kept (its stack would hold 256 MiB of it).
unlimited = resource.getrlimit(resource.RLIMIT_AS)[0] == resource.RLIM_INFINITY
print(kept, int(unlimited), os.waitstatus_to_exitcode(status), compile_threads())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/task")
def test_the_compile_thread_is_kept_then_ends_and_a_forked_child_compiles(tmp_path):
    script = tmp_path / "compile_thread.py"
    script.write_text(CHILD)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    kept, unlimited, child_exit, left = (int(x) for x in run.stdout.split())
    assert kept == unlimited  # the thread waits for the next compile, but under `ulimit -v`
    assert child_exit == 0  # the child compiled (SIGALRM would give -14)
    assert left == 0  # and no compile thread is left after the idle time
