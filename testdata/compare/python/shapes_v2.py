# graphgen's compare test: the script after an edit (shapes_v1.py is before).
# The edit adds these comment lines and a helper, so every function after it
# starts on another line, and table() does twice the work.
import math


def square(x):
    return x * x


def area(r):
    return math.pi * square(r)


def perimeter(r):
    return 2 * math.pi * r


def table(n):
    return [(area(r), perimeter(r)) for r in range(2 * n)]


def main():
    total = 0.0
    for _ in range(30):
        total += sum(a for a, _ in table(2000))
    print(round(total))


if __name__ == "__main__":
    main()
