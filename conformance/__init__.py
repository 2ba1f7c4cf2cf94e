"""The window-conformance suite: the property suite, `python -m conformance` (run, replay, explain, corpus)
and the mutation check. The contract it holds implementations to is the package `window_contract`."""

from conformance.manifest import catalogue
from window_contract.registry import add_catalogue

# the project's implementations by name, also where the installed entry point is missing (a checkout on PYTHONPATH)
add_catalogue(catalogue)
