"""``.avc`` cache files get the permissions CPython gives ``.pyc`` files.

CPython (``importlib._bootstrap_external``: ``_calc_mode``, ``SourceFileLoader.set_data``,
``_write_atomic``) creates a ``.pyc`` with the source's mode plus owner write, restricted to
``0o666`` and by the process umask. The hook's cache file sits next to it and must carry the same
mode, whatever the source's mode and the umask: the test compares the two files CPython and the
hook wrote for the same module in the same interpreter.
"""

from __future__ import annotations

import os
import stat
import sys

import pytest
from hookproj import MARKED, cache_name

SOURCE_MODES = [0o666, 0o644, 0o600, 0o444, 0o755, 0o640, 0o604]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077, 0o000, 0o027])
def test_cache_file_mode_is_the_pyc_mode(project, umask):
    modules = []
    for source_mode in SOURCE_MODES:
        name = f"mod_{source_mode:o}"
        path = project.write(f"{name}.py", MARKED)
        os.chmod(path, source_mode)
        modules.append((name, source_mode))
    imports = "\n".join(f"import {name}" for name, _ in modules)
    project.run(f"import os\nos.umask({umask:#o})\n{imports}\n")
    cache = project.root / "__pycache__"
    failures = []
    for name, source_mode in modules:
        pyc = cache / f"{name}.{sys.implementation.cache_tag}.pyc"
        avc = cache / cache_name(name)
        want = stat.S_IMODE(pyc.stat().st_mode)
        assert want == (source_mode | 0o200) & 0o666 & ~umask  # CPython's rule, as read
        got = stat.S_IMODE(avc.stat().st_mode)
        if got != want:
            failures.append(f"source {source_mode:o}, umask {umask:03o}: .avc {got:o}, .pyc {want:o}")
    assert not failures, "\n".join(failures)
