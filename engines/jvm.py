"""The JVM engines under test as the suite loads them: each a Java process speaking `window-process/1`.

`engines/jvm/` is a Maven project (Java 17, every version pinned in `engines/jvm/pom.xml`): a module for the
protocol (`protocol/`: reading `window-case/1`, writing `window-observation/1`, the conversation of
docs/protocol.md) and one module per engine, each with a `main` that serves it. `./dev setup` builds it
(`mvn -q compile`, offline once Maven's local repository has everything); each engine module then holds its
classes in `target/classes` and its runtime classpath in `target/classpath.txt`, and the suite starts
`java -cp ... MAIN CONTRACT`, exactly as `--impl 'exec:COMMAND'` would. `CONTRACT` is one JSON argument with
what the contract states and an engine must follow, taken from `window_contract/facts.py` rather than stated again in
Java: the windows an element may get before its case is stopped, and the message that stops it.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

from window_contract.facts import TOO_MANY_WINDOWS, WINDOWS_PER_ELEMENT_LIMIT
from window_contract.implementation import ImplementationFailure
from window_contract.process import ProcessImplementation

#: The Maven project of the JVM engines.
PROJECT = Path(__file__).resolve().parent / "jvm"

#: A small heap: a case's state is a few windows, and the machine is shared; the client compiler only (C1): a process
#: that answers small cases spends more CPU in C2's optimising compiler than it saves (Hazelcast Jet's unit tests:
#: 4.9 s of CPU with it, 3.5 s without).
JVM_OPTIONS = ("-Xmx512m", "-XX:+UseSerialGC", "-Xshare:auto", "-XX:TieredStopAtLevel=1")


def contract_argument() -> str:
    return json.dumps({"windows_per_element_limit": WINDOWS_PER_ELEMENT_LIMIT, "too_many_windows": TOO_MANY_WINDOWS})


def command(module: str, main: str, *args: str) -> str:
    """The command that starts `main` of the engine module `module`; `ImplementationFailure` when it is not built."""
    target = PROJECT / module / "target"
    classpath = target / "classpath.txt"
    if not (target / "classes").is_dir() or not classpath.is_file():
        raise ImplementationFailure(f"the {module} engine is not built ({classpath} is missing): `./dev setup jvm` "
                                    f"builds it, or run `mvn -q compile` in {PROJECT}")
    java = Path(os.environ["JAVA_HOME"]) / "bin" / "java" if "JAVA_HOME" in os.environ else "java"
    path = os.pathsep.join([str(target / "classes"), classpath.read_text().strip()])
    return shlex.join([str(java), *JVM_OPTIONS, "-cp", path, main, contract_argument(), *args])


def kafka_streams() -> ProcessImplementation:
    """`kafka-streams`: each case as a Kafka Streams 4.4 job with `suppress(untilWindowCloses)` (one result per
    window), on a `TopologyTestDriver` (engines/jvm/kafka-streams/); each interval join as `KStream#join`,
    `leftJoin` or `outerJoin` with `JoinWindows` (`run_joins`)."""
    return ProcessImplementation(command("kafka-streams", "windowconformance.kafkastreams.KafkaStreamsEngine"))


def kafka_streams_updates() -> ProcessImplementation:
    """`kafka-streams-updates`: the same jobs without `suppress`, Kafka Streams' default: a result on every update."""
    return ProcessImplementation(command("kafka-streams", "windowconformance.kafkastreams.KafkaStreamsEngine",
                                         "--emit=updates"))


def hazelcast_jet() -> ProcessImplementation:
    """`hazelcast-jet`: each case as a Hazelcast Jet pipeline, a light job on a member embedded in the process
    (engines/jvm/hazelcast-jet/)."""
    return ProcessImplementation(command("hazelcast-jet", "windowconformance.hazelcastjet.HazelcastJetEngine"))
