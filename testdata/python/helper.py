"""Imported by work.py and demo_module: a function in another file."""


def checksum(values):
    acc = 0
    for v in values:
        acc = (acc * 31 + v) % 1000003
    return acc
