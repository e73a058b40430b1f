"""The double charge of engine/payment, message by message.

A client pays over a lossy network: POST /payments with the amount, 40 ms
each way, 60 ms of work at the server, a 1 s timeout after which it retries
at once, at most three attempts. The network's fault is given attempt by
attempt (lose the request, lose the response, or deliver both). The server
charges the card; with an Idempotency-Key it first looks the key up in a
store, scoped to the account: a key seen with the same body (the SHA-256 of
its canonical JSON) replays the saved answer, with another body is a 422.

Events run from one priority queue of (time, order scheduled), as in the
Go engine. Like the engine, a run returns its trace too: one event per
message, charge, timeout and receipt, with its sentence.

Figures, 25.00 paid: lose-request then ok, no keys, 1 charge, receipt ch_1;
lose-response then ok, no keys, 2 charges (the double charge), receipt
ch_2; the same with a key per intent, 1 charge and ch_1 replayed; with a
key per attempt, 2 charges again.
"""

import hashlib
import heapq
import json

from timing import keep, parse_args, report

MS = 1_000_000  # nanoseconds
LATENCY = 40 * MS
WORK = 60 * MS
TIMEOUT = 1000 * MS
ACCOUNT = "acct_1"
REASONS = {201: "Created", 400: "Bad Request", 409: "Conflict",
           422: "Unprocessable Content", 500: "Internal Server Error"}


def fingerprint(payment):
    """The hex SHA-256 of the payment's canonical JSON: members sorted, no spaces."""
    canonical = json.dumps(payment, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def charge_id(body):
    try:
        return json.loads(body).get("id", "")
    except ValueError:
        return ""


class Server:
    def __init__(self, model):
        self.model = model
        self.ledger = []
        self.keys = {}  # (account, key) -> {"fingerprint", "status", "body"}

    def charge(self, key, payment, attempt):
        amount = payment["amount"]
        cid = "ch_%d" % (len(self.ledger) + 1)
        self.ledger.append({"id": cid, "amount": amount, "key": key, "attempt": attempt,
                            "at": self.model.now})
        self.model.record("charge", "server", "", "card charged: %s (%d.%02d)" % (cid, amount // 100, amount % 100), cid)
        return 201, json.dumps({"amount": amount, "id": cid, "status": "succeeded"}, separators=(",", ":"))

    def pay(self, key, body, attempt):
        # The body is read once, as the engine's server reads it: the
        # charge and the fingerprint both come from that reading.
        payment = json.loads(body)
        replayed = False
        if not key:
            status, answer = self.charge(key, payment, attempt)
        else:
            fp = fingerprint(payment)
            saved = self.keys.get((ACCOUNT, key))
            if saved is None:
                status, answer = self.charge(key, payment, attempt)
                self.keys[(ACCOUNT, key)] = {"fingerprint": fp, "status": status, "body": answer}
            elif saved["fingerprint"] != fp:
                status, answer = 422, json.dumps({"error": "key reused with another body"})
                self.model.record("reject", "server", "",
                                  "key %s was used with a different body: 422, nothing charged" % key, key)
            else:
                status, answer, replayed = saved["status"], saved["body"], True
                self.model.record("replay", "server", "", "key %s seen before: the saved answer is "
                                  "replayed, nothing charged" % key, charge_id(answer))
        cid = charge_id(answer)
        text = "%d %s" % (status, REASONS[status])
        if cid:
            text += " " + cid
        if replayed:
            text += " (Idempotent-Replayed: true)"
        self.model.record("response", "server", "client", text, cid)
        return {"status": status, "body": answer, "replayed": replayed, "charge": cid}


class Model:
    def __init__(self, keys, faults, attempts, amount):
        self.keys = keys
        self.faults = faults
        self.attempts = attempts
        self.body = json.dumps({"amount": amount, "currency": "usd"}, separators=(",", ":"))
        self.now = 0
        self.seq = 0
        self.queue = []
        self.trace = []
        self.server = Server(self)
        self.receipt = ""
        self.status = 0
        self.replayed = False
        self.made = 0

    def after(self, delay, fn):
        self.seq += 1
        heapq.heappush(self.queue, (self.now + delay, self.seq, fn))

    def record(self, kind, lane, to, text, ref=""):
        keep(self.trace, (self.now, kind, lane, to, text, ref))

    def key(self, n):
        if self.keys == "per-intent":
            return "k_1"
        if self.keys == "per-attempt":
            return "k_%d" % n
        return ""

    def attempt(self, n):
        key = self.key(n)
        text = "POST /payments, attempt %d" % n
        if key:
            text += ", Idempotency-Key " + key
        self.record("attempt", "client", "server", text, key)
        self.made = n
        fault = self.faults[n - 1] if n <= len(self.faults) else "ok"
        state = {"answered": False, "abandoned": False}

        def arrive():
            if fault == "lose-request":
                self.record("request-lost", "network", "", "the request is lost; the server never sees it")
                return
            self.after(WORK, work)

        def work():
            reply = self.server.pay(key, self.body, n)
            self.after(LATENCY, lambda: back(reply))

        def back(reply):
            if fault == "lose-response":
                self.record("response-lost", "network", "", "the response is lost; the card was charged"
                            if reply["charge"] else "the response is lost")
                return
            if state["abandoned"]:
                return
            state["answered"] = True
            self.status = reply["status"]
            self.replayed = reply["replayed"]
            if reply["status"] == 201 and reply["charge"]:
                self.receipt = reply["charge"]
                self.record("receipt", "client", "", "receipt: " + reply["charge"], reply["charge"])

        def timeout():
            if state["answered"]:
                return
            state["abandoned"] = True
            self.record("timeout", "client", "", "no answer after 1 s: the client cannot know what happened")
            if n < self.attempts:
                self.attempt(n + 1)
                return
            self.record("give-up", "client", "", "no answer after %d attempt%s: the client gives up, "
                        "not knowing whether it paid" % (n, "" if n == 1 else "s"))

        self.after(LATENCY, arrive)
        self.after(TIMEOUT, timeout)

    def run(self):
        self.attempt(1)
        while self.queue:
            self.now, _, fn = heapq.heappop(self.queue)
            fn()


def run(keys="off", faults=("lose-response", "ok"), attempts=3, amount=2500):
    m = Model(keys, faults, attempts, amount)
    m.run()
    return {"charges": len(m.server.ledger), "receipt": m.receipt, "status": m.status,
            "replayed": m.replayed, "attempts": m.made,
            "events": len(m.trace), "last_event": m.trace[-1][4]}


def main():
    args = parse_args(__doc__)
    report("payment", "lose-request", lambda: run(faults=("lose-request", "ok")), args.min_time)
    report("payment", "lose-response", lambda: run(), args.min_time)
    report("payment", "per-intent", lambda: run(keys="per-intent"), args.min_time)
    report("payment", "per-attempt", lambda: run(keys="per-attempt"), args.min_time)


if __name__ == "__main__":
    main()
