// memory_profiler's `mprof run` files (mprofile_*.dat;
// ../shared/docs/formats-wave3.md §2.1), as mprof.py's read_mprofile_file
// reads them:
//
//   CMDLINE <command>                          a run begins (runs append)
//   MEM <MiB> <unix time>                      the main process (with -C, its children too)
//   CHLD <child> <MiB> <unix time>             a child process (-M)
//   FUNC <module.func> <MiB> <t0> <MiB> <t1> [<stack level>]   an @profile'd call (--python)
//
// other fields ignored; a blank line is an error, as mprof says it
// ("sampling time was too short"). The model: the memory layer
// (Profile::memory, MemoryTrace) for the plot (-T memplot) and the peaks
// (-T stats); and from the FUNC calls, nested by their times, a call
// graph of time (each call's own time: its length less its callees'), so
// the other views show where the @profile'd functions spent it.
#pragma once

#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::mprof {

/// A first line of CMDLINE, MEM, CHLD or FUNC with its numbers.
bool sniff(std::string_view head);

Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);

}  // namespace graphgen::mprof
