// .cpuprofile: the streaming path and the whole document through simdjson
// must give the same profile, timeline, warnings and errors whenever the
// streaming path takes a file.
#include "chrome/cpuprofile.h"
#include "fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  auto both = fuzz::two_paths(fuzz::input(data, size), fuzz::timed(size), chrome::read_cpuprofile_streaming,
                              chrome::read_cpuprofile_general, true);
  if (both.fast && *both.fast != both.general) fuzz::fail();
  return 0;
}
