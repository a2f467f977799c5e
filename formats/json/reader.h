// gprof2dot's own JSON profile format (its schema.json, version 0):
//
//   { "version": 0,
//     "costs":     [ {"description": "CPU time", "unit": "ms"}, ... ],
//     "functions": [ {"name": N, "module": M?, "process": P?}, ... ],
//     "events":    [ {"callchain": [callee, ..., caller], "cost": [c, ...]}, ... ] }
//
// Keys in any order (memtrail writes "events" before "functions"); a
// function is its position in "functions"; callchains list function
// positions innermost first; only the first cost of each event is used, as
// gprof2dot does, and it must be a finite number (NaN, Infinity and
// numbers beyond a double are refused). Parsed with simdjson (On Demand).
//
// Model: one function per position (same-named ones stay apart), its
// module shown as written and its process above it; each event adds its
// cost to its innermost function, to each call along the chain and to the
// stack totals, and counts one call of its innermost function (gprof2dot's
// `called`). The event is costs[0]'s description and unit; integer costs
// stay integers, any fractional cost makes the event floating.
#pragma once

#include <optional>
#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::json {

/// True when the head is a JSON object with one of the schema's keys
/// ("version", "functions", "events", "costs") among its first ones.
bool sniff(std::string_view head);
/// True when the head starts a JSON object (of any members).
bool sniff_object(std::string_view head);

/// Reads one JSON profile: files as gprof2dot and graphgen write them
/// stream through a few rules a member at a time (reader.cc); any other
/// goes to read_general().
Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);
/// The streaming path alone: nothing when it leaves the file to the
/// general path (which never adds a warning before it gives up).
std::optional<Expected<Profile>> read_streaming(const InputFile& input, const formats::ReadOptions& options,
                                                Diagnostics& diag);
/// The general path alone: the whole document through simdjson (tests and
/// the fuzz target compare it with read()).
Expected<Profile> read_general(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);

}  // namespace graphgen::json
