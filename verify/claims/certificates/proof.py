"""Proof certificates: what a PROVED (or proved-false) claim stores, and `check`'s independent re-check.

A proof certificate holds the claim (its text under its reading, its domain, the SHA-256 of both),
the facts used under the key `lemmas` (each with its id, text and source), and for every piece of the
n range and every part of the claim the facts that piece cites and its SMT-LIB2 query, with the two
solvers' versions. `check` accepts it only when every lemma is the package's fact with the same text
and applies on its piece, the pieces are exactly those the claim's domain cuts into, every query is
rebuilt identically from the claim text, the piece and its lemmas, and the piece is proved again: by
its algebraic certificate (verify.claims.prover.algebraic_check: an identity expanded exactly over QQ,
no solver involved) when it stores one, else by Z3 and cvc5 both answering unsat. A proof of the
claim's negation ("disproved") also stores a concrete case in its domain, where `check` decides the
claim with balls: it must fail there.

A proof citing a claim file's lemmas stores every lemma the claim could cite, in file order, each with its
n range, family and whether it was taken as given (`assumed`); `check` proves each lemma not taken as
given again, from the facts and the lemmas before it, and the verdict ("proved assuming a, b") must name
exactly the lemmas taken as given that the proof rests on, directly or through another lemma.
"""
import math

from verify.claims.cases.case import parse_case
from verify.claims.certificates import format as certificate_format
from verify.claims.certificates.stored_claim import certified_claim, in_domain
from verify.claims.prover import facts as library
from verify.claims.prover.pieces import NotEncodable, conjuncts, pieces
from verify.claims.prover.prove import facts_for, prove
from verify.claims.prover.smt import build_query
from verify.claims.prover.solvers import both_prove, proved_by_both, said, versions
from verify.claims.results import CheckResult
from verify.base.errors import InputError
from verify.claims.claimfile import MAX_CLAIMS
from verify.base.printable import shown

MAX_USER_LEMMAS = MAX_CLAIMS  # a claim file's lemmas a proof certificate may list (a file holds at most this many)


def proof_body(job, proof, case=None, algebras=(), assumptions=()):
    """The certificate of a proof (status proved or disproved) of a job's claim; `case`, for a disproof;
    `algebras`, each piece's algebraic certificate (verify.claims.prover.algebraic) or None; `assumptions`, the
    lemmas taken as given its Verdict rests on (written "proved assuming a, b" in the file)."""
    claim = job.claim
    lemmas = [{"id": f.id, "text": f.text, "source": f.source} for f in library.FACTS if f.id in proof.lemmas]
    taken = {i for i, roots in job.assumed if roots == (i,)}
    if any(i not in library.BY_ID for i in proof.lemmas):
        lemmas += [{"id": f.id, "text": f.text, "source": f.source, "n": _n_data(f.n_range), "hessian": f.family,
                    "assumed": f.id in taken} for f in job.lemmas]
    verdict = proof.status + (f" assuming {', '.join(assumptions)}" if assumptions else "")
    return certificate_format.body(
        "proof", claim=claim.id, reading=job.reading, statement=job.text, domain=claim.domain(job.reading),
        sha256=claim.digest(job.reading), verdict=verdict, lemmas=lemmas,
        pieces=[dict(p.piece.as_data(), part=p.part, lemmas=list(p.lemmas), query=p.query,
                     algebra=_algebra_data(algebras, i)) for i, p in enumerate(proof.pieces)],
        solvers=proof.versions, inputs=case.inputs() if case is not None else None)


def _algebra_data(algebras, index):
    algebra = algebras[index] if index < len(algebras) else None
    return algebra.as_data() if algebra is not None else None


