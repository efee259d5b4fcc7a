from array_vectorize import vectorize

COEFFS = (0.5, -1.0, 2.0, 3.0)


def _huber(r, delta):
    if abs(r) <= delta:
        return 0.5 * r * r
    return delta * (abs(r) - 0.5 * delta)


@vectorize
def horner(x):
    acc = 0.0
    for c in COEFFS:
        acc = acc * x + c
    return acc


@vectorize
def huber(r):
    return _huber(r, 1.5)


@vectorize
def kepler(mean_anomaly, ecc):
    e = mean_anomaly
    for _ in range(6):
        e = e - (e - ecc * e - mean_anomaly) / (1.0 - ecc)
    return e


@vectorize
def count_positive(a, b, c):
    return (a > 0.0) + (b > 0.0) + (c > 0.0)
