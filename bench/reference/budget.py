"""The retry budget of engine/budget, written out plainly.

A token bucket: every request earns `ratio` of a token (capped at the bank,
which starts full), a retry spends one and may not empty the bucket. The
upstream is down, so every call fails. Tokens are counted in millionths so
that ten requests at 0.1 earn exactly one token.

Like the engine, a run returns its trace too: one event per call and per
refused retry, each with its sentence.

Figures: 1,000 requests with 3 retries each make 4,000 calls without a
budget and 1,109 with one.
"""

from timing import keep, parse_args, report

MICRO = 1_000_000


def state(budget, tokens):
    """The bucket as the trace shows it, rounded down to a tenth."""
    if not budget:
        return ""
    tenths = tokens // (MICRO // 10)
    return " (bucket: %d.%d tokens)" % (tenths // 10, tenths % 10)


def run(requests=1000, retries=3, ratio=0.1, bank=10.0, budget=True):
    bank_micro = round(bank * MICRO)
    earn = round(ratio * MICRO)
    tokens = bank_micro
    calls = sent_retries = denied = 0
    trace = []
    for i in range(1, requests + 1):
        at = i * 1_000_000_000  # request i at virtual second i
        lane = "req-%d" % i
        if budget:
            tokens = min(bank_micro, tokens + earn)
        calls += 1  # the first call, which fails
        keep(trace, (at, "call", lane, "upstream",
                     "Request %d calls and fails%s." % (i, state(budget, tokens)), lane))
        for r in range(1, retries + 1):
            if budget and tokens <= MICRO:  # the retry would empty the bucket
                denied += 1
                keep(trace, (at, "denied", lane, "",
                             "A retry would empty the bucket: request %d gives up instead%s."
                             % (i, state(budget, tokens)), lane))
                break
            if budget:
                tokens -= MICRO
            calls += 1
            sent_retries += 1
            keep(trace, (at, "retry", lane, "upstream",
                         "Retry %d of request %d fails%s." % (r, i, state(budget, tokens)), lane))
    return {"calls": calls, "retries": sent_retries, "denied": denied,
            "events": len(trace), "last_event": trace[-1][4]}


def main():
    args = parse_args(__doc__)
    report("budget", "budget", lambda: run(budget=True), args.min_time)
    report("budget", "no-budget", lambda: run(budget=False), args.min_time)


if __name__ == "__main__":
    main()
