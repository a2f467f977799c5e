#include "fuzz.h"
#include "tau/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  Diagnostics diag;
  InputFile in = fuzz::input(data, size);
  fuzz::check(tau::sniff_packed(in.bytes()) ? tau::read_packed(in, fuzz::options(size), diag)
                                            : tau::read_text(in, fuzz::options(size), diag));
  return 0;
}
