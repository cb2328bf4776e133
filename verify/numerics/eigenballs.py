"""Every eigenvalue of a symmetric matrix (or symmetric-definite pencil) as Arb balls, clusters included.

For an exact symmetric M (contained in an arb_mat of balls), N symmetric positive definite (N = I
for a standard problem), and ANY real matrix X of points:
- congruence: the pencil (M, N) has the eigenvalues of (XᵀMX, XᵀNX) when X is nonsingular;
- S = XᵀNX = I + F with ‖F‖₂ ≤ ‖F‖_F ≤ δ < 1 (which also proves X nonsingular);
- Weyl: G = XᵀMX = D + E with D block diagonal (blocks: any partition of the indices into clusters)
  has each eigenvalue within ‖E‖₂ ≤ ‖E‖_F = η of D's; a block's eigenvalues lie within the Frobenius
  norm r_c of its off-diagonal part of its diagonal entries g_i; so (order statistics are monotone)
  the k-th smallest eigenvalue of G lies in [k-th smallest of g_i − r_i − η, k-th smallest of g_i + r_i + η];
- Ostrowski (Horn & Johnson 4.5.9) with W = S^{-1/2}: the k-th eigenvalue of the pencil is θ_k times
  the k-th of G, θ_k ∈ [1/(1+δ), 1/(1−δ)].
G and S are computed in Arb from M's balls, so every bound holds for the exact matrix; rigour never
depends on X or on the partition, only the width does. The clusters are the connected components of
the couplings |G_ij| above 2^(8−prec)·max|g|, so a well-separated eigenvalue is a cluster of its own
and is enclosed to about 2^-prec·‖M‖ however its neighbours cluster. X comes from float64 `eigh` of
M's scaled midpoint, refined at the context precision by Ogita–Aishima steps (JJIAM 35, 2018:
quadratic convergence; exactly repeated eigenvalues are handled by orthonormalising within the
cluster); when a wanted eigenvalue sits in a cluster of near-equal (not equal) eigenvalues that these
steps cannot split, X is recomputed by Arb's approximate QR eigensolver at the context precision.
The error is about 2^-prec·‖M‖, absolute: relative for the eigenvalue of largest magnitude, which is
how callers use it (λ_min of J H J on T comes as 1/λ_max of its inverse).
"""
import flint
import numpy as np

MAX_STEPS = 16  # Ogita–Aishima steps at most (each doubles the correct bits of a separated pair)
FLOOR_BITS = 8  # couplings below 2^(FLOOR_BITS − prec)·max|g| count as resolved
ORTHONORMAL_PASSES = 8  # second-order Gram–Schmidt passes at most (each squares the orthogonality error)
BAND_BITS = 45  # a split cluster's members this far below its largest are split again at their own scale
MAX_BANDS = 16  # bands of magnitude split in turn within one cluster, at most
SPLIT_ROUNDS = 4  # rounds of cluster splitting at most (each resolves about 50 more bits of relative spread)


def symmetric_eigenvalue_balls(M, N=None, wanted=None):
    """Balls around the eigenvalues of the exact symmetric matrix in the arb_mat M (of the pencil M x = λ N x
    when N, symmetric positive definite, is given), INCREASING: the k-th ball contains the k-th smallest
    eigenvalue, multiplicities and clusters included. `wanted`: the positions (in increasing order) whose
    clusters of near-equal eigenvalues are worth Arb's slower QR solver to split (default: all). None when
    no enclosure is possible at this precision (non-finite entries, or ‖XᵀNX − I‖ not below 1)."""
    n = M.nrows()
    if not all(M[i, j].is_finite() for i in range(n) for j in range(n)):
        return None
    if N is None and n <= 2:
        return _closed_form(M)
    shift_M, A = _scaled_mid(M)
    shift_N, B = (0, None) if N is None else _scaled_mid(N)
    M_s = M * flint.arb(2) ** -shift_M
    N_s = None if N is None else N * flint.arb(2) ** -shift_N
    wanted = set(range(n) if wanted is None else wanted)
    X = _orthonormal(A, B, _refined_vectors(A, B, flint.arb_mat(_start(A, B).tolist()), wanted))
    values, unresolved = _enclose(M_s, N_s, X)
    before = None
    for _ in range(SPLIT_ROUNDS):
        clusters = [columns for columns, positions in unresolved if positions & wanted]
        if values is None or not clusters or clusters == before:  # (the same clusters again: a round changed
            break  # nothing this precision can tell, and more rounds would not either)
        before = clusters
        for columns in clusters:
            X = _split(A, X, columns)
        X = _orthonormal(A, B, _refined_vectors(A, B, X, wanted))  # split clusters no longer stall the refinement
        values, unresolved = _enclose(M_s, N_s, X)
    if values is None:
        return None
    scale = flint.arb(2) ** (shift_M - shift_N)
    return [v * scale for v in values]