def check_proof_certificate(data, where, claims_file=None):
    """Confirm a proof certificate (see the module docstring; its keys were checked by format.kind_of); InputError
    for a malformed one."""
    claim = certified_claim(data, where, claims_file)
    verdict, _, stated = str(data["verdict"]).partition(" assuming ")
    if verdict not in ("proved", "disproved"):
        raise InputError(f"{where} verdict is {shown(data['verdict'], 20)}; a proof certificate says proved or "
                         "disproved (assuming …)")
    tree = claim.reading_tree(data["reading"])
    problem = _lemmas_problem(data["lemmas"])
    if problem:
        return CheckResult(False, problem, 0)
    user, roots, problem = _user_lemmas(data["lemmas"], claims_file, where)
    if problem:
        return CheckResult(False, problem, 0)
    if verdict == "proved" and data["inputs"] is not None:
        return CheckResult(False, f"it proves the claim, yet stores the case {shown(data['inputs'], 60)}; a proof "
                                  "certificate's inputs are null (only a disproof stores a case)", 0)
    if verdict == "disproved":
        if data["inputs"] is None:
            raise InputError(f"{where} proves the claim false but holds no case; a disproof stores one in its domain")
        case = parse_case(data["inputs"], where=f"{where} inputs")
        in_domain(case, claim, where)
        problem = witness_problem(tree, case)
        if problem:
            return CheckResult(False, problem, 0)
    parts = conjuncts(tree) if verdict == "proved" else [tree]
    try:
        expected = [(piece, number) for piece in pieces(tree, claim.n_range) for number in range(len(parts))]
    except NotEncodable as reason:
        return CheckResult(False, f"the claim cannot be encoded: {reason}", 0)
    stored = data["pieces"]
    if not isinstance(stored, list):
        return CheckResult(False, f"its pieces are {shown(stored, 40)}, not a list of the pieces and parts the claim's "
                                  f"domain cuts into ({len(expected)})", 0)
    if len(stored) != len(expected):
        return CheckResult(False, f"the claim's domain cuts into {len(expected)} piece(s) and part(s), not {len(stored)}", 0)
    algebraic = 0
    for (piece, number), record in zip(expected, stored):
        result = _check_piece(record, piece, number, parts, claim.hessian, verdict, data["lemmas"], where, user)
        if isinstance(result, CheckResult):
            return result
        algebraic += result == ALGEBRAIC
    cited = [i for record in stored for i in record["lemmas"]]
    resting = tuple(dict.fromkeys(r for i in cited for r in roots.get(i, ())))
    if stated != ", ".join(resting):
        return CheckResult(False, f"the verdict says assuming {shown(stated or 'nothing', 200)}, but the proof rests on "
                                  f"{', '.join(resting) or 'no assumed lemma'}", 0)
    witness = "; the balls show it fails at its stored case" if verdict == "disproved" else ""
    assuming = f", assuming {', '.join(resting)} (taken as given, not proved)" if resting else ""
    said = _confirmed(len(stored), algebraic, len(data["lemmas"]), data["solvers"], verdict)
    return CheckResult(True, said + assuming + witness, 0)


ALGEBRAIC = "algebraic identity"


def _confirmed(count, algebraic, lemmas, named, verdict):
    """What `check` confirmed: identities checked exactly, and (for the other pieces) the solvers' answers now,
    with the versions the certificate names when they differ."""
    said = f"{count} quer{'y' if count == 1 else 'ies'} rebuilt from the claim and {lemmas} cited facts; "
    if algebraic:
        said += f"{algebraic} piece(s) proved by an algebraic identity that holds exactly over QQ; "
    if algebraic < count:
        solvers = versions()
        named = named if isinstance(named, dict) else {}
        recorded = "" if named == solvers else (f" (the certificate names Z3 {shown(named.get('z3'), 20)} and cvc5 "
                                               f"{shown(named.get('cvc5'), 20)})")
        said += f"Z3 {solvers['z3']} and cvc5 {solvers['cvc5']} both answer unsat now on the other {count - algebraic}" \
                f"{recorded}; "
    return said + f"the claim is {verdict} on its domain"


