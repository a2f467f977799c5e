"""A pure-Python workload of a few seconds for the `graphgen run` overhead
table: parsing, regular expressions, sorting and JSON, about 60 functions."""
import json
import re
import sys

WORD = re.compile(r"[a-z]+")


def words(text):
    return WORD.findall(text.lower())


def count(ws):
    counts = {}
    for w in ws:
        counts[w] = counts.get(w, 0) + 1
    return counts


def top(counts, n):
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]


def document(i):
    return " ".join("word%d lorem ipsum dolor sit amet %d" % (j % 97, i) for j in range(200))


def main(rounds):
    total = 0
    for i in range(rounds):
        doc = document(i)
        c = count(words(doc))
        total += len(json.dumps(top(c, 20)))
        total += len(json.loads(json.dumps(c)))
    print(total)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)