def _closed_form(M):
    """A 1×1 or 2×2 symmetric matrix's eigenvalues in Arb directly: m ± h with m the mean of the diagonal and
    h = √(((a − d)/2)² + b²); the one of larger magnitude as m ± h (no cancellation), the other as det/that."""
    if M.nrows() == 1:
        return [M[0, 0]]
    a, d = M[0, 0], M[1, 1]
    b = M[0, 1] if not M[0, 1].overlaps(M[1, 0]) else M[0, 1].intersection(M[1, 0])
    m, h = (a + d) / 2, (((a - d) / 2) ** 2 + b * b).sqrt()
    determinant = a * d - b * b
    if m.mid() >= 0:
        large = m + h
        return [determinant / large, large]
    large = m - h
    return [large, determinant / large]


def _scaled_mid(M):
    """(k, A): 2^k ≥ max |mid(M_ij)| and A = M's midpoints times 2^-k (an arb_mat of exact points)."""
    n = M.nrows()
    largest = max((abs(M[i, j].mid()) for i in range(n) for j in range(n)), key=lambda a: a.mid())
    shift = 0
    if largest != 0:
        man, exp = largest.mid().man_exp()
        shift = int(exp) + int(man).bit_length()
    return shift, (M * flint.arb(2) ** -shift).mid()


def _floats(A):
    out = np.array([[float(A[i, j]) for j in range(A.ncols())] for i in range(A.nrows())])
    return (out + out.T) / 2


def _start(A, B):
    """Float64 eigenvectors of A (N-orthonormal for the pencil with B, through B's Cholesky factor)."""
    A_f = _floats(A)
    if B is not None:
        try:
            L = np.linalg.cholesky(_floats(B))
            C = np.linalg.solve(L, np.linalg.solve(L, A_f).T).T
            return np.linalg.solve(L.T, np.linalg.eigh((C + C.T) / 2)[1])
        except np.linalg.LinAlgError:
            pass
    return np.linalg.eigh(A_f)[1]


def _refined_vectors(A, B, X, wanted=None):
    """Approximate eigenvectors of the midpoint pencil (A, B) to about the context precision, as an arb_mat of
    points: Ogita–Aishima steps from the points X until the residual of the wanted positions' columns reaches
    the precision (the others may stay less accurate: their couplings only cluster them among themselves). The
    residual is not monotone in a graded matrix (a pair of eigenvalues that the working separation newly
    splits takes a large step), so the steps go on; the last X is kept unless the iteration left its basin."""
    n = A.nrows()
    tolerance = flint.arb(2) ** (FLOOR_BITS - flint.ctx.prec)
    best = (None, X)
    for _ in range(MAX_STEPS if n > 1 else 0):
        S = X.transpose() * A * X
        S = ((S + S.transpose()) / 2).mid()  # exactly symmetric: E_ij + E_ji = R_ij needs S_ij = S_ji
        R = _identity(n) - X.transpose() * (X if B is None else B * X)
        R = ((R + R.transpose()) / 2).mid()
        correction, residual = _ogita_aishima(S, R, wanted)
        if best[0] is None or residual < best[0]:
            best = (residual, X)
        if residual <= tolerance:
            return X
        if not residual < 1:
            return best[1]
        X = (X + X * correction).mid()
    return X


