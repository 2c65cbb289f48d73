"""Checks the workflow runs when it builds the DAG (so a dry run fails, naming the config key or file), the
check a job runs on its cached inputs, and the console summary of a failed run.

* :func:`check_cached_files`: every file under the data cache that the run uses must still have its
  manifest checksum (stat-keyed hash cache, :func:`benchdesign.files.cached_sha256`); a changed file is
  refused with the command that refetches it. :func:`verify_cached` repeats the check inside a job.
* :func:`domain_facts` / :func:`check_protocol_against_data`: the number of datasets and the model names of
  each enabled domain (read once from the checksum-pinned inputs and cached under their checksums), checked
  against ``k_max``, ``alpha`` and ``models``.
* :func:`check_packages`: every representation, model, peer split method and solver the config asks for must
  have its modules installed (looked up with :func:`importlib.util.find_spec`, not imported); one message
  lists every missing one with its config key and the pip line that installs it (:func:`install_hint`).
* :func:`check_esm_weights`: a local ESM-2 weights file the config names must exist.
* :func:`failed_job_logs`: the log tails of the jobs a failed Snakemake run names (for ``onerror:``).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import inspect
import json
import os
import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchdesign.data.sources import SourceFile
from benchdesign.files import cached_sha256, recorded_sha256, write_atomic

__all__ = [
    "CHECKS_DIR",
    "PackageNeed",
    "check_cached_files",
    "check_esm_weights",
    "check_packages",
    "check_protocol_against_data",
    "domain_facts",
    "install_hint",
    "missing_packages",
    "package_needs",
    "registered_modules",
    "scores_facts",
    "failed_job_logs",
    "verify_cached",
]

CHECKS_DIR = ".checks"  # inside the data cache: hash records (sha256/) and per-domain facts (facts/)


def _refetch_hint(local: str | os.PathLike) -> str:
    return f"delete it and rerun to fetch it again (rm {local}), or restore the original file"


def _matches(entry: SourceFile, sha: str, local: str | os.PathLike) -> bool:
    if entry.sha256 is not None:
        return sha == entry.sha256
    from benchdesign.data.sources import git_blob_id

    return git_blob_id(local).startswith(entry.git_blob or "")


def check_cached_files(entries: Iterable[SourceFile], cache: str | os.PathLike) -> None:
    """Refuse any existing ``<cache>/<entry.path>`` whose bytes differ from the manifest's checksum.

    Hashes are cached by (size, mtime, inode) in ``<cache>/.checks/sha256``, so an unchanged file costs a
    ``stat``. Files not yet fetched are skipped (the fetch rule checks them).
    """
    cache = Path(cache)
    records = cache / CHECKS_DIR / "sha256"
    bad = []
    for entry in entries:
        local = cache / entry.path
        if not local.is_file():
            continue
        sha = cached_sha256(local, records)
        if not _matches(entry, sha, local):
            want = entry.sha256 or f"a git blob id starting {entry.git_blob}"
            bad.append(f"{local} (sha256 {sha}, the manifest expects {want})")
    if bad:
        raise ValueError(
            "cached input file(s) changed since they were fetched: " + "; ".join(bad)
            + ". " + _refetch_hint(" ".join(b.split(" (")[0] for b in bad))
        )


def verify_cached(paths: Sequence[str | os.PathLike], cache: str | os.PathLike) -> None:
    """Inside a job: each cached input must still hash to what was recorded when the workflow checked it.

    A file whose (size, mtime, inode) is unchanged costs a ``stat``; a changed one is hashed again and
    refused when its sha256 differs from the record.
    """
    records = Path(cache) / CHECKS_DIR / "sha256"
    for path in paths:
        before = recorded_sha256(path, records)
        now = cached_sha256(path, records)
        if before is not None and now != before:
            raise ValueError(f"cached input {path} changed since the workflow checked it (sha256 {before}, "
                             f"now {now}); {_refetch_hint(path)}")


# ------------------------------------------------------------------------------ data-dependent config

def domain_facts(domain: str, entries: Sequence[SourceFile], cache: str | os.PathLike,
                 mirror: str | os.PathLike | None,
                 load: Callable[[str, dict[str, str]], tuple[list[str], list[str]]] | None = None) -> dict | None:
    """``{"datasets": [...], "models": [...]}`` of a domain's inputs, or None when they are not at hand.

    The inputs are pinned by their checksums, so the facts are cached under those
    (``<cache>/.checks/facts``). Each file is taken from the data cache, else from the mirror when it holds
    it under the same path with the right checksum. ``load(domain, files)`` reads the facts.
    """
    cache = Path(cache)
    key = hashlib.sha256("".join(f"{e.path}={e.sha256 or e.git_blob}\n" for e in entries).encode()).hexdigest()
    record = cache / CHECKS_DIR / "facts" / f"{domain}-{key[:24]}.json"
    if record.is_file():
        return json.loads(record.read_text())
    files = {}
    for entry in entries:
        candidates = [cache / entry.path] + ([Path(mirror) / entry.path] if mirror else [])
        found = [c for c in candidates if c.is_file()
                 and _matches(entry, cached_sha256(c, cache / CHECKS_DIR / "sha256"), c)]
        if not found:
            return None
        files[entry.path] = str(found[0])
    datasets, models = (load or scores_facts)(domain, files)
    facts = {"datasets": list(datasets), "models": list(models)}
    write_atomic(record, json.dumps(facts, indent=1) + "\n")
    return facts


def scores_facts(domain: str, files: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """(dataset names, model names) of a built-in domain's score table, read from its input files."""
    from benchdesign.domains import get_domain, load_scores

    scores = load_scores(get_domain(domain), dict(files), None)
    return sorted(scores["dataset"].unique()), list(scores["model"].unique())


