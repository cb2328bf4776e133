"""Rendering arb balls: `[lo, hi]` decimal strings (outward rounded) and (mid, rad) as mpf."""
import flint
import mpmath as mp

from verify.numerics.precision import arb_to_mpf


def ball_mid_rad(ball):
    """(mid, rad) of an arb ball as exact mpf values."""
    return arb_to_mpf(ball.mid()), arb_to_mpf(flint.arb(ball.rad()))


def ball_interval(ball, digits=30):
    """('lo', 'hi') decimal strings with `digits` significant digits and lo ≤ ball ≤ hi.

    The endpoints are computed exactly as mpf, then rounded outward (floor / ceiling
    in the last printed digit), so the printed interval still contains the ball.
    """
    mid, rad = ball_mid_rad(ball)
    with mp.workdps(max(digits, 10) + 20):
        lo, hi = mid - rad, mid + rad
        return _outward(lo, digits, down=True), _outward(hi, digits, down=False)


def _outward(x, digits, down):
    if x == 0:
        return "0"
    e = int(mp.floor(mp.log10(abs(x))))
    step = mp.mpf(10) ** (e - digits + 1)
    q = mp.floor(x / step) if down else mp.ceil(x / step)
    value = q * step
    # Verify exactly (the division above is at finite precision): widen by one step if needed.
    if down and value > x:
        q -= 1
    if not down and value < x:
        q += 1
    sign = "-" if q < 0 else ""
    digits_str = str(abs(int(q)))
    exponent = e - digits + 1 + len(digits_str) - 1
    mantissa = digits_str[0] + ("." + digits_str[1:] if len(digits_str) > 1 else "")
    return f"{sign}{mantissa}e{exponent}"
