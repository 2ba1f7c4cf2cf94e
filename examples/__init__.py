"""Example plug-ins for `python -m conformance run --impl package.module:factory`."""
