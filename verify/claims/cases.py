"""One configuration of Theorem 2: coefficients (z or logits), H and optional L, μ.

The case-file format is also the `inputs` of a certificate:
    {"z": [...]} or {"logits": [...]}, "H": [[...]], optional "L", "mu";
numbers are JSON numbers or decimal strings (kept exactly by mpmath).
"""
import json
from dataclasses import dataclass

import mpmath as mp
import numpy as np

from verify.errors import InputError
from verify.numerics.precision import PARSE_DPS, decimal, parse_number
from verify.numerics.softmax import on_simplex_error



@dataclass(frozen=True)
class Case:
    logits: tuple  # mpf; when z is given, log z (softmax of it is z renormalised)
    H: tuple  # rows of mpf
    L: object = None
    mu: object = None
    given: str = "logits"  # which of "z" / "logits" the user gave

    @property
    def n(self):
        return len(self.logits)

    def log_z_float(self):
        s = np.array([float(v) for v in self.logits])
        s = s - s.max()
        return s - np.log(np.sum(np.exp(s)))

    def H_float(self):
        return np.array([[float(v) for v in row] for row in self.H])

    def inputs(self):
        """The JSON case-file form (decimal strings), which `--case` and certificates read."""
        with mp.workdps(PARSE_DPS):
            if self.given == "z":
                coefficients = {"z": [decimal(mp.exp(v), PARSE_DPS) for v in self.logits]}
            else:
                coefficients = {"logits": [_exact(v) for v in self.logits]}
            out = dict(coefficients, H=[[_exact(v) for v in row] for row in self.H])
            for key in ("L", "mu"):
                if getattr(self, key) is not None:
                    out[key] = _exact(getattr(self, key))
        return out

    @classmethod
    def from_arrays(cls, logits, H, L=None, mu=None):
        """From float64 arrays (exact as decimal strings of 17 digits)."""
        return cls(tuple(mp.mpf(float(v)) for v in logits), tuple(tuple(mp.mpf(float(v)) for v in row) for row in H), L, mu)


def _exact(value):
    """Shortest decimal string that is exactly this mpf when it came from a float or an integer."""
    value = mp.mpf(value)
    if value == int(value) and abs(value) < 10**15:
        return str(int(value))
    return mp.nstr(value, 40, strip_zeros=True)


def read_json(path, what):
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        raise InputError(f"{what} file {path!r} does not exist; give the path of a JSON file") from None
    except OSError as error:
        raise InputError(f"{what} file {path!r} cannot be read ({error.strerror}); check its permissions") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise InputError(f"{what} file {path!r} is not valid JSON ({error}); fix the syntax") from None


def parse_case(data, where="case", require_H=True):
    """A validated Case, or InputError naming the bad value and the fix (H may be None if not required)."""
    if not isinstance(data, dict):
        raise InputError(f"{where} must be a JSON object with \"z\" or \"logits\" and \"H\"; got {type(data).__name__}")
    with mp.workdps(PARSE_DPS):
        logits, given = _coefficients(data, where)
        n = len(logits)
        H = _matrix(data.get("H"), n, where) if require_H or data.get("H") is not None else None
        L = parse_number(data["L"], f"{where} L") if data.get("L") is not None else None
        mu = parse_number(data["mu"], f"{where} mu") if data.get("mu") is not None else None
        _check_constants(H, L, mu, where)
    return Case(tuple(logits), H, L, mu, given)


def _coefficients(data, where):
    if ("z" in data) == ("logits" in data):
        raise InputError(f"{where} needs exactly one of \"z\" or \"logits\"; give the attention coefficients or the logits")
    key = "z" if "z" in data else "logits"
    values = data[key]
    if not isinstance(values, list) or len(values) < 2:
        raise InputError(f"{where} {key} must be a list of at least 2 numbers (one token has no tangent space); got {values!r}")
    numbers = [parse_number(v, f"{where} {key}[{i}]") for i, v in enumerate(values)]
    if key == "logits":
        return numbers, key
    problem = on_simplex_error(np.array(numbers, dtype=object))
    if problem:
        raise InputError(f"{where} z {problem}; z must be a probability vector with positive entries summing to 1")
    return [mp.log(v) for v in numbers], key


def _matrix(rows, n, where):
    if rows is None:
        raise InputError(f"{where} has no \"H\"; give the curvature as an n × n list of rows (n = {n})")
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        raise InputError(f"{where} H must be a list of rows; got {rows!r}")
    shape = (len(rows), max((len(r) for r in rows), default=0))
    if len(rows) != n or any(len(r) != n for r in rows):
        raise InputError(f"{where} H is {shape[0]}×{shape[1]} (rows of lengths {[len(r) for r in rows]}), "
                         f"but there are n = {n} coefficients; give an {n}×{n} matrix")
    H = tuple(tuple(parse_number(v, f"{where} H[{i}][{j}]") for j, v in enumerate(r)) for i, r in enumerate(rows))
    scale = max(abs(v) for row in H for v in row) or 1
    for i in range(n):
        for j in range(i):
            if abs(H[i][j] - H[j][i]) > 1e-12 * scale:
                raise InputError(f"{where} H is not symmetric: H[{i}][{j}] = {mp.nstr(H[i][j], 17)} but "
                                 f"H[{j}][{i}] = {mp.nstr(H[j][i], 17)}; give a symmetric matrix")
    try:
        mp.cholesky(mp.matrix([list(r) for r in H]))
    except ValueError:
        raise InputError(f"{where} H is not positive definite; give a symmetric positive definite matrix") from None
    return H


def _check_constants(H, L, mu, where):
    if L is not None and mu is not None and L < mu:
        raise InputError(f"{where} has L = {mp.nstr(L, 17)} < mu = {mp.nstr(mu, 17)}; smoothness needs L ≥ mu, swap or fix them")
    if (L is None and mu is None) or H is None:
        return
    eigenvalues = mp.eigsy(mp.matrix([list(r) for r in H]), eigvals_only=True)
    low, high = min(eigenvalues), max(eigenvalues)
    if L is not None and L < high * (1 - mp.mpf(10) ** -40):
        raise InputError(f"{where} L = {mp.nstr(L, 17)} is below λ_max(H) = {mp.nstr(high, 17)}, so H ≼ L I fails; "
                         "give L ≥ λ_max(H) or omit L")
    if mu is not None and (mu <= 0 or mu > low * (1 + mp.mpf(10) ** -40)):
        raise InputError(f"{where} mu = {mp.nstr(mu, 17)} is not in (0, λ_min(H) = {mp.nstr(low, 17)}], so mu I ≼ H fails; "
                         "give 0 < mu ≤ λ_min(H) or omit mu")


def load_case(path, require_H=True):
    return parse_case(read_json(path, "case"), where=f"case {path}", require_H=require_H)
