// chrome: the rows of Chrome's and node's formats in the table of formats
// (registry.cc): the .cpuprofile of node --cpu-prof and Chrome DevTools.
#include "chrome/cpuprofile.h"
#include "chrome/trace.h"
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

namespace graphgen::trace {

using namespace formats;

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "trace",
      .description = "Chrome's trace events (JSON: X, B/E slices per thread; node --trace-event-categories, Perfetto)",
      .extensions = {".trace.json"},
      .sniff = strong_or_no<chrome::sniff_trace>,
      .read = chrome::read_trace,
      .graph = graph_from_stacks,
  };
  return kRow;
}

}  // namespace graphgen::trace
