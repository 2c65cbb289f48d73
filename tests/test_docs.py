"""The documentation site builds strictly, documents every config key, and names only what exists.

- ``mkdocs build --strict`` (skipped with the reason when MkDocs, Material or mkdocstrings is not installed:
  ``pip install -e ".[docs]"``; required with ``BENCHDESIGN_DOCS=1``, as in CI) fails on a broken link or
  anchor and on a reference to a missing name;
- every key of ``workflow/schemas/config.schema.yaml`` is on the configuration page with a meaning;
- (the code blocks of the README and the guides are run by tests/test_readme_quickstart.py);
- README, docs, benchmarks and config name no machine-specific absolute path, and every repository path they
  name exists; the committed experiment overlays are valid configs.
"""

from __future__ import annotations

import fnmatch
import importlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from workflow_helpers import REPO, merge_config

DOCS = REPO / "docs"
HOOK = DOCS / "_hooks" / "generate.py"
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
ABSOLUTE = re.compile(r"(?<![\w.~-])/(?:work|tmp|home)/[^\s`'\")\]]*")
# Absolute paths that are documented examples: scratch folders of a usage example, valid on any machine.
ALLOWED_ABSOLUTE = {
    ("benchmarks/features.py", "/tmp/ucr_wheels"),
    ("benchmarks/features.py", "/tmp/feature_timings.csv"),
    ("benchmarks/vs_datasail.py", "/tmp/peer-venv"),
    ("benchmarks/vs_datasail.py", "/tmp/peer-venv/bin/pip"),
    ("benchmarks/vs_datasail.py", "/tmp/peer-venv/bin/python"),
    ("benchmarks/rule_costs.py", "/tmp/tiny"),
}
# Repository paths named in backticks or commands: `config/paper.yaml`, python benchmarks/evaluate.py, ...
REPO_PATH = re.compile(r"(?<![\w./-])((?:config|benchmarks|scripts|workflow|tests|docs|data|src|\.ci|\.test)/"
                       r"[\w./-]*\w)")


def load_hook():
    spec = importlib.util.spec_from_file_location("docs_generate", HOOK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    missing = [m for m in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python")
               if importlib.util.find_spec(m.split(".")[0]) is None
               or (m == "mkdocstrings_handlers.python" and importlib.util.find_spec(m) is None)]
    if missing:
        reason = f"MkDocs not installed ({', '.join(missing)} missing): pip install -e \".[docs]\""
        if os.environ.get("BENCHDESIGN_DOCS") == "1":  # CI: the docs build is required
            pytest.fail(reason)
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)], cwd=REPO,
                            capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stdout[-3000:]}\n{result.stderr[-6000:]}"
    return out


def _text(html: str) -> str:
    import html as html_lib

    return html_lib.unescape(re.sub(r"<[^>]+>", "", html))


def test_mkdocs_build_strict(site):
    for page in ("index.html", "guides/split/index.html", "api/splitting/index.html", "api/selection/index.html",
                 "api/domains/index.html", "api/cli/index.html", "configuration/index.html"):
        assert (site / page).is_file(), page
    # one page per public object, with its signature (a class: its __init__'s, no private base class)
    page = (site / "api" / "splitting" / "LeakageKFold" / "index.html").read_text()
    assert 'id="benchdesign.splitting.crossval.LeakageKFold"' in page and "n_splits" in _text(page)
    assert "_LeakageSplitter" not in _text(page)
    assert 'id="benchdesign.domains.registry.load_scores"' in (site / "api/domains/load_scores/index.html").read_text()
    for name in ("splitting", "selection", "domains"):  # what tests/test_api_docs.py checks, seen on the pages
        module = importlib.import_module(f"benchdesign.{name}")
        index = _text((site / "api" / name / "index.html").read_text())
        for public in module.__all__:
            assert public in index, f"api/{name}: {public} is not on the package's index"
            assert (site / "api" / name / public / "index.html").is_file(), f"api/{name}/{public}: no page"
        text = "".join(_text(p.read_text()) for p in (site / "api" / name).rglob("index.html"))
        roles = re.findall(r":(?:func|class|meth|mod|data|attr):`[^`]*`", text)
        assert not roles, f"api/{name}: Sphinx roles printed literally: {roles[:5]}"
        private = re.findall(r"=\s*_[A-Z]\w*\[[^\]]*\]", text)
        assert not private, f"api/{name}: signature defaults show private constants: {private[:5]}"
    pictures = sorted(p.name for p in (DOCS / "img").glob("*.png"))  # scripts/dev/make_doc_figures.py
    assert {"rulegraph.png", "selection_curves.png", "cd_diagram.png", "split_example.png"} <= set(pictures)
    pages = "".join(p.read_text() for p in site.rglob("index.html"))
    for name in pictures:
        assert (site / "img" / name).is_file() and f"img/{name}" in pages, f"docs/img/{name} is on no page"
    home = (site / "index.html").read_text()
    for paper in ("https://doi.org/10.1038/s41467-025-58606-8", "https://github.com/hangover137/efficient_benchmarking"):
        assert paper in home, f"the home page does not link {paper}"
    assert "benchdesign split" in _text((site / "api" / "cli" / "index.html").read_text())


def test_readme_links_resolve(site):
    """The README's links into docs/ name existing pages and anchors of the built site."""
    links = re.findall(r"\]\((docs/[^)#\s]+\.md)(?:#([^)\s]+))?\)", (REPO / "README.md").read_text())
    assert len(links) >= 10
    for page, anchor in links:
        assert (REPO / page).is_file(), page
        name = page.removeprefix("docs/").removesuffix(".md")
        html = site / ("index.html" if name == "index" else f"{name}/index.html")
        if anchor:
            assert f'id="{anchor}"' in html.read_text(), f"README: {page}#{anchor}: no such anchor"


