// What graphgen writes of memory traces (Profile::memory, mprof/reader.h):
//
// - peaks (-T stats of an mprof file): first what `mprof peak FILE` prints,
//   byte for byte ("FILE\t82.762 MiB", then "  Child ID\t\t\t109.641 MiB"
//   per child), then a table of the @profile'd functions: calls, their
//   peak (what `mprof peak --func NAME` prints: the most of the MEM
//   samples taken during any of its calls; NaN when none was), the memory
//   they added (end less start, summed) and their time.
// - the plot (-T memplot, .mem.svg; memplot.png, .mem.png; the HTML
//   report's Memory tab): memory over time as `mprof plot`
//   draws it, without matplotlib: each run (CMDLINE) of each file a line
//   from its first sample, its children dashed in the same colour, the
//   @profile'd calls as bracket pairs ([ at their start, ] at their end,
//   hover for name, time and memory), the peak a dashed red line with its
//   value as `mprof peak` prints it, and a legend naming each run.
#pragma once

#include <string>

#include "common/drawing.h"
#include "graphgen/error.h"
#include "graphgen/profile.h"

namespace graphgen::mprof {

/// `mprof peak` and the table of functions.
Expected<std::string> write_peaks(const Profile& p);

struct PlotOptions {
  std::string title;
};

/// The plot, to be written as SVG or rendered as PNG.
Expected<formats::Drawing> plot(const Profile& p, const PlotOptions& o);

}  // namespace graphgen::mprof
