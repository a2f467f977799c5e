// Chrome's trace events, written (trace.h has the grammar): a recording
// on a timeline, for Perfetto UI, chrome://tracing, speedscope and the
// Firefox Profiler.
//
// From the profile's timeline (Profile::timeline: perf script's
// timestamps, a .cpuprofile's samples, speedscope's evented profiles,
// trace events read): each thread of the recording is a thread of the
// trace (pid, tid, and its process_name and thread_name metadata), and
// each run of samples that share a frame is a begin/end pair (`B`, `E`) of
// that frame, from the first sample's start to the last one's end, in time
// order, so the events of a thread nest as the stacks do. Names are the
// functions' labels, as every other view writes them; `cat` is the
// object's file name (or "python", "function"), `args` the file and line,
// and the object's path where another function has the same label, file
// and line (speedscope shows args in a frame's name: only where needed).
//
// Samples with no duration of their own (perf's) last as
// graphgen/analysis/timeline.h says. Times are microseconds on the
// recording's clock, to the // nanosecond.
#pragma once

#include <string>

#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::chrome {

struct TraceWriteOptions {
  std::string creator;  // "graphgen 0.3.0"
  std::size_t max_bytes = 0;
};

/// The timeline as a trace, given to `sink` a megabyte at a time (a
/// trace is larger than the profile: scatter-long's 139 MB perf script
/// makes 228 MB); an error when the profile has none, always before the
/// first byte.
Expected<bool> write_trace(const Profile& p, const TraceWriteOptions& o, OutputSink& sink, Diagnostics& diag);
/// The same, whole.
Expected<std::string> write_trace(const Profile& p, const TraceWriteOptions& o, Diagnostics& diag);

}  // namespace graphgen::chrome
