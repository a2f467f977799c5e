// Chrome's trace events: the windowed path and the whole document through
// simdjson must give the same profile, timeline, warnings and errors
// whenever the windowed path takes a trace.
#include "chrome/trace.h"
#include "fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  auto both = fuzz::two_paths(fuzz::input(data, size), fuzz::timed(size), chrome::read_trace_windows,
                              chrome::read_trace_whole, true);
  if (both.fast && *both.fast != both.general) fuzz::fail();
  return 0;
}
