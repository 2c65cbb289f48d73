rule fetch:
    """Materialise one input file: mirror, else package data, else the URL; sha256 verified."""
    output:
        "resources/data/{path}",
    log:
        "logs/fetch/{path}.log",
    wildcard_constraints:
        path=".+",
    priority: CRITICAL_PATH
    localrule: True
    conda:
        "../envs/benchdesign.yaml"
    params:
        # The manifest entry fixes the content (sha256 or git blob id), so the mirror location is read from the
        # config in the script and changing it does not rerun anything.
        entry=lambda wc: source_file_to_dict(MANIFEST[wc.path]),
    script:
        "../../scripts/fetch.py"