def _key(config: dict, domain: str, name: str) -> str:
    """Dotted config key where a protocol value of a domain is set."""
    if name in (((config.get("domains") or {}).get(domain) or {}).get("protocol") or {}):
        return f"domains.{domain}.protocol.{name}"
    return f"protocol.{name}"


def check_protocol_against_data(config: dict, domain: str, protocol: Mapping, facts: Mapping) -> None:
    """Refuse protocol settings the domain's data cannot satisfy, naming the config key.

    ``domains.<d>.models`` must name models of the data (at least 2); per variation, the pool
    ``floor(alpha * n)`` must hold at least 2 items and ``k_max`` must fit (dataset pool: ``k_max <=
    floor(alpha * n_datasets)``; model pool: ``k_max <= n_datasets``).
    """
    available = list(facts["models"])
    chosen = ((config.get("domains") or {}).get(domain) or {}).get("models")
    if chosen is not None:
        unknown = [m for m in chosen if m not in set(available)]
        if unknown:
            raise ValueError(f"config key domains.{domain}.models: unknown model(s) {unknown}; "
                             f"the {domain} data have {available}")
    n_models = len(chosen) if chosen is not None else len(available)
    if n_models < 2:
        raise ValueError(f"config key domains.{domain}.models: {n_models} model(s); at least 2 are needed")
    n = len(facts["datasets"])
    alpha, k_max = protocol["alpha"], protocol["k_max"]
    for variation in protocol["variations"]:
        if variation == "model_holdout":
            fraction = protocol["holdout_fraction"]
            held = max(2, int(np.floor(fraction * n_models)))
            if held > n_models - 1:
                raise ValueError(f"config key {_key(config, domain, 'holdout_fraction')}={fraction}: the "
                                 f"model_holdout variation of {domain} holds out max(2, floor({fraction} x "
                                 f"{n_models} models)) = {held} and sees none; use fewer or drop model_holdout")
        pooled = variation in ("dataset_pool", "model_holdout")  # the pool is of datasets
        pool_of, total = ("datasets", n) if pooled else ("models", n_models)
        size = int(np.floor(alpha * total))
        if size < 2:
            raise ValueError(f"config key {_key(config, domain, 'alpha')}={alpha}: the {variation} variation "
                             f"of {domain} draws floor({alpha} x {total} {pool_of}) = {size}; at least 2 needed")
        limit = size if pooled else n
        if k_max > limit:
            what = f"a pool of floor({alpha} x {n}) = {size} datasets" if pooled else \
                f"{n} datasets"
            raise ValueError(f"config key {_key(config, domain, 'k_max')}={k_max}: the {variation} variation "
                             f"of {domain} selects from {what}; k_max must be <= {limit}")


