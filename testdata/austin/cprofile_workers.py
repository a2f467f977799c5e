# Runs the workers of threads_cpu.py one after another in the main thread,
# for cProfile (which sees the main thread only): the names it gives them.
import threads_cpu

threads_cpu.json_worker()
threads_cpu.zlib_worker()
threads_cpu.regex_sort_worker()
