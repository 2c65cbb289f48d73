import re
import sys

from snakemake.settings.types import DeploymentMethod
from snakemake.utils import validate

from benchdesign.workflow.config import (
    CRITICAL_PATH,
    config_domain,
    coverage_settings,
    domain_entry,
    domain_protocol,
    domain_representations,
    domain_strata,
    feature_representations,
    enabled_domains,
    synthetic_protocol,
    synthetic_settings,
    synthetic_strategies,
    trial_combinations,
    trial_settings,
)
from benchdesign.data.sources import load_manifest
from benchdesign.domains import domain_source_paths
from benchdesign.selection.verdicts import HOLDOUT_REFERENCE
from benchdesign.selection.options import VARIATIONS
from benchdesign.selection.strategies import STRATEGIES
from benchdesign.selection.synthetic import REGIMES
from benchdesign.molexp.datasets import dataset_info, source_paths
from benchdesign.molexp.datasets import DATASETS
from benchdesign.molexp.settings import (
    MODEL_NAMES,
    PAIR_ONLY_MODELS,
    ablation_points,
    dataset_methods,
    dataset_models,
    mol_settings,
    protein_options,
    run_protein_representation,
    split_options,
    tsne_methods,
)
from benchdesign.workflow.preflight import (
    check_cached_files,
    check_esm_weights,
    check_packages,
    check_protocol_against_data,
    domain_facts,
)
from benchdesign.workflow.io import source_file_to_dict

validate(config, "../schemas/config.schema.yaml")

MANIFEST = load_manifest(workflow.source_path("../../data/sources.yaml"))
DOMAINS = enabled_domains(config)
DATA_CACHE = "resources/data"
MOL = mol_settings(config)
# Before any job: every representation, model, peer split method and solver the config asks for has its package
# installed (one message lists the missing ones and how to install them); LoHi, which pip cannot install with
# benchdesign, is announced instead (its splits are then recorded as skipped). With --software-deployment-method
# conda the jobs run in workflow/envs/benchdesign.yaml's environment, not this one: not checked here.
if DeploymentMethod.CONDA not in getattr(workflow.deployment_settings, "deployment_method", ()):
    for _notice in check_packages(config):
        print(f"benchdesign: {_notice}", file=sys.stderr)
check_esm_weights(config)
# Before any job: cached inputs still have their checksums, and the protocol fits each domain's data
# (number of datasets, model names) wherever those data are at hand (cache or mirror).
check_cached_files(MANIFEST.values(), DATA_CACHE)
for _domain in DOMAINS:
    _spec = config_domain(config, _domain)
    if not _spec.sources:  # a domain of the user's own files: its loader checks them in the job
        continue
    _facts = domain_facts(_domain, [MANIFEST[p] for p in domain_source_paths(_spec, MANIFEST)], DATA_CACHE, config["mirror"])
    if _facts is not None:
        check_protocol_against_data(config, _domain, domain_protocol(config, _domain), _facts)
if config["synthetic"]["enabled"]:  # dataset-pool trials on synthetic.n_datasets datasets
    check_protocol_against_data(
        config,
        "synthetic",
        {**domain_protocol(config, None), "variations": ["dataset_pool"]},
        {"datasets": range(config["synthetic"]["n_datasets"]), "models": range(config["synthetic"]["n_models"])},
    )


def alternatives(names):
    """Wildcard regex matching exactly one of ``names`` (and nothing when there is none)."""
    return "|".join(map(re.escape, names)) or "(?!)"


wildcard_constraints:
    domain=alternatives(DOMAINS),
    variation=alternatives(VARIATIONS),
    strategy=alternatives(STRATEGIES),
    regime=alternatives(REGIMES),


def fetched(domain):
    """Local copies of every input file of a domain: cached manifest files, or the user's own files."""
    spec = config_domain(config, domain)
    return [f"{DATA_CACHE}/{p}" for p in domain_source_paths(spec, MANIFEST)] + list(spec.inputs)


def feature_matrix(domain, representation):
    """Raw matrix of a representation computed by the feature rules, if it is one."""
    if representation in config_domain(config, domain).computed:
        return [f"results/features/{domain}/{representation}.csv"]
    return []


def feature_dataset_lists(domain):
    """Dataset lists of the domain's enabled feature representations that cover a subset."""
    return [
        f"results/features/{domain}/{rep}_datasets.txt"
        for rep in feature_representations(config, domain)
        if config_domain(config, domain).partial_coverage
    ]


def trial_files(variation=None, domain=None):
    """Every trial file the config asks for, optionally of one variation and/or domain."""
    return [
        f"results/trials/{v}/{d}/{r}/{s}.csv"
        for v, d, r, s in trial_combinations(config)
        if variation in (None, v) and domain in (None, d)
    ]


def full_runs():
    """The single full run of every model-pool configuration that uses a representation (the reference of the
    model-pool variation in the paper's Section 6): its names, the files it reads and the trial settings it uses."""
    return [
        {
            "domain": d,
            "representation": r,
            "strategy": s,
            "ranks": f"results/prepared/{d}/dataset_ranks.csv",
            "scores": f"results/prepared/{d}/scores.csv",
            "representation_file": f"results/prepared/{d}/representation_{r}.csv",
            "settings": trial_settings(config, d, s, "model_pool"),
        }
        for v, d, r, s in trial_combinations(config)
        if v == "model_pool" and r != "none"
    ]


