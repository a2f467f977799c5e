// Collapsed stacks, also read in two parts on two cores as large files
// are: both reads give the same profile, stack tree and warnings.
#include "collapse/reader.h"
#include "fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  Expected<Profile> (*read)(const InputFile&, const formats::ReadOptions&, Diagnostics&, std::size_t) = collapse::read;
  fuzz::two_parts(read, data, size);
  return 0;
}
