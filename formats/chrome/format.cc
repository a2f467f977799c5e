// chrome: the rows of Chrome's and node's formats in the table of formats
// (registry.cc): the .cpuprofile of node --cpu-prof and Chrome DevTools.
#include "chrome/cpuprofile.h"
#include "registry.h"

namespace graphgen::cpuprofile {

using namespace formats;

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "cpuprofile",
      .description = "Chrome's and node's CPU profiles (.cpuprofile: node --cpu-prof, DevTools' Save profile)",
      .extensions = {".cpuprofile"},
      .sniff = strong_or_no<chrome::sniff_cpuprofile>,
      .read = chrome::read_cpuprofile,
      .graph = graph_from_stacks,
  };
  return kRow;
}

}  // namespace graphgen::cpuprofile
