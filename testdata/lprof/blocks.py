# Where line_profiler's report ends a function's block (inspect.getblock):
# a lambda's block is its logical line, even when a class or def follows
# it; a lambda in a decorator's arguments or a default value is part of
# the def's block; a def whose line ends in a comment with a colon
# (`# noqa: F811`) still has its body below; a quoted string continued by
# a backslash at its line's end does not end the block there, nor does a
# line a backslash continues, whatever its indentation. Run from
# this folder with Debian's python3-line-profiler 4.0.2 (run_path keeps
# the file's name relative, as the report then finds it):
#   python3 -c "import runpy; runpy.run_path('blocks.py', run_name='__main__')"
# writes blocks.lprof; `python3 -m line_profiler blocks.lprof` prints
# blocks.lprof.txt.
import line_profiler

square = staticmethod(lambda x: x * x)


class Shape:
    """Not part of the lambda above."""

    def area(self):
        return 1


scale = (lambda x,
         y: x * y)


def deco(key):
    def wrap(f):
        return f

    return wrap


@deco(key=lambda v: v)
def decorated(n):
    total = 0
    for i in range(n):
        total += i
    return total


def defaults(x=lambda: 1):
    return x()


def commented(x):  # noqa: F811
    """A docstring: part of the block."""
    return x + 1


def continued(x):
    if x < 0:
        raise ValueError("a message, \
            continued: (not closed here")
    return x * 2


def joined(x):
    y = x + \
1
    return y


if __name__ == "__main__":
    profiler = line_profiler.LineProfiler()
    for f in (square.__func__, Shape.area, scale, decorated, defaults, commented, continued, joined):
        profiler.add_function(f)
    profiler.enable_by_count()
    square.__func__(3)
    Shape().area()
    scale(2, 3)
    decorated(100)
    defaults()
    commented(1)
    continued(3)
    joined(4)
    profiler.disable_by_count()
    profiler.dump_stats("blocks.lprof")