def test_every_schema_key_is_documented(site):
    page = _text((site / "configuration" / "index.html").read_text())
    hook = load_hook()
    rows = hook.schema_keys()
    missing = [r["path"] for r in rows if r["path"] not in page]
    assert not missing, f"config keys missing from the configuration page: {missing}"

    def names(node):  # every property name of the schema, walked independently of the hook
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "properties" and isinstance(value, dict):
                    yield from value
                yield from names(value)
        elif isinstance(node, list):
            for value in node:
                yield from names(value)

    unseen = sorted({n for n in names(yaml.safe_load(SCHEMA.read_text())) if f"{n}" not in page})
    assert not unseen, f"schema properties not on the configuration page: {unseen}"


def test_every_schema_key_has_a_meaning():
    hook = load_hook()
    rows, notes = hook.schema_keys(), hook.config_notes()
    undocumented = [r["path"] for r in rows if not hook.describe(r, notes)]
    assert not undocumented, (f"config keys without a meaning: {undocumented}; add a description to the schema "
                              f"or a line to docs/_hooks/config_notes.yaml")
    paths = {r["path"] for r in rows}
    stale = [k for k in notes if (k not in paths if "*" not in k else not fnmatch.filter(paths, k))]
    assert not stale, f"docs/_hooks/config_notes.yaml names keys the schema no longer has: {stale}"


def _files(*roots: str):
    for root in roots:
        path = REPO / root
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for f in files:
            if "__pycache__" not in f.parts and f.suffix not in (".pyc", ".png", ".pdf"):
                yield f


def test_no_machine_specific_paths():
    found = []
    for f in _files("README.md", "docs", "benchmarks", "config"):
        rel = str(f.relative_to(REPO))
        for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            for path in ABSOLUTE.findall(line):
                if (rel, path.rstrip(".,;:")) not in ALLOWED_ABSOLUTE:
                    found.append(f"{rel}:{n}: {path}")
    assert not found, "machine-specific absolute paths (use a committed config or a relative path):\n" + \
        "\n".join(found)


def test_named_repository_paths_exist():
    missing = []
    for f in _files("README.md", "docs", "config/README.md"):
        if f.suffix != ".md":
            continue
        for n, line in enumerate(f.read_text().splitlines(), 1):
            for path in REPO_PATH.findall(line):
                if any(c in path for c in "<>*{}") or path.startswith(("results/", "resources/")):
                    continue
                if not (REPO / path).exists() and not (f.parent / path).exists():
                    missing.append(f"{f.relative_to(REPO)}:{n}: {path}")
    assert not missing, "paths named in the docs that do not exist:\n" + "\n".join(missing)


@pytest.mark.parametrize("overlays", [
    ["experiments/tsc_105_project.yaml"],
    ["experiments/tsc_105_paper.yaml"],
    ["experiments/tsc_105_paper.yaml", "experiments/project_protocol.yaml"],
    ["paper.yaml", "experiments/tsc_105_paper.yaml"],
    ["experiments/synthetic_only.yaml", "experiments/synthetic_paper_noise.yaml"],
    ["experiments/tsc_112_oracle.yaml"],
    ["experiments/fig4_2d.yaml"],
    ["paper.yaml", "experiments/fig4_2d.yaml"],
    ["experiments/recsys_nlp_dataset_pool.yaml", "experiments/fafi_nearest.yaml",
     "experiments/standardize_all.yaml"],
])
def test_experiment_overlays_are_valid_configs(overlays):
    import jsonschema

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    for name in overlays:
        config = merge_config(config, yaml.safe_load((REPO / "config" / name).read_text()))
    jsonschema.validate(config, yaml.safe_load(SCHEMA.read_text()))


def test_every_experiment_overlay_is_described():
    readme = (REPO / "config" / "README.md").read_text()
    for f in sorted((REPO / "config").rglob("*.yaml")):
        rel = str(f.relative_to(REPO / "config"))
        assert f"`{rel}`" in readme, f"config/README.md does not describe config/{rel}"


def _snakemake_commands(text: str) -> list[list[str]]:
    """Every ``snakemake ...`` command of a Markdown text (code blocks and inline code; continuation lines
    joined, comments dropped) as its words."""
    text = text.replace("\\\n", " ")
    return [m.split() for m in re.findall(r"(?<![\w-])snakemake( [^`#\n]*)", text)]


def _config_words(words: list[str]) -> tuple[str, ...]:
    """The words of a command that choose its config: all but --cores N, --workflow-profile DIR, --report FILE."""
    out, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word in ("--cores", "--workflow-profile", "--report"):
            skip = True
        else:
            out.append(word)
    return tuple(out)


@pytest.mark.parametrize("page", ["README.md", "docs/guides/reproduce.md", "docs/cluster.md"])
def test_report_commands_carry_the_run_config(page):
    """A report built without the run's --configfile/--config states another config's values (e.g. 200 trials
    over the quick run's 50-trial figures): every documented report command repeats a documented run's."""
    commands = _snakemake_commands((REPO / page).read_text())
    runs = {_config_words(c) for c in commands if "--report" not in c and ("--cores" in c or "--workflow-profile" in c)}
    reports = [c for c in commands if "--report" in c and c.index("--report") + 1 < len(c)]
    assert reports, f"{page} gives no report command"
    for command in reports:
        assert _config_words(command) in runs, f"{page}: snakemake {' '.join(command)} repeats no run's config"