def witness_problem(tree, case, dps=30):
    """None when the balls show the claim fails at a disproof's stored case, else why not (a claim proved
    false everywhere must fail at every case of its domain, this one included)."""
    from verify.claims.certificates.counterexample import decide_rigorously
    from verify.claims.language.outcome import FAILS

    outcome, _, _ = decide_rigorously(tree, case, dps)
    if outcome.status == FAILS:
        return None
    if outcome.decided:
        return "the claim holds rigorously at the disproof's own case, so it is not false everywhere"
    return "the balls could not show the claim fails at the disproof's own case"


def _n_data(n_range):
    lo, hi = n_range
    return [lo, None if hi == math.inf else int(hi)]


def _user_lemmas(lemmas, claims_file, where):
    """(Facts, {id: assumed lemmas it rests on}, problem): the claim file's lemmas a certificate lists, each not
    taken as given proved again from the facts and the lemmas before it (and, given the claim file, the same)."""
    from verify.claims.claimfile import claim_from_fields

    stated = {c.id: c for c in _file_lemmas(claims_file)} if claims_file is not None else None
    facts, roots = [], {}
    for entry in (l for l in lemmas if "assumed" in l):
        if entry["id"] in library.BY_ID:  # (a claim file cannot name a lemma so either)
            return facts, roots, f"lemma {shown(entry['id'], 200)} is listed as the claim file's, but it is a library fact's id"
        fields = {"id": entry["id"], "holds": entry["text"], "n": [entry["n"][0], entry["n"][1] or math.inf],
                  "hessian": entry["hessian"], "source": entry["source"], "assume": entry["assumed"]}
        lemma = claim_from_fields(fields, f"{where} lemma", lemma=True)
        if stated is not None and (lemma.id not in stated or (stated[lemma.id].text, stated[lemma.id].n_range,
                                   stated[lemma.id].hessian) != (lemma.text, lemma.n_range, lemma.hessian) or
                                   lemma.assume and not stated[lemma.id].assume):  # (one the file lets be assumed
            # may have been proved: `assume = true` permits taking it as given, the certificate says whether it was)
            return facts, roots, f"lemma {shown(lemma.id, 200)} is not the claim file's lemma of that id"
        if lemma.assume:
            roots[lemma.id] = (lemma.id,)
        else:  # as the decision proves it: from what rests on no assumption first (decide.least_assumption_proof)
            plain = tuple(f for f in facts if f.id not in roots)
            proof = prove(lemma.tree, lemma.n_range, lemma.hessian, plain)
            if proof.status != "proved" and len(plain) < len(facts):
                proof = prove(lemma.tree, lemma.n_range, lemma.hessian, tuple(facts))
            if proof.status != "proved":
                return facts, roots, f"lemma {shown(lemma.id, 200)} is not proved again from the facts and the lemmas before it"
            rest = tuple(dict.fromkeys(r for i in proof.lemmas for r in roots.get(i, ())))
            if rest:
                roots[lemma.id] = rest
        facts.append(lemma.as_fact())
    return tuple(facts), roots, None


def _file_lemmas(claims_file):
    from verify.claims.claimfile import load_claims

    return [c for c in load_claims(claims_file) if c.lemma]


def _lemmas_problem(lemmas):
    """Why the certificate's list of lemmas is malformed, or None. Its size is bounded before anything is read: at
    most the library's facts and MAX_USER_LEMMAS of a claim file's, each id once."""
    if isinstance(lemmas, list) and len(lemmas) > len(library.FACTS) + MAX_USER_LEMMAS:
        return (f"the certificate lists {len(lemmas):,} lemmas; a proof cites at most the library's {len(library.FACTS)} "
                f"facts and {MAX_USER_LEMMAS} of a claim file's lemmas")
    if not isinstance(lemmas, list) or not all(isinstance(l, dict) and (set(l) == {"id", "text", "source"} and
                                               all(isinstance(v, str) for v in l.values()) or _user_entry(l))
                                               for l in lemmas):
        return "lemmas must be a list of {id, text, source} strings (and, for a claim file's lemma, n, hessian, assumed)"
    ids = [l["id"] for l in lemmas]
    if len(set(ids)) != len(ids):
        return f"the lemma {shown(next(i for i in ids if ids.count(i) > 1), 40)} is listed twice"
    if sum("assumed" in l for l in lemmas) > MAX_USER_LEMMAS:
        return f"the certificate lists more than {MAX_USER_LEMMAS} lemmas of a claim file (a claim file holds at most that)"
    for lemma in (l for l in lemmas if "assumed" not in l):
        fact = library.BY_ID.get(lemma["id"])
        if fact is None:
            return f"lemma {shown(lemma['id'], 40)} is not a fact of the package's library"
        if lemma["text"] != fact.text or lemma["source"] != fact.source:
            return f"lemma {fact.id} differs from the library's fact {fact.id} ({shown(fact.text, 200)})"
    return None


