// flame: the folded stacks' and the flame graph's rows in the table of
// formats (registry.cc).
#include <fmt/format.h>

#include "flame/writer.h"
#include "graphgen/analysis/flame.h"
#include "registry.h"

namespace graphgen::flame {

using namespace formats;

namespace {

FlameTree stacks_of(const WriteInput& in, Diagnostics& diag, std::string_view what) {
  return output_stacks(in.profile, in.event, in.totals, diag, what);
}

Expected<bool> stream_folded_row(const WriteInput& in, OutputSink& sink, Diagnostics& diag) {
  return write_folded(in.profile, stacks_of(in, diag, "-T folded"), in.event, in.options.max_output, sink);
}

Expected<std::string> write_flame_row(const WriteInput& in, Diagnostics& diag) {
  SvgOptions o;
  o.reverse = in.options.flame_reverse;
  if (!in.options.title.empty())
    o.title = fmt::format("{} of {}", o.reverse ? "Icicle Graph" : "Flame Graph", in.options.title);
  o.max_bytes = in.options.max_output;
  return write_svg(in.profile, stacks_of(in, diag, "the flame graph"), in.event, o);
}

}  // namespace

FlameTree output_stacks(const Profile& p, std::size_t event, const CallGraph* totals, Diagnostics& diag,
                        std::string_view what) {
  FlameTree tree = flame_tree(p, event, totals);
  if (tree.approximate && tree.frames.size() > 1)
    diag.warn(fmt::format(
        "{} is approximate: the profile records a call graph, not stacks, so the stacks are "
        "rebuilt from call ratios{}",
        what,
        tree.pruned ? fmt::format(" ({} branches under 0.001% of the whole left out)", tree.pruned) : std::string()));
  return tree;
}

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kRows = {
      {"folded",
       "collapsed stacks for FlameGraph, inferno and speedscope (rebuilt from call ratios for call graphs)",
       {".folded"},
       Needs::kStacks,
       false,
       nullptr,  // (streamed)
       false,
       false,
       stream_folded_row},
      {"flame",
       "interactive flame graph SVG: hover, click to zoom, search; --flame-reverse for an icicle",
       {".flame.svg"},
       Needs::kStacks,
       false,
       write_flame_row},
  };
  return kRows;
}

}  // namespace graphgen::flame
