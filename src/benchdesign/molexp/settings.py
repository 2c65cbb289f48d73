"""Turn the ``molecules:`` config block into the experiment's job list (used by molecules.smk)."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from benchdesign.molexp.datasets import dataset_info
from benchdesign.molexp.experiment import COMPETITOR_TOOLS, GRAPH_MODEL, PAIR_MODEL
from benchdesign.molexp.methods import ONE_D_METHODS, TWO_D_METHODS, ilp_keys_read
from benchdesign.molexp.models import MODELS
from benchdesign.molexp.pair_peers import PAIR_PEERS
from benchdesign.splitting.options import DEFAULT_SEQUENCE_SIMILARITY

__all__ = ["MODEL_NAMES", "MODEL_PACKAGES", "PAIR_ONLY_MODELS", "MOL_DEFAULTS", "TSNE_METHODS", "mol_settings",
           "dataset_methods", "dataset_models", "tsne_methods", "protein_options", "run_protein_representation",
           "split_options", "ablation_points", "model_settings_lines", "protein_representation_line"]

MODEL_NAMES: tuple[str, ...] = (*MODELS, GRAPH_MODEL, PAIR_MODEL)
"""Every model a config may list: the fingerprint models, the optional D-MPNN and the optional DeepDTA."""

PAIR_ONLY_MODELS: tuple[str, ...] = (PAIR_MODEL,)
"""Models that run on drug-target pairs only: a 1-D dataset leaves them out (:func:`dataset_models`)."""

MODEL_PACKAGES: dict[str, tuple[str, ...]] = {"xgb": ("xgboost",), GRAPH_MODEL: ("torch", "chemprop"),
                                              PAIR_MODEL: ("torch",)}
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
    "models": ["rf", "svm", "xgb", "mlp"],
    "model_options": {},
    "fingerprint_bits": 1024,
    "protein_representation": "composition",  # or esm2_t12 (the paper's; molexp.protein_embeddings)
    "esm_weights": None,  # a local fair-esm checkpoint for esm2_t12; None: the torch hub cache / download
    "protein_similarity": DEFAULT_SEQUENCE_SIMILARITY,  # the targets' similarity of the 2-D splits: mmseqs | alignment | kmer
    "ilp": {},  # the options of every method of this library (random, s1, i2, ...): a SplitSpec
    "method_options": {},
    "max_peer_molecules": {},
    "tsne_points": 2000,
    "ablation": {
        "enabled": True,
        "max_molecules": None,
        "time_limit": 60,  # seconds per ILP of the sweeps' own splits, no node limit: Fig. 6 times the solver
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


TSNE_METHODS: tuple[str, ...] = ("random", "s1", "s1_target", "s2")
"""Splits drawn in the t-SNE figures (Fig. 3-5 a, b; Fig. 4 a-h): random, S1 (of the drugs, and of the targets
for pairs) and S2."""


def tsne_methods(settings: dict, dataset: str) -> list[str]:
    """The split methods of ``dataset`` that its t-SNE figure draws (:data:`TSNE_METHODS` it runs, in its order).

    Examples
    --------
    >>> settings = {"methods_1d": ["random", "s1", "scaffold"], "methods_2d": ["random", "i2", "s1", "s1_target", "s2"]}
    >>> tsne_methods(settings, "qm8"), tsne_methods(settings, "davis")
    (['random', 's1'], ['random', 's1', 's1_target', 's2'])
    """
    return [m for m in dataset_methods(settings, dataset) if m in TSNE_METHODS]


def dataset_models(settings: dict, dataset: str) -> list[str]:
    """Models fitted on ``dataset``: ``models`` of the settings, without the pair-only ones for a 1-D dataset.

    Parameters
    ----------
    settings : dict
        The merged ``molecules:`` block (:func:`mol_settings`).
    dataset : str
        A dataset name of :data:`benchdesign.molexp.datasets.DATASETS`.

    Returns
    -------
    list of str
        In the order of ``settings["models"]``.

    Examples
    --------
    >>> settings = {"models": ["rf", "xgb", "deepdta"]}
    >>> dataset_models(settings, "tox21"), dataset_models(settings, "davis")
    (['rf', 'xgb'], ['rf', 'xgb', 'deepdta'])
    """
    pairs = dataset_info(dataset).kind == "2d"
    return [m for m in settings["models"] if pairs or m not in PAIR_ONLY_MODELS]


def protein_options(settings: dict, dataset: str) -> dict[str, Any]:
    """How the feature job of ``dataset`` encodes its proteins: ``representation`` and ``esm_weights`` for a 2-D
    dataset, nothing for a 1-D one (it has no proteins, so the choice does not rerun its jobs).

    Parameters
    ----------
    settings : dict
        The merged ``molecules:`` block (:func:`mol_settings`).
    dataset : str
        A dataset name of :data:`benchdesign.molexp.datasets.DATASETS`.

    Returns
    -------
    dict
        ``{"representation": ..., "esm_weights": ...}`` (2-D; weights only for an ESM representation), or ``{}``.

    Examples
    --------
    >>> settings = {"protein_representation": "esm2_t12", "esm_weights": "w/esm2_t12_35M_UR50D.pt"}
    >>> protein_options(settings, "davis"), protein_options(settings, "tox21")
    ({'representation': 'esm2_t12', 'esm_weights': 'w/esm2_t12_35M_UR50D.pt'}, {})
    >>> protein_options({"protein_representation": "composition", "esm_weights": "w.pt"}, "kiba")
    {'representation': 'composition', 'esm_weights': None}
    """
    if dataset_info(dataset).kind != "2d":
        return {}
    rep = settings["protein_representation"]
    return {"representation": rep, "esm_weights": settings["esm_weights"] if rep != "composition" else None}


def run_protein_representation(settings: dict) -> str | None:
    """``protein_representation`` of a run with molecular 2-D datasets, None for a run without (or disabled).

    Examples
    --------
    >>> base = {"enabled": True, "protein_representation": "esm2_t12", "esm_weights": None}
    >>> run_protein_representation({**base, "datasets": ["tox21", "davis"]})
    'esm2_t12'
    >>> run_protein_representation({**base, "datasets": ["tox21"]}) is None
    True
    """
    if not settings["enabled"]:
        return None
    return next((protein_options(settings, d)["representation"] for d in settings["datasets"]
                 if protein_options(settings, d)), None)


def protein_representation_line(representation: str) -> str:
    """The protein features of the pair models against the paper's (ESM-2 t12), for the reports.

    Examples
    --------
    >>> protein_representation_line("composition")
    'protein features of the drug-target pair models: composition (amino-acid + dipeptide composition, 420 \
columns; the paper: esm2_t12, ESM-2 t12 embeddings)'
    """
    from benchdesign.molexp.protein_embeddings import PROTEIN_REPRESENTATIONS

    paper = "the paper's" if representation == "esm2_t12" else "the paper: esm2_t12, ESM-2 t12 embeddings"
    return f"protein features of the drug-target pair models: {representation} " \
           f"({PROTEIN_REPRESENTATIONS[representation]}; {paper})"


def split_options(settings: dict, dataset: str, method: str, ilp: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Options one split job needs: the options of the ``ilp`` block the method reads (``methods.ilp_keys_read``:
    all for S1/S2, the size and class bounds for the identity splits, none for scaffold or a peer tool, so that a
    change of ``ilp.clusters`` reruns only the splits that cluster), the method's own options, for a 2-D dataset
    the targets' similarity (``protein_similarity``: every 2-D split's target leakage is measured on it, so a
    change reruns the 2-D split jobs and no 1-D one) and, for a competitor tool, the size above which it is
    skipped (recorded as skipped, not run). ``ilp`` replaces ``settings['ilp']`` (the ablation's).

    Examples
    --------
    >>> settings = mol_settings({"molecules": {"protein_similarity": "kmer", "ilp": {"clusters": 20}}})
    >>> split_options(settings, "davis", "s2"), split_options(settings, "tox21", "scaffold")
    ({'ilp': {'clusters': 20}, 'protein_similarity': 'kmer'}, {'scaffold': {}})
    """
    two_d = dataset_info(dataset).kind == "2d"
    block = dict(settings["ilp"] if ilp is None else ilp)
    keys = ilp_keys_read(method, two_d)
    options: dict[str, Any] = {"ilp": {k: v for k, v in block.items() if k in keys}} if keys else {}
    if (method not in ("random", "s1") and dataset_info(dataset).kind == "1d") or method in PAIR_PEERS:
        options[method] = dict(settings["method_options"].get(method, {}))
    if dataset_info(dataset).kind == "2d":
        options["protein_similarity"] = settings["protein_similarity"]
    limit = settings["max_peer_molecules"].get(method) if method in COMPETITOR_TOOLS else None
    if limit is not None:
        options["max_molecules"] = int(limit)
    return options


