#!/usr/bin/env python3
"""Checks that the strings a compiled bundle holds are the script's bytes.

usage: roundtrip.py PLAN.json DUMP...

PLAN.json is `tngc plan --format json` of the script; each DUMP is what
desc_dump printed for one bundle (tag, hex bytes per line). The bundle's
entry, script path, input, weight and output names and stream tags must
equal the plan's, byte for byte where they are UTF-8 (the plan's JSON
writes U+FFFD for each byte that is not: those are compared as such).
Exit status 1 with the difference.
"""
import json
import sys


def text(b):
    """Bytes as the plan's JSON writes them: U+FFFD for each byte that is
    not UTF-8."""
    return b.decode('utf-8', 'replace')


def main():
    with open(sys.argv[1], 'rb') as f:
        plan = json.loads(f.read().decode('utf-8'))
    entries = {e['name']: e for e in plan['entries']}
    bad = 0
    for path in sys.argv[2:]:
        got = {}
        with open(path) as f:
            for line in f:
                tag, _, hexs = line.rstrip('\n').partition(' ')
                got.setdefault(tag, []).append(text(bytes.fromhex(hexs)))
        entry = got['entry'][0]
        e = entries.get(entry)
        if e is None:
            print('%s: entry %r is not in the plan' % (path, entry))
            bad += 1
            continue
        want = {
            'script': [e['file']],
            'input': [i['name'] for i in e['inputs']],
            'weight': [w['name'] for w in e['weights']],
            'output': [o['name'] for o in e['outputs']],
            'stream': [s['tag'] if s['tag'] is not None else 'default' for s in e['streams']],
        }
        for tag, values in want.items():
            if got.get(tag, []) != values:
                print('%s: %s: compiled %r, the script said %r' % (path, tag, got.get(tag, []), values))
                bad += 1
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
