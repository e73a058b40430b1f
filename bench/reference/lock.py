"""The Redis recipe for idempotency keys of engine/lock (its package documentation).

Identical requests with one key, from senders that retry: each sends,
waits up to the timeout for an answer, and after a timeout, a 409 or a 503
waits and sends again, up to its attempts. The server guards the charge
with a key store that behaves as Redis does for the recipe: every command
atomic, a key set with EX L at time t exists for times before t + L. With
setnx it takes a lock key (SET lock NX EX) before the work and saves the
result (SET result EX) after it; a request that finds the lock taken gets
the saved result, or a 409 while there is none. Against it: a crash under
the lock, work slower than the lock, an eviction of every key, the store
down for a while (fail open or fail closed).

Events run from one priority queue of (time, order scheduled), as in the
Go engine; times are whole nanoseconds. Like the engine, a run returns its
trace too, each event with its sentence.

Figures: setnx with 20 senders, 1 charge, 39 sends, 19 conflicts, 19
replays, done at 60 s; a crash after the charge, 2 charges, done at 310 s;
the store down and fail closed, 1 charge, 2 answers 503, done at 120 s;
get-then-set with 20 senders, 20 charges.
"""

import heapq

from timing import keep, parse_args, report

S = 1_000_000_000  # nanoseconds in a second
CREATED, REPLAY, CONFLICT, UNAVAILABLE = 201, 200, 409, 503
ANSWER_KINDS = {CREATED: "created", REPLAY: "replay", CONFLICT: "conflict", UNAVAILABLE: "unavailable"}


