// tracemalloc: its row in the table of formats (registry.cc): Python's
// tracemalloc snapshots (Snapshot.dump()).
#include "registry.h"
#include "tracemalloc/reader.h"

namespace graphgen::tracemalloc {

using namespace formats;

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "tracemalloc",
      .description = "Python's tracemalloc snapshots (Snapshot.dump()): bytes and blocks per traceback",
      .extensions = {".snapshot"},
      .sniff = strong_or_no<sniff>,
      .read = read,
      // (functions by (file, line), named with their line; calls and
      // tracebacks by StackBuilder: the merge's keys)
      .lone_file_is_merged = always_merged,
      .graph = graph_from_stacks,
      .counts_samples = false,  // (bytes and blocks)
  };
  return kRow;
}

}  // namespace graphgen::tracemalloc
