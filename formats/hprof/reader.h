// Java's HPROF text (`java -agentlib:hprof=cpu=samples`, JAVA PROFILE 1.0.1),
// its TRACE records and the CPU SAMPLES (or CPU TIME) table, as gprof2dot
// reads them.
//
// Grammar (lines):
//   file    := 'JAVA PROFILE' ... '--------'... record*
//   record  := trace | cpu | other line (THREAD START/END, SITES, HEAP ...)
//   trace   := 'TRACE ' id ':' [' (thread=' t ')'] ('\t' frame)*
//   frame   := method '(' file ':' line ')'       (anything else ends the trace's frames)
//   cpu     := 'CPU SAMPLES BEGIN' ... | 'CPU TIME (ms) BEGIN' ...
//              column-titles row* 'CPU ... END'
//   row     := rank self% accum% count trace-id method
// Frames are innermost first. Each sampled trace adds its count to its
// innermost method and to each call along it; a method is one function
// (its file and line are the call site, not the function's). Samples of
// traces without frames (`<empty>`) or without a TRACE record count
// nowhere, as in gprof2dot. Calls carry a count of 0 (hprof samples say
// nothing of calls), which graphs show as gprof2dot does: `0×`.
#pragma once

#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::hprof {

/// True when the head starts with `JAVA PROFILE `.
bool sniff(std::string_view head);

/// Reads one HPROF text file.
Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);

}  // namespace graphgen::hprof