def _user_entry(entry):
    """A claim file's lemma as a certificate lists it: id, text, source, n = [lo, hi or null], hessian, assumed."""
    n = entry.get("n")
    return set(entry) == {"id", "text", "source", "n", "hessian", "assumed"} and \
        all(isinstance(entry[k], str) for k in ("id", "text", "source", "hessian")) and \
        isinstance(entry["assumed"], bool) and isinstance(n, list) and len(n) == 2 and \
        all(isinstance(v, int) and not isinstance(v, bool) for v in n[:1] + ([n[1]] if n[1] is not None else []))


def _check_piece(record, piece, number, parts, family, verdict, lemmas, where, user=()):
    """ALGEBRAIC when the stored piece is the expected one, rebuilt identically, and its algebraic certificate
    holds; None when instead both solvers answer unsat; else a failing CheckResult."""
    if not isinstance(record, dict) or set(record) - {"algebra"} != {"n", "part", "lemmas", "query"} or \
            dict(piece.as_data(), part=number) != {"n": record["n"], "part": record["part"]}:
        return CheckResult(False, f"the pieces are not the ones the claim's domain cuts into (expected {piece.label}, "
                                  f"part {number + 1})", 0)
    ids = record["lemmas"]
    cited = {l["id"] for l in lemmas}
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids) or not set(ids) <= cited:
        return CheckResult(False, f"at {piece.label}: the piece cites facts that are not among the lemmas", 0)
    allowed = {f.id for f in facts_for(piece, family, extra=user)}
    if not set(ids) <= allowed:
        return CheckResult(False, f"at {piece.label}: a lemma does not apply there ({sorted(set(ids) - allowed)})", 0)
    try:
        query = build_query(parts[number], piece, [f for f in library.FACTS + tuple(user) if f.id in ids],
                            negate=verdict == "proved")
    except NotEncodable as reason:
        return CheckResult(False, f"at {piece.label}: the query cannot be rebuilt from the claim and its lemmas: {reason}", 0)
    if query.text != record["query"]:
        return CheckResult(False, f"at {piece.label}: the stored query is not the one rebuilt from the claim and its lemmas", 0)
    if record.get("algebra") is not None:
        problem = _algebra_problem(record["algebra"], parts[number], piece, [f for f in library.FACTS + tuple(user)
                                                                              if f.id in ids], verdict)
        if problem:
            return CheckResult(False, f"at {piece.label}, part {number + 1}: the algebraic certificate fails: {problem}", 0)
        return ALGEBRAIC
    answers = both_prove(query.text)
    if not proved_by_both(answers):
        return CheckResult(False, f"at {piece.label}: {said(answers)}; both must answer unsat", 0)
    return None


def _algebra_problem(data, part, piece, facts, verdict):
    """None when the stored identity proves the part at the piece from the piece's cited facts exactly."""
    from verify.claims.prover.algebraic_check import algebra_from_data, check_algebra

    if verdict != "proved":
        return "only a proof of the claim itself carries one"
    try:
        algebra = algebra_from_data(data)
    except ValueError as problem:
        return str(problem)
    return check_algebra(algebra, part, piece, facts)



