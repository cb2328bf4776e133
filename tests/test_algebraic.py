"""Algebraic certificates: the Theorem 2 theorems carry identities that hold exactly; an identity evaluated
at random rational points agrees with its two sides; `check` confirms one with Z3 and cvc5 unimportable,
and rejects it once a coefficient, a term, a cited fact or a cleared denominator is changed; what is not
polynomial is refused."""
import math
import copy
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.claims.certificates.check import check_body
from verify.claims.jobs import Job
from verify.claims.language.parser import parse_claim
from verify.claims.prover import facts as library
from verify.claims.prover.algebraic import setting
from verify.claims.prover.algebraic_ratio import NotPolynomial, Space, to_ratio
from verify.claims.prover.algebraic_check import algebra_from_data, check_algebra
from verify.claims.prover.algebraic_search import certify
from verify.claims.prover.pieces import conjuncts
from verify.claims.prover.prove import prove
from verify.claims.prover.pieces import Piece
from verify.claims.language.syntax import Name, Num, walk
from verify.claims.record import TANGENT
from verify.claims.builtin.registry import REGISTRY
from verify.base.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
THEOREMS = [("T2.eq47.max", TANGENT), ("T2.eq47.min", TANGENT), ("T2.eq47.kappa", TANGENT),
            ("T2.interlace", "tangent-exact"), ("T2.interlace", "ambient-bounds")]


def proved(claim_id, reading):
    claim = REGISTRY[claim_id]
    tree = claim.reading_tree(reading)
    proof = prove(tree, claim.n_range, claim.hessian)
    assert proof.status == "proved"
    return tree, proof


@pytest.mark.parametrize("claim_id, reading", THEOREMS)
def test_the_theorem2_theorems_carry_identities_that_hold_exactly(claim_id, reading):
    tree, proof = proved(claim_id, reading)
    algebras, _ = certify(tree, proof)
    assert len(algebras) == len(proof.pieces) and all(a is not None for a in algebras)
    parts = conjuncts(tree)
    for piece, algebra in zip(proof.pieces, algebras):
        facts = [f for f in library.FACTS if f.id in piece.lemmas]
        assert check_algebra(algebra, parts[piece.part], piece.piece, facts) is None
        assert check_algebra(algebra_from_data(json.loads(json.dumps(algebra.as_data()))), parts[piece.part],
                             piece.piece, facts) is None


@pytest.fixture(scope="module")
def kappa_generic():
    """The identity of T2.eq47.kappa (tangent-exact) on its generic piece, with its setting."""
    tree, proof = proved("T2.eq47.kappa", TANGENT)
    piece = proof.pieces[-1]
    facts = [f for f in library.FACTS if f.id in piece.lemmas]
    part = conjuncts(tree)[piece.part]
    (algebra,), _ = certify(tree, type(proof)(proof.status, (piece,)))
    return algebra, setting(part, piece.piece, facts)


def _value(term, point, slacks):
    out = term.coefficient
    for label in term.factors:
        out *= slacks[label]
    for name, power in term.monomial:
        out *= point[name] ** power
    return out


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_an_identity_agrees_at_random_rational_points(kappa_generic, data):
    """Both sides evaluated with Fractions at a random point (no polynomial arithmetic): equal, term by term sum."""
    algebra, found = kappa_generic
    names = found.space.names
    point = {n: Fraction(data.draw(st.integers(-50, 50)), data.draw(st.integers(1, 9))) for n in names}
    args = [point[n] for n in names]
    slacks = {h.label: Fraction(str(h.poly(*args))) for h in found.hypotheses}
    (ratio, _), identity = found.goals[-1], algebra.identities[-1]  # the comparison, after its definedness goals
    multiplier = sum(_value(t, point, slacks) for t in identity.multiplier)
    assert multiplier * Fraction(str(ratio.num(*args))) == sum(_value(t, point, slacks) for t in identity.terms)


def test_the_kappa_identity_clears_lambda_min_mu_T_and_z_max_squared(kappa_generic):
    algebra, _ = kappa_generic
    identity = algebra.identities[-1]  # the comparison itself, after the goals that make it defined
    assert dict(identity.denominators) == {"lam_n_m1": 1, "mu_T": 1, "z_1": 2}
    assert set(algebra.substitutions) == {"F10.kappa.i1", "F10.ratio.i1"}


