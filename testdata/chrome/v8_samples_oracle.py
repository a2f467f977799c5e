#!/usr/bin/env python3
"""The oracle of a Chrome trace's V8 CPU profile (Profile and ProfileChunk events).

Usage: v8_samples_oracle.py TRACE > TRACE.functions.tsv

Independent of graphgen: the events of each profile (pid, id) are taken in
time order, as speedscope's importer takes them; their nodes, samples and
time deltas are joined; a sample lasts until the next one in time (the last
lasts 0), as speedscope and the DevTools flame chart count it. Per function
(functionName, url, lineNumber) and profile: its self and total time in
microseconds and its self and total samples. The columns are those of the
.cpuprofile oracles beside it (the "before" columns, a sample lasting the
delta before it, are left empty here).
"""
import json
import lzma
import sys


def load(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    return data["traceEvents"] if isinstance(data, dict) else data


def main():
    events = load(sys.argv[1])
    profiles = {}
    for e in sorted(events, key=lambda e: e.get("ts", 0)):
        if e.get("name") not in ("Profile", "ProfileChunk"):
            continue
        key = (e["pid"], e.get("id"))
        p = profiles.setdefault(key, {"start": 0, "nodes": {}, "samples": [], "deltas": []})
        data = e.get("args", {}).get("data", {})
        if "startTime" in data:
            p["start"] = data["startTime"]
        cpu = data.get("cpuProfile", {})
        for n in cpu.get("nodes", []):
            p["nodes"][n["id"]] = n
        p["samples"] += cpu.get("samples", [])
        p["deltas"] += data.get("timeDeltas", [])
    print("profile\tfunctionName\turl\tlineNumber\tself_before_us\ttotal_before_us\tself_after_us\ttotal_after_us"
          "\tself_samples\ttotal_samples")
    for (pid, pid_id), p in profiles.items():
        if not p["samples"]:
            continue
        nodes = p["nodes"]
        t = p["start"]
        at = []
        for d in p["deltas"]:
            t += d
            at.append(t)
        order = sorted(range(len(at)), key=lambda i: at[i])
        self_us, total_us, self_n, total_n = {}, {}, {}, {}
        for k, i in enumerate(order):
            lasts = at[order[k + 1]] - at[i] if k + 1 < len(order) else 0
            node = nodes[p["samples"][i]]
            seen = set()
            first = True
            while node is not None:
                cf = node["callFrame"]
                f = (cf.get("functionName", ""), cf.get("url", ""), cf.get("lineNumber", -1))
                if first:
                    self_us[f] = self_us.get(f, 0) + lasts
                    self_n[f] = self_n.get(f, 0) + 1
                    first = False
                if f not in seen:
                    seen.add(f)
                    total_us[f] = total_us.get(f, 0) + lasts
                    total_n[f] = total_n.get(f, 0) + 1
                node = nodes.get(node.get("parent"))
        for f in sorted(total_us, key=lambda f: (-total_us[f], f)):
            print(f"{pid}/{pid_id}\t{f[0]}\t{f[1]}\t{f[2]}\t\t\t{self_us.get(f, 0):.3f}\t{total_us[f]:.3f}"
                  f"\t{self_n.get(f, 0)}\t{total_n[f]}")


if __name__ == "__main__":
    main()
