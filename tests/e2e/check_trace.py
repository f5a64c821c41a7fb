#!/usr/bin/env python3
"""Checks a launcher's Chrome trace (--trace T.json).

usage: python3 tests/e2e/check_trace.py T.json STREAM_NAME...

The trace must be valid JSON with a traceEvents list holding: one
thread_name metadata event per stream, named exactly STREAM_NAME... in
tid order; complete ("X") slices only on those tracks; and flow events
(ph "s" and "f") in pairs with the same id, start and finish on different
tracks, start not after finish. Prints what it found.
Exit status: 0 good, 1 a check failed, 2 usage error.
"""
import json
import sys


def check(path, names):
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    threads = {e["tid"]: e["args"]["name"] for e in events
               if e.get("ph") == "M" and e.get("name") == "thread_name"}
    got = [threads[t] for t in sorted(threads)]
    if got != names:
        return "thread tracks %r, expected %r" % (got, names)
    slices = [e for e in events if e.get("ph") == "X"]
    per = {t: sum(1 for e in slices if e["tid"] == t) for t in threads}
    if any(e["tid"] not in threads for e in slices):
        return "a slice on a track with no thread_name"
    if not all(per.values()):
        return "tracks without slices: %r" % [threads[t] for t, n in per.items() if not n]
    starts = {e["id"]: e for e in events if e.get("ph") == "s"}
    ends = {e["id"]: e for e in events if e.get("ph") == "f"}
    if not starts or not ends:
        return "no flow events (ph s/f): %d starts, %d finishes" % (len(starts), len(ends))
    if set(starts) != set(ends):
        return "unpaired flow ids: %r" % sorted(set(starts) ^ set(ends))
    for i, s in starts.items():
        f = ends[i]
        if s["tid"] == f["tid"]:
            return "flow %s starts and ends on track %r" % (i, threads.get(s["tid"]))
        if float(s["ts"]) > float(f["ts"]):
            return "flow %s finishes (%s us) before it starts (%s us)" % (i, f["ts"], s["ts"])
    print("  trace: tracks %s; slices %s; %d flows (%s)" % (
        ", ".join(got), ", ".join("%s %d" % (threads[t], n) for t, n in sorted(per.items())),
        len(starts), ", ".join("%s %s->%s" % (starts[i]["name"], threads[starts[i]["tid"]],
                                              threads[ends[i]["tid"]]) for i in sorted(starts))))
    return None


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: check_trace.py T.json STREAM_NAME...\n")
        return 2
    try:
        err = check(argv[0], argv[1:])
    except (OSError, ValueError, KeyError, TypeError) as e:
        err = "unreadable trace: %s: %s" % (type(e).__name__, e)
    if err:
        print("  trace %s: %s" % (argv[0], err))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