def figure_files():
    return [
        f"results/figures/curves_{domain}_{variation}.{ext}"
        for domain in DOMAINS
        for variation in domain_protocol(config, domain)["variations"]
        for ext in ("png", "pdf")
    ]


def trial_inputs(wc):
    inputs = {
        "ranks": f"results/prepared/{wc.domain}/dataset_ranks.csv",
        "scores": f"results/prepared/{wc.domain}/scores.csv",
    }
    if wc.strategy == "stratified":
        inputs["strata"] = domain_strata(config, wc.domain)["file"]
    # the model-holdout oracle is rebuilt from the seen models' scores in every trial
    held_out_oracle = wc.variation == "model_holdout" and wc.representation == "oracle"
    if wc.representation != "none" and not held_out_oracle:
        inputs["representation"] = f"results/prepared/{wc.domain}/representation_{wc.representation}.csv"
    return inputs


def coverage_files():
    """Covering-radius tables of every representation of the domains with dataset-pool trials."""
    return [
        f"results/guarantee/{d}/coverage_{r}.csv"
        for d in DOMAINS
        if trial_files("dataset_pool", d)
        for r in domain_representations(config, d)
    ]


def conclusion_inputs(wc):
    return {
        "scores": f"results/prepared/{wc.domain}/scores.csv",
        "ranks": f"results/prepared/{wc.domain}/dataset_ranks.csv",
        "trials": trial_files("dataset_pool", wc.domain),  # this domain's only: the best strategy
        "representations": [
            f"results/prepared/{wc.domain}/representation_{r}.csv" for r in domain_representations(config, wc.domain)
        ],
    }


def guarantee_targets():
    """Covering-radius figures, the p_eff table, stability tables and CD diagrams (issue 12)."""
    if not trial_files("dataset_pool"):
        return []
    domains = [d for d in DOMAINS if trial_files("dataset_pool", d)]
    targets = ["results/guarantee/p_eff.md"]
    targets += [f"results/figures/coverage_{d}/{r}.png" for d in domains for r in domain_representations(config, d)]
    targets += expand("results/conclusions/{domain}/stability.md", domain=domains)
    targets += expand("results/figures/cd_{domain}", domain=domains)
    return targets


def final_targets():
    targets = []
    if trial_files("dataset_pool"):
        targets += expand(
            "results/tables/{name}.{ext}",
            name=["table1_auc", "table2_kstar", "table3_wilcoxon_holm"],
            ext=["csv", "md"],
        )
    if trial_files("model_pool"):
        targets += expand("results/tables/table1_auc_model_pool.{ext}", ext=["csv", "md"])
    if trial_files("model_holdout"):
        targets += expand(
            "results/tables/model_holdout/{name}.{ext}",
            name=["table1_auc", "table2_kstar", "table3_wilcoxon_holm"],
            ext=["csv", "md"],
        )
        targets.append("results/tables/model_holdout/recommendation.txt")
    targets += figure_files()
    targets += expand("results/prepared/{domain}/provenance.json", domain=DOMAINS)
    targets += guarantee_targets()
    if config["synthetic"]["enabled"]:
        targets += expand("results/tables/table4_synthetic.{ext}", ext=["csv", "md"])
        targets += expand("results/figures/synthetic.{ext}", ext=["png", "pdf"])
    targets += expand("results/paper_comparison.{ext}", ext=["csv", "md"])  # this run against the papers
    return targets


# ---- molecular experiments (molecules.smk)


def mol_dataset_files(wc):
    names = ("samples", "molecules", "proteins")
    return {n: f"results/molecules/{wc.dataset}/{n}.csv" for n in names}


def mol_split_files(dataset):
    return [
        f"results/molecules/{dataset}/splits/{m}/{r}.{ext}"
        for m in dataset_methods(MOL, dataset)
        for r in range(MOL["repeats"])
        for ext in ("tsv", "json")
    ]


def mol_esm_weights(wc):
    """The local ESM-2 weights file of a 2-D dataset's feature job, when the config names one."""
    weights = protein_options(MOL, wc.dataset).get("esm_weights")
    return [weights] if weights else []


def mol_features_esm(wc):
    return protein_options(MOL, wc.dataset).get("representation", "composition") != "composition"


# ESM-2 t12 on all of DAVIS (442 proteins), one thread: 756 CPU s, 22 min wall on 2 loaded cores, 1.6 GB peak
# (docs/performance.md#esm-2-protein-embeddings)
def mol_features_runtime(wc):
    return 90 if mol_features_esm(wc) else 10


def mol_features_mem_mb(wc):
    return 4000 if mol_features_esm(wc) else 2000


MOL_SCORE = "results/molecules/{dataset}/scores/{method}/{repeat}/{model}.json"


