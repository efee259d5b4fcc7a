"""Geometric and wave optics through a re-exporting numeric module (`from . import numeric as
math`): the calls read like `math`'s but reach NumPy's functions for some names."""

from numpy import clip, sqrt as root

from array_vectorize import vectorize

from . import numeric as math


@vectorize
def refraction_angle_deg(theta_deg, n1, n2):
    s = n1 / n2 * math.sin(math.radians(theta_deg))
    if abs(s) > 1.0:
        return -1.0  # total internal reflection
    return math.degrees(math.arcsin(s))


@vectorize
def fresnel_rs(theta, n1, n2):
    c = math.cos(theta)
    st = n1 / n2 * math.sin(theta)
    ct = root(clip(1.0 - st * st, 0.0, None))
    r = (n1 * c - n2 * ct) / (n1 * c + n2 * ct)
    return r * r


@vectorize
def brewster_deg(n1, n2):
    return math.degrees(math.atan2(n2, n1))


@vectorize
def numerical_aperture(n_core, n_clad):
    return math.sqrt(math.sq(n_core) - math.sq(n_clad))


@vectorize
def beam_radius(w0, z, wavelength):
    rayleigh = math.pi * w0 * w0 / wavelength
    return w0 * math.hypot(1.0, z / rayleigh)


@vectorize
def transmitted_fraction(alpha, depth):
    return math.exp(-alpha * depth)


@vectorize
def optical_density_gain(t):
    return -math.log1p(t - 1.0) / 2.302585092994046


@vectorize
def signed_delay_ns(path_m, index):
    return math.copysign(path_m * index / math.SPEED_OF_LIGHT * 1e9, path_m)
