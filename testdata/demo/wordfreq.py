"""A small program to profile: word statistics over generated text.

Used to make the bundled profiles in testdata/ (see testdata/README.md).
It recurses (merge sort), calls builtins and methods, and has a mutual
recursion, so the profiles exercise every shape pstats can hold.
"""


def words(n):
    vocabulary = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    return [vocabulary[(i * 7 + i // 3) % len(vocabulary)] for i in range(n)]


def merge_sort(items):
    if len(items) <= 1:
        return items
    middle = len(items) // 2
    return merge(merge_sort(items[:middle]), merge_sort(items[middle:]))


def merge(left, right):
    out = []
    i = j = 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    out.extend(left[i:])
    out.extend(right[j:])
    return out


def count(items):
    table = {}
    for w in items:
        table[w] = table.get(w, 0) + 1
    return table


def is_even(n):
    return True if n == 0 else is_odd(n - 1)


def is_odd(n):
    return False if n == 0 else is_even(n - 1)


def main():
    items = words(4000)
    ordered = merge_sort(items)
    table = count(ordered)
    parity = sum(1 for v in table.values() if is_even(v % 50))
    print(len(ordered), len(table), parity)


if __name__ == "__main__":
    main()
