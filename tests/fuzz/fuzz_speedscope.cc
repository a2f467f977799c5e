// speedscope: the streaming path and the whole document through simdjson
// must give the same profile, timeline, warnings and errors whenever the
// streaming path takes a file.
#include "fuzz.h"
#include "speedscope/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  auto both = fuzz::two_paths(fuzz::input(data, size), fuzz::timed(size), speedscope::read_streaming,
                              speedscope::read_general, true);
  if (both.fast && *both.fast != both.general) fuzz::fail();
  return 0;
}
