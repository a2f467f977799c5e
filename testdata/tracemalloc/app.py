"""A small real workload for tracemalloc snapshots (testdata/tracemalloc/make.sh):
JSON round trips of rows, then a reST document rendered to HTML by docutils."""
import json
import sys
import tracemalloc

SOURCE = """
Title
=====

A paragraph with *emphasis*, ``literal`` text and a list:

- one
- two
- three

.. note:: A note.

=====  =====
col 1  col 2
=====  =====
1      2
3      4
=====  =====
"""


def make_rows(n):
    return [{"id": i, "name": "row%d" % i, "tags": ["a", "b", str(i)]} for i in range(n)]


def round_trip(rows):
    text = json.dumps(rows)
    return json.loads(text)


class Renderer:
    def __init__(self, source):
        self.source = source

    def render(self):
        from docutils.core import publish_string
        return publish_string(self.source, writer_name="html")


def main(early_path, late_path):
    tracemalloc.start(25)
    kept = round_trip(make_rows(500))
    tracemalloc.take_snapshot().dump(early_path)
    pages = [Renderer(SOURCE).render() for _ in range(2)]
    kept.extend(round_trip(make_rows(200)))
    tracemalloc.take_snapshot().dump(late_path)
    return len(kept), len(pages)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
