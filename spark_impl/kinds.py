"""Which class of the per-key simulation stands for each kind of the format (`window_contract.case`).

A trigger (`spark_impl.triggers`) or an evictor (`spark_impl.evictors`) is one class a kind: it names the kind it
stands for as `kind`, beside its rules, and its family's root (`Trigger`, `Evictor`) finds it with `of_kind`. So a
new kind of the format is one class there, with no branch elsewhere.
"""

from __future__ import annotations

from typing import Any, ClassVar


class OfKind:
    """A family of classes, one a kind of the format: the root holds `classes`, each class names its `kind`."""

    kind: ClassVar[type]
    #: The class of each kind, held by the family's root.
    classes: ClassVar[dict[type, type]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "kind" in cls.__dict__:
            cls.classes[cls.kind] = cls

    @classmethod
    def of_kind(cls, kind: Any) -> Any:
        """The instance of the family's class for `kind` (an instance of a kind of the format)."""
        found = cls.classes.get(type(kind))
        if found is None:
            known = ", ".join(sorted(k.__name__ for k in cls.classes))
            raise TypeError(f"spark_impl has no {cls.__name__} class for {type(kind).__name__} "
                            f"(it knows {known}): a kind of the format needs one")
        return found(kind)
