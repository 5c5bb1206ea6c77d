"""``theorems assess``: assess a given matrix from a file.

    theorems assess W.npy [--keys K.npy] [--values V.npy] [--tensor NAME] [--tau T] --out DIR

Reads ``.npy``, ``.npz`` and ``.safetensors`` (``--tensor`` chooses the
tensor of ``W`` by name; ``--keys-tensor`` / ``--values-tensor`` those of the
key and value files), runs :func:`linmem.assess` and writes
``DIR/assessment.json`` (the fields of ``Assessment.to_json()`` under the same
names, plus ``inputs``) and ``DIR/assessment.html``, replaced together as one
set (:func:`theorems.reporting.folder.replace_set`, as ``verify`` replaces its
reports: a kill or Ctrl-C leaves the old pair or the new one, never a mix) (self-contained: inline
SVG plots of the residuals against ``1 - h_j``, the leverage histogram, the
singular spectra of W and K and the noise curve). Exits 2 with one line on
an unreadable or mismatched file.
"""

from __future__ import annotations

import argparse
import contextlib
import html
import io
import json
import math
import sys
from pathlib import Path

import numpy as np

__all__ = ["add_parser", "run"]

#: Noise levels of the noise curve, as multiples of --tau (or absolute when no --tau).
NOISE_CURVE = (0.0, 0.25, 0.5, 1.0, 1.5, 2.0)

#: Seed of the noise draws (the assessment is reproducible).
NOISE_SEED = 0


def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``assess`` subcommand to an ``argparse`` subparsers object."""
    sp = sub.add_parser(
        "assess", help="assess a given matrix W (residuals, leverage, noise gain, SVD view, top-1)",
        description="Assess a matrix W (p x d) as a linear memory, with its keys K (d x n) and intended "
                    "values V (p x n) when given. Reads .npy, .npz and .safetensors.")
    sp.add_argument("W", metavar="W_FILE", help="the matrix (.npy, .npz or .safetensors)")
    sp.add_argument("--tensor", metavar="NAME", help="tensor of W_FILE to read (for .npz/.safetensors)")
    sp.add_argument("--keys", metavar="K_FILE", help="keys K, d x n (columns are keys)")
    sp.add_argument("--keys-tensor", metavar="NAME", help="tensor of K_FILE to read")
    sp.add_argument("--values", metavar="V_FILE", help="intended values V, p x n")
    sp.add_argument("--values-tensor", metavar="NAME", help="tensor of V_FILE to read")
    sp.add_argument("--max-bytes", type=_max_bytes, default=None, metavar="N",
                    help="largest array read, in bytes, as a file's header declares it (default 1 GiB); "
                         "a larger one is refused before anything is allocated")
    sp.add_argument("--tau", type=_tau, metavar="T", help="query-noise level: measure the noisy-query error")
    sp.add_argument("--out", required=True, metavar="DIR", help="folder for assessment.json and assessment.html")
    sp.set_defaults(func=run)
    return sp


def _max_bytes(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of bytes >= 1, got {text[:40]!r}") from None
    if not 1 <= value <= 2**62:
        raise argparse.ArgumentTypeError(f"must be a whole number of bytes in 1 .. 2**62, got {text[:40]}")
    return value


def _tau(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text!r}") from None
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text}")
    return value


#: The first bytes of the formats numpy reads (a file named so that lacks
#: them is not that format, whatever numpy's own message guesses).
_MAGIC = {".npy": (b"\x93NUMPY", "a .npy file starts with \\x93NUMPY"),
          ".npz": (b"PK\x03\x04", "a .npz file is a zip archive, starting with PK\\x03\\x04")}


def _read(path: str, tensor: str | None, what: str, max_bytes: int | None = None) -> np.ndarray:
    from linmem.embeddings import MAX_TENSOR_BYTES, read_tensor

    suffix = Path(path).suffix.lower()
    if suffix in _MAGIC and Path(path).is_file():
        magic, needs = _MAGIC[suffix]
        try:
            with open(path, "rb") as fh:
                head = fh.read(len(magic))
        except OSError:
            head = magic  # read_tensor says why the file cannot be read
        if head != magic:
            raise ValueError(f"{what} file {path!r} is not a valid {suffix} file: {needs}, this one starts with "
                             f"{head!r}" if head else f"{what} file {path!r} is not a valid {suffix} file: it is "
                             "empty")
    if tensor is not None and not tensor.strip():
        raise ValueError(f"{what}: the tensor name must not be empty")
    arr = read_tensor(path, tensor, max_bytes=MAX_TENSOR_BYTES if max_bytes is None else max_bytes)
    if arr.ndim != 2:
        raise ValueError(f"{what} in {path!r} must be a 2-D matrix, got shape {arr.shape}")
    if not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
        raise ValueError(f"{what} in {path!r} must be real numbers, got dtype {arr.dtype}")
    return arr


def _check_scale(arr: np.ndarray, path: str, what: str) -> None:
    """Refuse a matrix whose squared entries overflow float64 (the
    assessment would be inf and NaN throughout), naming its file."""
    if arr.size == 0 or not np.issubdtype(arr.dtype, np.number):
        return
    with np.errstate(over="ignore", invalid="ignore"):
        finite = np.isfinite(arr)
        if not finite.all():
            return  # linmem.assess names the matrix with NaN or infinite entries
        total = float(np.sum(np.square(arr, dtype=np.float64)))
    if not np.isfinite(total):
        raise ValueError(f"{what} in {path!r} is too large to assess in float64: the sum of its squared entries "
                         f"overflows (largest |entry| {float(np.max(np.abs(arr))):.3g}); rescale it")


def _strict(value, where: str = "", found: list | None = None):
    """``value`` with every non-finite float replaced by None (strict JSON
    has no Infinity or NaN); the paths replaced are appended to ``found``."""
    if isinstance(value, float) and not math.isfinite(value):
        if found is not None:
            found.append(f"{where or 'value'} ({value})")
        return None
    if isinstance(value, dict):
        return {k: _strict(v, f"{where}.{k}" if where else str(k), found) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v, f"{where}[{i}]", found) for i, v in enumerate(value)]
    return value


@contextlib.contextmanager
def _overflow_named(args):
    """linmem's check of an intermediate (``x``: W K - V, a noisy query)
    finding it non-finite, said about the user's files instead."""
    try:
        yield
    except ValueError as exc:
        message = str(exc)
        if message.startswith("x "):
            reason = "an intermediate such as W K - V is not finite"
        elif " exceeds float64's range" in message:  # linmem's check_representable, naming the figure
            reason = message.split(" exceeds float64's range")[0] + " would not be finite"
        else:
            raise
        files = f"W ({args.W})" + (f" with K ({args.keys}) and V ({args.values})" if args.keys else "")
        noise = f" at --tau {args.tau:g}" if args.tau is not None else ""
        raise ValueError(f"{files} overflows float64 in the assessment{noise} ({reason}); rescale them") from None


