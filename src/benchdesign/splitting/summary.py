"""The summary block of a split, the same for ``benchdesign split`` and ``benchdesign leakage``.

Per fold: its size and fraction (beside the requested one when known), the scaled L(pi) of the fold
against the rest beside random splits of the same fold sizes (from the certificate, certificate.py),
and the nearest-neighbour view: each test sample's maximum similarity to the other folds (the summand
of eq. 1), ours vs the random splits, all from one pass over the similarities
(``leakage.nearest_other_fold``), and, when SMILES are passed (``--scaffold-baseline``), vs a Bemis-Murcko
scaffold split of the same fractions. With class labels (stratification), each fold's class shares
beside the overall ones. Above ``NN_SAMPLE_MIN`` entities (or when the certificate
is sampled) the nearest-neighbour figures come from a seeded sample of ``NN_SAMPLE_TEST`` test
entities against all training entities, and the block says so. Ends with one plain sentence.
Stages (``progress.stage``): ``nearest_neighbour``, and with SMILES ``scaffolds``, ``scaffold_leakage``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from benchdesign.splitting.certificate import random_baselines
from benchdesign.splitting.leakage import leakage_summary, nearest_other_fold, sampled_leakage
from benchdesign.splitting.progress import stage

__all__ = ["NN_THRESHOLDS", "SCALED_LEAKAGE_TEXT", "NN_TEXT", "random_baselines", "split_summary",
           "summary_lines", "scaled_leakage_text", "class_shares", "class_share_lines"]

NN_THRESHOLDS = (0.5, 0.7)  # shares of test samples whose nearest training neighbour is more similar than these
NN_SAMPLE_MIN = 20_000  # from this many assigned entities the nearest-neighbour view is sampled
NN_SAMPLE_TEST = 2_000  # test entities of that sample (against all training entities)
NN_SEARCH_SAMPLE = 300  # entities of the view when a search finds the neighbours (MMseqs2: every sequence searched)
_EXAMPLE = (0.8, 0.2)  # the split quoted in the plain description of scaled L(pi)
NN_TEXT = "each test sample's maximum similarity to the other folds, i.e. its nearest training neighbour (eq. 1 summand)"


def scaled_leakage_text() -> str:
    """Plain words for scaled L(pi) (eq. 20); a random split scores about 1 - sum s_i^2."""
    random = 1.0 - sum(s * s for s in _EXAMPLE)
    split = "/".join(f"{100 * s:g}" for s in _EXAMPLE)
    return f"share of the similarity mass between folds (0 = none; a random {split} split ≈ {random:.2f}) [eq. 20]"


SCALED_LEAKAGE_TEXT = scaled_leakage_text()


def _nn_stats(values: np.ndarray, thresholds: Sequence[float] = NN_THRESHOLDS) -> dict:
    values = values[~np.isnan(values)]
    return {"n_test": int(values.size), "median": float(np.median(values)) if values.size else None,
            "share_above": {f"{t:g}": float((values > t).mean()) if values.size else None for t in thresholds}}


def _nn_view(values: np.ndarray, fold_of: np.ndarray, names: Sequence[str],
             thresholds: Sequence[float] = NN_THRESHOLDS) -> dict:
    """Pooled (``all``) and per-fold statistics of the test entities' nearest-neighbour similarities
    ``values`` (NaN = no neighbour in another fold), ``fold_of`` the fold of each."""
    per = {name: _nn_stats(values[fold_of == i], thresholds) for i, name in enumerate(names)
           if (~np.isnan(values[fold_of == i])).any()}
    return {"all": _nn_stats(values, thresholds), "folds": per}


def _nn_views(source, splits: list[np.ndarray], rows: np.ndarray, sampled: bool, names: Sequence[str],
              thresholds: Sequence[float] = NN_THRESHOLDS) -> list[dict]:
    """``_nn_view`` of every split, from one pass over the similarities (``nearest_other_fold``)."""
    search = getattr(source, "nearest_other_fold", None)
    with stage("nearest_neighbour"):
        if callable(search):  # a search over every entity (mmseqs.MmseqsSimilarity), not the matrix's pairs
            values = search(splits, rows)
        else:
            values = nearest_other_fold(source, splits, rows=rows if sampled else None)
    return [_nn_view(v, split[rows], names, thresholds) for v, split in zip(values, splits, strict=True)]


def _mean_views(views: list[dict]) -> dict:
    """Mean over seeds of the medians and shares of several ``_nn_view`` results."""
    def mean(stats: list[dict]) -> dict:
        if any(s["median"] is None for s in stats):
            return _nn_stats(np.zeros(0), [float(t) for t in stats[0]["share_above"]])
        return {"n_test": stats[0]["n_test"], "median": float(np.mean([s["median"] for s in stats])),
                "share_above": {t: float(np.mean([s["share_above"][t] for s in stats])) for t in stats[0]["share_above"]}}

    folds = set.intersection(*(set(v["folds"]) for v in views))
    return {"all": mean([v["all"] for v in views]),
            "folds": {f: mean([v["folds"][f] for v in views]) for f in views[0]["folds"] if f in folds}}


def _test_rows(folds: np.ndarray, sampled: bool, seed: int, searched: bool = False) -> tuple[np.ndarray, dict | None]:
    """The test entities of the nearest-neighbour view: all assigned ones, or a seeded sample (of
    ``NN_SEARCH_SAMPLE`` when a search finds the neighbours: ``searched``)."""
    assigned = np.flatnonzero(folds >= 0)
    size = NN_SEARCH_SAMPLE if searched else NN_SAMPLE_TEST
    if not (sampled or searched or assigned.size > NN_SAMPLE_MIN) or assigned.size <= size:
        return assigned, None
    rows = np.sort(np.random.default_rng([seed, 1]).choice(assigned, size, replace=False))
    return rows, {"n_test": size, "of": int(assigned.size), "seed": int(seed)}


def _scaffold_folds(smiles: Sequence[str], folds: np.ndarray, k: int) -> np.ndarray:
    """The split of ``split --task scaffold`` (whole Bemis-Murcko scaffolds, ``group_folds``) of
    the assigned molecules, with our fold sizes."""
    from benchdesign.splitting.groups import murcko_scaffolds
    from benchdesign.splitting.tasks import group_folds

    assigned = np.flatnonzero(folds >= 0)
    sizes = np.bincount(folds[assigned], minlength=k)
    groups = np.unique(murcko_scaffolds([smiles[i] for i in assigned]), return_inverse=True)[1].reshape(-1)
    out = np.full(folds.size, -1, dtype=np.int64)
    out[assigned] = group_folds(groups, sizes / sizes.sum())
    return out


def _scaffold_leakage(source, scaffold: np.ndarray, names: Sequence[str], seed: int, n_pairs: int | None) -> dict:
    """Scaled L(pi) of the scaffold split (sampled from ``n_pairs`` pairs when given) and its fold sizes."""
    est = sampled_leakage(source, scaffold, n_pairs, seed=seed) if n_pairs else leakage_summary(source, [scaffold])[0]
    return {"scaled_leakage": float(est.scaled),
            "fold_sizes": {n: int((scaffold == i).sum()) for i, n in enumerate(names)}}


def _fold_rows(folds: np.ndarray, names: Sequence[str], cert: dict, requested: dict | None) -> dict:
    n = int((folds >= 0).sum())
    rand = cert.get("random_fold_scaled_leakage", {})
    return {name: {"size": int((folds == i).sum()), "fraction": float((folds == i).sum() / n) if n else 0.0,
                   "requested": None if requested is None else float(requested[name]),
                   "scaled_leakage": cert["fold_scaled_leakage"][name], "random_scaled_leakage": rand.get(name)}
            for i, name in enumerate(names)}


def class_shares(class_counts: dict, fold_sizes: dict, stratification: dict | None = None) -> dict:
    """Per class, its share of every fold (members / fold size; None for an empty fold) and of all folds.

    ``class_counts``: class -> fold name -> members (a split report's ``class_fold_counts``); ``fold_sizes``:
    fold name -> size; ``stratification``: the report's ``{"delta", "bound"}``, kept for the lines' note.
    """
    n = sum(fold_sizes.values())
    classes = {str(c): {"all": sum(counts.values()) / n if n else None,
                        "folds": {f: counts.get(f, 0) / size if size else None for f, size in fold_sizes.items()}}
               for c, counts in class_counts.items()}
    return {"classes": classes, "stratification": stratification}


_BOUND_TEXT = {  # s_i = the fold's requested fraction, n_c = the members of class c
    "two_sided": "every fold i holds (1 ± {d:g}) s_i n_c members of each class c (eq. 15 and its upper bound)",
    "paper": "every fold i holds >= {lo:g} s_i n_c members of each class c, no upper bound (eq. 15, the paper's)",
}


def class_share_lines(shares: dict) -> list[str]:
    """Console lines of ``class_shares``: one row per class, the folds, all folds and the folds' range."""
    classes = shares["classes"]
    if not classes:
        return []
    folds = list(next(iter(classes.values()))["folds"])
    width = max(len("class share"), *(len(c) for c in classes))
    cols = [max(len(f), 6) for f in folds]
    lines = ["  " + f"{'class share':<{width}} " + " ".join(f"{f:>{w}}" for f, w in zip(folds, cols, strict=True))
             + f" {'all':>6}  {'range of the folds':>18}"]
    for c, row in classes.items():
        values = [v for v in row["folds"].values() if v is not None]
        spread = f"{_pct(min(values))}-{_pct(max(values))}" if values else "-"
        lines.append("  " + f"{c:<{width}} " + " ".join(f"{_pct(row['folds'][f]):>{w}}" for f, w in
                                                         zip(folds, cols, strict=True))
                     + f" {_pct(row['all']):>6}  {spread:>18}")
    strat = shares.get("stratification")
    note = "  class share = the fold's members of the class over its size"
    if strat:
        d = float(strat["delta"])
        note += f"; stratified with delta {d:g}: " + _BOUND_TEXT[strat["bound"]].format(d=d, lo=round(1.0 - d, 6))
    return [*lines, note]


def split_summary(source, folds: np.ndarray, names: Sequence[str], cert: dict, *, seed: int = 0,
                  requested: dict | None = None, smiles: Sequence[str] | None = None,
                  unassigned: dict | None = None, words: dict | None = None, class_counts: dict | None = None,
                  stratification: dict | None = None, max_similarity: float | None = None) -> dict:
    """The summary block of ``folds`` (fold index per entity of ``source``, -1 = none) from its certificate.

    ``smiles`` (per entity of ``source``) adds the scaffold split; ``unassigned`` maps a reason to the number
    of rows left out; ``words`` names the samples and the similarity (``noun``, ``similarity``);
    ``class_counts`` (class -> fold name -> members) adds each fold's class shares (``class_shares``),
    with ``stratification`` (``{"delta", "bound"}``) in their note. ``max_similarity`` (a split's hard threshold)
    adds the share of nearest neighbours above it to those above ``NN_THRESHOLDS``.
    """
    folds = np.asarray(folds, dtype=np.int64)
    names = [str(x) for x in names]
    sampled = "sampled" in cert
    searched = callable(getattr(source, "nearest_other_fold", None))
    rows, sample = _test_rows(folds, sampled, seed, searched)
    randoms = random_baselines(folds, seed, cert.get("random_seeds", 0))
    scaffold = None
    if smiles is not None:
        with stage("scaffolds"):
            scaffold = _scaffold_folds(smiles, folds, len(names))
    thresholds = sorted({*NN_THRESHOLDS, *([] if max_similarity is None else [float(max_similarity)])})
    views = _nn_views(source, [folds, *randoms, *([] if scaffold is None else [scaffold])], rows, sample is not None,
                      names, thresholds)
    nn = {"split": views[0], "sampled": sample, "thresholds": thresholds}
    if searched:
        nn["exact"] = bool(source.last_search_exact)  # every pair of the view aligned, or a prefilter's candidates
        nn["search"] = (f"every sequence searched by MMseqs2 ({source.last_search}); {source.settings.identity_text()}; "
                        "0 = no sequence of another fold aligns at that coverage")
    if randoms:
        nn["random"] = _mean_views(views[1:1 + len(randoms)])
    out = {
        "n_assigned": int((folds >= 0).sum()), "unassigned": dict(unassigned or {}),
        "folds": _fold_rows(folds, names, cert, requested),
        "scaled_leakage": cert["scaled_leakage"], "random_scaled_leakage": cert.get("random_scaled_leakage"),
        "leakage_reduction": cert.get("leakage_reduction"), "random_seeds": len(randoms), "random_seed": int(seed),
        "leakage_sampled": sampled, "nearest_neighbour": nn, "words": {"noun": "samples", "similarity": "similarity"}
        | (words or {}),
        "descriptions": {"scaled_leakage": SCALED_LEAKAGE_TEXT, "nearest_neighbour": NN_TEXT,
                         "random": "random splits of the same fold sizes (assigned entities' folds permuted)"},
    }
    if class_counts:
        out["class_shares"] = class_shares(class_counts, {n: r["size"] for n, r in out["folds"].items()},
                                           stratification)
    if scaffold is not None:
        with stage("scaffold_leakage"):
            out["scaffold"] = _scaffold_leakage(source, scaffold, names, seed,
                                                cert["sampled"]["n_pairs"] if sampled else None)
        out["scaffold"]["nearest_neighbour"] = views[-1]
    out["sentence"] = _sentence(out)
    return out


def _headline(summary: dict, view: str) -> dict | None:
    """The nearest-neighbour statistics the sentence quotes: of fold 'test' when there is one, else pooled."""
    nn = summary["scaffold"]["nearest_neighbour"] if view == "scaffold" else summary["nearest_neighbour"].get(view)
    if nn is None:
        return None
    return nn["folds"].get("test", nn["all"]) if "test" in summary["folds"] else nn["all"]


def _sentence(summary: dict) -> str:
    """One plain sentence: leakage against the random split, and the nearest training neighbour's median."""
    red, w = summary["leakage_reduction"], summary["words"]
    parts = []
    if red is not None:
        parts.append(f"{abs(red):.0%} {'less' if red >= 0 else 'more'} leakage than a random split of the same sizes")
    ours = _headline(summary, "split")
    if ours and ours["median"] is not None:
        others = [f"{label} {s['median']:.2f}" for label, view in (("random", "random"), ("scaffold split", "scaffold"))
                  if (view != "scaffold" or "scaffold" in summary) and (s := _headline(summary, view))]
        text = (f"test {w['noun']}' nearest training neighbour: median {w['similarity']} {ours['median']:.2f}"
                + (f" ({', '.join(others)})" if others else ""))
        if summary["nearest_neighbour"]["sampled"]:
            text += f" (on {summary['nearest_neighbour']['sampled']['n_test']:,} sampled test {w['noun']})"
        parts.append(text)
    return "; ".join(parts)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _fold_table(summary: dict) -> list[str]:
    nn, rand_nn = summary["nearest_neighbour"]["split"]["folds"], summary["nearest_neighbour"].get("random")
    head = (f"  {'fold':<8} {'size':>7} {'fraction':>9} {'(asked)':>8}  {'leakage vs rest':>15} {'(random)':>9}"
            f"  {'NN median':>9} {'(random)':>9}")
    lines = [head]
    for name, f in summary["folds"].items():
        med = nn.get(name, {}).get("median")
        rmed = (rand_nn or {}).get("folds", {}).get(name, {}).get("median")
        rnd = f["random_scaled_leakage"]
        lines.append(f"  {name:<8} {f['size']:>7} {_pct(f['fraction']):>9} {_pct(f['requested']):>8}  "
                     f"{f['scaled_leakage']:>15.4f} {'-' if rnd is None else f'{rnd:.4f}':>9}  "
                     f"{'-' if med is None else f'{med:.3f}':>9} {'-' if rmed is None else f'{rmed:.3f}':>9}")
    rnd = summary["random_scaled_leakage"]
    lines.append(f"  {'all':<8} {summary['n_assigned']:>7} {'':>9} {'':>8}  {summary['scaled_leakage']:>15.4f} "
                 f"{'-' if rnd is None else f'{rnd:.4f}':>9}")
    return lines


def _nn_line(summary: dict) -> str:
    nn, w = summary["nearest_neighbour"], summary["words"]
    views = [("ours", nn["split"]["all"])] + ([("random", nn["random"]["all"])] if "random" in nn else [])
    if "scaffold" in summary:
        views.append(("scaffold split", summary["scaffold"]["nearest_neighbour"]["all"]))
    views = [(label, s) for label, s in views if s["median"] is not None]
    text = "; ".join(f"{label} median {s['median']:.3f}, "
                     + ", ".join(f"above {t} {_pct(v)}" for t, v in s["share_above"].items()) for label, s in views)
    where = (f"{nn['sampled']['n_test']:,} sampled test {w['noun']} (seed {nn['sampled']['seed']}) of "
             f"{nn['sampled']['of']:,}, against all training {w['noun']}" if nn["sampled"]
             else f"all {summary['n_assigned']:,} {w['noun']}, each tested against the other folds")
    return f"  nearest neighbour ({where}): {text}"


def summary_lines(summary: dict) -> list[str]:
    """Console lines of a ``split_summary`` block."""
    left = ", ".join(f"{n} {reason}" for reason, n in summary["unassigned"].items() if n)
    lines = [f"summary: {summary['n_assigned']} {summary['words']['noun']} in {len(summary['folds'])} folds"
             + (f"; left out: {left}" if left else ""), *_fold_table(summary)]
    if "class_shares" in summary:
        lines += class_share_lines(summary["class_shares"])
    rand = (f"; random = {summary['random_seeds']} random splits of the same fold sizes (seed {summary['random_seed']})"
            if summary["random_seeds"] else "")
    sampled = " (sampled estimate)" if summary["leakage_sampled"] else ""
    lines.append(f"  leakage{sampled} = scaled L(pi), the {summary['descriptions']['scaled_leakage']}{rand}")
    lines.append(f"  NN = {summary['descriptions']['nearest_neighbour']} ({summary['words']['similarity']})")
    if "search" in summary["nearest_neighbour"]:
        lines.append(f"  NN found by a search: {summary['nearest_neighbour']['search']}")
    lines.append(_nn_line(summary))
    if "scaffold" in summary:
        lines.append(f"  Bemis-Murcko scaffold split of the same fractions: leakage {summary['scaffold']['scaled_leakage']:.4f}")
    lines.append(f"  => {summary['sentence']}")
    return lines
