"""The checks: the resolved model and the rendered pages in, findings out.

`run` runs every check (`run_checks`) and is what `argmatrix check` calls (`check`); `fix` is
`check --fix`, writing stale pages and shrinking the allowlists of checks.coverage (their text
edited by `allowlists`). The checks: `drift` compares rendered pages with the disk and finds
unclassified arguments, `prose` looks for flags named in hand-written pages that the registry
no longer has, `coverage` holds hand-maintained pages (`checks.coverage`) to the registry,
reading their tables with `tables`. `report` writes findings as text, JSON or GitHub
annotations. A new check is a module here returning `model.findings.Finding`s, with its kind in
`config.CHECK_KINDS`, called from `run_checks`. May import the project, render, config,
manifests, loaders, model; never the command line.
"""
