// callgrind: its row in the table of formats (registry.cc): how it is named,
// recognised and read.
#include "callgrind/reader.h"
#include "registry.h"

namespace graphgen::callgrind {

using namespace formats;

namespace {

Confidence sniff_row(std::string_view head) { return sniff(head) ? Confidence::kStrong : Confidence::kNo; }

}  // namespace

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "callgrind",
      .description = "Valgrind callgrind (and cachegrind-style) profiles; several files are summed",
      .extensions = {".callgrind", ".out"},
      .sniff = sniff_row,
      .read = read,
      .event_option = EventOption::kColumn,
      .graph_merges_functions = true,
  };
  return kRow;
}

}  // namespace graphgen::callgrind
