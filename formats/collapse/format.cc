// collapse: its row in the table of formats (registry.cc): how it is named,
// recognised and read.
#include "collapse/reader.h"
#include "registry.h"

namespace graphgen::collapse {

using namespace formats;

namespace {

Confidence sniff_row(std::string_view head) {
  bool semicolons = false;
  if (!sniff(head, &semicolons)) return Confidence::kNo;
  return semicolons ? Confidence::kWeak : Confidence::kMaybe;
}

}  // namespace

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "collapse",
      .description = "collapsed/folded stacks ('a;b;c 12'), as from stackcollapse-perf.pl or py-spy",
      .extensions = {".collapse", ".folded", ".collapsed"},
      .sniff = sniff_row,
      .read = read,
      .lone_file_is_merged = always_merged,  // (StackBuilder keys: the merge's)
  };
  return kRow;
}

}  // namespace graphgen::collapse
