"""Colour science: transfer functions, CIE L*a*b*, colour differences, colour temperature.

In the manner of colour-science libraries: numpy-style docstrings, type hints, constants as
exact fractions, piecewise functions with their domain checked."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .numerics import cbrt

CIE_E = 216 / 24389
CIE_K = 24389 / 27

# CIE 1931 2 degree D65 white point, XYZ scaled to Y = 100
D65 = (95.047, 100.0, 108.883)

REC709_LUMA = (0.2126, 0.7152, 0.0722)


def eotf_inverse_sRGB(L: float) -> float:
    """
    Define the *IEC 61966-2-1:1999* *sRGB* inverse electro-optical transfer function.

    Parameters
    ----------
    L
        *Luminance* :math:`L` of the image.

    Returns
    -------
    :class:`float`
        Non-linear electrical signal :math:`V`.
    """
    if L <= 0.0031308:
        return L * 12.92
    return 1.055 * L ** (1 / 2.4) - 0.055


def eotf_sRGB(V: float) -> float:
    return V / 12.92 if V <= 0.04045 else ((V + 0.055) / 1.055) ** 2.4


def oetf_BT709(L: float) -> float:
    if L < 0.018:
        return 4.5 * L
    return 1.099 * math.pow(L, 0.45) - 0.099


def intermediate_lightness_function(Y: float, Y_n: float = 100.0) -> float:
    """The f(Y/Yn) of CIE L*a*b*."""
    ratio = Y / Y_n
    if ratio > CIE_E:
        return cbrt(ratio)
    return (CIE_K * ratio + 16) / 116


def lightness_CIE1976(Y: float, Y_n: float = 100.0) -> float:
    """CIE 1976 lightness L* from luminance Y."""
    return 116 * intermediate_lightness_function(Y, Y_n) - 16


def luminance_CIE1976(L_star: float, Y_n: float = 100.0) -> float:
    fy = (L_star + 16) / 116
    if fy > 6 / 29:
        Y = fy ** 3
    else:
        Y = L_star / CIE_K
    return Y * Y_n


def hue_angle(a: float, b: float) -> float:
    """Hue angle [deg] in [0, 360) of an opponent pair."""
    h = math.degrees(math.atan2(b, a)) % 360
    return h


def chroma(a, b):
    return math.hypot(a, b)


def delta_E_CIE1976(L1, a1, b1, L2, a2, b2):
    return math.sqrt((L1 - L2) ** 2 + (a1 - a2) ** 2 + (b1 - b2) ** 2)


def delta_E_CIE1994(L1: float, a1: float, b1: float, L2: float, a2: float, b2: float, textiles: bool = False) -> float:
    """Colour difference CIE 1994, graphic arts or textiles weights."""
    k1 = 0.048 if textiles else 0.045
    k2 = 0.014 if textiles else 0.015
    k_L = 2 if textiles else 1
    C1 = math.hypot(a1, b1)
    C2 = math.hypot(a2, b2)
    dL = L1 - L2
    dC = C1 - C2
    dH2 = (a1 - a2) ** 2 + (b1 - b2) ** 2 - dC ** 2
    dH = math.sqrt(dH2) if dH2 > 0 else 0.0
    s_L = 1
    s_C = 1 + k1 * C1
    s_H = 1 + k2 * C1
    return math.sqrt((dL / (k_L * s_L)) ** 2 + (dC / s_C) ** 2 + (dH / s_H) ** 2)


def delta_E_CIE2000(L1, a1, b1, L2, a2, b2):
    """Colour difference CIEDE2000 (Sharma, Wu and Dalal's formulation)."""
    C1 = math.hypot(a1, b1)
    C2 = math.hypot(a2, b2)
    C_bar7 = ((C1 + C2) / 2) ** 7
    G = 0.5 * (1 - math.sqrt(C_bar7 / (C_bar7 + 25 ** 7)))
    a1p = (1 + G) * a1
    a2p = (1 + G) * a2
    C1p = math.hypot(a1p, b1)
    C2p = math.hypot(a2p, b2)
    h1p = 0.0 if (b1 == 0 and a1p == 0) else math.degrees(math.atan2(b1, a1p)) % 360
    h2p = 0.0 if (b2 == 0 and a2p == 0) else math.degrees(math.atan2(b2, a2p)) % 360
    dLp = L2 - L1
    dCp = C2p - C1p
    if C1p * C2p == 0:
        dhp = 0.0
    elif abs(h2p - h1p) <= 180:
        dhp = h2p - h1p
    elif h2p - h1p > 180:
        dhp = h2p - h1p - 360
    else:
        dhp = h2p - h1p + 360
    dHp = 2 * math.sqrt(C1p * C2p) * math.sin(math.radians(dhp / 2))
    Lbp = (L1 + L2) / 2
    Cbp = (C1p + C2p) / 2
    if C1p * C2p == 0:
        hbp = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hbp = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        hbp = (h1p + h2p + 360) / 2
    else:
        hbp = (h1p + h2p - 360) / 2
    T = (1 - 0.17 * math.cos(math.radians(hbp - 30)) + 0.24 * math.cos(math.radians(2 * hbp))
         + 0.32 * math.cos(math.radians(3 * hbp + 6)) - 0.20 * math.cos(math.radians(4 * hbp - 63)))
    d_theta = 30 * math.exp(-(((hbp - 275) / 25) ** 2))
    R_C = 2 * math.sqrt(Cbp ** 7 / (Cbp ** 7 + 25 ** 7))
    S_L = 1 + 0.015 * (Lbp - 50) ** 2 / math.sqrt(20 + (Lbp - 50) ** 2)
    S_C = 1 + 0.045 * Cbp
    S_H = 1 + 0.015 * Cbp * T
    R_T = -math.sin(math.radians(2 * d_theta)) * R_C
    return math.sqrt((dLp / S_L) ** 2 + (dCp / S_C) ** 2 + (dHp / S_H) ** 2 + R_T * (dCp / S_C) * (dHp / S_H))


def CCT_to_x_Kang2002(CCT: float) -> float:
    """CIE x chromaticity of the Planckian locus at a correlated colour temperature [K]."""
    if CCT < 1667 or CCT > 25000:
        raise ValueError(f"Correlated colour temperature must be in domain [1667, 25000], got {CCT}!")
    if CCT <= 4000:
        x = -0.2661239e9 / CCT ** 3 - 0.2343589e6 / CCT ** 2 + 0.8776956e3 / CCT + 0.179910
    else:
        x = -3.0258469e9 / CCT ** 3 + 2.1070379e6 / CCT ** 2 + 0.2226347e3 / CCT + 0.24039
    return x


def xy_to_CCT_McCamy1992(x: float, y: float) -> float:
    n = (x - 0.3320) / (y - 0.1858)
    return -449 * n ** 3 + 3525 * n ** 2 - 6823.3 * n + 5520.33


def luma_Rec709(R, G, B):
    wr, wg, wb = REC709_LUMA
    return wr * R + wg * G + wb * B


def gamut_clip(value: float) -> float:
    """A channel limited to [0, 1], warning when it had to be clipped."""
    if value < 0 or value > 1:
        warnings.warn("value outside the gamut was clipped", RuntimeWarning)
    return float(np.clip(value, 0, 1))


def whiteness_CIE(Y: float, x: float, y: float, x_n: float = 0.3138, y_n: float = 0.3310) -> float:
    return Y + 800 * (x_n - x) + 1700 * (y_n - y)
