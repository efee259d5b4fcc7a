"""Hypothesis profiles of the differential tests.

``fast`` (the default, CI): a few dozen derandomized examples per test, no example database, so
runs are reproducible and quick. ``slow`` (``HYPOTHESIS_PROFILE=slow``): a thousand random
examples per test, with the example database, for a thorough local run.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "fast",
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "slow",
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))
