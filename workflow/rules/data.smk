rule fetch:
    """Materialise one input file: mirror, else package data, else the URL; sha256 verified."""
    output:
        "resources/data/{path}",
    params:
        # The checksum fixes the content, so the mirror location is read from the config in the
        # script and changing it does not rerun anything.
        sha256=lambda wc: MANIFEST[wc.path].sha256,
    log:
        "logs/fetch/{path}.log",
    wildcard_constraints:
        path=".+",
    localrule: True
    script:
        "../../scripts/fetch.py"
