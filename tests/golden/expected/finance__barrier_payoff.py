def barrier_payoff(spot, strike, barrier):
    arrays = _vec_float_args(spot, strike, barrier)
    if arrays is None:
        return _vec_exact_barrier_payoff(spot, strike, barrier)
    xp, spot, strike, barrier = arrays
    gain = spot - strike
    return xp.where(spot >= barrier, 0.0, xp.where(gain > 0.0, gain, 0.0))


def _vec_exact_barrier_payoff(spot, strike, barrier):
    arrays = _vec_int_args(spot, strike, barrier)
    if arrays is not None:
        xp, spot, strike, barrier = arrays
        gain = spot - strike
        return xp.where(spot >= barrier, 0.0, xp.where(gain > 0, xp.astype(gain, xp.float64), 0.0))
    xp, spot, strike, barrier = _vec_exact_args(spot, strike, barrier)
    gain = _vec_binary(xp, "sub", spot, strike)
    return _vec_result(xp, _vec_select(xp, _vec_binary(xp, "ge", spot, barrier), 0.0, _vec_select(xp, _vec_binary(xp, "gt", gain, 0.0), gain, 0.0)))
