"""The mutation check: does the property suite catch realistic semantic bugs?

`catalogue` lists the bugs, each a small change inside named functions of the reference; `loader` imports a
patched copy of the reference as an implementation (`implementations:<name>` for `--impl`);
`runner` runs the suite against each mutant; `python -m conformance.mutation` prints what killed each.
"""
