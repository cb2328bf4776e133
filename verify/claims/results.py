"""Result types of the claim commands: typed evidence, one claim's result, and a command's report.

Evidence records say what was searched and found; each documents its fields (as scipy's
OptimizeResult does) and turns itself into JSON with `to_json` (fields left None are omitted).
The CLI renders them by type, never by guessing from keys.
"""
import dataclasses
import enum
from dataclasses import dataclass, field

from verify.base.versions import package_versions
from verify.base.printable import shown


class Evidence:
    """Base of every evidence record: JSON is its fields in declared order, None fields left out."""

    def to_json(self):
        return {f.name: _json(getattr(self, f.name)) for f in dataclasses.fields(self) if getattr(self, f.name) is not None}

    def with_(self, **changes):
        return dataclasses.replace(self, **changes)


def _json(value):
    if isinstance(value, Evidence):
        return value.to_json()
    if isinstance(value, tuple):
        return [_json(v) for v in value]
    return value


@dataclass(frozen=True)
class Counterexample(Evidence):
    """The smallest failing case found: its size, its case-file inputs, the binding inequality and its sides
    (decimal strings at the certificate's precision; margin = ln(lhs/rhs), ≥ 0 holds)."""

    n: int
    inputs: dict
    inequality: str  # a user claim: its holds text
    lhs: object  # None for a user claim (its margin says how it fails)
    rhs: object
    margin: str


@dataclass(frozen=True)
class SearchEvidence(Evidence):
    """A single-example claim's search: random cases decided, Hypothesis examples run, re-decisions at
    higher precision, the worst (smallest) decided ln-margin and the n where it was seen, the random
    counterexamples, the cases decided with balls, the cases left tight or undecided; then, where they apply, the symbolic dependence on R (T2.eq47.kappa), the n = 2
    proof, whether the counterexample was shrunk (simplified from a failing case the search found), the counterexample, a note and the certificate check."""

    samples: int
    adversarial_examples: int
    precise_rechecks: int
    worst_margin: object
    worst_case_n: object
    random_counterexamples: int
    ball_decisions: object = None
    tight: object = None
    proof: object = None
    dependence_on_R: object = None
    two_tokens: object = None
    shrunk: object = None
    counterexample: object = None
    note: object = None
    certificate_check: object = None
    structured_cases: object = None  # structured cases decided (verify.claims.cases.structured), at n up to 10⁶


@dataclass(frozen=True)
class ProofEvidence(Evidence):
    """What the prover concluded: its status ("proved", "disproved": the facts imply the claim fails on its
    whole domain, "not proved", "not attempted"), the domain in words, the facts used (id, text, source),
    each piece's facts, solver times and kind of proof, the solvers' versions, the seconds it took, why not
    (if not), the kind of proof ("algebraic identity" when every piece has an identity checked exactly over
    QQ, else "Z3 and cvc5 agree") and the seconds the search for identities took."""

    status: str
    domain: str
    lemmas: tuple = ()
    pieces: tuple = ()
    solvers: object = None
    seconds: object = None
    reason: object = None
    hints_tried: object = None
    kind: object = None
    algebra_seconds: object = None


@dataclass(frozen=True)
class MultiEvidence(Evidence):
    """T2.multi's search: multi-example cases, Hypothesis examples, the worst relative gap |dense κ / block κ − 1|
    between the balls' midpoints, the largest relative radius of a ball, the samples whose balls were
    disjoint, how both sides are enclosed, and (when there is one) the certificate check or a note."""

    samples: int
    adversarial_examples: int
    worst_relative_gap: str
    largest_relative_radius: str
    disagreements: int
    method: str
    certificate_check: object = None
    note: object = None


@dataclass(frozen=True)
class InterruptedEvidence(Evidence):
    """The run was interrupted (Ctrl-C) before this claim's work finished."""

    note: str


@dataclass(frozen=True)
class RecordEvidence(Evidence):
    """Base of the Assumption 2 checkers' evidence: a flat record of named measurements."""


class VerdictKind(enum.Enum):
    """What a decision concluded about a claim (see verify.claims.verdicts.decide for the rule behind each)."""

    PROVED = "PROVED"  # for every case of its domain, from cited facts (both solvers, or an exact certificate)
    CERTIFIED = "CERTIFIED"  # at one case (case mode): the balls alone prove it holds there
    HOLDS = "HOLDS"  # every case searched decided to hold
    REFUTED = "REFUTED"  # a failure with a certificate `check` confirmed (or a disproof both solvers gave)
    INCONCLUSIVE = "INCONCLUSIVE"  # a tight or undecided case, or a failure that could not be certified
    ASSUMED = "ASSUMED"  # a claim file's lemma taken as given (assume = true), neither proved nor refuted
    INTERRUPTED = "INTERRUPTED"  # the run stopped (Ctrl-C) before the claim was decided
    CONTRADICTION = "CONTRADICTION"  # proved and refuted at once: a defect that must never happen


