"""The conformance matrix's situations column, as the renderers show it.

The matrix itself and the verdict are decided by the runner (`conformance/runner/matrix.py`,
`conformance/runner/verdict.py`); the report document holds them.
"""

from __future__ import annotations

from typing import Any


def situation_shares(prop: dict[str, Any]) -> str:
    """`label NN%` for each situation (`hypothesis.event`) of a property: the share of its examples."""
    examples = max(prop["examples"], 1)
    return ", ".join(f"{label} {100 * count / examples:.0f}%" for label, count in prop["statistics"]["events"].items())
