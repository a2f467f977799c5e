// speedscope's file format (jlfwong/speedscope src/lib/file-format-spec.ts,
// its JSON schema https://www.speedscope.app/file-format-schema.json):
//
//   { "$schema": "https://www.speedscope.app/file-format-schema.json",
//     "shared": { "frames": [ {"name": N, "file": F?, "line": L?, "col": C?}, ... ] },
//     "profiles": [
//       { "type": "sampled", "name": P, "unit": U, "startValue": S, "endValue": E,
//         "samples": [ [frame, ...], ... ],          root first, frame = index in shared.frames
//         "weights": [ w, ... ] },                   one per sample
//       { "type": "evented", "name": P, "unit": U, "startValue": S, "endValue": E,
//         "events": [ {"type": "O" | "C", "frame": i, "at": t}, ... ] } ],   at never decreasing
//     "name"?, "activeProfileIndex"?, "exporter"? }
//   U: none | nanoseconds | microseconds | milliseconds | seconds | bytes
// Members in any order (profiles may come before the frames). Parsed with
// simdjson (On Demand), the sampled profiles' samples and weights by the
// project's own number rule as they are passed (reader.cc).
//
// The model: a function per frame (name, file, line); one event, time when
// the unit is one (shown in seconds; integer ticks stay integers, any
// fractional value makes the costs floating seconds), else a count (bytes
// or samples). Each sampled profile's samples, and each evented profile's
// intervals between consecutive events (the open frames' stack for that
// long), are stacks (StackBuilder) under the profile's name, so a flame
// graph shows each thread apart; each profile is also a Location (per-rank
// statistics: one rank per thread). Profiles of different units are
// refused.
#pragma once

#include <optional>
#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::speedscope {

inline constexpr std::string_view kSchema = "https://www.speedscope.app/file-format-schema.json";

/// 3: the head names speedscope's schema; 1: a JSON object whose
/// head holds "shared" and "frames" (taken over gprof2dot's JSON); 0: neither.
int sniff(std::string_view head);

/// Reads a speedscope file: each sampled profile's samples and weights as
/// they are passed, the rest through simdjson (reader.cc), when the file is
/// as speedscope's exporters write them; else read_general().
Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);
/// The streaming path alone: nothing when it leaves the file to the
/// general path (any error included: the general path gives the message).
std::optional<Expected<Profile>> read_streaming(const InputFile& input, const formats::ReadOptions& options,
                                                Diagnostics& diag);
/// The whole document through simdjson (tests and the fuzz target compare
/// it with read()).
Expected<Profile> read_general(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);

}  // namespace graphgen::speedscope