def run(args) -> int:
    import linmem

    if (args.keys is None) != (args.values is None):
        raise ValueError("give --keys and --values together (keys and their intended values), or neither")
    if args.tau is not None and args.keys is None:
        raise ValueError("--tau needs --keys and --values (the noisy-query error is measured at the keys)")
    from theorems.reporting.folder import ReportDirError, check_report_dir

    try:
        out = check_report_dir(args.out)  # before any file is read: a bad --out costs nothing
    except ReportDirError as exc:
        raise ValueError(f"--out {exc}") from None
    args.kept_reports, args.kept_what = out, "assessment"
    max_bytes = getattr(args, "max_bytes", None)
    W = _read(args.W, args.tensor, "W", max_bytes)
    K = V = None
    if args.keys is not None:
        K = _read(args.keys, args.keys_tensor, "K", max_bytes)
        V = _read(args.values, args.values_tensor, "V", max_bytes)
        if K.shape[1] != V.shape[1]:
            raise ValueError(f"K ({args.keys}) has {K.shape[1]} columns and V ({args.values}) {V.shape[1]}: "
                             "one column per stored pair in both")
        if W.shape != (V.shape[0], K.shape[0]):
            raise ValueError(f"W ({args.W}) has shape {W.shape}; with K {K.shape} and V {V.shape} it must be "
                             f"{(V.shape[0], K.shape[0])}")
    for arr, path, what in ((W, args.W, "W"), (K, args.keys, "K"), (V, args.values, "V")):
        if arr is not None:
            _check_scale(arr, path, what)
    rng = np.random.default_rng(NOISE_SEED)
    with np.errstate(over="ignore", invalid="ignore"), _overflow_named(args):
        a = linmem.assess(W, K, V, tau=args.tau, rng=rng if args.tau is not None else None)
    record = a.to_json()
    record["inputs"] = {"W": args.W, "tensor": args.tensor, "keys": args.keys, "values": args.values,
                        "dtype": str(W.dtype), "noise_seed": NOISE_SEED if args.tau is not None else None}
    with np.errstate(over="ignore", invalid="ignore"), _overflow_named(args):
        curve = _noise_curve(a, W, K, V, args.tau) if K is not None else None
    if curve is not None:
        record["noise_curve"] = curve
    overflowed: list[str] = []
    record = _strict(record, found=overflowed)
    if overflowed:
        record["non_finite"] = overflowed
        print(f"theorems assess: warning: {len(overflowed)} figure(s) overflowed float64 and are null in "
              f"assessment.json (first: {overflowed[0]})", file=sys.stderr)
    texts = {"assessment.json": json.dumps(record, indent=1, allow_nan=False) + "\n",
             "assessment.html": _html(a, record, curve)}
    from theorems.reporting.folder import written
    from theorems.reporting.folder import replace_set

    # both files replaced as one set, as verify replaces its reports (theorems.reporting.folder)
    paths = written(lambda: replace_set(out, texts), out, "assessment")
    print(_summary(a))
    print(f"assessment: {', '.join(str(p) for p in paths)}")
    return 0


