"""Leaves with sys.exit(3) from inside a function."""
import sys


def leave():
    sum(range(100))
    sys.exit(3)


leave()
