# -*- coding: utf-8 -*-
'''Pipe flow: Reynolds number, friction factors, head loss, open channels and orifices.

In the manner of chemical-engineering design libraries: CamelCase function names after the
authors of each correlation, `from math import ...`, a transition constant, a dispatcher.
'''

from __future__ import division

from math import exp, log, log10, pi, sqrt

from .constants import g
from .numerics import np

LAMINAR_TRANSITION_PIPE = 2040.
'''Reynolds number of the onset of turbulence in pipe flow.'''


def Reynolds(V, D, rho=None, mu=None, nu=None):
    r'''Reynolds number from velocity, length scale and either density and dynamic viscosity
    or kinematic viscosity.'''
    if rho is not None and mu is not None:
        nu = mu / rho
    elif nu is None:
        raise ValueError('Either density and viscosity, or dynamic viscosity, is needed')
    return V * D / nu


def friction_laminar(Re):
    return 64. / Re


def Blasius(Re):
    return 0.3164 * Re ** -0.25


def Swamee_Jain_1976(Re, eD):
    ff = (-4 * log10((eD / 3.7) ** 1.11 + 6.9 / Re)) ** -2
    return 4 * ff


def Haaland(Re, eD):
    ff = (-3.6 * log10(6.9 / Re + (eD / 3.7) ** 1.11)) ** -2
    return 4 * ff


def Clamond(Re, eD):
    r'''Darcy friction factor from two Newton steps on the Colebrook equation (Clamond 2009).'''
    X1 = eD * Re * 0.1239681863354175460160858261654858382699
    X2 = log(Re) - 0.7793974884556819406441139701653776731705
    F = X2 - 0.2
    X1F = X1 + F
    X1F1 = 1. + X1F
    E = (log(X1F) - 0.2) / X1F1
    F = F - (X1F1 + 0.5 * E) * E * X1F / (X1F1 + E * (1. + E / 3.))
    X1F = X1 + F
    X1F1 = 1. + X1F
    E = (log(X1F) + F - X2) / X1F1
    F = F - (X1F1 + 0.5 * E) * E * X1F / (X1F1 + E * (1. + E / 3.))
    return 1.325474527619599502640416597148504422899 / (F * F)


def Colebrook_iterative(Re, eD, tol=1e-12, maxiter=50):
    '''Colebrook-White solved by fixed-point iteration on 1/sqrt(f).'''
    x = -2.0 * log10(eD / 3.7 + 2.51 / Re * 0.125)  # a first guess with f = 0.0156
    for _ in range(maxiter):
        x_new = -2.0 * log10(eD / 3.7 + 2.51 * x / Re)
        if abs(x_new - x) < tol:
            return 1.0 / (x_new * x_new)
        x = x_new
    raise RuntimeError('Colebrook iteration did not converge')


def friction_factor(Re, eD=0.0, Method='Clamond', Darcy=True):
    '''Darcy (or Fanning) friction factor of a pipe, laminar below the transition.'''
    if Re < LAMINAR_TRANSITION_PIPE:
        f = friction_laminar(Re)
    elif Method == 'Clamond':
        f = Clamond(Re, eD)
    elif Method == 'Haaland':
        f = Haaland(Re, eD)
    elif Method == 'Swamee_Jain_1976':
        f = Swamee_Jain_1976(Re, eD)
    else:
        raise ValueError('Method %s not recognized' % Method)
    if not Darcy:
        f *= 0.25
    return f


def head_loss(fd, L, D, V):
    '''Darcy-Weisbach head loss [m].'''
    return fd * L / D * V * V / (2 * g)


def orifice_flow(dP, rho, D, d, C=0.61):
    '''Mass flow [kg/s] through an orifice plate.'''
    beta = d / D
    A = pi / 4 * d * d
    return C / sqrt(1 - beta ** 4) * A * sqrt(2 * dP * rho)


def Manning_velocity(Rh, S, n=0.013):
    return 1. / n * Rh ** (2 / 3.) * S ** 0.5


def critical_depth_rectangular(Q, b):
    return (Q * Q / (g * b * b)) ** (1 / 3.)


def Froude(V, L, squared=False):
    Fr = V / sqrt(L * g)
    if squared:
        Fr *= Fr
    return Fr


def K_sudden_expansion(D1, D2, fd=None):
    '''Loss coefficient of a sudden pipe expansion (Borda-Carnot, optionally with friction).'''
    beta = D1 / D2
    if fd is None:
        return (1. - beta * beta) ** 2
    return (1. + 0.8 * fd) * (1. - beta * beta) ** 2


def terminal_velocity_stokes(dp, rhop, rho, mu):
    v = g * dp * dp * (rhop - rho) / (18.0 * mu)
    Re = rho * v * dp / mu
    if Re > 1.0:
        return np.nan
    return v