# -------------------------------------------------------------------------------------------- packages

@dataclass(frozen=True)
class PackageNeed:
    """One value of the config that needs modules beyond the core dependencies.

    Attributes
    ----------
    key : dotted config key, e.g. ``domains.tsc.representations``.
    value : the value at that key that needs the modules, e.g. ``catch22_paper``.
    modules : top-level modules it imports, e.g. ``("pycatch22",)``.
    """

    key: str
    value: str
    modules: tuple[str, ...]


def _install_commands() -> dict[str, str]:
    """Install lines of modules that benchdesign's own requirements cannot name (LoHi needs ``--no-deps``)."""
    from benchdesign.molexp.splitters import LOHI_INSTALL

    return {"lohi_splitter": LOHI_INSTALL}


_DISTRIBUTIONS = {"esm": "fair-esm"}
"""Modules whose distribution has another name (PyPI's ``esm`` is a different package from fair-esm's ``esm``)."""


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement(module: str) -> str | None:
    """benchdesign's own requirement (pyproject.toml's pin, core or of an extra) for the distribution of ``module``,
    read from the installed package's metadata; None when it names none or benchdesign is not installed."""
    try:
        requires = importlib.metadata.requires("benchdesign") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    found = []
    for line in requires:
        requirement, _, marker = line.partition(";")
        name = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
        if name and _canonical(name.group(1)) == _canonical(module):
            found.append((bool(marker.strip()), requirement.strip()))
    return min(found)[1] if found else None  # a core requirement before an extra's


def install_hint(module: str) -> str:
    """The pip line that installs ``module``.

    Parameters
    ----------
    module : top-level module name, e.g. ``"pycatch22"``.

    Returns
    -------
    str
        The line of the few modules whose install needs more than one pip requirement (LoHi's), else
        ``pip install <requirement>`` with benchdesign's own requirement for its distribution (the pin of
        pyproject.toml, as installed), else with the bare distribution name (``fair-esm`` for ``esm``).
    """
    special = _install_commands().get(module)
    if special is not None:
        return special
    distribution = _DISTRIBUTIONS.get(module, module)
    return "pip install " + shlex.quote(_requirement(distribution) or _canonical(distribution))


def _solver_need(key: str, solver: str) -> PackageNeed:
    """The module of cvxpy's interface to ``solver``; ValueError naming the key for a solver not known."""
    from benchdesign.splitting.ilp import SOLVER_PACKAGES

    name = str(solver).upper()
    if name not in SOLVER_PACKAGES:
        raise ValueError(f"config key {key}: unknown solver {solver!r}; choose from {sorted(SOLVER_PACKAGES)}")
    return PackageNeed(key, str(solver), (SOLVER_PACKAGES[name],))


