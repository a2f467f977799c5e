#include "chrome/cpuprofile.h"
#include "fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  Diagnostics diag;
  fuzz::trace(chrome::read_cpuprofile(fuzz::input(data, size), fuzz::timed(size), diag));
  return 0;
}