def _ogita_aishima(S, R, wanted=None):
    """One refinement step's correction E (X ← X + XE) and the residual of the wanted positions (all when None):
    the largest (‖column j of S over separated pairs‖ + ‖S‖‖column j of R‖)/‖S‖ over their columns (Ogita–Aishima,
    Algorithm 1; inside a cluster of estimates closer than the separation, E = R/2, and those couplings are left
    to `_split`). Elementwise work runs on numpy arrays of balls."""
    n = S.nrows()
    S_, R_ = _grid(S), _grid(R)
    estimates = np.array([(S_[i, i] / (1 - R_[i, i])).mid() for i in range(n)], dtype=object)
    norm = max((abs(v) for v in estimates), key=lambda a: a.mid())
    if norm == 0:
        norm = flint.arb(1)
    squares, R_squares = S_ * S_, R_ * R_
    np.fill_diagonal(squares, 0)
    size_R = flint.arb(R_squares.sum()).sqrt()
    separation = (2 * (flint.arb(squares.sum()).sqrt() + norm * size_R)).mid()
    gaps = estimates[None, :] - estimates[:, None]
    separated = np.asarray(np.abs(gaps) > separation, dtype=bool)  # never on the diagonal (gap 0)
    E = R_ / 2
    E[separated] = (S_[separated] + np.broadcast_to(estimates, (n, n))[separated] * R_[separated]) / gaps[separated]
    order = sorted(range(n), key=lambda i: estimates[i].mid())
    columns = list(range(n)) if wanted is None else [order[k] for k in wanted]
    coupling = np.where(separated, squares, 0)[:, columns].sum(axis=0)
    residual = max((flint.arb(c).sqrt() + norm * flint.arb(r).sqrt()
                    for c, r in zip(coupling, R_squares[:, columns].sum(axis=0))), key=lambda a: a.mid())
    return flint.arb_mat(n, n, E.ravel().tolist()).mid(), residual / norm


def _grid(M):
    """An arb_mat's entries as an n × m numpy array of balls (elementwise arithmetic in C loops)."""
    return np.array(M.entries(), dtype=object).reshape(M.nrows(), M.ncols())


def _orthonormal(A, B, X):
    """X's columns made (N-)orthonormal to second order, as Gram–Schmidt would in the order of decreasing |eigenvalue|:
    X ← X(I + U), U the strictly upper part of R = I − XᵀNX in that order plus diag(R)/2 (then XᵀNX = I + O(R²)).
    Ostrowski's factor θ then costs about 2^-prec for every eigenvalue instead of the orthogonality error of the
    least determined vectors (eigenvalues close in absolute terms), and the columns of the large eigenvalues are
    only rescaled, never mixed with the others. A pass squares ‖R‖: the columns the refinement left at float64's
    accuracy (R ≈ 1e-13) need several, or Ostrowski's θ costs every eigenvalue ‖R‖² relative (26 digits)."""
    n = X.nrows()
    G = X.transpose() * A * X
    rank = {j: k for k, j in enumerate(sorted(range(n), key=lambda j: abs(G[j, j]).mid(), reverse=True))}
    tolerance = flint.arb(2) ** (FLOOR_BITS - flint.ctx.prec)
    for _ in range(ORTHONORMAL_PASSES):
        R = (_identity(n) - X.transpose() * (X if B is None else B * X)).mid()
        if frobenius_upper(R) <= tolerance:
            break
        U = flint.arb_mat(n, n)
        for i in range(n):
            for j in range(n):
                if rank[i] < rank[j]:
                    U[i, j] = R[i, j]
                elif i == j:
                    U[i, j] = R[i, i] / 2
        X = (X + X * U).mid()
    return X


def _split(A, X, columns, depth=0):
    """X with the cluster's columns rotated by the eigenvectors of X_cᵀAX_c: shifted by its mean diagonal and
    scaled by its largest remaining entry, that small problem's eigenvalues are well separated at its own scale.
    (For a pencil X_c is N-orthonormal, so the cluster's pencil is (X_cᵀAX_c, I) to the working precision.)"""
    k = len(columns)
    X_c = flint.arb_mat([[X[i, j] for j in columns] for i in range(X.nrows())])
    S = X_c.transpose() * A * X_c
    S = ((S + S.transpose()) / 2).mid()
    mean = sum((S[i, i] for i in range(k)), flint.arb(0)) / k
    shifted = S - _identity(k) * mean
    shift, T = _scaled_mid(shifted)
    V = _refined_vectors(T, None, flint.arb_mat(_start(T, None).tolist()), None)
    rotated = (X_c * V).mid()
    X = flint.arb_mat(X)
    for position, j in enumerate(columns):
        for i in range(X.nrows()):
            X[i, j] = rotated[i, position]
    return _split_small(A, X, columns, depth)


