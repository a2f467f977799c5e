// perf: its row in the table of formats (registry.cc): how it is named,
// recognised and read.
#include "perf/reader.h"
#include "registry.h"

namespace graphgen::perf {

using namespace formats;

namespace {

Expected<Profile> read_file(const InputFile& in, const ReadOptions& options, Diagnostics& diag) {
  return read(in, options, diag);
}

}  // namespace

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "perf",
      .description = "perf script output (with or without -g); several files are summed",
      .extensions = {".perf", ".script"},
      .sniff = strong_or_no<sniff>,
      .read = read_file,
      .provides = kCallGraph | kTimeline,
      .event_option = EventOption::kSampleFilter,
      // (Functions are (name, DSO, process) or Python's (name, file), calls
      // and stack nodes unique pairs: as the merge keys them.)
      .lone_file_is_merged = always_merged,
  };
  return kRow;
}

}  // namespace graphgen::perf
