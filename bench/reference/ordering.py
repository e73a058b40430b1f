"""Webhook events out of order and twice, engine/ordering.

A subscription moves from starter (evt_1, at t = 0) to pro (evt_2, at
t = 60 s), but the events arrive evt_2, evt_1, evt_2, a second apart.
Deduplicating by event id stops the repeat, not the reordering; a
version guard on the events' own time skips anything no newer than the
newest event applied.

Like the engine, a run returns its trace too: a delivery and then an apply
or a skip per arrival, with its sentence.

Figures: dedupe ends on starter, a version guard on pro.
"""

from timing import keep, parse_args, report

S = 1_000_000_000  # nanoseconds
EVENTS = {"evt_1": ("starter", 0), "evt_2": ("pro", 60 * S)}


def run(strategy="dedupe", arrival=("evt_2", "evt_1", "evt_2")):
    trace = []
    plan = ""
    applied = []
    skipped = 0
    seen = set()
    mark = -1  # the time of the newest event applied
    newest_plan, newest_at = "", -1
    for i, evt in enumerate(arrival):
        now = (i + 1) * S
        event_plan, at = EVENTS[evt]
        if at > newest_at:
            newest_plan, newest_at = event_plan, at
        keep(trace, (now, "deliver", "consumer", "", "%s arrives: plan %s, t = %d." % (evt, event_plan, at // S), evt))
        skip = ""
        if strategy == "dedupe" and evt in seen:
            skip = "%s was applied before: skip it." % evt
        elif strategy == "version-guard" and at <= mark:
            skip = "%s (t = %d) is no newer than the newest applied (t = %d): skip it." % (evt, at // S, mark // S)
        if skip:
            skipped += 1
            keep(trace, (now, "skip", "consumer", "", skip, evt))
            continue
        seen.add(evt)
        mark = max(mark, at)
        plan = event_plan
        applied.append(evt)
        keep(trace, (now, "apply", "consumer", "", "Apply %s: the plan is now %s." % (evt, event_plan), evt))
    return {"plan": plan, "applied": applied, "skipped": skipped, "correct": plan == newest_plan,
            "events": len(trace), "last_event": trace[-1][4]}


def main():
    args = parse_args(__doc__)
    report("ordering", "dedupe", lambda: run(), args.min_time)
    report("ordering", "version-guard", lambda: run(strategy="version-guard"), args.min_time)


if __name__ == "__main__":
    main()