# How the settings the configs change read, with the paper's value ("Training of supervised machine learning
# models"), per task type where it differs; None: no paper value (a stand-in's own setting). D-MPNN and DeepDTA:
# every setting of DMPNN_DEFAULTS / DEEPDTA_DEFAULTS (the paper's chemprop run; the LP-PDBBind repository's DeepDTA).
_PAPER_SETTINGS: dict[str, dict[str, tuple[str, Any]]] = {
    "rf": {"n_estimators": ("{} trees", 500),
           "max_features": ("max_features {}", {"regression": 1.0, "classification": "sqrt"})},
    "xgb": {"n_estimators": ("{} boosting rounds", 100)},
    "hgb": {"max_iter": ("{} boosting iterations", None)},
    "mlp": {"max_iter": ("at most {} epochs", 200)},
    GRAPH_MODEL: {"epochs": ("{} epochs", None)},
    PAIR_MODEL: {"epochs": ("{} epochs", None)},
}
_STAND_INS = {"hgb": "scikit-learn's HistGradientBoosting in place of the paper's XGBoost"}


def _paper_value(model: str, key: str, task_type: str | None) -> object:
    from benchdesign.molexp.deepdta import DEEPDTA_DEFAULTS
    from benchdesign.molexp.dmpnn import DMPNN_DEFAULTS

    if model in _STAND_INS:
        return None
    paper = {GRAPH_MODEL: DMPNN_DEFAULTS, PAIR_MODEL: DEEPDTA_DEFAULTS}.get(model, {}).get(key)
    if paper is None:
        paper = _PAPER_SETTINGS.get(model, {}).get(key, ("", None))[1]
    if isinstance(paper, dict):
        paper = paper.get(task_type) if task_type else None
    return paper


