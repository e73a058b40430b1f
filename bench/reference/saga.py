"""The saga runner of engine/saga.

Charge the card, book a flight, book a hotel; when a step fails, undo the
done steps in reverse. The runner keeps a durable log, crashes once right
after a chosen step's call returns (before logging its result) and resumes
from the log. With keys each call carries saga:STEP (saga:STEP:undo for
its compensation), and a service replays the answer to a key it has seen.

Like the engine, a run returns its trace too: one event per call, log entry
and crash, a tick (100 ms) apart, with its sentence.

Figures: the hotel refuses after a crash after the flight, with keys: 1
charge and 1 undo at the card, compensated, nothing left in place; without
keys the flight is booked twice and one booking stays.
"""

from timing import keep, parse_args, report

TICK = 100_000_000  # nanoseconds
STEPS = ("charge", "flight", "hotel")


def run(fail="hotel", crash_after="flight", keys=True):
    trace = []
    now = 0

    def say(kind, lane, to, text, ref):
        nonlocal now
        now += TICK
        keep(trace, (now, kind, lane, to, text, ref))

    def logged(step, what):
        say("log", "log", "", "Log: %s %s." % (step, what), step)

    seen = {step: {} for step in STEPS}  # per service: key -> the call succeeded
    effects = {step: {"done": 0, "undone": 0} for step in STEPS}
    calls = 0

    def call(step, undo):
        nonlocal calls
        key = "saga:" + step + (":undo" if undo else "")
        calls += 1
        sent = "Call " + ("undo " + step if undo else step)
        if keys:
            sent += " with key " + key
            if key in seen[step]:
                say("replay", step, "runner", sent + ": the key is known, the saved answer is replayed.", key)
                return seen[step][key]
        if not undo and step == fail:
            if keys:
                seen[step][key] = False
            say("refuse", step, "runner", sent + ": refused.", key)
            return False
        effects[step]["undone" if undo else "done"] += 1
        if keys:
            seen[step][key] = True
        say("undo" if undo else "do", step, "runner", sent + ": done.", key)
        return True

    started, done = set(), set()
    crashed = False
    failed = None
    crashes = 0
    i = 0
    while i < len(STEPS):
        step = STEPS[i]
        if step in done:
            i += 1
            continue
        if step not in started:
            started.add(step)
            logged(step, "started")
        ok = call(step, False)
        if step == crash_after and not crashed:
            crashed = True
            crashes += 1
            say("crash", "runner", "", "The runner crashes before logging the %s call's result." % step, step)
            say("resume", "runner", "", "The runner restarts and reads the log: %s started, not done; "
                "call it again." % step, step)
            continue  # resume at the step the log left open
        if not ok:
            failed = step
            logged(step, "failed; compensate")
            break
        done.add(step)
        logged(step, "done")
        i += 1

    outcome = "completed"
    stray = 0
    if failed is not None:
        outcome = "compensated"
        for step in reversed(STEPS):
            if step in done:
                call(step, True)
                logged(step, "undone")
        stray = sum(e["done"] - e["undone"] for e in effects.values())
    return {"outcome": outcome, "charges": effects["charge"]["done"], "undos": effects["charge"]["undone"],
            "stray": stray, "calls": calls, "crashes": crashes,
            "events": len(trace), "last_event": trace[-1][4]}


def main():
    args = parse_args(__doc__)
    report("saga", "keys", lambda: run(), args.min_time)
    report("saga", "no-keys", lambda: run(keys=False), args.min_time)


if __name__ == "__main__":
    main()
