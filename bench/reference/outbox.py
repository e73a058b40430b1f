"""The transactional outbox and the consumer's inbox of engine/outbox.

Each order and its event commit in one transaction. A relay publishes the
outbox rows not marked sent to a broker, marking each after publishing it;
if it crashes in between (once, after the first event), it restarts and
publishes that row again. A consumer sends one email per message, and with
an inbox of event ids sends it once however often the event comes.

Like the engine, a run returns its trace too: one event per step, a tick
(100 ms) apart, with its sentence.

Figures: one order, a relay crash and an inbox, 2 messages published and 1
email; five orders, the crash and no inbox, 6 published and 6 emails.
"""

from timing import keep, parse_args, report

TICK = 100_000_000  # nanoseconds


def run(orders=1, relay_crash=True, inbox=True):
    trace = []
    now = 0

    def say(kind, lane, to, text, ref):
        nonlocal now
        now += TICK
        keep(trace, (now, kind, lane, to, text, ref))

    outbox = []  # [event id, sent]
    for i in range(1, orders + 1):
        evt = "evt_%d" % i
        outbox.append([evt, False])
        say("commit", "app", "", "BEGIN; INSERT order ord_%d; INSERT outbox %s; COMMIT: both or neither." % (i, evt),
            evt)

    broker = []
    crashed = False
    first = True
    while True:
        if not first:
            say("restart", "relay", "", "The relay restarts and reads the outbox rows not marked sent.", "")
        first = False
        done = True
        for row in outbox:
            evt, sent = row
            if sent:
                continue
            broker.append(evt)
            say("publish", "relay", "broker", "Publish %s to the broker." % evt, evt)
            if relay_crash and not crashed:
                crashed = True
                done = False
                say("crash", "relay", "", "The relay crashes before marking %s sent." % evt, evt)
                break
            row[1] = True
            say("mark", "relay", "", "UPDATE outbox SET sent = true WHERE id = %s." % evt, evt)
        if done:
            break

    seen = set()
    emails = skipped = 0
    for evt in broker:
        if inbox and evt in seen:
            skipped += 1
            say("skip", "consumer", "", "%s is in the inbox already: skip it." % evt, evt)
            continue
        seen.add(evt)
        emails += 1
        if inbox:
            text = "Send the email for %s, then INSERT inbox %s." % (evt, evt)
        else:
            text = "Send the email for %s." % evt
        say("email", "consumer", "", text, evt)
    return {"orders": orders, "published": len(broker), "emails": emails, "skipped": skipped,
            "events": len(trace), "last_event": trace[-1][4]}


def main():
    args = parse_args(__doc__)
    report("outbox", "crash-inbox", lambda: run(), args.min_time)
    report("outbox", "five-no-inbox", lambda: run(orders=5, inbox=False), args.min_time)


if __name__ == "__main__":
    main()
