"""The thundering herd of engine/backoff, one call at a time.

1,000 clients call at t = 0. The server works in 100 ms slots and answers 50
calls per slot; a call beyond a slot's 50 fails, and its client waits per
the policy and calls again. Calls are processed in time order, ties by
client, from one priority queue of (time, client); a call at time t lands
in slot t // slot. Times are whole nanoseconds, as in the Go engine.

With c = min(cap, base * 2**attempt), base 0.1 s, cap 10 s:
none waits c; full waits uniform(0, c); equal waits c/2 + uniform(0, c/2);
decorrelated waits min(cap, uniform(base, 3 * previous wait)).

Like the engine, a run returns its trace too: one event per slot that saw
calls, with its counts in a sentence.

The jitter comes from xoshiro256** seeded with SplitMix64, the generator of
engine/sim, so a seed gives the same run here as in Go, draw for draw.

Figures: none makes exactly 10,500 calls, the last client served at
132.7 s; full jitter with seed 1 matches the engine's run exactly.
"""

import heapq

from timing import keep, parse_args, report

MASK = (1 << 64) - 1
MS = 1_000_000  # nanoseconds


class Rand:
    """xoshiro256**, seeded with SplitMix64."""

    def __init__(self, seed):
        self.s = []
        x = seed
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & MASK
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
            self.s.append(z ^ (z >> 31))

    def uint64(self):
        s = self.s
        r = (rotl((s[1] * 5) & MASK, 7) * 9) & MASK
        t = (s[1] << 17) & MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return r

    def float64(self):
        return (self.uint64() >> 11) / 9007199254740992.0  # 2**53


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & MASK


def uniform(r, lo, hi):
    """A whole number of nanoseconds in [lo, hi)."""
    if hi <= lo:
        return lo
    return lo + int(r.float64() * float(hi - lo))


def ceiling(attempt, base, cap):
    c = base
    i = 0
    while i < attempt and c < cap:
        c *= 2
        i += 1
    return min(c, cap)


def seconds1(ns):
    """Nanoseconds as seconds to one decimal, written as Go's
    strconv.FormatFloat(f, 'f', -1, 64) writes them: 0, 0.1, 132.7."""
    text = repr(((ns + 50 * MS) // (100 * MS)) / 10)
    return text[:-2] if text.endswith(".0") else text


def slot_event(trace, slot, slot_ns, calls, served):
    at = slot * slot_ns
    keep(trace, (at, "slot", "server", "",
                 "Slot %d (%s s): %d calls, %d served, %d failed." % (slot, seconds1(at), calls, served, calls - served),
                 "slot-%d" % slot))


def run(policy="none", clients=1000, seed=1, capacity=50, slot=100 * MS,
        base=100 * MS, cap=10_000 * MS):
    r = Rand(seed)
    attempt = [0] * clients
    prev = [base] * clients
    queue = [(0, c) for c in range(clients)]  # already a heap
    calls = waves = 0
    last = 0
    cur = -1  # the slot being filled
    used = 0  # the calls it has served
    seen = 0  # the calls it has seen
    trace = []
    while queue:
        t, c = heapq.heappop(queue)
        calls += 1
        s = t // slot
        if s != cur:
            if cur >= 0:
                slot_event(trace, cur, slot, seen, used)
            cur, used, seen = s, 0, 0
            waves += 1
        seen += 1
        if used < capacity:
            used += 1
            last = t
            continue
        a = attempt[c]
        if policy == "full":
            w = uniform(r, 0, ceiling(a, base, cap))
        elif policy == "equal":
            w = ceiling(a, base, cap)
            w = w // 2 + uniform(r, 0, w - w // 2)
        elif policy == "decorrelated":
            w = min(cap, uniform(r, base, max(base, 3 * prev[c])))
        else:
            w = ceiling(a, base, cap)
        attempt[c] = a + 1
        prev[c] = w
        heapq.heappush(queue, (t + w, c))
    slot_event(trace, cur, slot, seen, used)
    tenths = (last + 50 * MS) // (100 * MS)
    return {"calls": calls, "last_served_s": tenths / 10, "waves": waves,
            "events": len(trace), "last_event": trace[-1][4]}


def main():
    args = parse_args(__doc__)
    report("backoff", "none", lambda: run("none"), args.min_time)
    report("backoff", "full", lambda: run("full", seed=1), args.min_time)


if __name__ == "__main__":
    main()
