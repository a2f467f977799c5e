// xperf: its row in the table of formats (registry.cc): how it is named,
// recognised and read.
#include "registry.h"
#include "xperf/reader.h"

namespace graphgen::xperf {

using namespace formats;

namespace {

Confidence sniff_row(std::string_view head) { return sniff(head) ? Confidence::kStrong : Confidence::kNo; }

}  // namespace

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "xperf",
      .description = "Windows Performance Toolkit (xperf, WPA) sampled stacks exported as CSV",
      .extensions = {".xperf", ".csv"},
      .sniff = sniff_row,
      .read = read,
  };
  return kRow;
}

}  // namespace graphgen::xperf
