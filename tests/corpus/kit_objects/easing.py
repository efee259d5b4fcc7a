"""A family of easing curves whose helpers a decorator of the module checks: each helper is
wrapped (`functools.wraps`) by `unit_interval`, which raises for a `t` outside [0, 1] and forwards
the call; the marked functions compose them (issue 27 part 2 item 2)."""

import functools
import math

from array_vectorize import vectorize


def unit_interval(fn):
    @functools.wraps(fn)
    def wrapper(t, *args, **kwargs):
        if not 0.0 <= t <= 1.0:
            raise ValueError(f"{fn.__name__}() takes t in [0, 1], got {t}")
        return fn(t, *args, **kwargs)

    return wrapper


@unit_interval
def quad_in(t):
    return t * t


@unit_interval
def quad_out(t):
    return t * (2.0 - t)


@unit_interval
def power_in(t, power=3):
    return t**power


@unit_interval
def sine_in(t):
    return 1.0 - math.cos(t * math.pi / 2.0)


@unit_interval
def expo_out(t):
    return 1.0 if t == 1.0 else 1.0 - 2.0 ** (-10.0 * t)


@unit_interval
def back_in(t, overshoot=1.70158):
    return t * t * ((overshoot + 1.0) * t - overshoot)


@vectorize
def ease_in_out_quad(t):
    if t < 0.5:
        return quad_in(2.0 * t) / 2.0
    return 0.5 + quad_out(2.0 * t - 1.0) / 2.0


@vectorize
def ease_in_cubic(t):
    return power_in(t)


@vectorize
def ease_in_quart(t):
    return power_in(t, 4)


@vectorize
def ease_in_sine(t):
    return sine_in(t)


@vectorize
def ease_out_expo(t):
    return expo_out(t)


@vectorize
def ease_in_back(t):
    return back_in(t)


@unit_interval
def in_out_quad(t):
    return 2.0 * t * t if t < 0.5 else 1.0 - (-2.0 * t + 2.0) ** 2 / 2.0


@vectorize
def tween(start, end, t):
    return start + (end - start) * in_out_quad(t)
