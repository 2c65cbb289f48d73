"""Split time of the 2-D peers of Fig. 4 (fingerprint_drug, lohi_drug, graphpart_target) on the laptop run's DAVIS.

The pairs are those of the default run: DAVIS from the mirror (mol/deepdta_davis), the seeded sub-sample of
``molecules.max_molecules.davis`` pairs (config/config.yaml: 5,000) drawn with the config's ``seed``, as the
rule mol_dataset draws it; each method runs as the rule mol_split runs it (:func:`run_molecule_split`, repeat 0,
the options of config/config.yaml), in a child process of its own. Printed per method: wall and CPU seconds
(user + system of the child and of the programs it waited for, e.g. GraphPart's mmseqs), peak RSS, the status,
train / test / left-out pairs, the entity counts per fold and the scaled L(pi) the record holds.

    python benchmarks/pair_peers.py                                   # the three peers
    python benchmarks/pair_peers.py --methods s1 s1_target --json pair_peers.json
    python benchmarks/pair_peers.py --methods graphpart_target --option alignment_mode=needle --option timeout=300

``--option KEY=VALUE`` (a YAML value) sets one option of every method's ``method_options`` block on top of the
config's, e.g. GraphPart's aligner and its time limit.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vs_datasail import REPO, mirror_root, run_measured  # noqa: E402

DEFAULT_METHODS = ("fingerprint_drug", "lohi_drug", "graphpart_target")


def davis_sample(config: dict):
    """ExperimentData of the default run's DAVIS pairs (sub-sample of molecules.max_molecules.davis pairs)."""
    import numpy as np
    import pandas as pd

    from benchdesign.molexp.datasets import dataset_info, load_pairs, subsample_rows
    from benchdesign.molexp.experiment import ExperimentData
    from benchdesign.molexp.features import molecule_fingerprints

    info = dataset_info("davis")
    tables = load_pairs(info, *(mirror_root() / f for f in info.files))
    limit = (config["molecules"].get("max_molecules") or {}).get("davis")
    samples = tables.pairs.iloc[subsample_rows(len(tables.pairs), limit, config["seed"])].reset_index(drop=True)
    drugs = tables.drugs[tables.drugs["id"].isin(samples["drug_id"])].reset_index(drop=True)
    targets = tables.targets[tables.targets["id"].isin(samples["target_id"])].reset_index(drop=True)
    drug_row = pd.Series(np.arange(len(drugs)), index=drugs["id"])
    target_row = pd.Series(np.arange(len(targets)), index=targets["id"])
    return ExperimentData(
        info,
        samples,
        drugs,
        molecule_fingerprints(drugs["smiles"].tolist()),
        drug_row.loc[samples["drug_id"]].to_numpy(),
        targets,
        np.zeros((len(targets), 1), np.float32),
        target_row.loc[samples["target_id"]].to_numpy(),
    )


def parse_options(pairs: list[str]) -> dict:
    """``KEY=VALUE`` strings -> {key: YAML value}; ValueError naming a string without ``=``."""
    out = {}
    for text in pairs:
        key, sep, value = text.partition("=")
        if not sep or not key:
            raise ValueError(f"--option {text!r}: expected KEY=VALUE")
        out[key] = yaml.safe_load(value)
    return out


def run_one(method: str, config_path: Path, out: Path, extra: dict) -> None:
    """Child: one split of the DAVIS sample as rule mol_split runs it (``extra`` on top of the method's
    options); its record to ``out``."""
    from benchdesign.molexp.experiment import run_molecule_split
    from benchdesign.molexp.settings import mol_settings, split_options

    config = yaml.safe_load(config_path.read_text())
    settings = mol_settings(config)
    data = davis_sample(config)
    options = split_options(settings, "davis", method)
    if extra:
        options[method] = {**options.get(method, {}), **extra}
    folds, record = run_molecule_split(data, method, 0, settings["fractions"], config["seed"], options)
    record.update(n_pairs=len(folds), n_drugs=len(data.molecules), n_targets=len(data.proteins))
    out.write_text(json.dumps(record, default=str))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--methods", nargs="+", default=list(DEFAULT_METHODS))
    parser.add_argument("--config", type=Path, default=REPO / "config" / "config.yaml")
    parser.add_argument("--json", type=Path, help="write the rows here")
    parser.add_argument("--option", action="append", default=[], help="KEY=VALUE added to the method's options")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    extra = parse_options(args.option)
    if args.one:
        run_one(args.one, args.config, args.out, extra)
        return 0
    rows = []
    with tempfile.TemporaryDirectory(prefix="pair_peers_") as tmp:
        for method in args.methods:
            out = Path(tmp) / f"{method}.json"
            cmd = [
                sys.executable,
                __file__,
                "--one",
                method,
                "--config",
                str(args.config),
                "--out",
                str(out),
                *(f"--option={o}" for o in args.option),
            ]
            usage = run_measured(cmd, Path(tmp) / f"{method}.log")
            if usage["returncode"] != 0 or not out.is_file():
                print(f"{method}: failed (exit {usage['returncode']}):\n{(Path(tmp) / f'{method}.log').read_text()[-2000:]}")
                return 1
            record = json.loads(out.read_text())
            report = record["report"] if isinstance(record["report"], dict) else {}
            rows.append(
                {
                    "method": method,
                    **{k: round(v, 2) for k, v in usage.items() if k != "returncode"},
                    "split_s": round(record["seconds"], 2),
                    "status": record["status"],
                    "pairs": record["n_pairs"],
                    "drugs": record["n_drugs"],
                    "targets": record["n_targets"],
                    "train": record["n_train"],
                    "test": record["n_test"],
                    "left_out": record["n_dropped"],
                    "entity_folds": report.get("entity_folds"),
                    "scaled_leakage": record["scaled_leakage"],
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
