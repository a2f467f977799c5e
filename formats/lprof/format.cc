// lprof: its row in the table of formats (registry.cc): how it is named,
// recognised and read.
#include "lprof/reader.h"
#include "registry.h"

namespace graphgen::lprof {

using namespace formats;

namespace {

// Only line_profiler's report shows lines (keep_positions): for every other
// output their rows are not made.
Expected<Profile> read_file(const InputFile& in, const ReadOptions& options, Diagnostics& diag) {
  return read(in, diag, options.keep_positions);
}

}  // namespace

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "lprof",
      .description = "line_profiler results (kernprof -l), read without Python; several files are summed",
      .extensions = {".lprof"},
      .sniff = strong_or_no<sniff>,
      .read = read_file,
      .provides = kCallGraph | kLineHits,
      .lone_file_is_merged = always_merged,  // (Python keys, one row per function and line: the merge's)
      .counts_samples = false,               // (timer ticks of instrumented lines)
  };
  return kRow;
}

namespace {

Expected<std::string> write_report(const WriteInput& in, Diagnostics& diag) {
  lprof::TextOptions o = in.options.text;
  o.max_bytes = in.options.max_output;
  return lprof::write_text(in.profile, o, diag);
}

}  // namespace

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kRows = {
      {"text",
       "line_profiler's report (Line #, Hits, Time, Per Hit, % Time, source)",
       {".txt"},
       Needs::kLineHits,
       false,
       write_report,
       false,
       true},
  };
  return kRows;
}

}  // namespace graphgen::lprof
