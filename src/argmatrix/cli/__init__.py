"""The `argmatrix` command line: all argparse wiring lives here. `main` builds the parser and
runs a command; each other module registers its commands and their handlers. A handler turns
its `argparse.Namespace` into plain values (`common.source_options`) before calling the core,
and imports what only it needs inside the handler, to keep start-up light.
"""
