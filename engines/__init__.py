"""Adapters that drive real stream processors, written by others, through the conformance contract
(issue 14). One module per engine; each imports its engine only when it is asked for."""
