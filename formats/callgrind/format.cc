// callgrind: its row in the table of formats (registry.cc): how it is named,
// recognised and read.
#include "callgrind/reader.h"
#include "callgrind/writer.h"
#include "registry.h"

namespace graphgen::callgrind {

using namespace formats;

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "callgrind",
      .description = "Valgrind callgrind (and cachegrind-style) profiles; several files are summed",
      .extensions = {".callgrind", ".out"},
      .sniff = strong_or_no<sniff>,
      .read = read,
      .event_option = EventOption::kColumn,
      .graph_merges_functions = true,
      // (Its rows of positions, call sites and jumps are keyed as the
      // merge's too.)
      .lone_file_is_merged = always_merged,
  };
  return kRow;
}

namespace {

Expected<std::string> write_file(const WriteInput& in, Diagnostics&) {
  callgrind::WriteOptions o;
  o.creator = in.options.creator;
  o.cmd = in.options.cmd;
  o.max_bytes = in.options.max_output;
  return write(in.profile, o);
}

}  // namespace

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kRows = {
      {"callgrind",
       "callgrind profile for KCacheGrind and callgrind_annotate",
       {".callgrind"},
       Needs::kProfile,
       false,
       write_file,
       false,
       true},
  };
  return kRows;
}

}  // namespace graphgen::callgrind
