"""Wall time of the full default protocol per (domain, strategy), as the pipeline runs it.

Usage: python benchmarks/protocol.py [--mirror ../shared/data] [--config config/config.yaml]
       [--variations dataset_pool model_pool model_holdout] [--no-synthetic]

Times (CPU) every trial job of config/config.yaml (every variation and representation, or those of --variations) and
the synthetic ablation, one after another on one core, and prints seconds per (domain, strategy), the total CPU
time, and the ideal wall time on 2 cores (total / 2; the jobs are independent).  Representations the feature
rules compute (TSC features) are timed on a stand-in of the same shape only when --features-dir holds them;
otherwise they are skipped and said so.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import pandas as pd
import yaml

from benchdesign.data.sources import fetch, load_manifest
from benchdesign.domains import domain_source_paths, load_representation, load_scores
from benchdesign.selection.protocol import dataset_pool_trials, model_holdout_trials, model_pool_trials, score_cube
from benchdesign.selection.ranking import rank_scores
from benchdesign.selection.synthetic import SyntheticSettings, seed_trials
from benchdesign.workflow.config import config_domain, domain_protocol, synthetic_settings, trial_combinations

REPO = Path(__file__).resolve().parents[1]


def domain_inputs(name: str, config: dict, mirror: str, cache: Path):
    """One domain's (domain, files, scores, ranks), its source files fetched from the mirror into ``cache``."""
    domain = config_domain(config, name)
    manifest = load_manifest(REPO / "data/sources.yaml")
    files = {}
    for path in domain_source_paths(domain, manifest):
        files[path] = str(cache / path)
        if not Path(files[path]).exists():
            fetch(manifest[path], files[path], mirror=mirror, allow_download=False, log=lambda m: None)
    scores = load_scores(domain, files, config["domains"][name].get("models"))
    return domain, files, scores, rank_scores(scores, domain.higher_is_better)


def prepare(name: str, config: dict, mirror: str, cache: Path, features_dir: str | None = None) -> dict:
    domain, files, scores, ranks = domain_inputs(name, config, mirror, cache)
    reps = {}
    for rep in config["domains"][name]["representations"]:
        computed = Path(features_dir or "", name, f"{rep}.csv")
        if rep in domain.computed and not computed.is_file():
            print(f"{name}/{rep}: computed by the feature rules and not in --features-dir: skipped")
            continue
        features = pd.read_csv(computed, index_col=0) if rep in domain.computed else None
        reps[rep] = load_representation(domain, rep, files, ranks, features).to_numpy()
    cube = score_cube(scores, ranks.index, ranks.columns)
    return {"ranks": ranks.to_numpy(), "cube": cube, "reps": reps}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--config", default=str(REPO / "config/config.yaml"))
    parser.add_argument("--variations", nargs="+", help="time only these variations' trial jobs")
    parser.add_argument("--no-synthetic", action="store_true", help="leave out the synthetic ablation")
    parser.add_argument("--features-dir", help="results/features of a finished run (the TSC feature tables)")
    args = parser.parse_args()
    config = yaml.safe_load(Path(args.config).read_text())
    seconds: dict[tuple[str, str], float] = defaultdict(float)
    with tempfile.TemporaryDirectory() as cache:
        data = {}
        for variation, domain, rep, strategy in trial_combinations(config):
            if args.variations and variation not in args.variations:
                continue
            if domain not in data:
                data[domain] = prepare(domain, config, args.mirror, Path(cache), args.features_dir)
            d, p = data[domain], domain_protocol(config, domain)
            if rep != "none" and rep not in d["reps"]:
                continue
            X = d["reps"].get(rep, d["ranks"][:, :1] * 0)
            settings = dict(strategy=strategy, ks=p["ks"], n_trials=p["n_trials"], alpha=p["alpha"],
                            seed=config["seed"], options=p["options"])
            start = time.process_time()
            higher = config_domain(config, domain).higher_is_better
            if variation == "dataset_pool":
                dataset_pool_trials(d["ranks"], X, **settings)
            elif variation == "model_pool":
                model_pool_trials(d["cube"], higher, X, **settings)
            else:
                model_holdout_trials(d["cube"], higher, None if rep == "oracle" else X,
                                     holdout_fraction=p["holdout_fraction"], **settings)
            seconds[(domain, strategy)] += time.process_time() - start
    section = config["synthetic"]
    if section.get("enabled", True) and not args.no_synthetic:
        p = domain_protocol(config, None)
        settings = SyntheticSettings(**synthetic_settings(config))
        for strategy in section["strategies"]:
            for regime in ("oracle", "broken"):
                start = time.process_time()
                for seed in range(section["n_seeds"]):
                    seed_trials(regime, strategy, config["seed"] + seed, settings, p["ks"],
                                section["trials_per_seed"], p["alpha"], p["options"])
                seconds[("synthetic", strategy)] += time.process_time() - start
    print(f"{'domain':<10} {'strategy':<15} {'seconds':>8}")
    for (domain, strategy), value in seconds.items():
        print(f"{domain:<10} {strategy:<15} {value:8.1f}")
    total = sum(seconds.values())
    print(f"total CPU time {total:.1f} s; ideal wall time on 2 cores {total / 2:.1f} s "
          f"(goal: whole default run <= 600 s)")


if __name__ == "__main__":
    main()
