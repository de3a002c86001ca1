import sys

from argmatrix.cli.main import run

sys.exit(run())
