"""argmatrix: document an argparse registry and its per-platform support from one source of truth."""

__version__ = "0.1.0"
