"""Issue 28 ("never wrong, round 3") through the import hook, each in a fresh interpreter
(``hookproj.Project``): an interrupted large call leaves no mark behind, on the cold import (the
hook's code) and on the warm one (the cached code, made lazily)."""

from __future__ import annotations

import pytest
from hookproj import Project

LOADS = '''\
from array_vectorize import vectorize


@vectorize
def clearance(load, margin):
    if load > margin:
        return load - margin
    return 0.0
'''

INTERRUPTED = """
import numpy as np
from array_vectorize.runtime import blocked
import loads
blocked.THRESHOLD, blocked.BLOCK, blocked.MIN_OPERATIONS = 20, 7, 0
ran = []
run_blocked = blocked._run_blocked
def counting(dispatch, args):
    result = run_blocked(dispatch, args)
    ran.append(result is not blocked._DECLINED)
    return result
blocked._run_blocked = counting
send = blocked.send_large
def interrupted(marker):
    send(marker)
    raise KeyboardInterrupt
blocked.send_large = interrupted
load = np.linspace(-4.0, 9.0, 43)
try:
    loads.clearance(load, 1.5)
except KeyboardInterrupt:
    pass
blocked.send_large = send
got = loads.clearance(load, 3)
want = [loads.clearance._vectorized_original(float(v), 3) for v in load]
after = list(ran)
loads.clearance(load, 1.5)
out = {"same": got.tolist() == want, "dtype": str(got.dtype), "blocked_int_call": after, "blocked_float_call": ran[len(after):]}
"""


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_an_interrupt_after_the_mark_leaves_no_mark_behind(project: Project, warm):
    # Item 7: the mark names the generated entry's frame, also when the entry was made lazily
    # from the cache (its first call goes through emit.py's stand-in).
    project.write("loads.py", LOADS)
    if warm:
        project.run("import loads")
    res = project.run(INTERRUPTED)
    assert res.stats["hook_hits"] == 1 and res.stats["disk_cache_hits"] == int(warm)
    assert res.out == {"same": True, "dtype": "float64", "blocked_int_call": [], "blocked_float_call": [True]}
