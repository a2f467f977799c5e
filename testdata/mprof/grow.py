try:
    profile
except NameError:  # (mprof run -M: no @profile)
    def profile(f):
        return f

import time
from multiprocessing import Process

@profile
def load(n):
    data = [bytes(1000) for _ in range(n)]
    time.sleep(0.3)
    return data

@profile
def transform(rows):
    out = [r + b"x" for r in rows]
    time.sleep(0.2)
    return out

def child():
    keep = [bytes(2000) for _ in range(20000)]
    time.sleep(0.5)

@profile
def main():
    rows = load(30000)
    more = transform(rows)
    p = Process(target=child)
    p.start()
    p.join()
    del rows
    time.sleep(0.2)
    return len(more)

main()
