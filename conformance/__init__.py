"""The contract of the window-conformance suite: cases, observations, implementations.

Write a case in a few lines, in Flink's words::

    from conformance import Case, tumbling, record, watermark
    case = Case(window=tumbling(1000), events=[record("a", 1, ts=999), watermark(999)])
"""

from conformance.case import (
    AscendingTimestampExtractor,
    BoundedOutOfOrdernessTimestampExtractor,
    BoundedOutOfOrdernessWatermarks,
    Case,
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    Count,
    CountEvictor,
    CountTrigger,
    DeltaEvictor,
    DeltaTrigger,
    EndOfChannel,
    EventTimeTrigger,
    Global,
    MonotonousWatermarks,
    NeverTrigger,
    ProcessingTime,
    ProcessingTimeTrigger,
    PurgingTrigger,
    Record,
    Session,
    Sliding,
    TimeEvictor,
    Tumbling,
    Watermark,
    WatermarkStatus,
    count_window,
    global_window,
    processing_time,
    purging,
    record,
    session,
    sliding,
    tumbling,
    watermark,
)
from conformance.case_json import case_from_json, case_to_json, cases_from_json, load_cases
from conformance.difference import difference
from conformance.equivalence import equivalent
from conformance.facts import LONG_MAX, LONG_MIN
from conformance.features import FEATURES, required_features
from conformance.implementation import Implementation, ImplementationFailure, load_implementation
from conformance.observation import Error, Firing, GlobalWindow, InputWatermark, LateRecord, Observation, TimeWindow
from conformance.observation_json import observation_from_json, observation_to_json
from conformance.validation import CaseFormatError

__all__ = [name for name in dir() if not name.startswith("_")]
