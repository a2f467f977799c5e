"""A small program for `graphgen run`: recursion, a class, argv, a helper module."""
import sys

import helper


class Tree:
    def __init__(self, depth):
        self.children = [Tree(depth - 1) for _ in range(2)] if depth > 0 else []

    def size(self):
        return 1 + sum(child.size() for child in self.children)


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def main(args):
    depth = int(args[0]) if args else 8
    total = Tree(depth).size() + fib(12) + helper.checksum(range(2000))
    print("total", total)


if __name__ == "__main__":
    main(sys.argv[1:])
