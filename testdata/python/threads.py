"""Work on two threads besides the main one (cProfile sees the main thread)."""
import threading


def spin(n):
    return sum(i * i for i in range(n))


def main():
    threads = [threading.Thread(target=spin, args=(20000,)) for _ in range(2)]
    for t in threads:
        t.start()
    spin(10000)
    for t in threads:
        t.join()
    print("threads done")


main()
