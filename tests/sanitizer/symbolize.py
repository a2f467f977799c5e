#!/usr/bin/env python3
"""Names the frames of sanitizer reports that the sanitizers left as addresses.

`tools/dev.sh test --sanitize` runs the suite with `symbolize=0`: every
process of the suite that draws with Graphviz or runs Python's `re` ends
with LeakSanitizer's check, which reads libasan's own debug information to
name the first frame of each suppressed leak (fontconfig's, Python's): 0.2 s
a process, half of a sanitized `-T html` of a small profile, which took the
invariant suite past ctest's timeout. The reports then give each frame as
`(module+0xOFFSET)`; this filter copies ctest's output through and adds the
function, file and line to those frames with addr2line, as ASan would have.

Usage: ctest ... 2>&1 | tests/sanitizer/symbolize.py
"""

import io
import re
import shutil
import subprocess
import sys

FRAME = re.compile(r"^(\s*#\d+ 0x[0-9a-f]+)\s+\((/[^()+]+)\+0x([0-9a-f]+)\)\s*$")


class Symbolizer:
    """addr2line, one process a module, kept for the whole output."""

    def __init__(self):
        self.tools = {}
        self.names = {}
        self.usable = shutil.which("addr2line") is not None

    def name(self, module, offset):
        key = (module, offset)
        if key not in self.names:
            self.names[key] = self._ask(module, offset)
        return self.names[key]

    def _ask(self, module, offset):
        if not self.usable:
            return None
        tool = self.tools.get(module)
        if tool is None:
            try:
                # -a: each answer starts with its address, so the answer
                # to a sentinel address (0) after each question marks its
                # end, whatever the question's answer holds (inlined
                # frames give several lines; an unknown one "??").
                tool = subprocess.Popen(["addr2line", "-a", "-C", "-f", "-i", "-e", module],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            except OSError:
                self.usable = False
                return None
            self.tools[module] = tool
        try:
            tool.stdin.write(f"0x{offset}\n0\n")
            tool.stdin.flush()
            answer = [tool.stdout.readline() for _ in range(3)]  # its address, the first frame
            while not answer[-1].startswith("0x0000000000000000"):
                line = tool.stdout.readline()
                if not line:
                    return None
                answer.append(line)
            tool.stdout.readline()  # the sentinel's "??"
            tool.stdout.readline()  # and "??:0"
        except (BrokenPipeError, OSError):
            return None
        lines = [line.rstrip("\n") for line in answer[1:-1]]
        frames = [f"{lines[i]} {lines[i + 1]}" for i in range(0, len(lines) - 1, 2) if lines[i] != "??"]
        return " / ".join(frames) if frames else None


def main():
    symbolizer = Symbolizer()
    # Bytes as they come (a test may print any), a line at a time.
    source = io.TextIOWrapper(sys.stdin.buffer, errors="surrogateescape")
    sink = io.TextIOWrapper(sys.stdout.buffer, errors="surrogateescape", line_buffering=True)
    try:
        for line in source:
            m = FRAME.match(line)
            if m:
                named = symbolizer.name(m.group(2), m.group(3))
                if named:
                    line = f"{m.group(1)} in {named} ({m.group(2)}+0x{m.group(3)})\n"
            sink.write(line)
    except BrokenPipeError:
        pass  # (the reader stopped reading: `| head`)


if __name__ == "__main__":
    main()
