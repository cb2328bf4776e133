"""The verdicts the LaTeX document prints, read from the one decision (`run_theorem2`, `run_assumption2`,
`run_claims`): each ClaimResult becomes a VerdictRow — PROVED with its proof (the facts it cites, in the
order a reader chains them, and the certificate the proof stored), REFUTED with its counterexample (or the
facts that imply the claim fails everywhere), HOLDS or INCONCLUSIVE with what was searched.  Nothing here
decides a claim again.  Rows only: verify.document.latex_export sets them.
"""
import math
from typing import NamedTuple

from mpmath import mp

from verify.claims.results import Verdict, VerdictKind
from verify.numerics.precision import decimal
from verify.numerics.softmax import as_mp, softmax

DIGITS = 8  # significant digits of a counterexample's sides and margin as printed


class ProofRow(NamedTuple):
    """The proof of a claim (or of its negation): the facts cited as (LaTeX, id, source, domain note) in
    reading order (`reading_order`), the facts each piece of the domain used as (where, ids) pairs, the
    domain (prose), the proof certificate's data (a dict; None when the decision kept none), and the claim
    file's lemmas it cites as LemmaRows (in reading order)."""

    facts: tuple
    pieces: tuple
    domain: str
    certificate: object = None
    lemmas: tuple = ()


class LemmaRow(NamedTuple):
    """A lemma of the claim file a proof cites: its id, its verdict (PROVED, "PROVED assuming …" or ASSUMED: taken
    as given, an assumption of the proof; a Verdict) and its source (the user's text, UserText)."""

    id: str
    verdict: str
    source: str

    @property
    def assumed(self):
        return self.verdict.kind is not VerdictKind.PROVED


class CounterexampleRow(NamedTuple):
    """A certified counterexample: n, the coefficients as given ("z" or "logits") and their values (exact
    decimals), z itself (decimals, DIGITS digits), H's rows, L and μ when given, the failing comparison
    (LaTeX), its sides and margin (LaTeX numbers; no sides for a comparison of a user claim that has none)."""

    n: int
    given: str
    coefficients: tuple
    z: tuple
    H: tuple
    constants: tuple  # (LaTeX name, exact decimal) pairs: L, μ of a case that gives them
    comparison: str
    lhs: object
    rhs: object
    margin: str


class VerdictRow(NamedTuple):
    """One claim under one reading as decided: the reading (None for a claim with one), the verdict, the claim
    under the reading (LaTeX), its proof (PROVED, or REFUTED by the facts), its counterexample (REFUTED), what
    was searched or checked (prose, Unicode), and the decision's note (prose, Unicode)."""

    reading: object
    verdict: Verdict  # verify.claims.results.Verdict
    latex: str
    proof: object = None
    counterexample: object = None
    searched: str = ""
    note: str = ""


def n_text(n_range):
    """A range of token counts in Unicode prose: "n ≥ 2", "n = 3" or "2 ≤ n ≤ 10"."""
    lo, hi = n_range
    if hi == math.inf:
        return f"n ≥ {lo}"
    return f"n = {lo}" if lo == hi else f"{lo} ≤ n ≤ {int(hi)}"


def verdict_rows(claim, results, lemmas=()):
    """The VerdictRows of a claim from the decision's ClaimResults of it (in the order given); `lemmas`, the claim
    file's lemmas (FormulaClaims) with the results that decided them, for a proof that cites them."""
    return tuple(verdict_row(claim, result, lemmas) for result in results if result.id == claim.id)


def verdict_row(claim, result, lemmas=()):
    """One ClaimResult as a VerdictRow (see the module docstring)."""
    evidence = result.evidence
    proof = getattr(evidence, "proof", None)
    proved = result.verdict.kind is VerdictKind.PROVED
    shown = proof is not None and proof.status == ("proved" if proved else "disproved")
    shown = shown and (proved or result.verdict.kind is VerdictKind.REFUTED)
    found = getattr(evidence, "counterexample", None)
    return VerdictRow(result.reading, result.verdict, result.latex,
                      proof_row(claim, result.reading, proof, result.certificate_body, lemmas) if shown else None,
                      counterexample_row(found) if found is not None else None,
                      searched(evidence), getattr(evidence, "note", None) or "")


def proof_row(claim, reading, proof, certificate, lemmas=()):
    """A ProofRow from the decision's ProofEvidence (and the certificate it stored); `lemmas` as `verdict_rows`'."""
    from verify.claims.language.latex import claim_latex
    from verify.claims.prover.facts import BY_ID
    from verify.claims.record import FAMILY_TEXT
    from verify.document.usertext import UserText

    own = {lemma.id: (lemma, verdict) for lemma, verdict in lemmas}
    known = dict(BY_ID, **{i: lemma.as_fact() for i, (lemma, _) in own.items()})
    order = reading_order([lemma["id"] for lemma in proof.lemmas], claim.reading_tree(reading), known)
    source = {i: UserText(lemma.source or "the claim file") for i, (lemma, _) in own.items()}
    facts = tuple((claim_latex(known[i].tree), i, source.get(i, known[i].source), _fact_domain(known[i], claim))
                  for i in order)
    parts = len({piece["part"] for piece in proof.pieces})
    pieces = tuple((piece["piece"] + (f", conjunct {piece['part']}" if parts > 1 else ""),
                    tuple(i for i in order if i in piece["lemmas"])) for piece in proof.pieces)
    domain = f"every {n_text(claim.n_range)}, for {FAMILY_TEXT[claim.hessian]}"
    cited = tuple(LemmaRow(i, own[i][1], source[i]) for i in order if i in own)
    return ProofRow(facts, pieces, domain, certificate, cited)


