// sysprof: its row in the table of formats (registry.cc): how it is named,
// recognised and read.
#include "registry.h"
#include "sysprof/reader.h"

namespace graphgen::sysprof {

using namespace formats;

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "sysprof",
      .description = "sysprof 1.x saved profiles (XML, read with expat); several files are summed",
      .extensions = {".sysprof"},
      .sniff = strong_or_no<sniff>,
      .read = read,
  };
  return kRow;
}

}  // namespace graphgen::sysprof
