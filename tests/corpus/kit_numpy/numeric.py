"""The numeric layer of the optics formulas: one place that says which library computes them."""

from math import atan2, cos, degrees, pi, radians, sin
from numpy import arcsin, copysign, exp, hypot, sqrt

import numpy as np

log1p = np.log1p
SPEED_OF_LIGHT = 299_792_458.0


def sq(x):
    return x * x
