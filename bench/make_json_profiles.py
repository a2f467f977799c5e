#!/usr/bin/env python3
"""Large JSON profiles made from a real recording, for the memory table of bench/run.py.

  make_json_profiles.py cpuprofile|speedscope|evented OUT MEGABYTES

Records bench/workload.js for 3 s with `node --cpu-prof` (a sample every
100 us asked), then repeats its samples and time deltas until the file is
about MEGABYTES (cpuprofile), or writes the same samples as a speedscope
"sampled" profile, one stack of frame indices and one weight per sample
(speedscope), as py-spy and other samplers write them, or as an "evented"
profile, the frames that change between one sample and the next closed
and opened at its time (evented), as speedscope exports what it imports."""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def record():
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        sys.exit("make_json_profiles.py: needs node")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([node, "--cpu-prof", "--cpu-prof-interval", "100", "--cpu-prof-dir", tmp,
                        os.path.join(HERE, "workload.js"), "3000"], check=True, stdout=subprocess.DEVNULL)
        with open(glob.glob(os.path.join(tmp, "*.cpuprofile"))[0]) as f:
            return json.load(f)


def stacks(profile):
    """Each node's stack of frame indices (outermost first) and the frames."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    parent = {c: n["id"] for n in profile["nodes"] for c in n.get("children", [])}
    frames, index, stack = [], {}, {}
    for i in nodes:
        s, j = [], i
        while j is not None:
            cf = nodes[j]["callFrame"]
            key = (cf["functionName"] or "(anonymous)", cf["url"], cf["lineNumber"])
            if key not in index:
                index[key] = len(frames)
                frames.append({"name": key[0], "file": key[1], "line": key[2] + 1})
            s.append(index[key])
            j = parent.get(j)
        stack[i] = s[::-1]
    return frames, stack


def main():
    kind, out, megabytes = sys.argv[1], sys.argv[2], float(sys.argv[3])
    profile = record()
    compact = {"separators": (",", ":")}  # as the files are written
    once = len(json.dumps(profile["samples"], **compact)) + len(json.dumps(profile["timeDeltas"], **compact))
    if kind == "cpuprofile":
        reps = max(1, int(megabytes * 1e6 / once))
        profile["samples"] = profile["samples"] * reps
        profile["timeDeltas"] = profile["timeDeltas"] * reps
        profile["endTime"] = profile["startTime"] + sum(profile["timeDeltas"])
        doc = profile
    elif kind == "evented":
        frames, stack = stacks(profile)
        events, open_, at = [], [], 0
        while len(events) * 39 < megabytes * 1e6:  # an event and its comma: about 39 bytes
            for s, d in zip(profile["samples"], profile["timeDeltas"]):
                at += max(d, 1)
                want = stack[s]
                keep = 0
                while keep < min(len(open_), len(want)) and open_[keep] == want[keep]:
                    keep += 1
                for f in reversed(open_[keep:]):
                    events.append({"type": "C", "frame": f, "at": at})
                for f in want[keep:]:
                    events.append({"type": "O", "frame": f, "at": at})
                open_ = list(want)
        for f in reversed(open_):
            events.append({"type": "C", "frame": f, "at": at})
        doc = {"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": frames},
               "profiles": [{"type": "evented", "name": "workload.js", "unit": "microseconds", "startValue": 0,
                             "endValue": at, "events": events}],
               "name": "workload.js", "activeProfileIndex": 0, "exporter": "make_json_profiles.py"}
    else:
        frames, stack = stacks(profile)
        one = [stack[s] for s in profile["samples"]]
        weights = [max(d, 1) for d in profile["timeDeltas"]]
        per = len(json.dumps(one, **compact)) + len(json.dumps(weights, **compact))
        reps = max(1, int(megabytes * 1e6 / per))
        doc = {"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": frames},
               "profiles": [{"type": "sampled", "name": "workload.js", "unit": "microseconds", "startValue": 0,
                             "endValue": sum(weights) * reps, "samples": one * reps, "weights": weights * reps}],
               "name": "workload.js", "activeProfileIndex": 0, "exporter": "make_json_profiles.py"}
    with open(out, "w") as f:
        json.dump(doc, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
