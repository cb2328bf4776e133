"""An Arb ball as decimal text, the one way every output prints one: its midpoint, its radius, and an
interval [lo, hi] of decimals that contains it (Arb's own decimal conversion, which rounds outwards)."""


def ball_json(ball, digits=30):
    """{"mid", "rad", "interval": [lo, hi]}: decimal strings of about `digits` significant digits with
    (mid − rad, mid + rad) of the ball inside [lo, hi]; None for None (a quantity not enclosed)."""
    if ball is None:
        return None
    mid, rad, exponent = ball.mid_rad_10exp(digits)
    scale = lambda m: decimal_from_integer(m, exponent)
    return {"mid": scale(mid), "rad": scale(rad), "interval": [scale(mid - rad), scale(mid + rad)]}


def decimal_from_integer(mantissa, exponent):
    """mantissa · 10^exponent, exactly, as a decimal string in scientific notation."""
    mantissa, exponent = int(mantissa), int(exponent)
    if mantissa == 0:
        return "0"
    sign, digits = ("-" if mantissa < 0 else ""), str(abs(mantissa))
    return f"{sign}{digits[0]}.{digits[1:] or '0'}e{exponent + len(digits) - 1:+d}"
