"""The metastable failure of engine/storm, one request at a time.

One-second ticks for 120 s; 80 new requests a second; capacity 100 a second,
40 during seconds 10 to 19. Clients time out after 3 s and retry up to 3
times. Each tick: (1) clients whose request timed out unanswered retry, if
allowed (with a budget: the bucket of section 4, tokens earned by new
requests); (2) the new requests arrive; (3) the server serves its queue
oldest first, and a request whose client already gave up costs a unit of
capacity for nothing or, with skip-expired, is dropped for free.

Like the engine, a run returns its trace too: one event per second, with
that second's arrivals and service in a sentence.

Figures (healthy / slow / recovered after the trigger):
retry every timeout 80/20/never, budget 80/20/20, budget + skip 80/40/0.
"""

import math
from collections import deque

from timing import keep, parse_args, report

MICRO = 1_000_000
RATIO_MICRO = 100_000  # 0.1 token per new request
BANK_MICRO = 10 * MICRO


class Request:
    __slots__ = ("created", "attempt", "answered")

    def __init__(self, created, attempt):
        self.created = created
        self.attempt = attempt
        self.answered = False


def run(budget=False, skip_expired=False, new=80, capacity=100, slow_from=10,
        slow_to=20, slow_factor=0.4, timeout=3, retries=3, seconds=120):
    slow_capacity = int(math.floor(capacity * slow_factor + 0.5))
    tokens = BANK_MICRO
    queue = deque()
    arrived = [[] for _ in range(seconds)]  # the requests of each second
    goodput = [0] * seconds
    trace = []
    for t in range(seconds):
        retries_now = wasted = dropped = 0
        # 1. Time-outs and retries.
        if t >= timeout:
            for req in arrived[t - timeout]:
                if req.answered or req.attempt >= retries:
                    continue
                if budget:
                    if tokens <= MICRO:
                        continue  # gives up: the retry would empty the bucket
                    tokens -= MICRO
                retry = Request(t, req.attempt + 1)
                queue.append(retry)
                arrived[t].append(retry)
                retries_now += 1
        # 2. New requests.
        for _ in range(new):
            req = Request(t, 0)
            queue.append(req)
            arrived[t].append(req)
            if budget:
                tokens = min(BANK_MICRO, tokens + RATIO_MICRO)
        # 3. Service, oldest first.
        cap = slow_capacity if slow_from <= t < slow_to else capacity
        while cap > 0 and queue:
            req = queue.popleft()
            if t - req.created >= timeout:
                if skip_expired:
                    dropped += 1
                else:
                    cap -= 1  # served for a client that left
                    wasted += 1
            else:
                cap -= 1
                req.answered = True
                goodput[t] += 1
        text = "Second %d: %d new" % (t, new)
        if retries_now:
            text += " and %d retries" % retries_now
        text += "; %d answered in time" % goodput[t]
        if wasted:
            text += ", %d served after their client gave up" % wasted
        if dropped:
            text += ", %d expired dropped" % dropped
        text += "; %d waiting." % len(queue)
        keep(trace, (t * 1_000_000_000, "tick", "server", "", text, "s%d" % t))

    def mean(lo, hi):
        lo = max(lo, 0)
        return sum(goodput[lo:hi]) // (hi - lo) if hi > lo else 0

    good = (new * 15 + 15) // 16  # 75 of 80: 15/16 of the load, rounded up
    recovered = None
    streak = 0
    for t in range(slow_to, seconds):
        streak = streak + 1 if goodput[t] >= good else 0
        if streak == 5:
            recovered = t - 4 - slow_to
            break
    return {"healthy": mean(slow_from - 5, slow_from), "slow": mean(slow_from, slow_to),
            "recovered_after_s": recovered, "events": len(trace), "last_event": trace[-1][4]}


def main():
    args = parse_args(__doc__)
    report("storm", "retry", lambda: run(), args.min_time)
    report("storm", "budget", lambda: run(budget=True), args.min_time)
    report("storm", "budget-skip", lambda: run(budget=True, skip_expired=True), args.min_time)


if __name__ == "__main__":
    main()
