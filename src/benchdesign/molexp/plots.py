"""Figures of the molecular experiments: Fig. 3-5 (scores beside scaled L(pi)), t-SNE panels, Fig. 6."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from benchdesign.molexp.datasets import DATASETS
from benchdesign.molexp.models import HIGHER_IS_BETTER
from benchdesign.selection.plotting import _new_figure, _wrap

if TYPE_CHECKING:
    from benchdesign.molexp.experiment import ExperimentData

__all__ = [
    "DATASET_LABELS", "METHOD_LABELS", "PAIR_METHOD_LABELS", "MODEL_LABELS", "SIDE_LABELS", "FOLD_COLORS",
    "dataset_label", "method_label", "performance_figure", "fingerprint_tsne", "feature_tsne", "tsne_figure",
    "tsne_grid", "split_tsne_figure", "ablation_figure",
]

FOLD_COLORS = {"train": "#1f77b4", "test": "#ff7f0e", "unassigned": "#c7c7c7", "both": "#9467bd"}
"""Colour of each entity fold label (:func:`benchdesign.molexp.experiment.entity_fold_labels`): grey for an entity
in no fold (every pair of it dropped), purple for one with pairs in both folds (random pair splits)."""
SIDE_LABELS = {"drug_leakage": "drug side", "target_leakage": "target side"}
"""Panel title of each side's scaled L(pi) (columns of split_leakage.csv) in the figure of a pair dataset."""

# Display names of the molecular experiments' ids: the one table every figure of this module reads.
DATASET_LABELS = {
    "qm8": "QM8", "tox21": "Tox21", "sr_are": "Tox21 SR-ARE", "esol": "ESOL", "freesolv": "FreeSolv",
    "lipo": "Lipophilicity", "bace": "BACE", "bbbp": "BBBP", "clintox": "ClinTox", "sider": "SIDER",
    "toxcast": "ToxCast", "hiv": "HIV", "muv": "MUV", "davis": "DAVIS", "kiba": "KIBA", "lp_pdbbind": "LP-PDBBind",
}
"""Display name of every dataset of :data:`benchdesign.molexp.datasets.DATASETS`."""
METHOD_LABELS = {
    "random": "random", "s1": "S1", "scaffold": "scaffold", "fingerprint": "fingerprint", "lohi": "LoHi",
    "datasail_s1": "datasail's S1", "i1_drug": "I1 drugs", "i1_target": "I1 targets", "s1_target": "S1 targets",
    "i2": "I2", "s2": "S2", "fingerprint_drug": "fingerprint drugs", "lohi_drug": "LoHi drugs",
    "graphpart_target": "GraphPart targets",
}
"""Display name of every split method (:mod:`benchdesign.molexp.methods`): DataSAIL's task names, ``datasail's
S1`` for the datasail package's own S1 beside this library's ``S1``."""
PAIR_METHOD_LABELS = {**METHOD_LABELS, "random": "random pairs", "s1": "S1 drugs"}
"""Display names for a dataset of drug-target pairs, where ``s1`` splits the drugs."""
MODEL_LABELS = {"rf": "random forest", "svm": "linear SVM", "xgb": "XGBoost", "hgb": "HistGradientBoosting",
                "mlp": "MLP", "dmpnn": "D-MPNN", "deepdta": "DeepDTA"}
"""Display name of every model (:data:`benchdesign.molexp.settings.MODEL_NAMES`)."""


def dataset_label(dataset: str) -> str:
    """Display name of a dataset (:data:`DATASET_LABELS`; an unknown name as it is)."""
    return DATASET_LABELS.get(dataset, dataset)


def method_label(method: str, dataset: str | None = None) -> str:
    """Display name of a split method; for a dataset of drug-target pairs from :data:`PAIR_METHOD_LABELS`.

    Examples
    --------
    >>> method_label("datasail_s1"), method_label("s1", "davis")
    ("datasail's S1", 'S1 drugs')
    """
    pairs = dataset in DATASETS and DATASETS[dataset].kind == "2d"
    return (PAIR_METHOD_LABELS if pairs else METHOD_LABELS).get(method, method)


def _methods_in_order(leakage: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(leakage["split_method"]))


def _sides(leak: pd.DataFrame) -> list[str]:
    """The per-side leakage columns with values (pair datasets; none for 1-D data or an older table)."""
    return [c for c in SIDE_LABELS if c in leak.columns and leak[c].notna().any()]


