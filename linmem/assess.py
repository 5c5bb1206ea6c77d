"""Assess a given (for example, learned) linear memory: measured residuals
beside the least-squares model, noise sensitivity, the least-squares and
consistency tests, the SVD key-value view and top-1 retrieval.

For a store ``W`` (p x d) with keys ``K`` (d x n) and intended values ``V``
(p x n), columns pairing up:

* ``residuals[j] = ||W k_j - v_j||^2``, measured for this ``W``;
* ``leverage[j] = h_j`` of ``K`` and ``expected_error[j] = 1 - h_j``: the
  *least-squares random-value model* (000, "Measure the strength of
  recall"): the expected error of ``V K^+`` over values that are
  independent, zero-mean and unit-norm. It is a model, not the error of
  these values; :attr:`Assessment.model` says so in every report;
* ``noise_gain = ||W||_F^2``: for any fixed ``W`` and zero-mean query noise
  of covariance ``tau^2 I``, ``E ||W (k_j + eta) - v_j||^2 = residuals[j] +
  tau^2 ||W||_F^2`` (000, App. G). With ``tau`` the assessment also
  *measures* it with Gaussian noise, beside that identity and the model's
  ``1 - h_j + tau^2 sum_l s_{K,l}^{-2}``;
* ``is_least_squares``: ``W`` equals ``V K^+`` under the project's rule
  (``||W - V K^+||_F <= CONSISTENCY_ULPS * max(p, d, n) * eps * ||V||_F *
  ||K^+||_2 * cond(K)``, the first-order perturbation bound of ``V K^+``,
  ``eps`` of the lowest input precision), with the distance;
* ``consistent``: ``ker K ⊆ ker V`` (some ``W`` fits every pair), with the
  size of the violation ``||V (I - P)||_F``;
* the SVD view of ``W`` (its singular values and rank ``r_W``, beside
  ``r_K``), and the top-1 retrieval rate among the supplied values
  (``v_i^T W k_i > v_j^T W k_i`` for all ``j != i``);
* ``scale`` and ``scaled_residuals``: the single factor ``a`` minimising
  ``sum_j ||a W k_j - v_j||^2`` and the residuals of ``a W`` (a retriever
  trained for top-1 is free in its overall scale).

Without ``K`` and ``V`` only the SVD view is given. Inputs are float
arrays (float16/float32 keep their precision for the least-squares test) or
mpmath object arrays (every figure then in mpmath, but the top-1 test and
the noise measurement, which run in float64). Memory stays ``O(n (d + p))``
at most, with no n x n matrix; for well-conditioned float keys, ``O(d^2 +
p d)`` beside the inputs (see :func:`assess`).

Source: 000, "What to assess in a learned store" (measure the residuals of a
particular matrix directly; ``1 - h_j`` is an expectation under the
least-squares random-value model).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any

import mpmath
import numpy as np

from linmem._validation import (
    EXACT,
    FLOAT,
    as_matrix,
    check_generator,
    check_memory,
    check_nonnegative_scalar,
    check_positive_int,
    check_representable,
    check_same_count,
    frobenius,
    frobenius_sq,
    number_kind,
)
from linmem.precise import to_float
from linmem.recall import CONSISTENCY_ULPS
from linmem.retrieval import top1_correct
from linmem.spectral import compact_svd
from linmem.tolerances import CONSTANT_SPREAD_TOL, rank_tolerance, working_eps

__all__ = ["Assessment", "FAILING_KEYS_SHOWN", "MODEL_LABEL", "NOISE_DRAWS", "assess", "noisy_error_curve"]

#: The label every report carries beside ``expected_error``.
MODEL_LABEL = (
    "least-squares random-value model: E ||V K^+ k_j - v_j||^2 = 1 - h_j over values that are "
    "independent, zero-mean and unit-norm (an expectation, not the measured error of these values)"
)

#: Noise draws per key for the measured noisy-query error (when tau is given).
NOISE_DRAWS = 64

#: Keys listed as failing: the largest residuals (``worst_keys``) and the
#: first top-1 failures (``top1_failures``), at most this many of each.
FAILING_KEYS_SHOWN = 20

#: Keys per block of the streamed noise measurement.
NOISE_CHUNK_KEYS = 4096

#: Keys per block of the streamed per-key figures of :func:`assess`.
ASSESS_CHUNK_KEYS = 4096

#: Guard of the streamed key factorisation: Z_K recomputed from K as
#: ``K^T U_K diag(1/s_K)`` is orthonormal to about ``eps cond(K) sqrt(d)``
#: (the forward error of that product), which puts about
#: ``eps cond(K) sqrt(d) ||V||_F`` into the consistency violation
#: ``||V (I - P)||_F``. It is used while that error is at most ``1 /
#: STREAMED_KEY_SAFETY`` of the consistency tolerance ``CONSISTENCY_ULPS
#: max(d, n) eps ||V||_F``, i.e. ``STREAMED_KEY_SAFETY cond(K) sqrt(d) <=
#: CONSISTENCY_ULPS max(d, n)``; keys beyond it fall back to one thin SVD of
#: K with Z_K kept (O(n d) float64 memory beside K).
STREAMED_KEY_SAFETY = 4

#: Scales max|K| and max|V| between which the top-1 scores need no rescaled
#: copies of K and V (the products then stay far inside float64's range).
MODERATE_SCALE = (1e-100, 1e100)


@dataclass(frozen=True, eq=False)
class Assessment:
    """What :func:`assess` measured. Arrays are per key (column of ``K``)
    unless named otherwise; fields that need ``K`` and ``V`` are ``None``
    without them, those that need ``tau`` are ``None`` without it."""

    shape: tuple[int, int]
    w_singular_values: np.ndarray
    w_rank: int
    noise_gain: float
    model: str = MODEL_LABEL
    n: int | None = None
    key_singular_values: np.ndarray | None = None
    key_rank: int | None = None
    residuals: np.ndarray | None = None
    value_norms_sq: np.ndarray | None = None
    leverage: np.ndarray | None = None
    expected_error: np.ndarray | None = None
    noise_gain_model: float | None = None
    scale: float | None = None
    scaled_residuals: np.ndarray | None = None
    least_squares_distance: float | None = None
    least_squares_tolerance: float | None = None
    is_least_squares: bool | None = None
    consistent: bool | None = None
    consistency_violation: float | None = None
    top1_correct: np.ndarray | None = None
    top1_rate: float | None = None
    tau: float | None = None
    noisy_error_measured: np.ndarray | None = None
    noisy_error_fixed: np.ndarray | None = None
    noisy_error_model: np.ndarray | None = None
    noise_draws: int | None = None
    worst_keys: np.ndarray | None = None
    top1_failures: np.ndarray | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict:
        """Every field under its own name, arrays as lists, non-finite
        numbers as strings (``"inf"``)."""

        def conv(x):
            if isinstance(x, np.ndarray):
                return [conv(e) for e in x.tolist()]
            if isinstance(x, (list, tuple)):
                return [conv(e) for e in x]
            if isinstance(x, (bool, np.bool_)):
                return bool(x)
            if isinstance(x, (int, np.integer)):
                return int(x)
            if isinstance(x, (float, np.floating, mpmath.mpf)):
                return float(x) if mpmath.isfinite(x) else str(float(x))
            return x

        return {f.name: conv(getattr(self, f.name)) for f in fields(self)}

    def model_gap(self) -> dict:
        """How the least-squares model describes the measured residuals of a
        float store assessed with its keys and values: ``gap`` = mean_j
        ``||a W k_j - v_j||^2`` (after the best scale ``a``) minus mean_j
        ``(1 - h_j)``; their ``correlation`` over keys (NaN when either is
        constant); ``top1_rate`` and ``scale``. A store that is ``V K^+`` on
        independent unit values has ``gap`` near 0 in expectation (000).

        >>> K = np.eye(2); V = np.array([[1.0, 0.0], [0.0, 1.0]])
        >>> assess(V @ np.linalg.pinv(K), K, V).model_gap()["gap"]
        0.0
        """
        if self.scaled_residuals is None:
            raise ValueError("model_gap needs an assessment made with the keys K and values V, got one of W alone")
        r, m = np.asarray(self.scaled_residuals, dtype=float), np.asarray(self.expected_error, dtype=float)
        defined = np.std(np.asarray(self.leverage, dtype=float)) > CONSTANT_SPREAD_TOL and np.std(r) > 0
        return {"gap": float(np.mean(r) - np.mean(m)), "mean_scaled_residual": float(np.mean(r)),
                "mean_model": float(np.mean(m)), "correlation": float(np.corrcoef(r, m)[0, 1]) if defined else math.nan,
                "top1_rate": self.top1_rate, "scale": float(self.scale)}

    def spectrum(self, *, top: int = 5, energy_top: int = 10) -> dict:
        """The SVD view of ``W``: its shape and rank, the ``top`` largest
        singular values, the condition ``s_1 / s_r`` over the nonzero ones,
        the participation ratio ``(sum s^2)^2 / sum s^4`` of the energies
        ``s^2``, the share of the energy in the ``energy_top`` largest
        (key ``top{energy_top}_energy_share``) and the noise gain ``||W||_F^2``.

        >>> assess(np.diag([2.0, 1.0])).spectrum(top=1)["participation_ratio"]
        1.4705882352941178
        """
        top = check_positive_int(top, "top")
        energy_top = check_positive_int(energy_top, "energy_top")
        s = np.asarray(self.w_singular_values, dtype=float)
        s = s[s > 0]
        lam = s * s
        total = float(lam.sum())
        return {"shape": list(self.shape), "rank": int(self.w_rank), "singular_values_top": s[:top].tolist(),
                "condition": float(s[0] / s[-1]) if s.size else math.inf,
                "participation_ratio": total**2 / float(np.sum(lam * lam)) if s.size else 0.0,
                f"top{energy_top}_energy_share": float(lam[:energy_top].sum()) / total if s.size else 0.0,
                "noise_gain": float(self.noise_gain)}


def _matrix(x: Any, name: str) -> tuple[np.ndarray, str, Any]:
    """``x`` as float64 (or an mpmath object array), its number system and
    the unit roundoff of its stored precision (float16/float32 inputs keep
    theirs). A 2-D float16/float32 array is validated but not copied: the
    assessment converts it to float64 block by block (a float64 copy of a
    checkpoint's keys would double their memory)."""
    dtype = getattr(x, "dtype", None)
    if (isinstance(x, np.ndarray) and x.dtype in (np.float16, np.float32) and x.ndim == 2 and x.size
            and _all_finite(x)):
        return x, FLOAT, float(np.finfo(x.dtype).eps)
    arr = as_matrix(x, name)
    kind = number_kind(arr)
    if kind == EXACT:
        raise TypeError(
            f"{name} must be a float array (or an mpmath one), got exact rationals; convert with "
            ".astype(float) or linmem.mp_array"
        )
    eps = working_eps(kind)
    if kind == FLOAT and dtype is not None and np.issubdtype(dtype, np.floating) and dtype.itemsize < 8:
        eps = float(np.finfo(dtype).eps)
    return arr, kind, eps


def _all_finite(x: np.ndarray) -> bool:
    """Every entry finite, checked over blocks of columns (no full-size mask)."""
    return all(bool(np.all(np.isfinite(x[:, lo:lo + ASSESS_CHUNK_KEYS])))
               for lo in range(0, x.shape[1], ASSESS_CHUNK_KEYS))


def _lean_max_abs(x: np.ndarray) -> float:
    """``max |x_ij|`` without the full-size temporary of ``np.abs(x)``."""
    return float(max(np.max(x), -np.min(x)))


def _streamed_key_factor(K: np.ndarray, t: float):
    """The singular values ``s`` (in units of ``t = max|K|``) and left
    singular vectors ``U`` (d x r) of ``K / t``, from the triangular factor of
    a QR of ``(K / t)^T`` built block by block (``R <- qr([R; K_c^T])``,
    O(n d^2) time, O(d^2) memory beside one block) and the SVD of ``R``:
    ``K^T = Q R``, ``R = A diag(s) B^T`` give ``K = B diag(s) (Q A)^T``, so
    ``U_K = B`` and ``Z_K = K^T U_K diag(1/s)`` is recomputed per block.
    Householder QR is backward stable, so ``s`` carries the errors of an
    SVD of ``K`` itself; the rank rule is :func:`compact_svd`'s."""
    n = K.shape[1]
    R = np.zeros((0, K.shape[0]))
    for lo in range(0, n, ASSESS_CHUNK_KEYS):
        Kc = np.true_divide(K[:, lo:lo + ASSESS_CHUNK_KEYS], t, dtype=np.float64)
        R = np.linalg.qr(np.concatenate([R, Kc.T]), mode="r")
    _, s, Bt = np.linalg.svd(R, full_matrices=False)
    tol = rank_tolerance(s[0], K.shape, FLOAT) if s.size and s[0] > 0 else math.inf
    r = int(np.count_nonzero(s > tol))
    return Bt[:r].T, s[:r], r


def _float_or_converted(x: Any, name: str) -> np.ndarray:
    """A float array for the noise measurement (mpmath ones converted to
    float64, float16/float32 ones kept as given)."""
    if isinstance(x, np.ndarray) and x.dtype == object:
        arr = as_matrix(x, name)
        return to_float(arr) if number_kind(arr) != FLOAT else arr
    arr, kind, _ = _matrix(x, name)
    return arr if kind == FLOAT else to_float(arr)


def _sq(x: np.ndarray):
    return np.sum(x * x)


def _num(x, kind: str):
    """A float for float inputs; an mpf kept for mpmath ones."""
    return float(x) if kind == FLOAT else mpmath.mpf(x)


def assess(
    W: Any,
    K: Any = None,
    V: Any = None,
    *,
    tau: float | None = None,
    rng: np.random.Generator | None = None,
    noise_draws: int = NOISE_DRAWS,
    top1: bool = True,
) -> Assessment:
    """Assess the store ``W`` (p x d), with its keys ``K`` (d x n) and
    intended values ``V`` (p x n) when given (see the module docstring for
    every figure). ``tau`` (>= 0) adds the noisy-query error measured with
    ``noise_draws`` Gaussian draws per key from ``rng``. ``top1=False``
    skips the top-1 test, the one part that costs ``O(n^2 p)``. Every other
    figure costs ``O(n d (d + p))`` time: float keys are factorised by a QR
    of ``K^T`` streamed over blocks of :data:`ASSESS_CHUNK_KEYS` keys and
    the SVD of its ``d x d`` factor, in ``O(d^2 + p d)`` memory beside one
    block (float16/float32 ``K`` and ``V`` are not copied); keys beyond the
    conditioning guard :data:`STREAMED_KEY_SAFETY`, and mpmath inputs, get
    one thin SVD of ``K`` with ``Z_K`` (n x r) kept.

    >>> K = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]); V = np.array([[1.0, 2.0, 0.0]])
    >>> a = assess(np.array([[1.0, 2.0]]), K, V)
    >>> a.residuals.tolist(), a.leverage.round(4).tolist(), a.is_least_squares
    ([0.0, 0.0, 9.0], [0.6667, 0.6667, 0.6667], False)
    >>> assess(V @ np.linalg.pinv(K), K, V).is_least_squares
    True
    """
    W, kind, eps = _matrix(W, "W")
    if kind == FLOAT:
        W = W.astype(np.float64)  # p x d, small beside K
    p, d = W.shape
    check_memory(p * d, 8, f"a copy of W ({p} x {d})")
    svd_w = compact_svd(W, name="W")
    if kind == FLOAT:
        gain = frobenius_sq(W)
        check_representable(gain, "||W||_F^2", "scale W by a positive factor", nonzero=bool(np.any(W != 0)))
    else:
        gain = _sq(W)
    base = dict(shape=(p, d), w_singular_values=svd_w.s, w_rank=svd_w.rank, noise_gain=_num(gain, kind))
    if (K is None) != (V is None):
        raise ValueError("K and V must be given together (keys and their intended values) or not at all, "
                         f"got K {'None' if K is None else 'given'} and V {'None' if V is None else 'given'}")
    if tau is not None:
        tau = float(check_nonnegative_scalar(tau, "tau"))
        if K is None:
            raise ValueError("tau needs the keys K and values V (the noisy-query error is measured at the keys)")
        rng = check_generator(rng)
        noise_draws = check_positive_int(noise_draws, "noise_draws")
    if K is None:
        return Assessment(**base, notes=("no keys and values: the SVD view of W only",))
    K, kind_k, eps_k = _matrix(K, "K")
    V, kind_v, eps_v = _matrix(V, "V")
    if len({kind, kind_k, kind_v}) != 1:
        raise TypeError(f"W, K and V must all be float or all mpmath, got {kind}, {kind_k} and {kind_v}")
    eps = max(eps, eps_k, eps_v)
    check_same_count(K, V, "K", "V")
    if W.shape != (V.shape[0], K.shape[0]):
        raise ValueError(
            f"W must have shape (rows of V, rows of K) = {(V.shape[0], K.shape[0])} to map keys to values, "
            f"got {W.shape}"
        )
    n = K.shape[1]
    check_memory(max(d, p) * n, 8, f"the {max(d, p)} x {n} recalls W K")
    sqrt = math.sqrt if kind == FLOAT else mpmath.sqrt
    # Float inputs are assessed in units of t = max|K| and c = max|V|: every
    # decision is invariant under positive scaling of K, V and W, and every
    # figure is unscaled at the end (or refused when float64 cannot hold it).
    t, c = (_lean_max_abs(K) or 1.0, _lean_max_abs(V) or 1.0) if kind == FLOAT else (1, 1)
    if kind == FLOAT:
        with np.errstate(over="ignore", under="ignore"):
            Wn = W * (t / c)
        check_representable(Wn, "W * max|K| / max|V| (W in the units of K and V)",
                            "W must map keys of size max|K| to values of size max|V| within float64's range")
    else:
        Wn = W
    blocks = [(lo, min(n, lo + ASSESS_CHUNK_KEYS)) for lo in range(0, n, ASSESS_CHUNK_KEYS)]

    def block(lo, hi):
        Kc, Vc = K[:, lo:hi], V[:, lo:hi]
        if kind == FLOAT:
            Kc, Vc = np.true_divide(Kc, t, dtype=np.float64), np.true_divide(Vc, c, dtype=np.float64)
        return Kc, Vc

    zero = 0 * Wn[0, 0]
    res, vns, hs, sres = [], [], [], []
    wkv = wkk = viol_sq = zero
    streamed = False
    if kind == FLOAT:
        # Float keys: the streamed QR factor of K (see _streamed_key_factor),
        # kept when cond(K) passes the guard of STREAMED_KEY_SAFETY; memory
        # is then O(d^2 + p d) beside blocks of ASSESS_CHUNK_KEYS keys.
        U, s_n, r = _streamed_key_factor(K, t)
        cond = float(s_n[0] / s_n[-1]) if r else 1.0
        streamed = STREAMED_KEY_SAFETY * cond * math.sqrt(d) <= CONSISTENCY_ULPS * max(d, n)
    if streamed:
        # Column sums of squares by einsum and in-place updates: a block's
        # temporaries stay a few p x ASSESS_CHUNK_KEYS arrays.
        Us = U / s_n
        VZ = np.zeros((p, r))
        for lo, hi in blocks:
            Kc, Vc = block(lo, hi)
            WKc = Wn @ Kc
            wkv, wkk = wkv + np.einsum("ij,ij->", WKc, Vc), wkk + np.einsum("ij,ij->", WKc, WKc)
            WKc -= Vc  # the residuals W k_j - v_j
            res.append(np.einsum("ij,ij->j", WKc, WKc))
            vns.append(np.einsum("ij,ij->j", Vc, Vc))
            Zc = Kc.T @ Us  # rows lo:hi of Z_K = K^T U_K diag(1/s_K)
            hs.append(np.einsum("ij,ij->i", Zc, Zc))
            VZ += Vc @ Zc
        scale = wkv / wkk if wkk > 0 else zero
        W_ls = (VZ / s_n) @ U.T  # V K^+ = (V Z / s) U^T, p x d
        both = np.concatenate([Wn, W_ls])
        for lo, hi in blocks:
            Kc, Vc = block(lo, hi)
            out_c = both @ Kc
            Rs, V_off = out_c[:p], out_c[p:]
            Rs *= scale
            Rs -= Vc
            sres.append(np.einsum("ij,ij->j", Rs, Rs))
            V_off -= Vc  # -V (I - P) = V K^+ K - V, block by block
            viol_sq = viol_sq + np.einsum("ij,ij->", V_off, V_off)
        with np.errstate(over="ignore"):
            key_s = s_n * t
        check_representable(key_s, "the singular values of the matrix",
                                "divide it by a positive factor (every figure scales with it)")
    else:
        # mpmath, or keys too ill-conditioned for Z_K recomputed from K: one
        # thin SVD of K (normalised inside compact_svd) with Z_K (n x r)
        # kept; the per-key figures are still streamed over blocks.
        if kind == FLOAT:
            K, V = np.asarray(K, dtype=np.float64), np.asarray(V, dtype=np.float64)
        svd_k = compact_svd(K, name="K")
        Z, r, U, key_s = svd_k.Z, svd_k.rank, svd_k.U, svd_k.s
        s_n = svd_k.s / t
        VZ = np.zeros((p, r)) if kind == FLOAT else np.full((p, r), zero, dtype=object)
        for lo, hi in blocks:
            Kc, Vc = block(lo, hi)
            WKc = Wn @ Kc
            Rc = WKc - Vc
            res.append(np.sum(Rc * Rc, axis=0))
            vns.append(np.sum(Vc * Vc, axis=0))
            Zc = Z[lo:hi]
            hs.append(np.sum(Zc * Zc, axis=1))
            wkv, wkk = wkv + np.sum(WKc * Vc), wkk + np.sum(WKc * WKc)
            if r:
                VZ = VZ + Vc @ Zc
        scale = wkv / wkk if wkk > 0 else zero
        for lo, hi in blocks:
            Kc, Vc = block(lo, hi)
            Rs = scale * (Wn @ Kc) - Vc
            sres.append(np.sum(Rs * Rs, axis=0))
            V_off = Vc - VZ @ Z[lo:hi].T if r else Vc  # V (I - P), block by block
            viol_sq = viol_sq + np.sum(V_off * V_off)
        W_ls = (VZ / s_n) @ U.T if r else 0 * Wn
    residuals_n, h = np.concatenate(res), np.concatenate(hs)
    value_norms_n = np.concatenate(vns)
    if r:
        kp_norm = s_n[0] / (s_n[-1] * s_n[-1])  # ||K^+||_2 cond(K)
        gain_model_n = np.sum(1 / (s_n * s_n))
    else:
        kp_norm, gain_model_n = zero, zero
    norm = frobenius if kind == FLOAT else (lambda x: sqrt(_sq(x)))
    dist_n = norm(Wn - W_ls)
    v_norm = sqrt(np.sum(value_norms_n))
    tol_n = CONSISTENCY_ULPS * max(p, d, n) * eps * v_norm * kp_norm
    violation_n = sqrt(viol_sq)
    consistent = bool(violation_n <= CONSISTENCY_ULPS * max(d, n) * working_eps(kind) * v_norm)
    scaled_n = np.concatenate(sres)
    if kind == FLOAT:
        with np.errstate(over="ignore", under="ignore"):
            fig = dict(residuals=residuals_n * c * c, value_norms_sq=value_norms_n * c * c,
                       scaled_residuals=scaled_n * c * c, key_singular_values=key_s, noise_gain_model=float(gain_model_n) / t / t,
                       least_squares_distance=dist_n * c / t, least_squares_tolerance=float(tol_n) * c / t,
                       consistency_violation=violation_n * c)
        nonzero = dict(residuals=residuals_n != 0, value_norms_sq=np.any(V != 0, axis=0),
                       consistency_violation=violation_n != 0)
        for what, x in fig.items():
            check_representable(x, f"the assessment's {what}", "scale K, V and W by factors that bring them "
                                "nearer 1 (decisions do not depend on the scale)", nonzero=nonzero.get(what))
    else:
        fig = dict(residuals=residuals_n, value_norms_sq=value_norms_n,
                   scaled_residuals=scaled_n, key_singular_values=key_s,
                   noise_gain_model=gain_model_n, least_squares_distance=dist_n,
                   least_squares_tolerance=tol_n, consistency_violation=violation_n)
    residuals = fig["residuals"]
    out = dict(
        base, n=n, key_rank=r, leverage=h, expected_error=1 - h,
        scale=_num(scale, kind), is_least_squares=bool(dist_n <= tol_n), consistent=consistent,
        **{k: (_num(v, kind) if np.ndim(v) == 0 else v) for k, v in fig.items()},
    )
    order = np.argsort(-np.asarray(to_float(residuals) if kind != FLOAT else residuals, dtype=float), kind="stable")
    out["worst_keys"] = order[:FAILING_KEYS_SHOWN]
    notes = []
    if not isinstance(top1, bool):
        raise TypeError(f"top1 must be True or False, got {type(top1).__name__} {top1!r}")
    if not top1:
        notes.append("top-1 retrieval not assessed (top1=False)")
    elif n >= 2:
        # Top-1 decisions are invariant under positive scaling of W, K and V:
        # scored in the units of K and V, by W / (t c) on K and V as given
        # while t and c are moderate, on copies of K / t and V / c otherwise.
        if kind != FLOAT:
            Wf, Kf, Vf = (to_float(x) for x in (Wn, K, V))
        elif all(MODERATE_SCALE[0] < x < MODERATE_SCALE[1] for x in (t, c)):
            Wf, Kf, Vf = Wn / (t * c), K, V
        else:
            Wf, Kf, Vf = Wn, K / t, V / c
        correct = top1_correct(Wf, Kf, Vf)
        out.update(top1_correct=correct, top1_rate=float(np.mean(correct)),
                   top1_failures=np.flatnonzero(~correct)[:FAILING_KEYS_SHOWN])
    else:
        notes.append("one pair: top-1 retrieval needs a competitor")
    if tau is not None:
        measured = noisy_error_curve(W, K, V, taus=[tau], rng=rng, noise_draws=noise_draws)[0]
        gain, res_f, h_f = float(out["noise_gain"]), to_float(residuals), to_float(h)
        out.update(tau=tau, noise_draws=noise_draws, noisy_error_measured=measured,
                   noisy_error_fixed=res_f + tau * tau * gain,
                   noisy_error_model=(1.0 - h_f) + tau * tau * float(out["noise_gain_model"]))
    return Assessment(**out, notes=tuple(notes))


def noisy_error_curve(W: Any, K: Any, V: Any, *, taus, rng: np.random.Generator,
                      noise_draws: int = NOISE_DRAWS) -> np.ndarray:
    """Measured noisy-query error ``||W (k_j + tau g) - v_j||^2`` averaged over
    ``noise_draws`` Gaussian ``g ~ N(0, I_d)`` per key, for every ``tau`` in
    ``taus`` from the same draws: an array ``(len(taus), n)``.

    ``W g`` has the law of ``U_W (s_W * xi)`` with ``xi ~ N(0, I_r)`` (the
    SVD of ``W``), so with ``C = U_W^T R`` (``R = W K - V``) each draw costs
    ``O(r n)``: ``||R_j + tau U_W (s xi_j)||^2 = ||R_j||^2 + 2 tau C_j . (s xi_j)
    + tau^2 ||s xi_j||^2``. Keys are streamed in blocks of
    :data:`NOISE_CHUNK_KEYS`. Its mean is ``||R_j||^2 + tau^2 ||W||_F^2``
    (000, App. G).

    >>> out = noisy_error_curve(np.eye(2), np.eye(2), np.eye(2), taus=[0.0, 1.0],
    ...                         rng=np.random.default_rng(0), noise_draws=4000)
    >>> out[0].tolist(), bool(np.all(np.abs(out[1] - 2.0) < 0.2))
    ([0.0, 0.0], True)
    """
    rng = check_generator(rng)
    noise_draws = check_positive_int(noise_draws, "noise_draws")
    taus = [float(check_nonnegative_scalar(x, "taus")) for x in np.atleast_1d(np.asarray(taus, dtype=object))]
    # float16/float32 K and V stay as given and are converted block by block
    W, K, V = (_float_or_converted(x, name) for x, name in ((W, "W"), (K, "K"), (V, "V")))
    W = W.astype(np.float64)
    check_same_count(K, V, "K", "V")
    if W.shape != (V.shape[0], K.shape[0]):
        raise ValueError(f"W must have shape (rows of V, rows of K) = {(V.shape[0], K.shape[0])}, got {W.shape}")
    svd = compact_svd(W, name="W")
    n = K.shape[1]
    out = np.zeros((len(taus), n))
    tv = np.asarray(taus)[:, None]
    for start in range(0, n, NOISE_CHUNK_KEYS):
        stop = min(n, start + NOISE_CHUNK_KEYS)
        R = W @ K[:, start:stop].astype(np.float64)
        R -= V[:, start:stop]
        base = np.sum(R * R, axis=0)
        C = svd.U.T @ R
        acc = np.zeros((len(taus), stop - start))
        for _ in range(noise_draws):
            E = svd.s[:, None] * rng.standard_normal((svd.rank, stop - start))
            acc += base + 2 * tv * np.sum(C * E, axis=0) + tv * tv * np.sum(E * E, axis=0)
        out[:, start:stop] = acc / noise_draws
    return out

