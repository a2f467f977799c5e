// TAU profiles (docs/formats.md "TAU"): the text files `profile.N.C.T` that
// TAU writes per node (MPI rank), context and thread, and ParaProf's packed
// `.ppk` holding them all. TAU's own writer (src/Profile/Profiler.cpp) and
// ParaProf's readers (TauDataSource.java, PackedProfileDataSource.java) are
// the specification.
//
// Text grammar, one file per thread and metric:
//   header   := count ' templated_functions' ('_MULTI_' metric | '_hw_counters')? '\n'
//   columns  := '# Name Calls Subrs Excl Incl ' ('SumExclSqr ')? 'ProfileCalls' (' # ' metadata)? '\n'
//   timer    := '"' name '"' calls subrs excl incl (sumexclsqr)? profcalls ' GROUP="' groups '"' '\n'   (count times)
//   aggr     := count ' aggregates' '\n' (count lines)
//   events   := (count ' userevents' '\n' '#' ... '\n' (count lines))?
// A name holding " => " is a call path (TAU_CALLPATH): its last two frames
// are a call edge that carries the timer's calls and inclusive value; the
// path is not added to the flat totals again. Names may hold '"': the last
// two quotes of the line are GROUP's. A metric whose name holds TIME is in
// microseconds (ParaProf's isTimeMetric); the others are counts.
//
// In a folder `MULTI__<metric>`, TAU keeps one metric; the same file name in
// the sibling MULTI__ folders holds the others: a file read from there has
// every metric as an event: time metrics first, then the others, each in
// the folders' name order.
//
// Packed grammar (gzip; Java DataOutputStream: big-endian, writeUTF
// strings = u16 length + modified UTF-8):
//   'P' 'P' 'K' as UTF-16, i32 version, i32 compat (<= 2), i32 header length + header,
//   i32 metrics x utf, i32 groups x utf, i32 functions x (utf, i32 n, n x i32 group),
//   i32 user events x utf, i32 threads x (i32 node, ctx, thread,
//     i32 n x (i32 function, f64 calls, f64 subrs, metrics x (f64 excl, f64 incl)),
//     i32 n x (i32 event, i32 samples, f64 min, max, mean, sumsqr))
// Each thread of a packed file is a location of the profile (its rank
// statistics see every thread); the profile's own costs are their sums.
#pragma once

#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::tau {

/// The first line is TAU's `N templated_functions...` header.
bool sniff_text(std::string_view head);
/// The bytes start with "PPK" written as Java chars.
bool sniff_packed(std::string_view head);

/// Reads one `profile.N.C.T` file (and its MULTI__ siblings).
Expected<Profile> read_text(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);
/// Reads a ParaProf packed profile (already decompressed).
Expected<Profile> read_packed(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);

}  // namespace graphgen::tau
