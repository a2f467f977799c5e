// hprof: its row in the table of formats (registry.cc): how it is named,
// recognised and read.
#include "hprof/reader.h"
#include "registry.h"

namespace graphgen::hprof {

using namespace formats;

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "hprof",
      .description = "Java HPROF text (java -agentlib:hprof=cpu=samples): its traces and CPU samples",
      .extensions = {".hprof"},
      .sniff = strong_or_no<sniff>,
      .read = read,
      .lone_file_is_merged = always_merged,  // (StackBuilder keys: the merge's)
  };
  return kRow;
}

}  // namespace graphgen::hprof
