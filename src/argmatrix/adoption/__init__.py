"""Moving a project from hand-written pages to generated ones.

`handwritten` reads a hand-written argument page as argument rows (its tables read by
`argmatrix.pagetables`; column roles, variant columns), `page_arguments` says which argument
(of which subcommand) each row documents, `audit` compares it with the registry,
`importer` turns a support page into a capability manifest, `registry_diff` says what changed
between two registries (release notes).
May import checks (for the shape of findings) and everything below; never the command line.
"""

from __future__ import annotations

# The output formats of `audit` and `diff`, here so that the command line can offer them
# without importing the page reader and markdown-it for every command.
AUDIT_FORMATS = ("text", "json")
DIFF_FORMATS = ("markdown", "json")
