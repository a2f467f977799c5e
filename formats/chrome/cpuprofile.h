// Chrome's and node's CPU profiles (`.cpuprofile`: `node --cpu-prof`,
// Chrome DevTools' "Save profile", the DevTools protocol's
// Profiler.Profile):
//
//   { "nodes": [ {"id": N, "callFrame": {"functionName": F, "scriptId": S, "url": U,
//                 "lineNumber": L, "columnNumber": C}, "hitCount": H?,
//                 "children": [N, ...]?, "parent": N?, "positionTicks": [...]?}, ... ],
//     "startTime": T0, "endTime": T1,        microseconds
//     "samples": [N, ...], "timeDeltas": [D, ...] }
//
// The tree is given by `children` (or `parent`); node 1 is usually
// `(root)`. Sample i was taken at startTime + timeDeltas[0..i] and lasts
// until the next one, as speedscope and the DevTools flame chart count it
// (the last one lasts 0); samples out of time order are put in order
// first. The older nested format ("head") is refused with a message.
//
// The model: two events, `time` (microseconds, shown in seconds) and
// `samples`; a function per (functionName, url, lineNumber), anonymous ones
// `(anonymous)`, lines 1-based; each sampled node's path below `(root)` a
// stack (StackBuilder), so flame graphs are exact. Parent links that loop
// are an error; stacks holding more frames than a budget in proportion to
// the file are refused (a few bytes of samples can name a node a million
// frames deep).
#pragma once

#include <optional>
#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::chrome {

/// A JSON object whose head holds "nodes" and "callFrame".
bool sniff_cpuprofile(std::string_view head);

/// Reads a CPU profile: "samples" and "timeDeltas" as they are passed, the
/// rest of the document through simdjson (cpuprofile.cc), when the file is
/// as node and Chrome write them; else read_cpuprofile_general().
Expected<Profile> read_cpuprofile(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);
/// The streaming path alone: nothing when it leaves the file to the
/// general path (any error included: the general path gives the message).
std::optional<Expected<Profile>> read_cpuprofile_streaming(const InputFile& input, const formats::ReadOptions& options,
                                                           Diagnostics& diag);
/// The whole document through simdjson (tests and the fuzz target compare
/// it with read_cpuprofile()).
Expected<Profile> read_cpuprofile_general(const InputFile& input, const formats::ReadOptions& options,
                                          Diagnostics& diag);

}  // namespace graphgen::chrome
