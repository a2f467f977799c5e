import json
import time
import zlib


def make_records(n):
    return [{"id": i, "name": "user%d" % i, "score": i * 1.5,
             "tags": ["a", "b", "c"], "active": i % 2 == 0} for i in range(n)]


def encode_records(records):
    return json.dumps(records)


def decode_records(text):
    return json.loads(text)


def compress(data):
    crc = zlib.crc32(data)
    c = zlib.compress(data, 6)
    return zlib.crc32(c, crc)


def main():
    records = make_records(2000)
    deadline = time.time() + 1.5
    n = 0
    while time.time() < deadline:
        text = encode_records(records)
        back = decode_records(text)
        crc = compress(text.encode())
        n += 1
    print("iterations", n, len(back), crc)


if __name__ == "__main__":
    main()