def _leakage_bars(ax, leak: pd.DataFrame, column: str, methods: list[str], names: list[str], colors: list[str],
                  title: str) -> None:
    stats = leak.groupby("split_method")[column].agg(["mean", "std"]).reindex(methods)
    ax.bar(np.arange(len(methods)), stats["mean"], yerr=stats["std"].fillna(0), color=colors, capsize=2)
    ax.set_xticks(np.arange(len(methods)), names, rotation=60, ha="right", rotation_mode="anchor", fontsize=7)
    ax.set_ylabel("scaled L(π) (eq. 20)")
    ax.set_title(title, fontsize=9)
    ax.grid(axis="y", alpha=0.3)


def performance_figure(leakage: pd.DataFrame, performance: pd.DataFrame, dataset: str) -> Figure:
    """Test score of each model under each split (mean ± sd over repeats) beside each split's scaled L(pi).

    For drug-target pairs (the leakage table's ``drug_leakage`` / ``target_leakage`` filled) the scaled L(pi) of
    each side has its own panel (Fig. 4c, f, i); otherwise one panel holds the split's scaled L(pi). Datasets,
    split methods and models are named by :data:`DATASET_LABELS`, :func:`method_label` and :data:`MODEL_LABELS`;
    the legend of the splits lies below the axes.
    """
    leak = leakage[leakage["dataset"] == dataset]
    perf = performance[performance["dataset"] == dataset]
    if leak.empty:
        raise ValueError(f"no splits of dataset {dataset!r} in the leakage table")
    methods = _methods_in_order(leak)
    names = [method_label(m, dataset) for m in methods]
    models = sorted(perf["model"].unique())
    metric = perf["metric"].iloc[0] if len(perf) else "score"
    sides = _sides(leak)
    panels = [(c, SIDE_LABELS[c]) for c in sides] or [("scaled_leakage", "")]
    fig = _new_figure(9.0 + 2.5 * (len(panels) - 1), 4.0)
    ax_perf, *ax_leaks = fig.subplots(1, 1 + len(panels), width_ratios=[3] + [1] * len(panels))
    width = 0.8 / max(len(methods), 1)
    colors = [f"C{i}" for i in range(len(methods))]
    for j, (method, name) in enumerate(zip(methods, names)):
        stats = perf[perf["split_method"] == method].groupby("model")["value"].agg(["mean", "std"]).reindex(models)
        x = np.arange(len(models)) + (j - (len(methods) - 1) / 2) * width
        ax_perf.bar(x, stats["mean"], width, yerr=stats["std"].fillna(0), label=name, color=colors[j], capsize=2)
    direction = "higher is better" if HIGHER_IS_BETTER.get(metric, True) else "lower is better"
    ax_perf.set_xticks(np.arange(len(models)), [MODEL_LABELS.get(m, m) for m in models])
    ax_perf.set_ylabel(f"test {metric.upper()} ({direction})")
    ax_perf.grid(axis="y", alpha=0.3)
    for ax, (column, title) in zip(ax_leaks, panels, strict=True):
        _leakage_bars(ax, leak, column, methods, names, colors, title)
    fig.legend(*ax_perf.get_legend_handles_labels(), loc="outside lower center", ncols=min(len(methods), 6),
               fontsize=7, title="split", title_fontsize=7)
    fig.suptitle(f"{dataset_label(dataset)}: model performance and information leakage per split")
    return fig


def _tsne_sample(n: int, max_points: int, seed: int) -> np.ndarray:
    return np.sort(np.random.default_rng(seed).choice(n, size=min(n, max_points), replace=False))


def _perplexity(n: int) -> float:
    return float(min(30.0, max(2.0, (n - 1) / 3)))


