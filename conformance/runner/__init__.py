"""`python -m conformance run`: the property suite against each implementation, and the verdict.

One job per module:

- `command`: the command line and the run's sequence (load, run each implementation, save, render);
- `session`: one implementation's run of the suite, pytest in a child process;
- `collector`: the pytest plug-in in that child, which sends the run's events back;
- `events`: those events, typed;
- `results`: what the run found (property, implementation, the report document), typed;
- `verdict`: conforms, differs or could not run, and the exit status;
- `matrix`: the conformance matrix, feature by implementation;
- `counterexamples`: every minimal case saved as a replayable case file;
- `output`: the output folder, which a run never shares and never cleans beyond its own files;
- `progress`: what the terminal shows meanwhile.

`reports/` renders the document this package builds; it decides nothing.
"""
