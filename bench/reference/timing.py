"""Times a model the same way for every reference script.

Each case prints one JSON line:

    {"model": "budget", "case": "budget", "runs": 412, "seconds_per_run": 0.00243, "result": {...}}

seconds_per_run is the median of the runs' times, after one untimed run to
warm up; runs go on until min_time seconds have passed, and there are at
least five. The median rather than the mean: a run that another process
interrupted says nothing about the model.
The bench (cmd/bench) reads these lines and compares "result" with the Go
engine's figures for the same parameters.
"""

import argparse
import json
import sys
import time

# The most events a trace keeps, as engine/sim.MaxEvents; past it, one
# last event says the trace was cut.
MAX_EVENTS = 10_000


def keep(trace, event):
    """Appends event (at, kind, lane, to, text, ref) while the trace has room."""
    n = len(trace)
    if n < MAX_EVENTS:
        trace.append(event)
    elif n == MAX_EVENTS:
        trace.append((event[0], "truncated", "", "", "The trace stops here; the summary counts every event.", ""))


def parse_args(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--min-time", type=float, default=1.0,
                   help="seconds to keep timing each case (default 1)")
    return p.parse_args()


def report(model, case, fn, min_time):
    result = fn()  # warm-up, and the figures to check
    times = []
    start = time.perf_counter()
    while len(times) < 5 or time.perf_counter() - start < min_time:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    n = len(times)
    median = times[n // 2] if n % 2 else (times[n // 2 - 1] + times[n // 2]) / 2
    line = {"model": model, "case": case, "runs": n,
            "seconds_per_run": median, "result": result}
    sys.stdout.write(json.dumps(line, sort_keys=True) + "\n")
    sys.stdout.flush()
