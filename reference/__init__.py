"""An executable reference model of Apache Flink 2.x window semantics, shaped like Flink's classes.

`windows` (TimeWindow, GlobalWindow), `assigners`, `triggers`, `evictors`, `timers` (the timer
service), `merging` (MergingWindowSet), `operator` (WindowOperator, EvictingWindowOperator), `job`
(building the operator for a case), `implementation` (the driver), `trace` (the steps a run tells its
listener), `explain` (a readable trace), `watermarks` (the inputs in front of the operator), and `dialects`
(other engines' rules as switches of the model, one module a rule area).
Pure Python: it never imports PySpark or another implementation.
"""
