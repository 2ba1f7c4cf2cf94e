"""A peer of the `window-process/1` protocol in Python, answering with the reference, that can be told
to break the protocol: `python_peer.py [FAULT [ONCE_FILE]]`.

FAULT is one of hang, crash, hungry (takes memory without end), garbage, too_few, too_many, broken, error,
retry_unsettled (a retry that does not match the nulls), retry_forever (every case, every time), long_line (a
line of 400 MiB without its newline), slow_hello (says hello after an hour), busy (starts a process of its own
in its group, then neither answers nor reads its input) (or none). With ONCE_FILE the fault happens only in the process
that creates that file, so a process started again behaves; busy is busy in every process (a run starts
one to say hello before its test session starts another), and its process names ONCE_FILE in its command
line.
It declares the reference's features, the joins' among them, and answers `run_joins` requests (join cases) with
the reference's join observations, under the same faults. Mode `windows_only` declares the window features only,
as a process written before the joins does. Some modes are no fault: `position_free` says it is position-free
and answers without positions, firing watermarks and input watermarks (its join observations too); `retry_once`
leaves its first request's last case to retry, as real Flink does with the cases after one that never ends;
`exiting` ends after each answer, saying so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from window_contract import load_implementation
from window_contract.case_json import cases_from_json
from window_contract.equivalence import without_positions
from window_contract.features import ALL_FEATURES
from window_contract.join_case_json import join_cases_from_json
from window_contract.join_observation import join_observation_to_json
from window_contract.join_observation import without_positions as join_without_positions
from window_contract.observation_json import observation_to_json

fault = sys.argv[1] if len(sys.argv) > 1 else "none"
if len(sys.argv) > 2 and fault != "busy":
    try:
        os.close(os.open(sys.argv[2], os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        fault = "none"

reference = load_implementation("reference")
features = sorted(reference.features & ALL_FEATURES if fault == "windows_only" else reference.features)
if fault == "slow_hello":
    time.sleep(3600)
print(json.dumps({"type": "hello", "protocol": "window-process/1", "name": "python-peer",
                  "features": features, "position_free": fault == "position_free"}), flush=True)

retried = False
for line in sys.stdin:
    request = json.loads(line)
    if request["type"] == "run_joins":
        cases = join_cases_from_json({"cases": request["cases"]})
        joined = reference.run_joins(cases)
        if fault == "position_free":
            joined = [join_without_positions(o) for o in joined]
        observations = [join_observation_to_json(o) for o in joined]
    else:
        cases = cases_from_json({"cases": request["cases"]})
        observed = reference.run(cases)
        if fault == "position_free":
            observed = [without_positions(o, firing_watermarks=False, watermarks=False) for o in observed]
        observations = [observation_to_json(o) for o in observed]
    print(f"python-peer: request {request['id']} with {len(cases)} case(s), fault {fault}", file=sys.stderr,
          flush=True)
    if fault == "hang":
        time.sleep(3600)
    elif fault == "busy":
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", sys.argv[2]])
        time.sleep(3600)
    elif fault == "long_line":
        chunk = b"x" * 2**20
        for _ in range(400):
            sys.stdout.buffer.write(chunk)
        sys.stdout.flush()
        time.sleep(3600)
    elif fault == "crash":
        sys.exit(7)
    elif fault == "hungry":
        hoard = [bytearray(2**20)]
        while True:
            hoard.append(bytearray(2**20))
    elif fault == "garbage":
        print("Exception in thread main: nothing to see here", flush=True)
        continue
    elif fault == "too_few":
        observations = observations[:-1]
    elif fault == "too_many":
        observations = observations * 2
    elif fault == "broken":
        observations[0]["firings"] = [{"at": -1, "key": "a"}]
    elif fault == "error":
        print(json.dumps({"type": "error", "id": request["id"], "message": "the engine is out of disk"}),
              flush=True)
        continue
    answer = {"type": "observations", "id": request["id"], "observations": observations}
    if fault == "retry_once" and not retried:
        retried, observations[-1] = True, None
        answer["retry"] = [len(observations) - 1]
    elif fault == "retry_forever":
        answer |= {"observations": [None] * len(observations), "retry": list(range(len(observations)))}
    elif fault == "retry_unsettled":
        answer["retry"] = [0]
    elif fault == "exiting":
        answer["exiting"] = True
    print(json.dumps(answer), flush=True)
    if fault == "exiting":
        break

