"""MkDocs hook: the parts of the site that are generated from the code, so they cannot go stale.

A page asks for a generated block with a marker line:

* ``<!-- generated: config-keys -->``   every key of ``workflow/schemas/config.schema.yaml`` (type, default,
  description), the description taken from the schema or, where the schema has none, from
  ``docs/_hooks/config_notes.yaml``;
* ``<!-- generated: cli -->``           ``benchdesign <command> --help`` of every subcommand;
* ``<!-- generated: api PACKAGE -->``   the package's index: per submodule, its public names (``PACKAGE._EXPORTS``,
  or ``__all__``) with their first sentence, each linked to its own page, ``api/PACKAGE/NAME.md``, which
  ``on_files`` generates (signature, docstring and Examples by mkdocstrings) and ``on_config`` puts in the nav.

Cross-references may use the public path of a name, ``[LeakageKFold][benchdesign.splitting.LeakageKFold]``;
it is rewritten to the submodule that defines it (from ``_EXPORTS``). A name not exported stays as written,
and ``mkdocs build --strict`` then fails on the unresolved reference.
"""

from __future__ import annotations

import fnmatch
import importlib
import io
import json
import os
import re
from contextlib import redirect_stdout
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
NOTES = Path(__file__).with_name("config_notes.yaml")
API_PACKAGES = ("benchdesign.splitting", "benchdesign.selection", "benchdesign.domains")
# Sections whose defaults live in the code, not in the schema.
CODE_DEFAULTS = {
    "features.tsc": ("benchdesign.domains.tsc.features", "DEFAULT_SETTINGS"),
    "features.nlp": ("benchdesign.domains.nlp.descriptions", "DEFAULT_SETTINGS"),
}
# Sections whose keys are the split options: their help text is the meaning (benchdesign.splitting.options).
SPLIT_OPTION_SECTIONS = ("splitting", "molecules.ilp")
MARKER = re.compile(r"^<!-- generated: (?P<what>[\w-]+)(?: (?P<arg>[\w.]+))? -->$", re.M)


