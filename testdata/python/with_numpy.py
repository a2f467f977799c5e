"""A C extension (numpy, Debian's python3-numpy) called from Python."""
import numpy


def compute():
    a = numpy.arange(100000, dtype=numpy.float64)
    return float(numpy.sqrt(a).sum())


print(round(compute()))
