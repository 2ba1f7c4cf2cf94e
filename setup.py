"""The distribution's packages and their data; the rest of its configuration is pyproject.toml's.

The repository's top-level packages are installed as they are (`OWN_PACKAGES` of conformance/installation.py: a
user's module of one of these names is refused with a message naming it). Nothing generated goes in: a run's report
(reports/out), Maven's and Python's build outputs and caches.

The committed files (`cases/`, with the engines' manifests, divergence lists and the prose of their pages under
`cases/engines/`, `corpus/` and the JSON Schemas of `docs/schemas/`) go in as package data under
`conformance/data/`, each folder at its path in the repository, so that an installed suite replays the committed
cases as a clone does (`conformance/committed.py` finds them in either). This is why there is a setup.py:
pyproject.toml cannot map a folder outside the packages into one.
"""

from setuptools import find_namespace_packages, setup

#: Each committed folder and its files, as the repository holds them (the corpus with the manifest of the run that
#: wrote it).
COMMITTED = {"cases": ["**/*.json", "**/*.toml", "**/*.md"], "corpus": ["*.json", ".conformance-run.json"],
             "docs/schemas": ["*.json"]}


def data_package(folder: str) -> str:
    """The package of a committed folder: `docs/schemas` is `conformance.data.docs.schemas`."""
    return "conformance.data." + folder.replace("/", ".")


setup(
    packages=[
        *find_namespace_packages(
            include=["window_contract*", "conformance*", "reference*", "spark_impl*", "flink_impl*", "engines*",
                     "strategies*", "reports*"],
            exclude=["reports.out*", "*.target", "*.target.*", "*.__pycache__*", "*.build", "*.build.*"]),
        *map(data_package, COMMITTED),
    ],
    package_dir={data_package(folder): folder for folder in COMMITTED},
    # only the files listed here: a committed folder's subfolders are data, not packages of their own
    include_package_data=False,
    package_data={
        "": ["*.java", "*.html", "*.css", "*.js", "*.json", "*.xml"],
        # Flink 1.20's pinned modules and shim: folders whose names are no package's
        "flink_impl": ["flink-1.20/pom.xml", "shims/flink-1.20/**/*.java"],
        # the machine mutation run's survivors no case tells apart
        "conformance.mutation": ["equivalent.toml"],
        **{data_package(folder): patterns for folder, patterns in COMMITTED.items()},
    },
)
