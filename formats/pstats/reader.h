// pstats files: the marshalled dict that cProfile, profile and pstats write
// (docs/formats.md §2).
//
// Grammar:
//   stats   = { key: (cc, nc, tt, ct, callers), ... }        at least one entry
//   key     = (filename: str, line: int, funcname: str | code object)
//   callers = { key: (nc, cc, tt, ct)[*k] | int, ... }
// cc/nc are ints, tt/ct ints or floats (seconds). Caller tuples of 4k items
// (old concatenated callers) are summed per group of four; an int caller
// value is the pure-Python profiler's call count. A key repeated in one dict
// keeps its first place and its last value, as a Python dict does.
//
// The profile it gives (one file): event `time` in seconds, floating (every
// double as the file holds it); one function per key in gprof2dot's order
// (each entry, then its callers); `listed` in the dict's order; self = tt,
// total = ct, calls = nc, primitive calls = cc; per caller a call with
// count = nc, primitive count = cc, along = tt, inclusive = ct (int callers:
// count only, see Profile::call_costs_from_counts).
#pragma once

#include <string_view>

#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::pstats {

/// True when the head is a marshalled dict whose first key is a tuple.
bool sniff_strong(std::string_view head);
/// True when the head could be a marshalled dict.
bool sniff_weak(std::string_view head);

/// Decodes and validates one pstats file. Errors: `PATH:+0xOFF: what`.
/// Files shaped as cProfile writes them stream straight into the profile
/// (stream.h); everything else goes through the general decoder. Given
/// the file the bytes are, the streaming path gives back its pages as it
/// reads them. `keep_call_self`: keep each call's own time (StatsBuilder),
/// which a call graph does not read.
Expected<Profile> read(std::string_view bytes, std::string_view path, Diagnostics& diag,
                       const InputFile* file = nullptr, bool keep_call_self = true);

/// The general path alone: a decoded object tree, then validation (tests
/// compare it with the streaming path).
Expected<Profile> read_general(std::string_view bytes, std::string_view path, Diagnostics& diag,
                               bool keep_call_self = true);

}  // namespace graphgen::pstats
