"""Run with `graphgen run -m demo_module N`: a module run as a script."""
import sys

import helper


def squares(n):
    return [i * i for i in range(n)]


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    print(sys.argv[0].endswith("demo_module.py"), helper.checksum(squares(n)))
