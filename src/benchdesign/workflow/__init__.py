"""Snakemake-facing helpers: reading the validated config into run settings (:mod:`.config`), the checks the
workflow runs on its inputs (:mod:`.preflight`), file helpers of the scripts (:mod:`.io`) and their log
set-up (:mod:`.logs`). The library (``selection``, ``domains``, ``splitting``) never imports from here."""
