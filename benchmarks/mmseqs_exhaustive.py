"""Every pair aligned against the k-mer prefilter: what MMseqs2's exhaustive mode costs and what the prefilter misses.

On a seeded draw of SOLpro sequences (the aaanalysis 1.1.0 wheel, as ``benchmarks/proteins_scale.py``), for each
route: (a) all-against-all (``mmseqs_similarity``: the project's similarity) and (b) a seeded random 20 % of the
sequences against the other 80 % (``cross_search``: the check of an 80/20 split), each by every pair aligned
(``--prefilter-mode 2``) and by the prefilter at each ``--sensitivities`` value (``--max-seqs 1000``). Printed and
written as CSV: CPU seconds (user + system of this process and of mmseqs), the peak RSS of the largest mmseqs
process so far, the pairs above 0.3 and 0.5 identity (with 80 % coverage of both sequences) and, for the
prefilter, how many of the exhaustive search's pairs above 0.3 it missed. ``--short-lengths`` adds, to each
prefilter search, every pair of sequences both at most that long aligned (``IdentitySettings.short_length``);
``--low-complexity`` aligns low-complexity regions too (as the checks of a split do).

    python benchmarks/mmseqs_exhaustive.py --size 10000 --out benchmarks/results/mmseqs_exhaustive.csv
    python benchmarks/mmseqs_exhaustive.py --size 10000 --routes test_vs_train --low-complexity \
        --short-lengths 0 100 150 --out benchmarks/results/mmseqs_short_pairs.csv
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from proteins_scale import solpro_table, subset  # noqa: E402  (the same data and draw)

from benchdesign.splitting import mmseqs  # noqa: E402
from benchdesign.splitting.mmseqs import IdentitySettings, cross_search, mmseqs_similarity  # noqa: E402


def cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def pairs_of(frame: pd.DataFrame, above: float) -> set[tuple[int, int]]:
    hit = frame[frame["identity"] > above]
    return set(zip(hit["query"].tolist(), hit["target"].tolist(), strict=True))


def all_pairs(sequences: list[str], settings: IdentitySettings) -> pd.DataFrame:
    """The all-against-all matrix as (query, target, identity) rows, each unordered pair once; the prefilter's
    settings go through the prefilter even where the library would align every pair (n^2 <= EXHAUSTIVE_PAIRS)."""
    limit = mmseqs.EXHAUSTIVE_PAIRS
    mmseqs.EXHAUSTIVE_PAIRS = limit if settings.exhaustive else 0
    try:
        m = mmseqs_similarity(sequences, settings, cache=False).sparse.tocoo()
    finally:
        mmseqs.EXHAUSTIVE_PAIRS = limit
    keep = m.row < m.col
    return pd.DataFrame({"query": m.row[keep], "target": m.col[keep], "identity": m.data[keep]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000, help="SOLpro sequences drawn (seed 0)")
    parser.add_argument("--sensitivities", nargs="+", type=float, default=[5.7, 7.5])
    parser.add_argument("--short-lengths", nargs="+", type=int, default=[0],
                        help="with each prefilter search, align every pair both at most this long (0: none)")
    parser.add_argument("--low-complexity", action="store_true", help="--mask 0 --comp-bias-corr 0 (as the checks)")
    parser.add_argument("--cache", type=Path, default=Path("~/.cache/benchdesign/proteins_scale"))
    parser.add_argument("--routes", nargs="+", default=["all_vs_all", "test_vs_train"],
                        choices=["all_vs_all", "test_vs_train"])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    sequences = subset(solpro_table(args.cache), args.size, 0)["sequence"].tolist()
    test = np.sort(np.random.default_rng(0).choice(len(sequences), len(sequences) // 5, replace=False))
    train = np.setdiff1d(np.arange(len(sequences)), test)
    rows = []
    for route in args.routes:
        exhaustive_pairs = None
        searches = ["exhaustive", *((s, short) for s in args.sensitivities for short in args.short_lengths)]
        for search in searches:
            settings = (IdentitySettings(exhaustive=True, low_complexity=args.low_complexity) if search == "exhaustive"
                        else IdentitySettings(sensitivity=float(search[0]), max_seqs=1000, short_length=search[1],
                                              low_complexity=args.low_complexity))
            start = cpu()
            if route == "all_vs_all":
                hits = all_pairs(sequences, settings)
                compared = len(sequences) * (len(sequences) - 1) // 2
            else:
                hits = cross_search([sequences[i] for i in test], [sequences[i] for i in train], settings)
                compared = test.size * train.size
            seconds = cpu() - start
            found = pairs_of(hits, 0.3)
            if search == "exhaustive":
                exhaustive_pairs = found
            row = {"route": route, "n": len(sequences), "pairs_compared": compared,
                   "search": search if search == "exhaustive" else f"{search[0]:g}",
                   "short_length": 0 if search == "exhaustive" else search[1],
                   "low_complexity": args.low_complexity,
                   "cpu_s": round(seconds, 1),
                   "mmseqs_peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024,
                   "pairs_gt03": len(found), "pairs_gt05": len(pairs_of(hits, 0.5)),
                   "missed_of_exhaustive_gt03": len(exhaustive_pairs - found) if exhaustive_pairs is not None
                   else None}
            print(row, flush=True)
            rows.append(row)
    table = pd.DataFrame(rows)
    print(table.to_string(index=False))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