def _setting(model: str, key: str, value: object, task_type: str | None) -> str:
    form = _PAPER_SETTINGS.get(model, {}).get(key, (f"{key} {{}}", None))[0]
    paper = _paper_value(model, key, task_type)
    if isinstance(paper, tuple) and isinstance(value, list):
        value = tuple(value)
    said = form.format(value)
    if paper is None:
        return said
    return f"{said} (the paper's)" if paper == value else f"{said} (the paper: {paper})"


def model_settings_lines(models: Sequence[str], model_options: Mapping[str, Mapping[str, Any]],
                         task_types: Sequence[str] = ("regression", "classification")) -> list[str]:
    """One line per model: the settings this run changes (``molecules.model_options``) against the paper's.

    Parameters
    ----------
    models : sequence of str
        The run's models (``molecules.models``).
    model_options : mapping
        ``molecules.model_options``: per model, shared settings and those under ``regression:`` /
        ``classification:``.
    task_types : sequence of str
        Task types of the run's datasets (a task type's own settings are shown only for these).

    Returns
    -------
    list of str
        ``"<model>: <setting> (the paper: <value>); ..."``, or ``"<model>: the paper's settings"``; a stand-in
        for a paper model says so.

    Examples
    --------
    >>> options = {"rf": {"n_estimators": 100, "regression": {"max_features": "sqrt"}}, "mlp": {"max_iter": 20}}
    >>> for line in model_settings_lines(["rf", "svm", "mlp"], options, ["regression"]):
    ...     print(line)
    rf: 100 trees (the paper: 500); regression: max_features sqrt (the paper: 1.0)
    svm: the paper's settings
    mlp: at most 20 epochs (the paper: 200)
    >>> model_settings_lines(["hgb", "deepdta"], {"hgb": {"max_iter": 30}, "deepdta": {"epochs": 5}})
    ["hgb (scikit-learn's HistGradientBoosting in place of the paper's XGBoost): 30 boosting iterations", \
'deepdta: 5 epochs (the paper: 50)']
    """
    lines = []
    for model in models:
        options = dict(model_options.get(model) or {})
        parts = [_setting(model, k, v, None) for k, v in options.items() if k not in ("regression", "classification")]
        for task in task_types:
            own = [_setting(model, k, v, task) for k, v in dict(options.get(task) or {}).items()]
            if own:
                parts.append(f"{task}: " + ", ".join(own))
        head = f"{model} ({_STAND_INS[model]})" if model in _STAND_INS else model
        lines.append(f"{head}: " + ("; ".join(parts) if parts else
                                   "its library's defaults" if model in _STAND_INS else "the paper's settings"))
    return lines


def _number_tag(x: float) -> str:
    return f"{x:g}".replace(".", "p")


def ablation_points(settings: dict) -> dict[str, dict[str, dict[str, Any]]]:
    """Every point of the three Fig. 6 sweeps: sweep -> point id -> settings of that run, holding only the
    ``ilp`` options its method reads (``methods.ilp_keys_read``), so that a change of another reruns no point."""
    ab = settings["ablation"]
    ilp = {**settings["ilp"], "time_limit": ab["time_limit"], "node_limit": None}  # Fig. 6 times the solver
    s1_keys = ilp_keys_read("s1", False)
    s1 = {k: v for k, v in ilp.items() if k in s1_keys}  # the clusters and margins sweeps split by S1 only
    cap = {"max_molecules": ab["max_molecules"]}
    clusters = {
        f"K{k}_{solver}": {"dataset": ab["clusters_dataset"], "method": "s1", "clusters": k, "solver": solver, **cap,
                           "options": {"ilp": {**s1, "clusters": k, "solver": solver}}}
        for k in ab["clusters"] for solver in ab["solvers"]
    }
    margins = {
        f"eps{_number_tag(e)}_delta{_number_tag(d)}": {
            "dataset": ab["margins_dataset"], "method": "s1", "epsilon": e, "delta": d, **cap,
            "options": {"ilp": {**s1, "epsilon": e, "delta": d}}}
        for e in ab["epsilons"] for d in ab["deltas"]
    }
    size = {
        f"{ds}_{m}": {"dataset": ds, "method": m, **cap, "options": split_options(settings, ds, m, ilp)}
        for ds in ab["size_datasets"] for m in ab["size_methods"]
    }
    return {"clusters": clusters, "margins": margins, "size": size}
