# graphgen's compare test: a script before an edit (shapes_v2.py is after).
import math


def area(r):
    return math.pi * r * r


def perimeter(r):
    return 2 * math.pi * r


def table(n):
    return [(area(r), perimeter(r)) for r in range(n)]


def main():
    total = 0.0
    for _ in range(30):
        total += sum(a for a, _ in table(2000))
    print(round(total))


if __name__ == "__main__":
    main()
