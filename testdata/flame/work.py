# A small mixed workload for perf's flame graph test: Python code, zlib and
# json in C, for about a third of a second.
import json, zlib, time
def encode(n):
    return json.dumps([{"k": i, "v": str(i) * 3} for i in range(n)])
def squeeze(s):
    return zlib.compress(s.encode(), 9)
t0 = time.perf_counter()
while time.perf_counter() - t0 < 0.3:
    squeeze(encode(2000))