def secs(ns):
    if ns % S == 0:
        return str(ns // S)
    return repr(ns / S)


def who(lane):
    return lane.replace("-", " ", 1)


class Sender:
    def __init__(self, i):
        self.name = "sender-%d" % i
        self.sends = 0
        self.waiting = 0
        self.done = False
        self.gave_up = False
        self.done_at = 0


class Run:
    def __init__(self, p):
        self.p = p
        self.now = 0
        self.seq = 0
        self.queue = []
        self.trace = []
        self.keys = {}  # key -> expiry: the key exists for times before it
        self.crashed = False
        self.charge_count = 0
        self.counts = {"charges": 0, "sends": 0, "conflicts": 0, "replays": 0,
                       "unavailable": 0, "timeouts": 0}

    def at(self, t, fn):
        self.seq += 1
        heapq.heappush(self.queue, (max(t, self.now), self.seq, fn))

    def record(self, kind, lane, text, to="", ref=""):
        keep(self.trace, (self.now, kind, lane, to, text, ref))

    def exists(self, key):
        return key in self.keys and self.now < self.keys[key]

    def down(self):
        return self.p["store"] == "down" and self.now < self.p["outage"] * S

    def send(self, sd):
        sd.sends += 1
        self.counts["sends"] += 1
        n = sd.sends
        sd.waiting = n
        ref = "%s/%d" % (sd.name, n)
        self.record("send", sd.name, "Sends request %d with the key." % n, "server", ref)

        def timeout():
            if sd.waiting != n:
                return
            sd.waiting = 0
            self.counts["timeouts"] += 1
            self.record("timeout", sd.name, "Hears nothing for %d s and stops waiting." % self.p["timeout"], "", ref)
            self.next(sd, self.now)

        self.at(self.now + self.p["timeout"] * S, timeout)
        self.handle(sd, n, ref)

    def next(self, sd, t):
        if sd.sends >= self.p["attempts"]:
            sd.gave_up = True
            self.record("give-up", sd.name, "Has used its %d attempts and gives up." % self.p["attempts"], "", sd.name)
            return
        self.at(t + self.p["retry"] * S, lambda: self.send(sd))

    def answer(self, sd, n, status, ref):
        code = CREATED if status == REPLAY else status
        if sd.waiting != n:
            self.record("lost", "server", "The answer %d arrives after %s stopped waiting: lost." % (code, who(sd.name)),
                        sd.name, ref)
            return
        sd.waiting = 0
        texts = {CREATED: "201 Created to %s: done.",
                 REPLAY: "Replay of the saved 201 to %s: done.",
                 CONFLICT: "409 to %s: the lock is taken and there is no result yet.",
                 UNAVAILABLE: "503 to %s: the key store cannot be reached."}
        self.record(ANSWER_KINDS[status], "server", texts[status] % who(sd.name), sd.name, ref)
        if status in (CREATED, REPLAY):
            sd.done, sd.done_at = True, self.now
            if status == REPLAY:
                self.counts["replays"] += 1
        elif status == CONFLICT:
            self.counts["conflicts"] += 1
            self.next(sd, self.now)
        else:
            self.counts["unavailable"] += 1
            self.next(sd, self.now)

    def handle(self, sd, n, ref):
        p = self.p
        if p["guard"] == "none":
            self.work(sd, n, ref, False)
            return
        if self.down():
            if p["on_down"] == "fail-closed":
                self.record("store-down", "server", "The key store cannot be reached: fail closed.", "store", ref)
                self.answer(sd, n, UNAVAILABLE, ref)
            else:
                self.record("store-down", "server",
                            "The key store cannot be reached: fail open, and work without the guard.", "store", ref)
                self.work(sd, n, ref, True)
            return
        found = self.exists("result")
        if p["guard"] == "get-then-set":
            self.record("get", "server", "GET result: found." if found else "GET result: nothing yet, so charge.",
                        "store", ref)
            if found:
                self.answer(sd, n, REPLAY, ref)
            else:
                self.work(sd, n, ref, True)
            return
        if not self.exists("lock"):
            self.keys["lock"] = self.now + p["lock_ttl"] * S
            self.record("lock", "server", "SET lock NX EX %d: taken, until t = %s s."
                        % (p["lock_ttl"], secs(self.now + p["lock_ttl"] * S)), "store", ref)
            self.work(sd, n, ref, True)
            return
        self.record("lock-held", "server", "SET lock NX: already taken. GET result: "
                    + ("found." if found else "nothing."), "store", ref)
        self.answer(sd, n, REPLAY if found else CONFLICT, ref)

    def work(self, sd, n, ref, save):
        p = self.p
        crash = p["crash"] != "none" and not self.crashed
        self.crashed = self.crashed or crash
        self.record("work", "server", "The server starts the charge for %s." % who(sd.name), sd.name, ref)

        def done():
            if crash and p["crash"] == "before-charge":
                self.record("crash", "server",
                            "The server crashes before the charge is recorded: nothing saved, no answer.", "", ref)
                return
            self.charge_count += 1
            self.counts["charges"] += 1
            ch = "ch_%d" % self.charge_count
            self.record("charge", "processor", "The card is charged: %s." % ch, "", ch)
            if crash:
                self.record("crash", "server", "The server crashes after the charge: nothing saved, no answer.",
                            "", ref)
                return
            if save:
                if self.down():
                    self.record("unsaved", "server", "The key store is still down: the result is not saved.",
                                "store", ref)
                else:
                    self.keys["result"] = self.now + p["result_ttl"] * S
                    self.record("save", "server", "SET result EX %d: %s saved." % (p["result_ttl"], ch), "store", ch)
            self.answer(sd, n, CREATED, ref)

        self.at(self.now + p["work"] * S, done)

    def evict(self):
        live = sum(1 for k in self.keys if self.exists(k))
        self.keys.clear()
        self.record("evict", "store", "Memory pressure: the store evicts every key (%d live)." % live)


DEFAULTS = {"guard": "setnx", "dupes": 2, "crash": "none", "work": 2, "evict": False, "store": "up",
            "on_down": "fail-open", "lock_ttl": 300, "result_ttl": 86400, "timeout": 10, "retry": 60,
            "attempts": 8, "evict_at": 120, "outage": 30}


def run(**changes):
    p = dict(DEFAULTS, **changes)
    r = Run(p)
    if p["evict"]:
        r.at(p["evict_at"] * S, r.evict)  # before any send: first at the same instant
    senders = [Sender(i) for i in range(1, p["dupes"] + 1)]
    for sd in senders:
        r.at(0, lambda sd=sd: r.send(sd))
    while r.queue:
        r.now, _, fn = heapq.heappop(r.queue)
        fn()
    gave_up = sum(1 for sd in senders if sd.gave_up)
    done_at = None if gave_up else max(sd.done_at for sd in senders) / S
    result = dict(r.counts, gave_up=gave_up, done_at_s=done_at,
                  events=len(r.trace), last_event=r.trace[-1][4])
    return result


def main():
    args = parse_args(__doc__)
    report("lock", "setnx-20", lambda: run(dupes=20), args.min_time)
    report("lock", "crash-after-charge", lambda: run(crash="after-charge"), args.min_time)
    report("lock", "fail-closed", lambda: run(store="down", on_down="fail-closed"), args.min_time)
    report("lock", "get-then-set-20", lambda: run(guard="get-then-set", dupes=20), args.min_time)


if __name__ == "__main__":
    main()
