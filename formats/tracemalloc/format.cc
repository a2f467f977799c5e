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
      .graph = graph_from_stacks,
  };
  return kRow;
}

}  // namespace graphgen::tracemalloc
