"""How to make a static leg of e5 (issue 43): chunk vectors from per-token vectors, dense alone,
nDCG@10 on one semble repository, beside e5's own passage vectors.

    python bench/static_distill.py --repo httpx [--ends both|bos|none]

Token vectors: e5 fp32's pooled output for `<s> token </s>` (what ships; `--ends bos`: `<s> token`,
`none`: the token by itself). Chunk vectors: a uniform or IDF-weighted mean, centred (minus the vocabulary's mean) or
not. Question vectors: e5's own query vector (centred or not) or the same static mean over the
question's tokens. Scored as bench/semble.py scores (gold files or line spans, k = 10).
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from _common import SHARED, print_table
from semble import Target, load_queries

from codelens.ingest.codebase import chunk_source
from codelens.ingest.embed_text import DEFAULT_TEXT_BUDGET, embedding_text
from codelens.models.e5 import E5
from codelens.search.static_leg import inverse_frequencies


def ndcg_at_10(order: np.ndarray, chunks: list, targets: tuple[Target, ...]) -> float:
    """semble's scoring: a target found at the first rank whose chunk is in its file (and overlaps
    its lines when it has some); binary gains, ideal = min(10, targets) ones."""
    found: set[int] = set()
    dcg = 0.0
    for rank, index in enumerate(order[:10], 1):
        chunk = chunks[index]
        for j, target in enumerate(targets):
            if j in found or not (chunk.path.endswith(target.path) or target.path.endswith(chunk.path)):
                continue
            if target.start_line and not (chunk.start_line <= target.end_line and chunk.end_line >= target.start_line):
                continue
            found.add(j)
            dcg += 1 / math.log2(rank + 1)
            break
    return dcg / sum(1 / math.log2(r + 1) for r in range(1, min(10, len(targets)) + 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", default="httpx")
    parser.add_argument("--ends", choices=("bos", "both", "none"), default="both")
    args = parser.parse_args()
    folder = next(d for d in (SHARED / "benchmarks" / "semble_py_dev", SHARED / "benchmarks" / "semble_langs_dev")
                  if (d / f"{args.repo}.zip").is_file())
    queries = load_queries(folder / f"{args.repo}.queries.json", args.repo, "en")
    chunks = chunk_source(folder / f"{args.repo}.zip", 1_000_000).chunks
    texts = [embedding_text(c, DEFAULT_TEXT_BUDGET) for c in chunks]
    e5 = E5()
    tokens = [e5.token_ids(t) for t in texts]
    asked = [e5.token_ids(q.text) for q in queries]
    vocabulary = sorted({t for ts in [*tokens, *asked] for t in ts})
    row = {t: i for i, t in enumerate(vocabulary)}
    bos, eos = [e5._vocabulary.bos], [e5._vocabulary.eos]
    ends = {"bos": (bos, []), "both": (bos, eos), "none": ([], [])}[args.ends]
    pooled = e5._encoder.mean_pooled([np.asarray([*ends[0], t, *ends[1]], np.int64) for t in vocabulary])
    table = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
    idf = inverse_frequencies(tokens, vocabulary)  # a token only the questions have: the highest
    centre = table[sorted({row[t] for ts in tokens for t in ts})].mean(axis=0)

    def mean(ids: list[int], weighted: bool, centred: bool) -> np.ndarray:
        rows = table[[row[t] for t in ids]]
        weights = idf[[row[t] for t in ids]] if weighted else np.ones(len(ids), np.float32)
        vector = (weights[:, None] * (rows - centre if centred else rows)).sum(axis=0)
        return vector / max(float(np.linalg.norm(vector)), 1e-12)

    questions = e5.embed_queries([q.text for q in queries], max_tokens=128)
    passages = E5(int8=True).embed_passages(texts)
    rows = []
    for label, weighted, centred, ask in (("uniform / e5 query", False, False, "e5"),
                                          ("IDF / e5 query", True, False, "e5"),
                                          ("IDF / static question", True, False, "static"),
                                          ("IDF centred / static centred", True, True, "static"),
                                          ("IDF centred / e5 query centred (ships)", True, True, "e5")):
        documents = np.stack([mean(ts, weighted, centred) for ts in tokens])
        scores = []
        for question, query, ids in zip(questions, queries, asked, strict=True):
            vector = question - centre if (ask == "e5" and centred) else question
            if ask == "static":
                vector = mean(ids, weighted, centred)
            scores.append(ndcg_at_10(np.argsort(-(documents @ vector)), chunks, query.targets))
        rows.append([label, round(float(np.mean(scores)), 3)])
    rows.append(["e5 passages (the complete index's dense vectors)", round(float(np.mean(
        [ndcg_at_10(np.argsort(-(passages @ q)), chunks, query.targets) for q, query in zip(questions, queries,
                                                                                           strict=True)])), 3)])
    print_table([f"{args.repo}: chunk / question vectors", "nDCG@10 dense alone"], rows)


if __name__ == "__main__":
    main()