def mol_score_files(dataset):
    return [
        MOL_SCORE.format(dataset=dataset, method=m, repeat=r, model=model)
        for m in dataset_methods(MOL, dataset)
        for r in range(MOL["repeats"])
        for model in dataset_models(MOL, dataset)
    ]


# The model jobs: one per split fitting every model of the dataset (molecules.model_jobs: per_split), or one per
# model fit. A pair-only model (deepdta) makes the 1-D datasets' split jobs fit fewer models than the 2-D ones':
# then rule mol_model serves the 2-D datasets and mol_model_1d (molecules.smk) the 1-D ones.
MOL_PER_SPLIT = MOL["model_jobs"] == "per_split"
MOL_MODEL_JOB = "models" if MOL_PER_SPLIT else "{model}"  # the job's name in its log and benchmark paths
MOL_MODEL_OUTPUT = expand(MOL_SCORE, model=MOL["models"], allow_missing=True) if MOL_PER_SPLIT else MOL_SCORE
MOL_MODELS_1D = [m for m in MOL["models"] if m not in PAIR_ONLY_MODELS]
MOL_MODEL_1D_RULE = MOL_PER_SPLIT and bool(MOL_MODELS_1D) and MOL_MODELS_1D != list(MOL["models"])
MOL_DATASETS_1D = "|".join(sorted(n for n, d in DATASETS.items() if d.kind == "1d"))
MOL_DATASETS_2D = "|".join(sorted(n for n, d in DATASETS.items() if d.kind == "2d"))
MOL_MODEL_DATASETS = MOL_DATASETS_2D if MOL_MODEL_1D_RULE else "[a-z0-9_]+"  # datasets of rule mol_model


def mol_job_models(wc):
    """The models one mol_model job fits, in the order of its outputs."""
    return dataset_models(MOL, wc.dataset) if MOL_PER_SPLIT else [wc.model]


# Minutes one fit may take (the job's runtime: its models' sum). DeepDTA with the paper's settings fits 146 s per
# epoch on 4,000 DAVIS pairs on one CPU thread (docs/performance.md): 2 h for 50 epochs, 12 h on DAVIS, 2 days on KIBA.
MOL_MODEL_MINUTES = {"deepdta": 72 * 60}


def mol_model_runtime(wc):
    return sum(MOL_MODEL_MINUTES.get(m, 60) for m in mol_job_models(wc))


def mol_targets():
    if not MOL["enabled"]:
        return []
    targets = expand("results/tables/{name}.csv", name=["split_leakage", "split_performance"])
    targets.append("results/tables/split_summary.md")
    targets += expand(
        "results/figures/{kind}_{dataset}.{ext}",
        kind=["molecules", "tsne"],
        dataset=MOL["datasets"],
        ext=["png", "pdf"],
    )
    if MOL["ablation"]["enabled"]:
        targets += expand("results/tables/ablation_{sweep}.csv", sweep=["clusters", "margins", "size"])
        targets += expand("results/figures/fig6_ablation.{ext}", ext=["png", "pdf"])
    return targets


# ---- this run against the papers (reports.smk: rule paper_comparison)
from benchdesign.files import package_data

# shipped inside the package (a stable local path; workflow.source_path changes between invocations)
PAPER_CLAIMS = str(package_data("paper_claims.csv"))


def paper_comparison_inputs():
    """Result files the claims of benchdesign/data/paper_claims.csv read, as far as the config produces them."""
    files = []
    if trial_files("dataset_pool"):
        files += expand(
            "results/tables/{name}.csv",
            name=[
                "table1_auc",
                "table2_kstar",
                "table2_kstar_per_config",
                "table3_summary",
                "table3_wilcoxon_holm",
                "curves_dataset_pool",
                "recommendation",
            ],
        )
        files += coverage_files()
    for domain in DOMAINS:
        if trial_files(domain=domain):
            files.append(f"results/prepared/{domain}/dataset_ranks.csv")
            files += [f"results/prepared/{domain}/representation_{r}.csv" for r in domain_representations(config, domain)]
    if trial_files("model_pool"):
        files += ["results/tables/curves_model_pool.csv", "results/tables/model_pool_full_run.csv"]
    if config["synthetic"]["enabled"]:
        files.append("results/tables/table4_synthetic.csv")
    if MOL["enabled"]:
        files += expand("results/tables/{name}.csv", name=["split_leakage", "split_performance"])
        files += expand(
            "results/molecules/{dataset}/{table}.csv", dataset=MOL["datasets"], table=["samples", "molecules", "proteins"]
        )
        # the fingerprints and the folds of the splits the t-SNE figures draw (P2-F3-11, P2-F3-12: 1-D datasets)
        for dataset in MOL["datasets"]:
            if dataset_info(dataset).kind == "1d":
                files.append(f"results/molecules/{dataset}/features.npz")
                files += [
                    f"results/molecules/{dataset}/splits/{m}/{r}.tsv"
                    for m in tsne_methods(MOL, dataset)
                    for r in range(MOL["repeats"])
                ]
        if MOL["ablation"]["enabled"]:
            files += expand("results/tables/ablation_{sweep}.csv", sweep=["clusters", "margins", "size"])
    return files
