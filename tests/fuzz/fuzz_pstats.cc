// pstats: the streaming path and the tree decoder must agree whenever the
// streaming path takes a file.
#include "fuzz.h"
#include "pstats/reader.h"
#include "pstats/stream.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  auto general = pstats::read_general(bytes, "fuzz", diag);
  fuzz::check(general);
  std::size_t trailing = 0;
  if (auto fast = pstats::detail::read_fast(bytes, trailing)) {
    if (!general || fast->functions.size() != general->functions.size() ||
        fast->calls.size() != general->calls.size() || fast->self_cost != general->self_cost ||
        fast->call_cost != general->call_cost)
      fuzz::fail();
  }
  return 0;
}
