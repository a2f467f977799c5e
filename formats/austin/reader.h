// Austin's collapsed samples (the frame-stack sampler for CPython,
// github.com/P403n1x87/austin), both generations:
//
//   Austin 1 (Debian's 1.0.1):
//     line   := [ "Process " PID ";" ] "Thread " ID { ";" frame } " " metrics
//     frame  := FUNCTION " (" FILE ")" ";L" LINE      the default
//             | FUNCTION " (" FILE ":" LINE ")"       with -a
//             | "<idle>"                              with -s
//   Austin 2 and 3:
//     "# " key ": " value                             metadata, e.g. "# mode: memory"
//     line   := "P" PID ";T" [IID ":"] TID { ";" FILE ":" FUNCTION ":" LINE } " " metrics
//   metrics  := INT                                   time (microseconds) or memory (KiB, -m)
//             | INT " " INT " " INT                   -f (Austin 1): time, memory grown, memory freed
//             | INT "," INT ...                       full mode (Austin 2 and 3)
// Frames run root first; a line is one thread's stack in one sampling pass
// (Austin 1 gives every thread the pass's time, busy or waiting). FILE may
// hold spaces (`<frozen importlib._bootstrap>`).
//
// The model: Python functions (function, file), labelled as pstats labels
// them, `module:line:name`. Austin gives the line running, cProfile the
// `def` line: where the source file can be read (regular files only), a
// function's line is the `def` or `class` line above the first line
// sampled in it (line 1 for `<module>`), else that first line, with a note.
// Events: time (microseconds, shown in seconds) unless the metadata says
// memory mode (KiB); -f's three columns are time, memory_grown and
// memory_freed (as a positive count). Each thread (with its process) is a
// process frame of the stacks and, with several, a rank of the per-rank
// statistics. Lines without frames, and Austin's `Bad sample` lines, add no
// cost to a function.
#pragma once

#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::austin {

/// Lines that start `Thread `, `Process ` or `P<digits>;T`, or Austin's
/// metadata (`# austin: `).
bool sniff(std::string_view head);

Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);

}  // namespace graphgen::austin
