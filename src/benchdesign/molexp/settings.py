"""Turn the ``molecules:`` config block into the experiment's job list (used by molecules.smk)."""

from __future__ import annotations

import copy
from typing import Any

from benchdesign.molexp.datasets import dataset_info
from benchdesign.molexp.experiment import COMPETITOR_TOOLS, GRAPH_MODEL
from benchdesign.molexp.methods import ONE_D_METHODS, TWO_D_METHODS
from benchdesign.molexp.models import MODELS

__all__ = ["MODEL_NAMES", "MODEL_PACKAGES", "MOL_DEFAULTS", "mol_settings", "dataset_methods", "split_options", "ablation_points"]

MODEL_NAMES: tuple[str, ...] = (*MODELS, GRAPH_MODEL)
"""Every model a config may list: the fingerprint models and the optional D-MPNN."""

MODEL_PACKAGES: dict[str, tuple[str, ...]] = {GRAPH_MODEL: ("torch", "chemprop")}
"""Modules a model of :data:`MODEL_NAMES` imports beyond the core ones (the others use scikit-learn only); the
workflow refuses a config listing a model whose modules are not installed
(:func:`benchdesign.workflow.preflight.check_packages`)."""

MOL_DEFAULTS: dict[str, Any] = {
    "enabled": False,  # a config without a molecules: block runs none of it
    "datasets": ["qm8", "tox21", "sr_are", "davis"],
    "max_molecules": {},
    "repeats": 5,
    "model_jobs": "per_split",  # per_split: one job fits every model of a split; per_model: one job per fit
    "fractions": [0.8, 0.2],
    "methods_1d": list(ONE_D_METHODS),
    "methods_2d": list(TWO_D_METHODS),
    "models": list(MODELS),
    "model_options": {},
    "fingerprint_bits": 1024,
    "ilp": {},  # the options of every method of this library (random, s1, i2, ...): a SplitSpec
    "method_options": {},
    "max_peer_molecules": {},
    "tsne_points": 2000,
    "ablation": {
        "enabled": True,
        "max_molecules": None,
        "clusters_dataset": "tox21",
        "clusters": [10, 25, 50, 100, 150],
        "solvers": ["HIGHS", "SCIP"],
        "margins_dataset": "sr_are",
        "epsilons": [0.02, 0.05, 0.1, 0.2],
        "deltas": [0.02, 0.05, 0.1, 0.2],
        "size_datasets": ["freesolv", "esol", "bace", "bbbp", "lipo", "tox21", "qm8"],
        "size_methods": ["s1", "scaffold", "fingerprint", "lohi", "datasail_s1"],
    },
}


def mol_settings(config: dict) -> dict[str, Any]:
    """The ``molecules:`` block merged over the defaults (one level deep, and into ``ablation``)."""
    block = config.get("molecules") or {}
    merged = copy.deepcopy(MOL_DEFAULTS)
    for key, value in block.items():
        if key == "ablation":
            merged["ablation"].update(value or {})
        else:
            merged[key] = copy.deepcopy(value)
    for name in merged["datasets"]:
        dataset_info(name)
    return merged


def dataset_methods(settings: dict, dataset: str) -> list[str]:
    """Split methods run on ``dataset``: methods_1d or methods_2d by the dataset's kind."""
    return list(settings["methods_1d" if dataset_info(dataset).kind == "1d" else "methods_2d"])


def split_options(settings: dict, dataset: str, method: str) -> dict[str, Any]:
    """Options one split job needs: the ``ilp`` block, the method's own options and, for a competitor tool,
    the size above which it is skipped (recorded as skipped, not run)."""
    options: dict[str, Any] = {"ilp": dict(settings["ilp"])}
    if method not in ("random", "s1") and dataset_info(dataset).kind == "1d":
        options[method] = dict(settings["method_options"].get(method, {}))
    limit = settings["max_peer_molecules"].get(method) if method in COMPETITOR_TOOLS else None
    if limit is not None:
        options["max_molecules"] = int(limit)
    return options


def _number_tag(x: float) -> str:
    return f"{x:g}".replace(".", "p")


def ablation_points(settings: dict) -> dict[str, dict[str, dict[str, Any]]]:
    """Every point of the three Fig. 6 sweeps: sweep -> point id -> settings of that run."""
    ab = settings["ablation"]
    ilp = dict(settings["ilp"])
    cap = {"max_molecules": ab["max_molecules"]}
    clusters = {
        f"K{k}_{solver}": {"dataset": ab["clusters_dataset"], "method": "s1", "clusters": k, "solver": solver, **cap,
                           "options": {"ilp": {**ilp, "clusters": k, "solver": solver}}}
        for k in ab["clusters"] for solver in ab["solvers"]
    }
    margins = {
        f"eps{_number_tag(e)}_delta{_number_tag(d)}": {
            "dataset": ab["margins_dataset"], "method": "s1", "epsilon": e, "delta": d, **cap,
            "options": {"ilp": {**ilp, "epsilon": e, "delta": d}}}
        for e in ab["epsilons"] for d in ab["deltas"]
    }
    size = {
        f"{ds}_{m}": {"dataset": ds, "method": m, **cap, "options": split_options(settings, ds, m)}
        for ds in ab["size_datasets"] for m in ab["size_methods"]
    }
    return {"clusters": clusters, "margins": margins, "size": size}