def test_an_identity_renders_through_the_claim_language_printer(kappa_generic):
    from verify.claims.prover.algebraic_latex import algebra_latex

    algebra, found = kappa_generic
    tree, proof = proved("T2.eq47.kappa", TANGENT)
    piece = proof.pieces[-1]
    facts = [f for f in library.FACTS if f.id in piece.lemmas]
    lines = algebra_latex(algebra, conjuncts(tree)[piece.part], piece.piece, facts)
    assert lines[0].startswith(r"\kappa = \frac{\lambda_{\max}}{\lambda_{\min}}")
    assert lines[-1].endswith(r"\ge 0") and r"\text{F6.ostrowski\_max.i1.1}" in lines[-1]
    assert len(lines) == len(algebra.substitutions) + len(algebra.lemmas) + len(algebra.identities)
    tampered = type(algebra)(algebra.substitutions, algebra.lemmas, algebra.identities[:0])
    assert algebra_latex(tampered, conjuncts(tree)[piece.part], piece.piece, facts) is None


def test_every_piece_of_a_proof_renders():
    from verify.claims.prover.algebraic_latex import proof_latex
    from verify.claims.prover.prove import prove_with_identities

    tree, _ = proved("T2.interlace", "ambient-bounds")
    claim = REGISTRY["T2.interlace"]
    proof, (algebras, _) = prove_with_identities(tree, claim.n_range, claim.hessian)
    rendered = proof_latex(tree, proof, algebras)
    assert [(label, part) for label, part, _ in rendered] == [(p.piece.label, p.part + 1) for p in proof.pieces]
    assert all(lines and lines[-1].endswith(r"\ge 0") for _, _, lines in rendered)


def test_a_cited_equality_is_multiplied_when_substituting_it_would_divide_by_an_unproved_quantity():
    """κ·λ_min = λ_max at n = 2 from F10 alone: κ = λ_max/λ_min would need λ_min > 0, which F10 does not say, so
    the identity is κλ_min − λ_max = 1·(κλ_min − λ_max), a multiple of the cited equality."""
    from verify.claims.prover.algebraic_search import find

    part, piece, facts = parse_claim("kappa * lambda_min == lambda_max", (2, 2)), Piece(n=2), [library.BY_ID["F10.kappa"]]
    algebra = find(part, piece, facts)
    assert algebra is not None and not algebra.substitutions
    (identity,) = algebra.identities
    assert [t.factors for t in identity.terms] == [("F10.kappa.i1",)]
    assert check_algebra(algebra, part, piece, facts) is None
    doubled = type(identity)(identity.denominators, identity.multiplier, identity.numerator, identity.relation,
                             tuple(type(t)(2 * t.coefficient, t.factors, t.monomial) for t in identity.terms))
    assert check_algebra(type(algebra)((), algebra.lemmas, (doubled,)), part, piece, facts) is not None


EXPRESSIONS = ("kappa - (L_T/mu_T) * R**-2", "(mu/L) * (z(2)/z(n-1))**2 - kappa", "lambda_max - L_T * z_min**2 + 3/7",
               "(z_max - z_min)**3 / (j_max * (j_min + 2)) - -R", "n * z_max - 1 / (n - 1)")


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(EXPRESSIONS), st.data())
def test_the_conversion_agrees_with_the_languages_exact_arithmetic(text, data):
    """N/D at a random rational point equals the language's own exact value of the tree at that point."""
    from verify.claims.language.semantics import constant
    from verify.claims.language.syntax import transform
    from verify.claims.prover.algebraic_ratio import quantity_name

    piece = Piece(n=data.draw(st.integers(3, 6)))
    tree = parse_claim(f"{text} >= 0", (piece.n, piece.n)).left
    names = {q for q in (quantity_name(node, piece) for node in walk(tree)) if q}
    space = Space(piece, names)
    point = {q: Fraction(data.draw(st.integers(1, 60)), data.draw(st.integers(1, 7))) for q in space.names}
    ratio = to_ratio(tree, space)
    args = [point[q] for q in space.names]
    denominator = Fraction(1)
    for factor, power in ratio.den:
        denominator *= Fraction(str(factor(*args))) ** power
    numbers = transform(tree, lambda leaf: Num(point[quantity_name(leaf, piece)]) if quantity_name(leaf, piece)
                        else Num(Fraction(piece.n)) if leaf == Name("n") else leaf)
    if denominator != 0:
        assert Fraction(str(ratio.num(*args))) / denominator == constant(numbers)


