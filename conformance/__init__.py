"""The window-conformance suite: the property suite, `python -m conformance` (run, replay, explain, corpus)
and the mutation check. The contract it holds implementations to is the package `window_contract`."""

from window_contract.registry import add_catalogue


def catalogue() -> dict:
    """The project's implementations by name: its engine manifests (`conformance.manifest`), read when asked for.
    The installed entry point names it; added here too, a checkout on PYTHONPATH (or an installation older than
    the entry point) finds the names."""
    from conformance.manifest import catalogue as manifests

    return manifests()


add_catalogue(catalogue)