def _molecule_needs(config: dict) -> list[PackageNeed]:
    from benchdesign.molexp.datasets import dataset_info
    from benchdesign.molexp.methods import METHOD_PACKAGES
    from benchdesign.molexp.peers import datasail_s1_split
    from benchdesign.molexp.protein_embeddings import REPRESENTATION_PACKAGES
    from benchdesign.molexp.settings import MODEL_PACKAGES, PAIR_ONLY_MODELS, mol_settings
    from benchdesign.splitting.options import SPLIT_OPTIONS

    mol = mol_settings(config)
    if not mol["enabled"]:
        return []
    kinds = {dataset_info(d).kind for d in mol["datasets"]}
    # a pair-only model (deepdta) is fitted only when a 2-D dataset is in the run
    needs = [PackageNeed("molecules.models", m, MODEL_PACKAGES[m]) for m in mol["models"]
             if m in MODEL_PACKAGES and ("2d" in kinds or m not in PAIR_ONLY_MODELS)]
    if "2d" in kinds:  # the protein features of the pair models (ESM-2: torch and fair-esm)
        rep = mol["protein_representation"]
        needs.append(PackageNeed("molecules.protein_representation", rep, REPRESENTATION_PACKAGES[rep]))
    peer = dict(mol["method_options"].get("datasail_s1") or {})
    # datasail run by another interpreter (option python): its packages are that interpreter's
    other_python = peer.get("python") is not None
    ab = mol["ablation"]
    size_methods = ab["size_methods"] if ab["enabled"] and ab["size_datasets"] else []  # the Fig. 6 size sweep
    ablation_solvers = ab["solvers"] if ab["enabled"] and ab["clusters"] else []  # the cluster-count sweep
    listed = [(f"molecules.methods_{kind}", m) for kind in ("1d", "2d") if kind in kinds for m in mol[f"methods_{kind}"]]
    listed += [("molecules.ablation.size_methods", m) for m in size_methods]
    for key, method in listed:
        if method in METHOD_PACKAGES and not (method == "datasail_s1" and other_python):
            needs.append(PackageNeed(key, method, METHOD_PACKAGES[method]))
    default_solver = next(o.default for o in SPLIT_OPTIONS if o.name == "solver")
    needs.append(_solver_need("molecules.ilp.solver", mol["ilp"].get("solver", default_solver)))
    needs += [_solver_need("molecules.ablation.solvers", s) for s in ablation_solvers]
    if any(method == "datasail_s1" for _, method in listed) and not other_python:
        solver = peer.get("solver", inspect.signature(datasail_s1_split).parameters["solver"].default)
        needs.append(_solver_need("molecules.method_options.datasail_s1.solver", solver))
    return needs


def package_needs(config: dict) -> list[PackageNeed]:
    """Every value of ``config`` that needs modules beyond the core dependencies, in config order.

    Read from the registries the values come from: the TSC representations
    (:data:`benchdesign.domains.tsc.features.REPRESENTATIONS`, ``packages``) of ``domains.tsc.representations``;
    the encoder of the NLP descriptions (``features.nlp.encoder``,
    :func:`benchdesign.domains.nlp.descriptions.encoder_packages`) when the nlp domain computes them; with
    ``molecules.enabled``, the models (:data:`benchdesign.molexp.settings.MODEL_PACKAGES`), the protein
    representation of a run with 2-D data (:data:`benchdesign.molexp.protein_embeddings.REPRESENTATION_PACKAGES`),
    the split methods of
    the datasets' kinds and of the ablation (:data:`benchdesign.molexp.methods.METHOD_PACKAGES`) and the
    solvers of the ILP, the ablation and datasail (:data:`benchdesign.splitting.ilp.SOLVER_PACKAGES`); the
    solver of a ``splitting:`` block. Values needing nothing beyond the core are left out.

    Raises
    ------
    ValueError
        naming the config key of a solver that is not in :data:`benchdesign.splitting.ilp.SOLVER_PACKAGES`
        (and the errors of the config readers for an unknown domain or representation).
    """
    from benchdesign.domains.nlp.descriptions import DEFAULT_SETTINGS as NLP_DEFAULTS
    from benchdesign.domains.nlp.descriptions import encoder_packages
    from benchdesign.domains.tsc.features import REPRESENTATIONS
    from benchdesign.workflow.config import domain_representations, enabled_domains, feature_representations

    needs: list[PackageNeed] = []
    domains = enabled_domains(config)
    if "tsc" in domains:
        for rep in domain_representations(config, "tsc"):
            if rep in REPRESENTATIONS and REPRESENTATIONS[rep].packages:
                needs.append(PackageNeed("domains.tsc.representations", rep, REPRESENTATIONS[rep].packages))
    if "nlp" in domains and feature_representations(config, "nlp"):
        encoder = {**NLP_DEFAULTS, **((config.get("features") or {}).get("nlp") or {})}["encoder"]
        if encoder_packages(encoder):
            needs.append(PackageNeed("features.nlp.encoder", encoder, encoder_packages(encoder)))
    needs += _molecule_needs(config)
    if config.get("splitting"):
        from benchdesign.splitting.options import SPLIT_OPTIONS

        default_solver = next(o.default for o in SPLIT_OPTIONS if o.name == "solver")
        needs.append(_solver_need("splitting.solver", config["splitting"].get("solver", default_solver)))
    return [n for i, n in enumerate(needs) if n.modules and n not in needs[:i]]


