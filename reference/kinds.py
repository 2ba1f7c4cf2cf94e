"""Which class of the model builds each kind of the format (`window_contract.case`).

A model class names the kinds it models with `@models(...)`, beside its own rules; `build(kind)` makes
the model of the assigner, trigger or evictor a case names. A model takes the kind's fields in order (a
nested kind, a `PurgingTrigger`'s inner trigger, built first), unless its class says otherwise with a
`from_kind` of its own (the assigners, which take the case's window-start formula too). So a new kind
of the format is one class of the model, with no branch elsewhere.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from window_contract.case import Kind

C = TypeVar("C", bound=type)

#: The model class of each kind of the format.
MODELS: dict[type[Kind], type] = {}


def models(*kinds: type[Kind]):
    """Class decorator: the class models these kinds of the format."""
    def register(cls: C) -> C:
        for kind in kinds:
            MODELS[kind] = cls
        return cls
    return register


def build(kind: Kind, models: dict[type[Kind], type] | None = None, **context: Any) -> Any:
    """The model of `kind`: its class's `from_kind(kind, **context)`, or the class called with the
    kind's fields in order, nested kinds built first. `models` swaps in other classes for some kinds
    (a dialect's, `reference.dialects`)."""
    model = (models or {}).get(type(kind)) or MODELS.get(type(kind))
    if model is None:
        raise TypeError(f"not a kind of the format that the model knows: {kind!r}")
    if hasattr(model, "from_kind"):
        return model.from_kind(kind, **context)
    return model(*(build(v, models) if isinstance(v, Kind) else v
                   for v in (getattr(kind, f.name) for f in dataclasses.fields(kind))))
