// xperf: its row in the table of formats (registry.cc): how it is named,
// recognised and read.
#include "registry.h"
#include "xperf/reader.h"

namespace graphgen::xperf {

using namespace formats;

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "xperf",
      .description = "Windows Performance Toolkit (xperf, WPA) sampled stacks exported as CSV",
      .extensions = {".xperf", ".csv"},
      .sniff = strong_or_no<sniff>,
      .read = read,
      .lone_file_is_merged = always_merged,  // (StackBuilder keys: the merge's)
  };
  return kRow;
}

}  // namespace graphgen::xperf
