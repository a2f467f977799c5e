// cube: its row in the table of formats (registry.cc): Score-P's CUBE4.
#include "cube/reader.h"
#include "registry.h"

namespace graphgen::cube {

using namespace formats;

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "cube",
      .description = "Score-P's CUBE4 profiles (.cubex): call tree, metrics, every rank and thread",
      .extensions = {".cubex"},
      .sniff = strong_or_no<sniff>,
      .read = read,
      .provides = kCallGraph | kLocations,
  };
  return kRow;
}

}  // namespace graphgen::cube