def registered_modules() -> set[str]:
    """Every module :func:`package_needs` may ask for (e.g. for a test that plans jobs without installing them)."""
    from benchdesign.domains.nlp.descriptions import encoder_packages
    from benchdesign.domains.tsc.features import REPRESENTATIONS
    from benchdesign.molexp.methods import METHOD_PACKAGES
    from benchdesign.molexp.protein_embeddings import REPRESENTATION_PACKAGES
    from benchdesign.molexp.settings import MODEL_PACKAGES
    from benchdesign.splitting.ilp import SOLVER_PACKAGES

    groups = [r.packages for r in REPRESENTATIONS.values()] + [encoder_packages("a Hugging Face model")]
    groups += [*MODEL_PACKAGES.values(), *METHOD_PACKAGES.values(), *REPRESENTATION_PACKAGES.values(),
               tuple(SOLVER_PACKAGES.values())]
    return {m for group in groups for m in group}


def _installed(module: str, find_spec: Callable) -> bool:
    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):  # e.g. a broken parent package
        return False


def missing_packages(config: dict, find_spec: Callable | None = None) -> list[tuple[PackageNeed, tuple[str, ...]]]:
    """The needs of :func:`package_needs` with a module that is not installed, and those modules.

    Parameters
    ----------
    config : the pipeline configuration (schema-validated, or a dict of the same keys).
    find_spec : module name -> spec or None; default :func:`importlib.util.find_spec` (looked up at call time,
        so a patched one is used). Nothing is imported.
    """
    find_spec = find_spec or importlib.util.find_spec
    out = []
    for need in package_needs(config):
        absent = tuple(m for m in need.modules if not _installed(m, find_spec))
        if absent:
            out.append((need, absent))
    return out


def _hints(modules: Sequence[str]) -> list[str]:
    """Install lines of ``modules``, leaving out a module that an earlier line already installs."""
    lines: list[str] = []
    for module in modules:
        if not any(re.search(rf"(?<![\w-]){re.escape(_canonical(module))}(?![\w-])", _canonical(line)) for line in lines):
            lines.append(install_hint(module))
    return lines


