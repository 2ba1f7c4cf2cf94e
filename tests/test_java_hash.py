"""`window_contract.java_hash` against the JVM: the values below are what Java 17 printed with Flink 2.3's own
`MathUtils.longToIntWithBitMixing` and a `java.util.HashSet<TimeWindow>` filled in this order (15 windows: the
table doubles once)."""

from window_contract.java_hash import hash_set_order, long_to_int_with_bit_mixing
from window_contract.observation import TimeWindow

MIXED = {0: 0, 1: 269157861, -1: 4073438587, 43: 3348682954, 2**63 - 1: 2036719293, -(2**63): 2043586954,
         123456789012345: 1755051451}
FILLED = [(0, 10), (16, 26), (8, 18), (15, 28), (-5, 5), (100, 200), (7, 9), (30, 40), (1, 2), (3, 4), (5, 6),
          (11, 12), (13, 14), (20, 21), (22, 23)]
ITERATED = [(-5, 5), (3, 4), (1, 2), (0, 10), (100, 200), (16, 26), (8, 18), (15, 28), (13, 14), (5, 6), (7, 9),
            (22, 23), (30, 40), (11, 12), (20, 21)]


def test_bit_mixing_is_flinks():
    assert {v: long_to_int_with_bit_mixing(v) for v in MIXED} == MIXED


def test_a_hash_set_of_time_windows_iterates_as_the_jvms():
    order = hash_set_order(TimeWindow(*w) for w in FILLED)
    assert [(w.start, w.end) for w in order] == ITERATED
