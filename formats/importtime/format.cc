// importtime: its row in the table of formats (registry.cc): `python -X
// importtime` logs read as a tree of imports.
#include "importtime/reader.h"
#include "registry.h"

namespace graphgen::importtime {

using namespace formats;

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "importtime",
      .description = "python -X importtime logs (its stderr): a tree of imports, their own and cumulative time",
      .extensions = {".importtime"},
      .sniff = strong_or_no<sniff>,
      .read = read,
      .lone_file_is_merged = always_merged,  // (StackBuilder keys: the merge's)
      .graph = graph_from_stacks,
      .counts_samples = false,  // (microseconds each import took)
  };
  return kRow;
}

}  // namespace graphgen::importtime
