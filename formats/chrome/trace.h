// Chrome's Trace Event Format (the JSON Perfetto UI, chrome://tracing,
// speedscope and the Firefox Profiler read; node --trace-event-categories,
// Chromium's tracing, many tools' timelines):
//
//   [ event, ... ]   or   { "traceEvents": [ event, ... ], ... }
//   event := { "ph": PHASE, "name": N, "pid": P, "tid": T, "ts": MICROSECONDS,
//              "dur": MICROSECONDS (ph X), "args": {...}, ... }
// An array cut short (a trailing comma, no closing bracket: a trace
// written until the program stopped) is read as if it were closed.
//
// Read: duration events, per thread (pid, tid): `X` (complete: ts, dur),
// `B`/`E` (an E closes the innermost open B of its thread), and `M`
// metadata naming processes and threads (process_name, thread_name);
// other phases (instant, counter, async, flow, sample) are counted and
// left out. Each thread's events are put in time order (an opening before
// the closings of its time is taken after them; of two openings at one
// time the longer first); between two of its events the open slices are a
// stack lasting the time between them, so a slice's inclusive time is its
// duration and its self time what no slice inside it covers. Slices that
// overlap without nesting, E without B, and B never closed (closed at the
// thread's last time) are counted and said in a warning.
//
// The model: a function per event name (and per file, line and object
// when the event's args name them, as graphgen's own traces do); one
// floating event, time in
// seconds; each thread a process frame of the stacks, named after its
// thread_name and process_name ("CrRendererMain (Renderer 14488)"), else
// "tid T (pid P)".
//
// A trace that holds V8's sampled CPU profile (Profile and ProfileChunk
// events, v8_samples.h: DevTools' Performance recordings) is read as that
// profile instead, its slices counted and left out, as speedscope reads
// such a trace.
#pragma once

#include <optional>
#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::chrome {

/// `{"traceEvents":` or an array whose first object has "ph" near the head.
bool sniff_trace(std::string_view head);

/// Reads a trace: its events array a window of whole elements at a time
/// (trace.cc), or when that gives up, the whole document through simdjson.
Expected<Profile> read_trace(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);
/// The windowed path alone: nothing when it leaves the trace to the whole
/// document (it adds no warning before it gives up).
std::optional<Expected<Profile>> read_trace_windows(const InputFile& input, const formats::ReadOptions& options,
                                                    Diagnostics& diag);
/// The whole document alone (tests and the fuzz target compare the two).
Expected<Profile> read_trace_whole(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);

}  // namespace graphgen::chrome
