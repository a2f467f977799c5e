// chrome: the rows of Chrome's and node's formats in the table of formats
// (registry.cc): the .cpuprofile of node --cpu-prof and Chrome DevTools,
// and trace events, read and written.
#include "chrome/cpuprofile.h"
#include "chrome/trace.h"
#include "chrome/trace_writer.h"
#include "registry.h"

namespace graphgen::cpuprofile {

using namespace formats;

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "cpuprofile",
      .description = "Chrome's and node's CPU profiles (.cpuprofile: node --cpu-prof, DevTools' Save profile)",
      .extensions = {".cpuprofile"},
      .sniff = strong_or_no<chrome::sniff_cpuprofile>,
      .read = chrome::read_cpuprofile,
      .provides = kCallGraph | kTimeline,
      .graph = graph_from_stacks,
      .counts_samples = false,  // (microseconds; its samples event counts them)
  };
  return kRow;
}

}  // namespace graphgen::cpuprofile

namespace graphgen::trace {

using namespace formats;

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "trace",
      .description = "Chrome's trace events (JSON: X, B/E slices per thread; node --trace-event-categories, Perfetto)",
      .extensions = {".trace.json"},
      .sniff = strong_or_no<chrome::sniff_trace>,
      .read = chrome::read_trace,
      .provides = kCallGraph | kTimeline,
      .graph = graph_from_stacks,
      .counts_samples = false,  // (slices: durations; V8's profile: its samples event counts them)
  };
  return kRow;
}

namespace {

Expected<bool> stream_row(const WriteInput& in, OutputSink& sink, Diagnostics& diag) {
  chrome::TraceWriteOptions o;
  o.creator = in.options.creator;
  o.max_bytes = in.options.max_output;
  return chrome::write_trace(in.profile, o, sink, diag);
}

}  // namespace

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kRows = {
      {"trace",
       "Chrome's trace events (JSON) of the samples' times, for Perfetto UI and chrome://tracing (perf script, "
       ".cpuprofile, evented speedscope and trace inputs)",
       {".trace.json"},
       Needs::kTimeline,
       false,
       nullptr,  // (streamed)
       false,
       false,
       stream_row},
  };
  return kRows;
}

}  // namespace graphgen::trace
