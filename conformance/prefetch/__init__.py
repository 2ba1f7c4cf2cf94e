"""Prefetching, recording and replaying the property suite's tests: a pytest plug-in of its own
(`plugin.py`), invisible to the rules (`conformance/properties/`)."""
