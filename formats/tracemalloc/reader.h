// tracemalloc's snapshots: what Python's Snapshot.dump() writes, a pickle
// of tracemalloc.Snapshot (../shared/docs/formats-wave3.md §2.2):
//
//   Snapshot  state {'traces': _Traces, 'traceback_limit': int}
//   _Traces   state {'_traces': [trace, ...]}
//   trace     (domain, size, frames, total_nframe)   (3.8: no total_nframe)
//   frames    ((filename, lineno), ...)              the most recent first
//
// decoded by the project's restricted pickle decoder (common/pickle.h),
// which may name tracemalloc.Snapshot and tracemalloc._Traces and nothing
// else, and runs nothing.
//
// The model: each trace a sample of its frames, costing its size (event
// `bytes`) and one memory block (event `blocks`: tracemalloc's size and
// count); a function per frame
// (filename, lineno): a snapshot names lines, not functions. Its name is
// `app.py:load_rows:42` (the file's name, with its package for an
// __init__.py: `json/__init__.py:loads:346`; the def or class enclosing
// the line, the line) where the source can be read (the path as written,
// else a relative one beside the snapshot), else `app.py:42`. The enclosing
// def is the nearest def or class line above, indented less than every
// line between (a heuristic: it does not parse Python). Traces with no
// frame are counted and left out, with a warning; a warning also says how
// many were cut at the traceback limit (their stacks start part-way).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::tracemalloc {

/// A pickle whose head names tracemalloc's Snapshot.
bool sniff(std::string_view head);

/// Reads a snapshot: a trace at a time as the pickle is read (stream.cc)
/// when it is as CPython writes them, else read_general().
Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);
/// The streaming path alone: nothing when it leaves the file to the general
/// path (which never adds a warning before it gives up).
std::optional<Expected<Profile>> read_streaming(const InputFile& input, const formats::ReadOptions& options,
                                                Diagnostics& diag);
/// The general path alone: the whole pickle decoded, then read (tests and
/// the fuzz target compare it with read()).
Expected<Profile> read_general(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);

/// The streaming path with its memo's two ways fixed (tests and the fuzz
/// target): every value kept by index until `switch_at` values are
/// memoized, then only those a GET takes again (pickle::TakenMemo, found
/// first here; read_streaming() finds it on the other core, so the switch
/// comes wherever the decoding is when the scan ends).
std::optional<Expected<Profile>> read_streaming_switching(const InputFile& input, const formats::ReadOptions& options,
                                                          Diagnostics& diag, std::uint64_t switch_at);

/// Whether `p` was read from a snapshot (its metadata says so): -T stats
/// then prints tracemalloc's statistics.
bool is_snapshot(const Profile& p);

}  // namespace graphgen::tracemalloc
