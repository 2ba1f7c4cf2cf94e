"""The `pathway` process, the module its manifest starts (`cases/engines/pathway/engine.toml`): Pathway's windows
(`engines.pathway`) and its joins (`engines.pathway_joins`, built on the windows' adapter) answering the suite's
process protocol (`engines.serving`) in Pathway's own environment."""

from __future__ import annotations

from engines.pathway import FEATURES, NAME, run_cases
from engines.pathway_joins import JOIN_FEATURES, run_joins
from engines.serving import serve


def main() -> None:
    serve(NAME, FEATURES | JOIN_FEATURES, run_cases, run_joins=run_joins)


if __name__ == "__main__":
    main()
