"""A program for line_profiler tests: source shapes the text report must
print exactly (decorators, docstrings, wrapped statements, nested defs,
comments after the body, a function that never runs)."""
import functools


def traced(f):
    @functools.wraps(f)
    def inner(*args, **kwargs):
        return f(*args, **kwargs)
    return inner


@traced
@profile
def collatz(n):
    """Steps to reach 1.

This docstring line is not indented.
    """
    steps = 0
    while n != 1:
        n = (n // 2 if n % 2 == 0
             else 3 * n + 1)  # a wrapped expression
        steps += 1
    return steps
    # a comment after the body


@profile
def table(limit):
    def helper(x):
        return collatz(x) \
            + 1
    rows = [helper(i) for i in range(1, limit)]
    total = sum(rows)
    return total


@profile
def never_called():
    return 42


class Box:
    @profile
    def area(self, w, h): return w * h


if __name__ == "__main__":
    print(table(300), Box().area(2, 3))
