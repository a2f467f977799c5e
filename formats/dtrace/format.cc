// dtrace: its row in the table of formats (registry.cc): how it is named,
// recognised and read.
#include "dtrace/reader.h"
#include "registry.h"

namespace graphgen::dtrace {

using namespace formats;

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "dtrace",
      .description = "DTrace stack aggregations (@[ustack()] = count()); several files are summed",
      .extensions = {".dtrace", ".stacks", ".user_stacks"},
      .sniff = strong_or_no<sniff>,
      .read = read,
      .lone_file_is_merged = always_merged,  // (StackBuilder keys: the merge's)
  };
  return kRow;
}

}  // namespace graphgen::dtrace