UNFOLDED = ("max(kappa, R) <= L", "min(kappa, R) >= L", "abs(kappa - R) < L", "max(kappa, R) == R",
            "min(kappa, R) == kappa", "exp(kappa) <= exp(R)", "log(kappa) < log(R)", "log(kappa) >= 0", "exp(R) > 1",
            "0 >= log(R)", "1 < exp(kappa)")


def _float_value(tree, point):
    """A float oracle for the test: the tree's value at the point, None where log is undefined."""
    import math

    from verify.claims.language.syntax import BinOp, Call, Neg

    if isinstance(tree, Num):
        return float(tree.exact())
    if isinstance(tree, Name):
        return point[tree.id]
    if isinstance(tree, Neg):
        inner = _float_value(tree.operand, point)
        return None if inner is None else -inner
    args = [_float_value(a, point) for a in (tree.args if isinstance(tree, Call) else (tree.left, tree.right))]
    if None in args:
        return None
    if isinstance(tree, BinOp):
        return {"+": args[0] + args[1], "-": args[0] - args[1], "*": args[0] * args[1]}[tree.op]
    if tree.name == "log":
        return math.log(args[0]) if args[0] > 0 else None
    return {"exp": lambda: math.exp(args[0]), "abs": lambda: abs(args[0]), "max": lambda: max(args),
            "min": lambda: min(args)}[tree.name]()


def _holds(compare, point):
    import operator

    left, right = _float_value(compare.left, point), _float_value(compare.right, point)
    ops = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq}
    return left is not None and right is not None and ops[compare.op](left, right)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(UNFOLDED), *[st.integers(-24, 24).map(lambda k: k / 8)] * 3)  # eighths: exp(x) ≠ 1 for x ≠ 0
def test_an_unfolded_comparison_means_what_the_comparison_means(text, kappa, r, big_l):
    from verify.claims.prover.algebraic import atoms

    compare = parse_claim(text, (3, 3))
    point = {"kappa": kappa, "R": r, "L": big_l}
    assert _holds(compare, point) == all(_holds(a, point) for a in atoms(compare, Piece(n=3)))


def test_what_is_not_polynomial_is_refused():
    piece = Piece(n=3)
    for text in ("sqrt(kappa) >= 1", "log(kappa) >= 1", "min(z_max, j_max) <= z(2)", "kappa >= pi", "abs(R) >= 1",
                 "exp(kappa) >= log(R)"):
        assert setting(conjuncts(parse_claim(text, (3, 3)))[0], piece, library.FACTS) is None
    for text, goals in (("min(z_max, j_max) >= z(2)", 2), ("log(kappa) >= 0", 2), ("exp(-kappa) <= exp(-1)", 1),
                        ("log(R) <= log(kappa)", 2), ("exp(R) > 1", 1)):
        assert len(setting(parse_claim(text, (3, 3)), piece, library.FACTS).goals) == goals, text
    space = Space(piece, {"z_1", "z_3"})
    ratio = to_ratio(parse_claim("(z_max/z_min)**-2 >= 0", (3, 3)).left, space)
    assert [(str(f), p) for f, p in ratio.den] == [("z_1", 2)] and str(ratio.num) == "z_3**2"
    with pytest.raises(NotPolynomial):
        to_ratio(parse_claim("z_max**z_min >= 0", (3, 3)).left, space)


# ---------------------------------------------------------------- certificates: check without solvers, tampering


@pytest.fixture(scope="module")
def kappa_certificate():
    from verify.claims.verdicts.decide import run_jobs

    (result,), _, _ = run_jobs([Job(REGISTRY["T2.eq47.kappa"], TANGENT)], seed=0, samples=20, dps=50, workers=1)
    assert result.verdict.text == "PROVED" and result.evidence.proof.kind == "algebraic identity"
    return result.certificate_body


BLOCKER = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("z3", "cvc5"):
            raise ImportError(name + " is blocked")
