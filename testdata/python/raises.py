"""Raises an uncaught exception after some work: the profile is still written."""


def inner(n):
    if n == 0:
        raise ValueError("no more work")
    return inner(n - 1)


def outer():
    sum(range(1000))
    inner(3)


outer()
