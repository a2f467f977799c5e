// mprof: its rows in the table of formats (registry.cc): memory_profiler's
// mprof files read, their plot written.
#include "mprof/reader.h"
#include "mprof/writer.h"
#include "registry.h"

namespace graphgen::mprof {

using namespace formats;

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "mprof",
      .description = "memory_profiler's mprof run files (mprofile_*.dat): memory over time, @profile'd calls",
      .extensions = {".dat"},
      .sniff = strong_or_no<sniff>,
      .read = read,
      .provides = kCallGraph | kMemory,
      .graph = graph_from_stacks,
  };
  return kRow;
}

namespace {

Expected<std::string> write_row(const WriteInput& in, Diagnostics&) {
  PlotOptions o;
  o.title = in.options.title.empty() ? "" : "Memory used over time: " + in.options.title;
  o.max_bytes = in.options.max_output;
  return write_plot(in.profile, o);
}

}  // namespace

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kRows = {
      {"memplot",
       "memory over time as mprof plot draws it (SVG): each run a line, children dashed, @profile'd calls as "
       "brackets, the peak marked (mprof files)",
       {".mem.svg"},
       Needs::kMemory,
       false,
       write_row},
  };
  return kRows;
}

}  // namespace graphgen::mprof
