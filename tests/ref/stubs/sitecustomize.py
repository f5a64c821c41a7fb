"""Installs the tngc reference patches (see _tngc_ref.py) at start-up.

tests/ref/run_example.sh puts this folder first on PYTHONPATH, so this file
is imported instead of the system's sitecustomize.
"""
import sys

try:
    import _tngc_ref
    _tngc_ref.install()
except ImportError as exc:  # no torch: the script will fail on its own import
    sys.stderr.write("tngc reference stand-ins not installed: %s\n" % exc)
