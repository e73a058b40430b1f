"""The concurrent-duplicates guard of engine/guard, step by step.

N identical requests with one idempotency key arrive at once and run in
lockstep: one step each per round, round after round, until all have
answered. A step is one statement against a small database (one table of
rows by key, each statement atomic, a unique index on the key or not), one
hop of a charge at the card network (three hops), or the answer. Then, a
second after the burst, two follow-ups run alone: the same request again,
then the same key with another amount.

check-then-insert SELECTs the key, charges if absent, then INSERTs the row;
constraint-after-charge charges, then INSERTs under the unique index;
claim-before-work INSERTs the key first, and only the winner charges and
saves its answer on the row.

Like the engine, a run returns its trace too: one event per step, with its
sentence.

Figures, twenty requests: check-then-insert 20 rows and 20 charges;
constraint-after-charge 1 row and 20 charges; claim-before-work 1 row and
1 charge, one 201 and nineteen 409s.
"""

from timing import keep, parse_args, report

CARD_STEPS = 3
STEP = 1_000_000  # a step's virtual time, in nanoseconds
SECOND = 1_000_000_000
AMOUNT = 2500
OTHER_AMOUNT = 9900
KEY = "k_1"


class Handler:
    def __init__(self, lane, amount, strategy, burst):
        self.lane = lane
        self.amount = amount
        self.burst = burst
        self.state = {"check-then-insert": "select",
                      "constraint-after-charge": "charge",
                      "claim-before-work": "claim"}[strategy]
        self.hops = 0
        self.payment = ""
        self.found = None
        self.done = False
        self.answer = None


class Model:
    def __init__(self, strategy):
        self.strategy = strategy
        self.unique = strategy != "check-then-insert"
        self.rows = []  # each a dict: key, amount, status, payment
        self.charges = 0
        self.pays = 0
        self.now = 0
        self.trace = []

    def record(self, h, kind, to, text, ref=""):
        keep(self.trace, (self.now, kind, h.lane, to, text, ref))

    def find(self, key):
        for row in self.rows:
            if row["key"] == key:
                return row
        return None

    def insert(self, row):
        if self.unique and self.find(row["key"]) is not None:
            return False
        self.rows.append(row)
        return True

    def found_text(self, row):
        if row["status"] == 0:
            return "SELECT %s: found, claimed, no answer saved yet." % KEY
        return "SELECT %s: found, answer %d %s saved." % (KEY, row["status"], row["payment"])

    def step(self, h):
        if h.state == "select":
            row = self.find(KEY)
            if row is not None:
                h.found = dict(row)
                h.state = "answer-found"
                self.record(h, "select", "db", self.found_text(row), KEY)
            else:
                h.state = "charge"
                self.record(h, "select", "db", "SELECT %s: absent." % KEY, KEY)
        elif h.state == "charge":
            h.hops += 1
            if h.hops < CARD_STEPS:
                self.record(h, "card", "card", "At the card network: charge %d, hop %d of %d."
                            % (h.amount, h.hops, CARD_STEPS))
                return
            self.pays += 1
            h.payment = "pay_%d" % self.pays
            if h.burst:
                self.charges += 1
            self.record(h, "charge", "card", "The card network charges %d: %s." % (h.amount, h.payment),
                        h.payment)
            h.state = "save" if self.strategy == "claim-before-work" else "insert"
        elif h.state == "insert":
            row = {"key": KEY, "amount": h.amount, "status": 201, "payment": h.payment}
            if self.insert(row):
                h.state = "answer-new"
                self.record(h, "insert", "db", "INSERT payment %s for %s: 1 row." % (h.payment, KEY), KEY)
            else:
                h.state = "answer-taken"
                self.record(h, "conflict", "db", "INSERT payment %s for %s: unique violation; "
                            "the card was already charged." % (h.payment, KEY), KEY)
        elif h.state == "claim":
            if self.insert({"key": KEY, "amount": h.amount, "status": 0, "payment": ""}):
                h.state = "charge"
                self.record(h, "insert", "db", "INSERT %s ON CONFLICT DO NOTHING RETURNING: claimed." % KEY, KEY)
            else:
                h.state = "read"
                self.record(h, "conflict", "db", "INSERT %s ON CONFLICT DO NOTHING RETURNING: "
                            "nothing, the key is taken." % KEY, KEY)
        elif h.state == "read":
            row = self.find(KEY)
            h.found = dict(row)
            h.state = "answer-found"
            self.record(h, "select", "db", self.found_text(row), KEY)
        elif h.state == "save":
            row = self.find(KEY)
            row["status"], row["payment"] = 201, h.payment
            h.state = "answer-new"
            self.record(h, "update", "db", "UPDATE %s SET answer = 201 %s." % (KEY, h.payment), h.payment)
        elif h.state == "answer-found":
            row = h.found
            if row["amount"] != h.amount:
                self.respond(h, 422, "", False, 0)
            elif row["status"] == 0:
                self.respond(h, 409, "", False, 1)
            else:
                self.respond(h, row["status"], row["payment"], True, 0)
        elif h.state == "answer-new":
            self.respond(h, 201, h.payment, False, 0)
        elif h.state == "answer-taken":
            self.respond(h, 409, "", False, 0)

    def respond(self, h, status, payment, replayed, retry_after):
        h.answer = {"status": status, "payment": payment, "replayed": replayed}
        h.done = True
        text = "Answers %d" % status
        if replayed:
            text += ", replayed, " + payment
        elif payment:
            text += ", " + payment
        elif retry_after > 0:
            text += " with Retry-After: %d" % retry_after
        self.record(h, "answer", "client", text + ".", payment)


def run(strategy="check-then-insert", n=20):
    m = Model(strategy)
    burst = [Handler("req-%d" % (i + 1), AMOUNT, strategy, True) for i in range(n)]
    # Round after round, each handler that has not answered takes a step.
    while True:
        active = [h for h in burst if not h.done]
        if not active:
            break
        for h in active:
            m.step(h)
        m.now += STEP
    statuses = {}
    replayed = 0
    for h in burst:
        statuses[h.answer["status"]] = statuses.get(h.answer["status"], 0) + 1
        replayed += h.answer["replayed"]
    rows = sum(1 for row in m.rows if row["key"] == KEY)

    def follow(lane, amount):
        h = Handler(lane, amount, strategy, False)
        while not h.done:
            m.step(h)
            m.now += STEP
        return h.answer

    m.now += SECOND
    retry = follow("retry", AMOUNT)
    other = follow("other", OTHER_AMOUNT)
    return {"rows": rows, "charges": m.charges, "replayed": replayed,
            "statuses": {str(s): statuses[s] for s in sorted(statuses)},
            "retry_status": retry["status"], "other_status": other["status"],
            "events": len(m.trace), "last_event": m.trace[-1][4]}


def main():
    args = parse_args(__doc__)
    for strategy in ("check-then-insert", "constraint-after-charge", "claim-before-work"):
        report("guard", strategy, lambda: run(strategy), args.min_time)


if __name__ == "__main__":
    main()
