"""CPU-bound workload in 3 worker threads (json / zlib / re+sorting) for Austin recordings."""
import json
import os
import random
import re
import threading
import time
import zlib

DURATION = float(os.environ.get("DURATION", "2.0"))


def make_doc(rng, n):
    return [{"id": i, "name": "item%d" % i, "tags": [rng.choice("abcdef") for _ in range(5)],
             "value": rng.random()} for i in range(n)]


def json_worker():
    rng = random.Random(1)
    end = time.time() + DURATION
    while time.time() < end:
        doc = make_doc(rng, 300)
        text = json.dumps(doc, sort_keys=True)
        back = json.loads(text)
        assert len(back) == len(doc)


def zlib_worker():
    rng = random.Random(2)
    data = bytes(rng.getrandbits(8) for _ in range(20000)) + b"abc" * 20000
    end = time.time() + DURATION
    while time.time() < end:
        packed = compress_block(data)
        assert zlib.decompress(packed) == data


def compress_block(data):
    return zlib.compress(data, 9)


WORD = re.compile(r"[a-z]+\d*")


def regex_sort_worker():
    rng = random.Random(3)
    end = time.time() + DURATION
    while time.time() < end:
        words = ["".join(rng.choice("abcxyz") for _ in range(6)) + str(rng.randint(0, 99))
                 for _ in range(500)]
        text = " ".join(words)
        found = tokenize(text)
        ordered = sort_words(found)
        assert len(ordered) == len(found)


def tokenize(text):
    return WORD.findall(text)


def sort_words(words):
    return sorted(words, key=lambda w: (w[::-1], len(w)))


def main():
    threads = [threading.Thread(target=f, name=f.__name__)
               for f in (json_worker, zlib_worker, regex_sort_worker)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


if __name__ == "__main__":
    main()