def check_packages(config: dict, find_spec: Callable | None = None) -> list[str]:
    """Refuse a config that asks for a representation, model, split method or solver whose modules are not
    installed: one ValueError lists every such value with its config key, the missing modules and the pip
    line that installs them (:func:`install_hint`). A peer split method that pip cannot install together with
    benchdesign (:data:`benchdesign.molexp.methods.SEPARATE_INSTALL_METHODS`, LoHi) is not refused: it is
    returned as a notice, for the caller to show, and its splits are recorded as skipped.

    Parameters
    ----------
    config : the pipeline configuration.
    find_spec : as in :func:`missing_packages`.

    Returns
    -------
    list of str
        One notice per config value left out of the run this way (empty when everything is installed).

    Raises
    ------
    ValueError
        listing every other config value whose modules are missing.

    Examples
    --------
    >>> check_packages({"molecules": {"enabled": False}})
    []
    """
    from benchdesign.molexp.methods import SEPARATE_INSTALL_METHODS

    missing = missing_packages(config, find_spec)
    lines = [f"{need.key}: {need.value} needs {', '.join(absent)} ({' && '.join(_hints(absent))})"
             for need, absent in missing]
    separate = [need.value in SEPARATE_INSTALL_METHODS for need, _ in missing]
    refused = [line for line, sep in zip(lines, separate) if not sep]
    if refused:
        raise ValueError("the config asks for packages that are not installed, so nothing was run:\n"
                         + "".join(f"  - {line}\n" for line in refused)
                         + "Install them, or remove these values from the config.")
    return [f"{line}: not installed, so its splits are recorded as skipped and the paper comparison's rows on it "
            "say 'not in this run'" for line, sep in zip(lines, separate) if sep]


def check_esm_weights(config: dict) -> None:
    """Refuse a config whose ``molecules.esm_weights`` names a file that does not exist, when a 2-D dataset of the
    run uses it (``molecules.protein_representation`` an ESM one); the message names the key, the path as given
    and as resolved, and where to download the file.

    Parameters
    ----------
    config : the pipeline configuration.
    """
    from benchdesign.molexp.protein_embeddings import esm_weights_url
    from benchdesign.molexp.settings import mol_settings, protein_options

    mol = mol_settings(config)
    if not mol["enabled"]:
        return
    weights = next((w for d in mol["datasets"] if (w := protein_options(mol, d).get("esm_weights"))), None)
    if weights is not None and not Path(weights).is_file():
        raise ValueError(f"config key molecules.esm_weights: {weights} (resolved: {Path(weights).resolve()}) is not a "
                         f"file; download {esm_weights_url()} there, or set molecules.esm_weights: null to let "
                         "fair-esm download it (online), or molecules.protein_representation: composition")


# --------------------------------------------------------------------------------------- failed run

_EXCEPTION = re.compile(r"^(?:[\w.]+\.)?\w*(?:Error|Exception|Exit)\w*: ")  # e.g. "ValueError: ..."
_LOG_LINE = re.compile(r"^\s*log: (.+?)(?: \(check log file\(s\) for error details\))?\s*$")


def failed_job_logs(snakemake_log: str | os.PathLike | Sequence[str | os.PathLike], workdir: str | os.PathLike = ".",
                    lines: int = 15) -> str:
    """The first error line and the last ``lines`` lines of the log of every job that a failed Snakemake
    run's own log file(s) (``snakemake_log``: the ``log`` of ``onerror:``) report as failed ("Error in rule
    ..."), as console text."""
    paths = [snakemake_log] if isinstance(snakemake_log, (str, os.PathLike)) else list(snakemake_log)
    text = "\n".join(Path(p).read_text(errors="replace") for p in paths if Path(p).is_file())
    out = []
    for block in re.split(r"(?m)^(?=Error in rule )", text)[1:]:
        rule = block.split(":", 1)[0].removeprefix("Error in rule ").strip()
        logs = [m.group(1) for ln in block.splitlines()[:25] if (m := _LOG_LINE.match(ln))]
        for log in ", ".join(logs).split(", ") if logs else []:
            path = Path(workdir) / log.strip()
            if not path.is_file():
                continue
            body = path.read_text(errors="replace").splitlines()
            first = next((ln for ln in body if _EXCEPTION.match(ln)), None) or next(
                (ln for ln in body if re.search(r"\berror\b", ln, re.I)), None)
            tail = "\n".join("    " + ln for ln in body[-lines:])
            out.append(f"rule {rule} failed; its log {log.strip()}"
                       + (f"\n  first error: {first.strip()}" if first else "") + f"\n  last lines:\n{tail}")
    return "\n".join(out)