@dataclass(frozen=True, eq=False)
class Verdict:
    """A claim's verdict: its kind and the lemmas taken as given (claim-file ids) a proof rests on. Made only by
    verify.claims.verdicts.decide.verdict_of; read through `.kind` and `.assumptions`, written through `text`
    ("PROVED assuming a, b"). Comparing a Verdict with a string is a TypeError: compare kinds."""

    kind: VerdictKind
    assumptions: tuple = ()

    @property
    def text(self):
        return self.kind.value + (f" assuming {', '.join(self.assumptions)}" if self.assumptions else "")

    def __str__(self):
        return self.text

    def __eq__(self, other):
        if isinstance(other, str):
            raise TypeError(f"a Verdict compared with the string {shown(other, 200)}: compare its .kind with a VerdictKind")
        if not isinstance(other, Verdict):
            return NotImplemented
        return (self.kind, self.assumptions) == (other.kind, other.assumptions)

    def __hash__(self):
        return hash((self.kind, self.assumptions))

    def is_(self, *kinds):
        """Whether the kind is one of `kinds` (VerdictKind members)."""
        return self.kind in kinds


@dataclass(frozen=True)
class ClaimResult:
    """One claim under one reading: its statement, its Verdict (a VerdictKind and the lemmas taken as given a proof
    rests on; CONTRADICTION, proved yet refuted, must never happen), typed evidence, and its certificate (the path
    when written, and the body)."""

    id: str
    reading: object
    statement: str
    latex: str
    verdict: Verdict
    evidence: Evidence
    certificate: object = None  # the certificate's path, when one was written
    text: object = None  # a formula claim's claim-language text under its reading
    certificate_body: object = field(default=None, repr=False)  # the certificate itself (a dict), written or not
    expect: object = None  # a claim file's `expect`: True, False or None (not stated)

    @property
    def disagrees(self):
        """The verdict contradicts the stated expectation: REFUTED when true was expected; PROVED or HOLDS
        when false was (INCONCLUSIVE and INTERRUPTED settle nothing, so they disagree with neither)."""
        against = {True: (VerdictKind.REFUTED,), False: (VerdictKind.PROVED, VerdictKind.HOLDS)}.get(self.expect, ())
        return self.verdict.kind in against

    def to_json(self):
        out = {k: getattr(self, k) for k in ("id", "reading", "statement", "latex")}
        out["verdict"] = self.verdict.text
        if self.expect is not None:
            out["expect"] = "true" if self.expect else "false"
            out["disagrees_with_expect"] = self.disagrees
        if self.text is not None:
            out["text"] = self.text
        out["evidence"] = self.evidence.to_json()
        out["certificate"] = self.certificate
        return out


@dataclass(frozen=True)
class Report:
    """A claim command's report: seed, digits, sample budget, one ClaimResult per (claim, reading),
    wall time, and the package versions (every run is reproducible)."""

    seed: int
    dps: int
    samples: int
    claims: tuple
    seconds: float
    versions: dict = field(default_factory=package_versions)
    command: str = "theorem2"
    interrupted: bool = False  # Ctrl-C: claims not finished say INTERRUPTED
    scope: str = ""  # what was searched, in words, where the seed and samples do not say it (Assumption 2's sweep)

    def to_json(self):
        out = {
            "command": self.command,
            "seed": self.seed,
            "dps": self.dps,
            "samples": self.samples,
            "seconds": round(self.seconds, 3),
            "versions": self.versions,
            "claims": [c.to_json() for c in self.claims],
        }
        if any(c.expect is not None for c in self.claims):
            out["disagree_with_expect"] = [c.id for c in self.disagreements]
        if self.interrupted:
            out["interrupted"] = True
        return out

    @property
    def refuted(self):
        return [c for c in self.claims if c.verdict.kind is VerdictKind.REFUTED]

    @property
    def disagreements(self):
        """Results whose verdict contradicts their claim's `expect`."""
        return [c for c in self.claims if c.disagrees]

    @property
    def contradictions(self):
        return [c for c in self.claims if c.verdict.kind is VerdictKind.CONTRADICTION]


@dataclass(frozen=True)
class CheckResult:
    """A certificate check: confirmed or not, why, and the ball precision (bits) that decided it."""

    confirmed: bool
    reason: str
    bits: int

    @property
    def summary(self):
        precision = f"; {self.bits}-bit balls" if self.bits else ""
        return ("CONFIRMED" if self.confirmed else "NOT CONFIRMED") + f" ({self.reason}{precision})"
