// json: the streaming path and the whole document through simdjson must
// give the same profile, warnings and errors whenever the streaming path
// takes a file.
#include "fuzz.h"
#include "json/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  const InputFile in = fuzz::input(data, size);
  const auto options = fuzz::options(size);
  Diagnostics diag;
  auto general = json::read_general(in, options, diag);
  fuzz::check(general);
  Diagnostics streaming_diag;
  if (auto streamed = json::read_streaming(in, options, streaming_diag)) {
    fuzz::check(*streamed);
    if (fuzz::tables(*streamed, streaming_diag) != fuzz::tables(general, diag)) fuzz::fail();
  }
  return 0;
}