sys.meta_path.insert(0, Block())
for name in ("z3", "cvc5"):
    try:
        __import__(name)
        raise SystemExit(name + " imported")
    except ImportError:
        pass
from verify.claims.certificates.check import check_certificate
result = check_certificate(sys.argv[1])
print(result.confirmed, result.reason)
"""


def test_check_confirms_an_algebraic_certificate_with_z3_and_cvc5_unimportable(kappa_certificate, tmp_path):
    path = tmp_path / "kappa.json"
    path.write_text(json.dumps(kappa_certificate))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", BLOCKER, str(path)], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("True") and "algebraic identity" in done.stdout


def _rejected_by_algebra(body):
    try:
        result = check_body(copy.deepcopy(body))
    except InputError as error:
        assert "\n" not in str(error)
        return False
    return not result.confirmed and "algebraic certificate" in result.reason


def _identity(body):
    return body["pieces"][-1]["algebra"]["identities"][-1]  # the comparison, after its definedness goals


def test_a_changed_coefficient_is_rejected(kappa_certificate):
    body = copy.deepcopy(kappa_certificate)
    term = _identity(body)["terms"][0]
    term["coefficient"] = str(Fraction(term["coefficient"]) + Fraction(1, 7))
    assert _rejected_by_algebra(body)


def test_a_changed_term_is_rejected(kappa_certificate):
    body = copy.deepcopy(kappa_certificate)
    term = next(t for t in _identity(body)["terms"] if t["monomial"])
    name = next(iter(term["monomial"]))
    term["monomial"][name] += 2
    assert _rejected_by_algebra(body)


def test_a_changed_cited_fact_is_rejected(kappa_certificate):
    body = copy.deepcopy(kappa_certificate)
    terms = _identity(body)["terms"]
    used = next(t for t in terms if t["factors"])
    others = sorted({f for t in terms for f in t["factors"]} - set(used["factors"]))
    used["factors"][0] = others[0]
    assert _rejected_by_algebra(body)
    body = copy.deepcopy(kappa_certificate)
    body["pieces"][-1]["algebra"]["substitutions"].reverse()
    assert _rejected_by_algebra(body)


def test_a_changed_cleared_denominator_is_rejected(kappa_certificate):
    body = copy.deepcopy(kappa_certificate)
    denominators = _identity(body)["denominators"]
    denominators[-1][1] += 1
    assert _rejected_by_algebra(body)
    body = copy.deepcopy(kappa_certificate)
    _identity(body)["denominators"] = _identity(body)["denominators"][:-1]
    assert _rejected_by_algebra(body)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                    max_leaves=8)


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, path + (i,))


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_any_edit_of_an_identity_is_confirmed_rejected_or_refused_in_one_line(kappa_certificate, data):
    body = copy.deepcopy(kappa_certificate)
    algebra = body["pieces"][-1]["algebra"]
    path = data.draw(st.sampled_from(list(_paths(algebra))[1:]))
    holder = algebra
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = data.draw(JSON)
    try:
        check_body(body)
    except InputError as error:
        assert "\n" not in str(error)


def test_a_malformed_identity_is_rejected_in_one_line(kappa_certificate):
    body = copy.deepcopy(kappa_certificate)
    _identity(body)["terms"][0]["coefficient"] = "__import__('os')"
    assert _rejected_by_algebra(body)


def test_a_divisor_that_cancels_keeps_its_condition():
    """1/(1/x) is x in the arithmetic of rational functions, yet undefined where x = 0: the identity of the
    cancelled form proves nothing of the claim, and the claim's certificate must prove its divisors' signs."""
    from verify.claims.prover.algebraic_check import check_algebra
    from verify.claims.prover.algebraic_search import find

    piece = Piece(lo=3, hi=math.inf)
    facts = [f for f in library.FACTS if f.applies((3, math.inf), "spd")]
    cancelled = parse_claim("z_max - 1/2 <= 1", (3, math.inf))
    undefined_somewhere = parse_claim("1/(1/(z_max - 1/2)) <= 1", (3, math.inf))
    algebra = find(cancelled, piece, facts)
    assert algebra is not None and check_algebra(algebra, cancelled, piece, facts) is None
    assert check_algebra(algebra, undefined_somewhere, piece, facts) is not None
    assert find(undefined_somewhere, piece, facts) is None