def _noise_curve(a, W, K, V, tau) -> dict:
    """Mean noisy-query error over the keys at several noise levels: measured
    (Gaussian noise), the fixed-W identity and the least-squares model."""
    import linmem

    base = tau if tau else 1.0 / math.sqrt(max(1, K.shape[0]))
    taus = [base * m for m in NOISE_CURVE]
    from linmem.assess import noisy_error_curve

    curve = noisy_error_curve(W, K, V, taus=taus, rng=np.random.default_rng(NOISE_SEED), noise_draws=16)
    measured = [float(x) for x in np.mean(curve, axis=1)]
    res = float(np.mean(a.residuals))
    model = float(np.mean(a.expected_error))
    return {"tau": taus, "measured": measured,
            "fixed": [res + t * t * float(a.noise_gain) for t in taus],
            "model": [model + t * t * float(a.noise_gain_model) for t in taus]}


def _summary(a) -> str:
    parts = [f"W {a.shape[0]} x {a.shape[1]}, rank {a.w_rank}, ||W||_F^2 = {float(a.noise_gain):.4g}"]
    if a.n is not None:
        parts.append(f"n = {a.n} pairs, rank K = {a.key_rank}")
        parts.append(f"mean residual {float(np.mean(a.residuals)):.4g} (model 1 - h: {float(np.mean(a.expected_error)):.4g})")
        parts.append(f"least squares: {'yes' if a.is_least_squares else 'no'} (distance {float(a.least_squares_distance):.3g})")
        parts.append(f"consistent: {'yes' if a.consistent else 'no'}")
        if a.top1_rate is not None:
            parts.append(f"top-1 {a.top1_rate:.3f}")
    return "; ".join(parts)


# --------------------------------------------------------------------------
# the HTML page (matplotlib SVG inline, no external resources)
# --------------------------------------------------------------------------


def _svg(draw) -> str:
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.6, 3.6))
    ax = fig.add_subplot()
    draw(ax)
    fig.tight_layout()
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    text = buf.getvalue()
    return text[text.index("<svg"):]


