// json: the streaming path and the whole document through simdjson must
// give the same profile, warnings and errors whenever the streaming path
// takes a file.
#include "fuzz.h"
#include "json/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  auto both = fuzz::two_paths(fuzz::input(data, size), fuzz::options(size), json::read_streaming, json::read_general);
  if (both.fast && *both.fast != both.general) fuzz::fail();
  return 0;
}
