"""The main job: vectorize a scalar function, print its generated source and its result."""

import numpy as np

from array_vectorize import vectorize


@vectorize
def soft_threshold(x, lam):
    if x > lam:
        return x - lam
    if x < -lam:
        return x + lam
    return 0.0


x = np.linspace(-3, 3, 7)
print(soft_threshold.source)
print("soft_threshold(", x, ", 1.0) =", soft_threshold(x, 1.0))
expected = np.array([soft_threshold._vectorized_original(v, 1.0) for v in x.tolist()])
assert np.array_equal(soft_threshold(x, 1.0), expected), "vectorized result differs from CPython"
print("matches the scalar original element by element")
