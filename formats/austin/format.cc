// austin: its row in the table of formats (registry.cc): Austin's
// collapsed samples of CPython.
#include "austin/reader.h"
#include "registry.h"

namespace graphgen::austin {

using namespace formats;

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "austin",
      .description = "Austin's samples of CPython (austin -o FILE; time, memory -m, full -f), Python functions",
      .extensions = {".austin"},
      .sniff = strong_or_no<sniff>,
      .read = read,
      .provides = kCallGraph | kLocations,
      .graph = graph_from_stacks,
  };
  return kRow;
}

}  // namespace graphgen::austin
