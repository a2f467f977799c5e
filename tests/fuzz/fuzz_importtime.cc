// python -X importtime logs: the rows, their importers found walking back,
// the stacks.
#include "fuzz.h"
#include "importtime/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  Diagnostics diag;
  fuzz::check(importtime::read(fuzz::input(data, size), fuzz::options(size), diag));
  return 0;
}