def fingerprint_tsne(bits: np.ndarray, max_points: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """2-D t-SNE of at most ``max_points`` fingerprints (seeded sub-sample) under the Jaccard (Tanimoto) distance.

    Parameters
    ----------
    bits : np.ndarray
        (n, n_bits) fingerprint bits (0/1).
    max_points : int
        Size of the seeded sub-sample.
    seed : int
        Seed of the sub-sample and of t-SNE.

    Returns
    -------
    tuple of np.ndarray
        The sub-sample's row indices (sorted) and its (m, 2) embedding.
    """
    from sklearn.decomposition import PCA
    from sklearn.manifold import TSNE
    from sklearn.metrics import pairwise_distances

    index = _tsne_sample(len(bits), max_points, seed)
    x = np.asarray(bits[index]) > 0
    distances = pairwise_distances(x, metric="jaccard")  # 1 - Tanimoto
    start = PCA(n_components=2, random_state=seed % 2**32).fit_transform(x.astype(np.float64))
    start = start / (np.std(start[:, 0]) or 1.0) * 1e-4  # scikit-learn's own "pca" start, which it refuses here
    emb = TSNE(n_components=2, perplexity=_perplexity(len(index)), metric="precomputed", init=start,
               random_state=seed % 2**32).fit_transform(distances)
    return index, emb


def feature_tsne(features: np.ndarray, max_points: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """2-D t-SNE of at most ``max_points`` real feature vectors (e.g. protein representations) under the Euclidean
    distance, after PCA to 50 dimensions when they are wider.

    Parameters
    ----------
    features : np.ndarray
        (n, d) features.
    max_points : int
        Size of the seeded sub-sample.
    seed : int
        Seed of the sub-sample, the PCA and t-SNE.

    Returns
    -------
    tuple of np.ndarray
        The sub-sample's row indices (sorted) and its (m, 2) embedding.
    """
    from sklearn.decomposition import PCA
    from sklearn.manifold import TSNE

    index = _tsne_sample(len(features), max_points, seed)
    x = np.asarray(features[index], dtype=np.float64)
    if x.shape[1] > 50 and len(index) > 50:
        x = PCA(n_components=50, random_state=seed % 2**32).fit_transform(x)
    emb = TSNE(n_components=2, perplexity=_perplexity(len(index)), init="pca",
               random_state=seed % 2**32).fit_transform(x)
    return index, emb


def _fold_scatter(ax, embedding: np.ndarray, labels: np.ndarray, name: str) -> None:
    size = float(np.clip(2000 / max(len(embedding), 1), 4, 16))  # few points (68 DAVIS drugs) drawn larger
    for fold, color in FOLD_COLORS.items():
        mask = np.asarray(labels) == fold
        if mask.any():
            ax.scatter(embedding[mask, 0], embedding[mask, 1], s=size, c=color, label=f"{fold} ({mask.sum()})",
                       alpha=0.7, linewidths=0)
    ax.set_title(name, fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.legend(fontsize=7, markerscale=3, loc="upper center", bbox_to_anchor=(0.5, -0.02), ncols=2)


def tsne_grid(rows: Sequence[tuple[str, np.ndarray, Sequence[tuple[str, np.ndarray]]]], title: str) -> Figure:
    """One row of scatter panels per embedding (e.g. the drugs, the proteins), one panel per split: points coloured
    by fold name (:data:`FOLD_COLORS`: train / test / both, grey for unassigned), each panel's legend below it.

    Parameters
    ----------
    rows : sequence of (str, np.ndarray, sequence of (str, np.ndarray))
        Per row: what is embedded (shown on the left), its (m, 2) embedding and its panels, each a split's name
        (e.g. :func:`method_label`) and one fold name per point. Rows may hold different numbers of panels.
    title : str
        The figure's title.

    Returns
    -------
    Figure

    Examples
    --------
    >>> emb = np.zeros((3, 2))
    >>> fig = tsne_grid([("drugs", emb, [("S2", np.array(["train", "test", "unassigned"]))])], "DAVIS")
    >>> print(fig.axes[0].get_title())
    drugs
    S2
    """
    n_cols = max(len(panels) for _, _, panels in rows)
    fig = _new_figure(4.0 * n_cols, 4.6 * len(rows))
    axes = np.asarray(fig.subplots(len(rows), n_cols, squeeze=False))
    for r, (what, embedding, panels) in enumerate(rows):
        for c in range(n_cols):
            if c >= len(panels):
                axes[r, c].set_visible(False)
                continue
            name, labels = panels[c]
            _fold_scatter(axes[r, c], embedding, labels, f"{what}\n{name}" if what else name)
    fig.suptitle(_wrap(title, 4.0 * n_cols, 12))
    return fig


def tsne_figure(embedding: np.ndarray, panels: Sequence[tuple[str, np.ndarray]], title: str) -> Figure:
    """One scatter panel per split of one embedding (:func:`tsne_grid` with a single row, no row name)."""
    return tsne_grid([("", embedding, panels)], title)


def split_tsne_figure(data: ExperimentData, folds: Mapping[str, np.ndarray], max_points: int, seed: int) -> Figure:
    """The t-SNE figure of one dataset: a row of the molecules' ECFP4 (Tanimoto; :func:`fingerprint_tsne`) and,
    for drug-target pairs, a row of the proteins' features (Euclidean; :func:`feature_tsne`), one panel per split,
    each entity coloured by its fold (:func:`benchdesign.molexp.experiment.entity_fold_labels`): for pairs, grey
    when every pair of it was dropped, "both" when it has pairs in both folds.

    Parameters
    ----------
    data : ExperimentData
        The dataset (:func:`benchdesign.molexp.experiment.load_experiment`).
    folds : mapping of str to np.ndarray
        Split method -> fold per sample (-1: dropped), in panel order.
    max_points : int
        Entities per t-SNE (seeded sub-sample).
    seed : int
        Seed of the sub-samples and the embeddings.

    Returns
    -------
    Figure
    """
    from benchdesign.molexp.experiment import entity_fold_labels

    pairs = data.protein_index is not None
    sides = [("drugs" if pairs else "molecules", "ECFP4, Tanimoto", data.molecule_index, len(data.molecules),
              fingerprint_tsne(data.molecule_bits, max_points, seed))]
    if pairs:
        sides.append(("proteins", "protein features, Euclidean", data.protein_index, len(data.proteins),
                      feature_tsne(data.protein_features, max_points, seed)))
    rows = []
    for what, how, entity_index, n_entities, (index, embedding) in sides:
        panels = [(method_label(method, data.info.name), entity_fold_labels(entity_index, f, n_entities)[index])
                  for method, f in folds.items()]
        rows.append((f"{len(index)} {what} ({how})", embedding, panels))
    grey = "; grey: every pair of the entity dropped, both: pairs in both folds" if pairs else ""
    return tsne_grid(rows, f"{dataset_label(data.info.name)}: t-SNE coloured by fold{grey}")


def _datasets_named(*frames: pd.DataFrame) -> str:
    """Display names of the datasets in ``frames`` (first-appearance order), comma-joined."""
    names = dict.fromkeys(d for frame in frames if "dataset" in frame.columns for d in frame["dataset"])
    return ", ".join(dataset_label(str(d)) for d in names)


def ablation_figure(clusters: pd.DataFrame, margins: pd.DataFrame, size: pd.DataFrame) -> Figure:
    """Fig. 6: (a) scaled L(pi) and (b) seconds vs K per solver; (c) scaled L(pi) over epsilon x delta;
    (d) seconds vs number of molecules per method (log-log; skipped / timed-out runs left out).

    The title names each panel's dataset(s) (the ``dataset`` column of each frame, by :data:`DATASET_LABELS`),
    the methods of (d) are named by :data:`METHOD_LABELS`, and every legend lies below its axes.
    """
    fig = _new_figure(13.0, 4.0)
    ax_a, ax_b, ax_c, ax_d = fig.subplots(1, 4)
    for solver, group in clusters.groupby("solver"):
        group = group.sort_values("clusters")
        ax_a.plot(group["clusters"], group["scaled_leakage"], marker="o", label=solver)
        ax_b.plot(group["clusters"], group["seconds"], marker="o", label=solver)
    ax_a.set(xlabel="clusters K", ylabel="scaled L(π)", title="a  quality vs K")
    ax_b.set(xlabel="clusters K", ylabel="seconds", title="b  run time vs K")
    grid = margins.pivot_table(index="delta", columns="epsilon", values="scaled_leakage")
    image = ax_c.imshow(grid.to_numpy(), origin="lower", cmap="viridis", aspect="auto")
    ax_c.set_xticks(range(grid.shape[1]), [f"{v:g}" for v in grid.columns])
    ax_c.set_yticks(range(grid.shape[0]), [f"{v:g}" for v in grid.index])
    ax_c.set(xlabel="ε", ylabel="δ", title="c  scaled L(π) vs ε, δ")
    fig.colorbar(image, ax=ax_c, label="scaled L(π)")
    done = size[size["status"] == "ok"]
    for method, group in done.groupby("method"):
        group = group.sort_values("n_molecules")
        ax_d.plot(group["n_molecules"], group["seconds"], marker="o", label=METHOD_LABELS.get(method, method))
    ax_d.set(xscale="log", yscale="log", xlabel="molecules", ylabel="seconds", title="d  run time vs size")
    for ax, title in ((ax_a, "solver"), (ax_b, "solver"), (ax_d, "split")):
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, title=title, title_fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2),
                      ncols=2)
    panels = [("a, b", _datasets_named(clusters)), ("c", _datasets_named(margins)), ("d", _datasets_named(size))]
    named = "; ".join(f"{which}: {names}" for which, names in panels if names)
    fig.suptitle(_wrap(f"Fig. 6 ablations{f' ({named})' if named else ''}", 13.0, 11), fontsize=11)
    return fig