def _plots(a, curve) -> list[tuple[str, str]]:
    plots = []

    def spectra(ax):
        sw = np.asarray(a.w_singular_values, dtype=float)
        ax.semilogy(np.arange(1, sw.size + 1), sw, ".", ms=3, label="W")
        if a.key_singular_values is not None:
            sk = np.asarray(a.key_singular_values, dtype=float)
            ax.semilogy(np.arange(1, sk.size + 1), sk, ".", ms=3, label="K")
        ax.set_xlabel("index l")
        ax.set_ylabel("singular value s_l")
        ax.legend()

    plots.append(("Singular spectra (the SVD key-value view)", _svg(spectra)))
    if a.n is None:
        return plots

    def residuals(ax):
        e = np.asarray(a.expected_error, dtype=float)
        r = np.asarray(a.residuals, dtype=float) / np.maximum(np.asarray(a.value_norms_sq, dtype=float), 1e-300)
        ax.plot(e, r, ".", ms=3, label="measured ||W k_j - v_j||^2 / ||v_j||^2")
        lim = [0, max(1.0, float(np.max(r)) if r.size else 1.0)]
        ax.plot([0, 1], [0, 1], "-", lw=1, label="model: 1 - h_j")
        ax.set_xlabel("1 - h_j (least-squares random-value model)")
        ax.set_ylabel("measured relative residual")
        ax.set_ylim(lim)
        ax.legend(fontsize=7)

    def leverage(ax):
        ax.hist(np.asarray(a.leverage, dtype=float), bins=30, range=(0, 1))
        ax.set_xlabel("leverage h_j")
        ax.set_ylabel("keys")

    plots += [("Measured residual against the model's 1 - h_j", _svg(residuals)),
              ("Leverage of the keys", _svg(leverage))]
    if curve is not None:
        def noise(ax):
            ax.plot(curve["tau"], curve["measured"], "o", ms=3, label="measured (Gaussian noise)")
            ax.plot(curve["tau"], curve["fixed"], "-", lw=1, label="residual + tau^2 ||W||_F^2")
            ax.plot(curve["tau"], curve["model"], "--", lw=1, label="model 1 - h + tau^2 sum s_K^-2")
            ax.set_xlabel("query-noise level tau")
            ax.set_ylabel("mean noisy-query error")
            ax.legend(fontsize=7)

        plots.append(("Noisy-query error", _svg(noise)))
    return plots


def _failing_keys(a) -> str:
    """The keys that fail: the largest residuals and the top-1 failures, one
    row per key (index, residual, relative residual, 1 - h_j, top-1)."""
    if a.n is None or a.worst_keys is None:
        return ""
    res = np.asarray(a.residuals, dtype=float)
    vn = np.asarray(a.value_norms_sq, dtype=float)
    model = np.asarray(a.expected_error, dtype=float)
    top1 = a.top1_correct

    def row(j):
        rel = res[j] / vn[j] if vn[j] > 0 else float("inf")
        ok = "" if top1 is None else ("yes" if top1[j] else "no")
        return f"<tr><td>{int(j)}</td><td>{res[j]:.6g}</td><td>{rel:.6g}</td><td>{model[j]:.6g}</td><td>{ok}</td></tr>"

    head = "<tr><th>key j</th><th>||W k_j - v_j||^2</th><th>relative</th><th>1 - h_j</th><th>top-1</th></tr>"
    parts = [f"<h2>Largest residuals ({len(a.worst_keys)} of {a.n} keys)</h2><table class=\"failing\" id=\"worst-keys\">"
             + head + "".join(row(j) for j in a.worst_keys) + "</table>"]
    if a.top1_failures is not None:
        n_fail = int(np.count_nonzero(~np.asarray(top1)))
        parts.append(f"<h2>Top-1 failures ({n_fail} of {a.n} keys; first {len(a.top1_failures)} shown)</h2>"
                     "<table class=\"failing\" id=\"top1-failures\">" + head
                     + "".join(row(j) for j in a.top1_failures) + "</table>")
    return "\n".join(parts)


def _html(a, record: dict, curve) -> str:
    rows = []
    for key in ("shape", "w_rank", "noise_gain", "n", "key_rank", "is_least_squares", "least_squares_distance",
                "least_squares_tolerance", "consistent", "consistency_violation", "top1_rate", "scale", "tau"):
        rows.append(f"<tr><th>{key}</th><td>{html.escape(json.dumps(record.get(key), allow_nan=False))}</td></tr>")
    if a.n is not None:
        rows.append(f"<tr><th>mean residual</th><td>{float(np.mean(a.residuals)):.6g}</td></tr>")
        rows.append(f"<tr><th>mean 1 - h_j (model)</th><td>{float(np.mean(a.expected_error)):.6g}</td></tr>")
    failing = _failing_keys(a)
    figures = "\n".join(f"<figure><figcaption>{html.escape(t)}</figcaption>{svg}</figure>" for t, svg in _plots(a, curve))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Assessment of {html.escape(str(record['inputs']['W']))}</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}table{{border-collapse:collapse}}
th,td{{border:1px solid #ccc;padding:.2em .6em;text-align:left}}figure{{display:inline-block;margin:.5em}}
.model{{color:#555;font-style:italic}}</style></head><body>
<h1>Assessment of {html.escape(str(record['inputs']['W']))}</h1>
<p>{html.escape(_summary(a))}</p>
<table>{''.join(rows)}</table>
<p class="model">expected_error is the {html.escape(a.model)}.</p>
{failing}
{figures}
</body></html>
"""