def _split_small(A, X, columns, depth):
    """X with the split cluster's smallest members split again at their own scale: the float64 start of the
    cluster saw those below 2^-BAND_BITS of its largest as 0 (a graded matrix's λ = 1/4, 4e-18, 2e-31, 1e-31 kept
    balls ±1e-17 wide at any precision)."""
    if depth >= MAX_BANDS:
        return X
    X_c = flint.arb_mat([[X[i, j] for j in columns] for i in range(X.nrows())])
    estimates = [abs(v) for v in _diagonal(X_c.transpose() * A * X_c)]
    top = max(estimates, key=lambda a: a.mid())
    floor = top * flint.arb(2) ** (FLOOR_BITS - flint.ctx.prec)  # below it, no rotation resolves them at this precision
    small = [j for j, v in zip(columns, estimates) if floor < v < top * flint.arb(2) ** -BAND_BITS]
    return _split(A, X, small, depth + 1) if len(small) > 1 else X


def _diagonal(M):
    return [M[i, i].mid() for i in range(M.nrows())]


def _enclose(M, N, X):
    """(balls, unresolved): the Weyl–Ostrowski balls of the module docstring, increasing, from the points X
    (None if δ ≥ 1), and for each cluster whose midpoints' own spread is above the resolution floor (what a
    rotation of its columns can reduce; the balls' radii it cannot), its columns of X and its positions in
    increasing order."""
    n = M.nrows()
    S = X.transpose() * (X if N is None else N * X)
    G = X.transpose() * M * X
    delta = frobenius_upper(S - _identity(n))
    if not delta < 1 or not all(G[i, j].is_finite() for i in range(n) for j in range(n)):
        return None, []
    g = [G[i, i].mid() for i in range(n)]
    floor = max((abs(v) for v in g), key=lambda a: a.mid()) * flint.arb(2) ** (FLOOR_BITS - flint.ctx.prec)
    clusters = _clusters(G, floor)
    member = {i: c for c, cluster in enumerate(clusters) for i in cluster}
    within, between = [flint.arb(0)] * len(clusters), flint.arb(0)
    movable = [flint.arb(0)] * len(clusters)
    for i in range(n):
        for j in range(n):
            bound = (G[i, j] - (g[i] if i == j else 0)).abs_upper()
            if member[i] == member[j] and i != j:
                within[member[i]] += bound * bound
                movable[member[i]] += G[i, j].mid() ** 2
            else:
                between += bound * bound
    spread = [flint.arb(w.upper()).sqrt().upper() for w in within]
    eta = flint.arb(between.upper()).sqrt().upper()
    lows = sorted((g[i] - spread[member[i]] for i in range(n)), key=lambda a: a.mid())
    highs = sorted((g[i] + spread[member[i]] for i in range(n)), key=lambda a: a.mid())
    theta = (1 / (1 + delta)).union(1 / (1 - delta))
    balls = [(lo - eta).union(hi + eta) * theta for lo, hi in zip(lows, highs)]
    order = sorted(range(n), key=lambda i: g[i].mid())
    position = {i: k for k, i in enumerate(order)}
    unresolved = [(cluster, {position[i] for i in cluster}) for c, cluster in enumerate(clusters)
                  if len(cluster) > 1 and movable[c] > floor * floor]
    return balls, unresolved


def _clusters(G, floor):
    """Connected components of the graph with an edge wherever |mid(G_ij)| exceeds `floor` (transitive closure
    of the adjacency by repeated boolean squaring). Any partition keeps the balls rigorous; this one isolates
    every eigenvalue the vectors resolve."""
    n = G.nrows()
    reach = np.array([[i == j or abs(G[i, j].mid()) > floor for j in range(n)] for i in range(n)])
    while True:
        wider = (reach.astype(np.int64) @ reach.astype(np.int64)) > 0
        if (wider == reach).all():
            break
        reach = wider
    labels = np.unique(reach, axis=0, return_inverse=True)[1].ravel()
    return [list(np.flatnonzero(labels == label)) for label in range(labels.max() + 1)]


def frobenius_upper(E):
    """An exact upper bound (a point ball) of ‖E‖_F for every matrix in the arb_mat E."""
    total = flint.arb(0)
    for i in range(E.nrows()):
        for j in range(E.ncols()):
            bound = E[i, j].abs_upper()
            total += bound * bound
    return flint.arb(total.upper()).sqrt().upper()


def _identity(n):
    eye = flint.arb_mat(n, n)
    for i in range(n):
        eye[i, i] = 1
    return eye