def counterexample_row(found):
    """A CounterexampleRow from the decision's Counterexample evidence (None for a structured case)."""
    from verify.claims.language.latex import claim_latex
    from verify.claims.language.parser import parse_claim

    inputs = found.inputs
    if "structured" in inputs:  # a structured case (at up to 10⁶ tokens): its certificate holds it, no table does
        return None
    given = "z" if "z" in inputs else "logits"
    constants = tuple((name, inputs[key]) for key, name in (("L", "L"), ("mu", r"\mu")) if key in inputs)
    comparison = claim_latex(parse_claim(found.inequality, (found.n, found.n)))
    sides = [None if side is None else _value(side) for side in (found.lhs, found.rhs)]
    return CounterexampleRow(found.n, given, tuple(inputs[given]), _softmax(inputs[given], given),
                             tuple(tuple(row) for row in inputs["H"]), constants, comparison, *sides,
                             _value(found.margin))


def _value(text):
    """A side or margin as a certificate writes it (a decimal, ±exp(x) for a huge value, "undefined"), as LaTeX."""
    if text.lstrip("-").startswith("exp("):
        return ("-" if text.startswith("-") else "") + f"e^{{{_digits(text.lstrip('-')[4:-1])}}}"
    if _undefined(text):
        return r"\text{undefined}"
    return _digits(text)


def _undefined(text):
    """Whether a recorded side or margin is no number: the claim is undefined there."""
    return text in ("undefined", "nan")


def _digits(text, digits=DIGITS):
    return decimal(text, digits, strip_zeros=True, min_fixed=-4, max_fixed=6)


def _softmax(values, given):
    """z as decimals: softmax of the logits, or the given z renormalised (a case file's z need not sum to 1)."""
    with mp.workdps(DIGITS + 20):
        numbers = as_mp(values)
        z = softmax(numbers) if given == "logits" else numbers / mp.fsum(numbers)
        return tuple(_digits(v, DIGITS - 2) for v in z)


def searched(evidence):
    """What the decision searched or checked, in Unicode prose, from the fields of its evidence."""
    from verify.claims.results import MultiEvidence, SearchEvidence

    if isinstance(evidence, SearchEvidence):
        return _search_text(evidence)
    if isinstance(evidence, MultiEvidence):
        return (f"The search decided {evidence.samples} random multi-example cases and {evidence.adversarial_examples} "
                f"Hypothesis examples, {evidence.method}; the two sides disagreed on {evidence.disagreements}.")
    what = " ".join((type(evidence).__doc__ or "").split()).partition(": ")[2]
    argument = getattr(evidence, "general_argument", None)
    text = f"It is decided by its own checker in the assumption2 command, which records {what}" if what else ""
    return text + (f" The argument: {argument}." if argument else "")


def _search_text(evidence):
    text = (f"The search decided {evidence.samples} random cases and {evidence.adversarial_examples} Hypothesis examples "
            f"({evidence.precise_rechecks} re-decided at higher precision")
    text += f", {evidence.ball_decisions} with balls)" if evidence.ball_decisions else ")"
    failures = evidence.random_counterexamples
    text += f"; {failures} random case{'s' if failures != 1 else ''} failed" if failures else "; no random case failed"
    worst = evidence.worst_margin
    if worst is not None:
        shown = "undefined (the claim fails there)" if _undefined(worst) else _digits(worst, 4)
        text += f"; the least margin seen was {shown}, at n = {evidence.worst_case_n}"
    return text + "."


STAGES = {"n": 0, "z": 0, "R": 0, "j": 1, "L": 1, "mu": 1, "L_T": 1, "mu_T": 1, "lambda": 2, "kappa": 3}


def reading_order(fact_ids, claim_tree, known=None):
    """The facts of a proof in the order a reader chains them, from the coefficients up to the claim.

    Each quantity has a stage: the coefficients z (and n, R = z_max/z_min) come first; J's eigenvalues j and
    H's constants (L, μ, L_T, μ_T) are built from them or given; the eigenvalues λ of J H J on T need both;
    κ = λ_max/λ_min comes last. A fact stands at the stage of the latest quantities it mentions (an extreme
    such as z_min counts as its series z). Facts are sorted by stage; within a stage, those whose latest
    quantities the claim itself mentions come last, so each stage ends with the facts that lead to the
    claim; ties keep the fact library's order. Given the facts, the order depends on them and the claim alone."""
    from verify.claims.language.syntax import names
    from verify.claims.prover.facts import BY_ID, FACTS

    known = BY_ID if known is None else known  # with a claim file's lemmas (after the library, in file order)
    position = {fact_id: index for index, fact_id in enumerate([f.id for f in FACTS] + [i for i in known if i not in BY_ID])}
    own = {_series(name) for name in names(claim_tree)}

    def key(fact_id):
        series = {_series(name) for name in known[fact_id].names}
        stage = max(STAGES.get(s, 0) for s in series)
        latest = {s for s in series if STAGES.get(s, 0) == stage}
        return stage, bool(latest & own), position[fact_id]

    return sorted(fact_ids, key=key)


def _series(name):
    """The series a quantity belongs to: z_min and z_max to z, j_max to j, lambda_min to lambda; others as named."""
    from verify.claims.language.quantities import BY_NAME

    quantity = BY_NAME.get(name)
    return quantity.item[0] if quantity is not None and quantity.item else name


def _fact_domain(fact, claim):
    """Where a fact holds, in prose, when that is narrower than the claim's domain ("" when it is not)."""
    from verify.claims.record import FAMILY_TEXT

    notes = []
    (lo, hi), (claim_lo, claim_hi) = fact.n_range, claim.n_range
    if lo > claim_lo or hi < claim_hi:
        notes.append(n_text(fact.n_range))
    if fact.family != "spd":
        notes.append(FAMILY_TEXT[fact.family])
    return ", ".join(notes)
