"""An MPI program with deliberately uneven work across 8 ranks.

Each rank profiles itself with cProfile and writes cpu_<rank>.prof.
Run: mpirun --allow-run-as-root --oversubscribe -np 8 /usr/bin/python3 imbalance.py

- compute(n): work grows with the rank; rank 5 also gets a double share,
  so it is the heaviest rank.
- checkpoint(state): called only by the even ranks.
- exchange(values): every rank calls it the same number of times with the
  same amount of work.
- comm.allreduce / comm.Barrier: the fast ranks wait here for rank 5.
"""
import cProfile

from mpi4py import MPI

STEPS = 3
BASE = 25000  # inner-loop iterations per unit of work


def work_units(rank):
    units = rank + 1
    if rank == 5:
        units *= 2  # the hotspot rank
    return units


def compute(n):
    acc = 0
    for i in range(n):
        acc = (acc + i * i) % 1000003
    return acc


def checkpoint(state):
    text = ",".join(str(v) for v in state)
    total = 0
    for _ in range(2000):
        total = (total + sum(map(ord, text))) % 65521
    return total


def exchange(values):
    out = []
    for _ in range(4000):
        out = [v ^ 0x5A5A for v in values]
    return out


def main():
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    size = comm.Get_size()
    n = BASE * work_units(rank)
    state = []
    for step in range(STEPS):
        local = compute(n)
        state.append(local)
        exchange([local, rank, step, size])
        if rank % 2 == 0:
            checkpoint(state)
        total = comm.allreduce(local, op=MPI.SUM)
        state.append(total)
    comm.Barrier()
    return state


if __name__ == "__main__":
    rank = MPI.COMM_WORLD.Get_rank()
    pr = cProfile.Profile()
    pr.enable()
    main()
    pr.disable()
    pr.dump_stats(f"cpu_{rank}.prof")
