"""A program that keeps memory (tests/unit/tools/run_test.cc, graphgen run --memory):
20000 rows, then a cache of their JSON text."""
import json

def load_rows(n):
    return [{"id": i, "name": "row%d" % i} for i in range(n)]

class Cache:
    def __init__(self):
        self.items = {}

    def fill(self, rows):
        for r in rows:
            self.items[r["id"]] = json.dumps(r)

cache = Cache()
rows = load_rows(20000)
cache.fill(rows)
