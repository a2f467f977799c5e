#!/usr/bin/env python3
"""symbolize.py names each frame by its own answer: a frame addr2line cannot
name ("??") once left the sentinel's answer in the pipe, and every later frame
of that module was named by the answer before its own.

Usage: symbolize_test.py PROGRAM (a program with a `main` in its symbols)
"""
import os
import subprocess
import sys

program = os.path.abspath(sys.argv[1])
nm = subprocess.run(["nm", program], capture_output=True, text=True, check=True).stdout
main = next(int(f.split()[0], 16) for f in nm.splitlines() if f.split()[-1:] == ["main"] and len(f.split()) == 3)
frames = [f"    #{i} 0x1 ({program}+0x{o:x})\n" for i, o in enumerate([5, main, 5, main])]
here = os.path.dirname(os.path.abspath(__file__))
out = subprocess.run([sys.executable, os.path.join(here, "symbolize.py")], input="".join(frames),
                     capture_output=True, text=True, check=True).stdout.splitlines()
# main's file and line where the program has line tables (the sanitized
# build), "??:?" where it has none.
named = [line.startswith(f"    #{i} 0x1 in main ") for i, line in enumerate(out)]
plain = [f"    #{i} 0x1 ({program}+0x5)" for i in (0, 2)]
if len(out) != 4 or [out[0], out[2]] != plain or named != [False, True, False, True] or \
        not all(line.endswith(f"({program}+0x{main:x})") for line in (out[1], out[3])):
    print("expected frames 1 and 3 named main, 0 and 2 as they were; found:\n" + "\n".join(out))
    sys.exit(1)
print("symbolize.py: 4 frames, each named by its own answer")
