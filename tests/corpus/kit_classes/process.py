"""Process-control checks reading a module-level settings object (issue 27 part 2 item 3, D8):
`cfg = Settings()` whose `__init__` assigns constants, read as `cfg.tolerance`,
`cfg.weights[k]`; the object's attributes are frozen when the function is compiled."""

from array_vectorize import vectorize


class Settings:
    """Line settings of a filling station."""

    NOMINAL_G = 500.0

    def __init__(self):
        self.tolerance = 0.015
        self.weights = (0.5, 0.3, 0.2)
        self.limits = [480.0, 520.0]
        self.span = self.NOMINAL_G * 0.015 if True else 0.0


cfg = Settings()


@vectorize
def within_tolerance(mass):
    return abs(mass - cfg.NOMINAL_G) <= cfg.tolerance * cfg.NOMINAL_G


@vectorize
def smoothed(latest, previous, oldest):
    w = cfg.weights
    return w[0] * latest + w[1] * previous + w[2] * oldest


@vectorize
def clamp_to_limits(mass):
    low, high = cfg.limits
    if mass < low:
        return low
    if mass > high:
        return high
    return mass


@vectorize
def lag_weight(k):
    return cfg.weights[k]


@vectorize
def deviation_in_spans(mass):
    return (mass - cfg.NOMINAL_G) / cfg.span
