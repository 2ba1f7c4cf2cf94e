import pytest

from conformance.profiles import register_profiles

register_profiles()


@pytest.fixture(scope="module")
def flink_observed(request: pytest.FixtureRequest) -> dict:
    """The test module's table of hand-derived cases (`CASES`: name -> (case, expected observation)),
    run through real Flink as one batch: one job for the whole table."""
    from flink_impl.implementation import FlinkImplementation

    cases = request.module.CASES
    return dict(zip(cases, FlinkImplementation().run([case for case, _ in cases.values()]), strict=True))


#: The JVMs the unit tests start, each named by a word that the id of every test that may start one has (its file's
#: name, its own or its parameters'): a Spark session, Flink's runners. A test that names both goes with the first.
JVMS = ("spark", "flink")


@pytest.hookimpl(optionalhook=True)  # a pytest without xdist (`-p no:xdist`) has no such hook
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """With `--dist loadgroup` (`./dev test`'s unit tests): the tests that may start a JVM of a kind run on one worker,
    whole, sent before anything else, and the others a module at a time wherever a worker is free
    (`LoadScopeScheduling` with a scope a kind of JVM or a module; the largest modules are sent first).

    A kind's JVMs then start and warm up once instead of once a worker: with three workers each starting a Spark
    session and Flink's runners, Spark's JVMs took about 700 of the unit tests' 3,100 CPU-seconds and Flink's 470 (a
    session's start and first jobs about 55). A module's cached runs (`functools.cache`, module fixtures: a run of the
    whole suite, an installation) are made once, not once for each worker its tests went to: test by test, the
    README's walkthrough (84 CPU-seconds) ran on two workers. (xdist's own `loadgroup` groups by a mark it writes into
    the item's id, which pytest 9 no longer reads.)"""
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByJvmOrModule(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return next((jvm for jvm in JVMS if jvm in nodeid.lower()), nodeid.split("::", 1)[0])

        def _assign_work_unit(self, node) -> None:
            # The JVM kinds' chains of tests are the longest: they start first, whatever their size.
            for jvm in reversed(JVMS):
                if jvm in self.workqueue:
                    self.workqueue.move_to_end(jvm, last=False)
            super()._assign_work_unit(node)

    return ByJvmOrModule(config, log)
