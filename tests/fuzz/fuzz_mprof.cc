// mprof files, then their peaks and plot (every sample, child and call)
// as SVG and as the xdot drawing Graphviz renders.
#include "fuzz.h"
#include "mprof/reader.h"
#include "mprof/writer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  Diagnostics diag;
  auto p = mprof::read(fuzz::input(data, size), fuzz::options(size), diag);
  fuzz::check(p);
  if (!p) return 0;
  fuzz::check(mprof::write_peaks(*p));
  auto plot = mprof::plot(*p, {"fuzz"});
  fuzz::check(plot);
  if (plot) {
    (void)plot->svg("fuzz");
    (void)plot->dot_graph();
  }
  return 0;
}
