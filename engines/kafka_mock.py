"""A Kafka broker in this process: librdkafka's own mock cluster, for an engine under test that needs a broker.

librdkafka (the C client under `confluent-kafka`, which Quix Streams uses) carries a mock cluster for its own tests
(`rdkafka_mock.h`): brokers in the client's threads, on a loopback port, that speak the Kafka protocol's produce,
fetch, metadata, consumer-group, offset and topic-creation requests. `confluent-kafka`'s Python API exposes only
the `test.mock.num.brokers` setting, which hides the cluster's address in a debug log; the functions of
`rdkafka_mock.h` are exported by the bundled library, so this module calls them with `ctypes`:

- `rd_kafka_mock_cluster_new(rk, 1)`: one broker, owned by a client handle made for it (`rd_kafka_new`);
- `rd_kafka_mock_group_initial_rebalance_delay_ms(cluster, 0)`: the broker setting
  `group.initial.rebalance.delay.ms` (a real broker's default is 3 s, which test brokers set to 0): a consumer group
  is formed at once instead of three seconds after its first member joins. It changes when a consumer starts, not
  what it reads;
- `rd_kafka_mock_topic_create(cluster, topic, partitions, 1)`: a topic with its partitions, before anything is
  produced to it (the mock would create a topic it does not know with 4 partitions).

The mock answers no `DescribeConfigs` request: `topic_config` says what a broker would answer for a topic it
created with the cluster's defaults (one replica, Kafka's default retention of 7 days, no size limit).
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import confluent_kafka

#: What a Kafka broker answers for a topic created with its defaults: `retention.ms` (7 days), `retention.bytes`.
DEFAULT_RETENTION = {"retention.ms": "604800000", "retention.bytes": "-1"}

_PRODUCER = 0  # rd_kafka_type_t RD_KAFKA_PRODUCER


def _librdkafka() -> ctypes.CDLL:
    """The librdkafka that `confluent_kafka` loads (its wheel bundles one in `confluent_kafka.libs`)."""
    package = Path(confluent_kafka.__file__).resolve().parent
    found = sorted((package.parent / "confluent_kafka.libs").glob("librdkafka*.so*"))
    if not found:
        raise OSError(f"no librdkafka beside {package}: the mock cluster needs confluent-kafka's bundled library")
    lib = ctypes.CDLL(str(found[0]))
    lib.rd_kafka_conf_new.restype = ctypes.c_void_p
    lib.rd_kafka_new.restype = ctypes.c_void_p
    lib.rd_kafka_new.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.rd_kafka_mock_cluster_new.restype = ctypes.c_void_p
    lib.rd_kafka_mock_cluster_new.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.rd_kafka_mock_cluster_bootstraps.restype = ctypes.c_char_p
    lib.rd_kafka_mock_cluster_bootstraps.argtypes = [ctypes.c_void_p]
    lib.rd_kafka_mock_group_initial_rebalance_delay_ms.argtypes = [ctypes.c_void_p, ctypes.c_int32]
    lib.rd_kafka_mock_topic_create.restype = ctypes.c_int
    lib.rd_kafka_mock_topic_create.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
    return lib


class MockCluster:
    """One mock broker for the life of the process (module docstring)."""

    def __init__(self) -> None:
        self._lib = _librdkafka()
        error = ctypes.create_string_buffer(512)
        self._owner = self._lib.rd_kafka_new(_PRODUCER, self._lib.rd_kafka_conf_new(), error, len(error))
        if not self._owner:
            raise OSError(f"librdkafka could not make the mock cluster's client: {error.value.decode()}")
        self._cluster = self._lib.rd_kafka_mock_cluster_new(self._owner, 1)
        if not self._cluster:
            raise OSError("librdkafka could not start its mock cluster")
        self._lib.rd_kafka_mock_group_initial_rebalance_delay_ms(self._cluster, 0)
        self.bootstrap_servers: str = self._lib.rd_kafka_mock_cluster_bootstraps(self._cluster).decode()

    def create_topic(self, name: str, partitions: int = 1) -> None:
        failed = self._lib.rd_kafka_mock_topic_create(self._cluster, name.encode(), partitions, 1)
        if failed:
            raise OSError(f"the mock cluster could not create the topic {name!r} (librdkafka error {failed})")