# ---------------------------------------------------------------------------------------------- config keys
def _resolve(node: dict, schema: dict) -> dict:
    ref = node.get("$ref")
    if ref:
        target = schema
        for part in ref.lstrip("#/").split("/"):
            target = target[part]
        return {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _type(node: dict) -> str:
    if "enum" in node:
        return " \\| ".join(str(v) for v in node["enum"])
    kind = node.get("type", "")
    kinds = kind if isinstance(kind, list) else [kind]
    text = " or ".join(k for k in kinds if k)
    if "array" in kinds and isinstance(node.get("items"), dict):
        items = node["items"]
        inner = " \\| ".join(map(str, items["enum"])) if "enum" in items else items.get("type", "")
        text = text.replace("array", f"list of {inner}" if inner else "list")
    return text or "object"


def schema_keys(schema: dict | None = None) -> list[dict]:
    """Every configuration key: ``{"path", "type", "default", "description"}`` in schema order.

    Several properties that share one definition (``domains.tsc``, ``recsys``, ``nlp``) are listed once as
    ``domains.<tsc|recsys|nlp>``; a schema for any other name (``additionalProperties``) as ``<name>``.
    """
    schema = schema if schema is not None else yaml.safe_load(SCHEMA.read_text())
    rows: list[dict] = []

    def walk(node: dict, path: str) -> None:
        node = _resolve(node, schema)
        props = node.get("properties") or {}
        groups: dict[str, list[str]] = {}
        for name, child in props.items():
            groups.setdefault(child.get("$ref") or f"own:{name}", []).append(name)
        for key, names in groups.items():
            label = names[0] if len(names) == 1 else "<" + "|".join(names) + ">"
            child = props[names[0]]
            child_path = f"{path}.{label}" if path else label
            resolved = _resolve(child, schema)
            rows.append({"path": child_path, "type": _type(resolved), "default": resolved.get("default", ...),
                         "description": resolved.get("description", "")})
            walk(child, child_path)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            resolved = _resolve(extra, schema)
            child_path = f"{path}.<name>"
            if resolved.get("properties"):
                rows.append({"path": child_path, "type": "object", "default": ...,
                             "description": resolved.get("description", "")})
                walk(extra, child_path)
            else:
                rows.append({"path": child_path, "type": _type(resolved), "default": ...,
                             "description": resolved.get("description", "")})

    walk(schema, "")
    return rows


def _code_defaults() -> dict[str, object]:
    values: dict[str, object] = {}
    for section, (module, name) in CODE_DEFAULTS.items():
        try:
            settings = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as err:
            raise RuntimeError(f"docs/_hooks/generate.py: the defaults of {section} are read from "
                               f"{module}.{name}, which failed ({err}); update CODE_DEFAULTS") from err
        values.update({f"{section}.{key}": value for key, value in settings.items()})
    return values


def _show(value: object) -> str:
    if value is ...:
        return ""
    return "`" + json.dumps(value, ensure_ascii=False).replace("|", "\\|") + "`"


def config_notes() -> dict[str, str]:
    return yaml.safe_load(NOTES.read_text()) or {}


def _split_option_help() -> dict[str, str]:
    from benchdesign.splitting.options import SPLIT_OPTIONS

    return {o.name: o.help[0].upper() + o.help[1:] for o in SPLIT_OPTIONS}


def describe(row: dict, notes: dict[str, str] | None = None, split_help: dict[str, str] | None = None) -> str:
    """The meaning of one key: its schema description, else the split option's help, else the notes."""
    notes = config_notes() if notes is None else notes
    split_help = _split_option_help() if split_help is None else split_help
    path = row["path"]
    key = path.rsplit(".", 1)[-1]
    if row["description"]:
        return row["description"]
    if path.rsplit(".", 1)[0] in SPLIT_OPTION_SECTIONS and key in split_help:
        return split_help[key]
    if path in notes:
        return notes[path]
    for pattern, text in notes.items():
        if "*" in pattern and fnmatch.fnmatchcase(path, pattern):
            return text.replace("{key}", key)
    return ""


def config_table() -> str:
    notes, split_help = config_notes(), _split_option_help()
    defaults = _code_defaults()
    out: list[str] = []
    section = None
    rows = schema_keys()
    blocks = {row["path"].split(".")[0] for row in rows if "." in row["path"]}
    for row in rows:
        top = row["path"].split(".")[0]
        top = top if top in blocks else ""
        if top != section:
            section = top
            title = f"`{top}`" if top else "Top level"
            out += ["", f"### {title}", "", "| key | type | default | meaning |", "|---|---|---|---|"]
        default = row["default"] if row["default"] is not ... else defaults.get(row["path"], ...)
        text = describe(row, notes, split_help).replace("|", "\\|").replace("\n", " ")
        out.append(f"| `{row['path']}` | {row['type']} | {_show(default)} | {text} |")
    return "\n".join(out).strip() + "\n"


# ---------------------------------------------------------------------------------------------- CLI
def cli_help() -> str:
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal width; fix it for a reproducible page
    from benchdesign.cli import build_parser

    parser = build_parser()
    out = ["```text", parser.format_help().rstrip(), "```"]
    for action in parser._subparsers._group_actions:  # the one subparsers action
        for name, sub in action.choices.items():
            out += ["", f"### `benchdesign {name}`", "", "```text", sub.format_help().rstrip(), "```"]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------- API
def exports(package: str) -> dict[str, tuple[str, ...]]:
    """The public names of ``package`` by defining submodule (``_EXPORTS``, or ``__all__`` and ``__module__``)."""
    module = importlib.import_module(package)
    if hasattr(module, "_EXPORTS"):
        return module._EXPORTS
    grouped: dict[str, list[str]] = {}
    for name in module.__all__:
        defined = getattr(getattr(module, name), "__module__", package) or package
        grouped.setdefault(defined.removeprefix(package).lstrip("."), []).append(name)
    return {k: tuple(v) for k, v in grouped.items()}


def _qualified(package: str, module: str, name: str) -> str:
    return ".".join(part for part in (package, module, name) if part)


def _summary(package: str, module: str, name: str) -> str:
    """The first sentence of a public object's docstring, for the package's index."""
    obj = getattr(importlib.import_module(package), name)
    doc = (getattr(obj, "__doc__", None) or "").strip()
    if not doc or (not callable(obj) and doc == (type(obj).__doc__ or "").strip()):
        return ""
    first = " ".join(doc.split("\n\n")[0].split())
    first = re.sub(r"\[([^\]]+)\]\[[^\]]*\]", r"\1", first)  # cross-references resolve on the object's page only
    return first.replace("|", "\\|")


def api_index(package: str) -> str:
    """The package's index: per submodule, each public name linked to its own page, with its first sentence."""
    short = package.rsplit(".", 1)[-1]
    out = []
    for module, names in exports(package).items():
        out += [f"## `{_qualified(package, module, '')}`" if module else f"## `{package}`", "",
                "| name | what it is |", "|---|---|"]
        out += [f"| [`{n}`]({short}/{n}.md) | {_summary(package, module, n)} |" for n in names]
        out.append("")
    return "\n".join(out)


def object_page(package: str, module: str, name: str) -> str:
    """One public object's page: how to import it, its signature, docstring and Examples (mkdocstrings)."""
    short = package.rsplit(".", 1)[-1]
    return "\n".join([
        f"# `{name}`", "",
        f"`from {package} import {name}`, defined in `{_qualified(package, module, '')}`; "
        f"[every name of `{package}`](../{short}.md).", "",
        f"::: {_qualified(package, module, name)}",
        "    options:",
        "      show_root_heading: true",
        "      show_root_full_path: false",
        "      heading_level: 2",
        "      merge_init_into_class: true",
        "      show_bases: false",
        "",
    ])


def object_pages() -> dict[str, str]:
    """Source path (``api/splitting/LeakageKFold.md``) -> content, for every public object of ``API_PACKAGES``."""
    pages = {}
    for package in API_PACKAGES:
        short = package.rsplit(".", 1)[-1]
        for module, names in exports(package).items():
            pages.update({f"api/{short}/{n}.md": object_page(package, module, n) for n in names})
    return pages


def _public_paths() -> dict[str, str]:
    paths = {}
    for package in API_PACKAGES:
        for module, names in exports(package).items():
            paths.update({f"{package}.{n}": _qualified(package, module, n) for n in names})
    return paths


# ---------------------------------------------------------------------------------------------- hook
def generate(what: str, arg: str | None) -> str:
    if what == "config-keys":
        return config_table()
    if what == "cli":
        with redirect_stdout(io.StringIO()):
            return cli_help()
    if what == "api" and arg in API_PACKAGES:
        return api_index(arg)
    raise ValueError(f"unknown generated block {what!r} {arg!r}")


def on_config(config):
    """Each package's entry of the API reference becomes a section: its index, then a page per public object."""
    for entry in config["nav"]:
        if isinstance(entry, dict) and "API reference" in entry:
            section = []
            for item in entry["API reference"]:
                (title, path), = item.items()
                short = Path(path).stem
                package = f"benchdesign.{short}"
                if package not in API_PACKAGES:
                    section.append(item)
                    continue
                objects = [{n: f"api/{short}/{n}.md"} for names in exports(package).values() for n in names]
                section.append({title: [{"Overview": path}, *objects]})
            entry["API reference"] = section
    return config


def on_files(files, config):
    """The per-object API pages, generated (not in the repository)."""
    from mkdocs.structure.files import File

    for path, content in object_pages().items():
        files.append(File.generated(config, path, content=content))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    markdown = MARKER.sub(lambda m: generate(m["what"], m["arg"]), markdown)
    paths = _public_paths()
    return re.sub(r"\]\[(benchdesign\.[\w.]+)\]", lambda m: f"][{paths.get(m[1], m[1])}]", markdown)
