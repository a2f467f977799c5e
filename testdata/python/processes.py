"""multiprocessing with the start method given on the command line (fork or spawn)."""
import multiprocessing
import sys


def square(x):
    return x * x


def main(method):
    ctx = multiprocessing.get_context(method)
    with ctx.Pool(2) as pool:
        print(method, sum(pool.map(square, range(100))))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "fork")
