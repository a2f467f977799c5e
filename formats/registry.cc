#include "registry.h"

#include <fmt/format.h>

#include <algorithm>

#include "callgrind/writer.h"
#include "dot/dot_writer.h"
#include "flame/writer.h"
#include "graphgen/analysis/flame.h"
#include "html/report.h"
#include "lprof/reader.h"
#include "pstats/writer.h"
#include "ranks/writer.h"
#include "stats/writer.h"
#ifdef GRAPHGEN_HAVE_RENDER
#include "render/render.h"
#endif

// Every input format, one line each, in the order --help lists them and
// detection breaks ties; each is <name>::input_format(), the row its folder
// defines in formats/<name>/format.cc.
#define GRAPHGEN_INPUT_FORMATS(X) \
  X(pstats)                       \
  X(callgrind)                    \
  X(perf)                         \
  X(collapse)                     \
  X(lprof)                        \
  X(prof)                         \
  X(axe)                          \
  X(dtrace)                       \
  X(hprof)                        \
  X(json)                         \
  X(xperf)                        \
  X(sleepy)                       \
  X(sysprof)

namespace graphgen {
#define GRAPHGEN_DECLARE(name)                \
  namespace name {                            \
  const formats::InputFormat& input_format(); \
  }
GRAPHGEN_INPUT_FORMATS(GRAPHGEN_DECLARE)
#undef GRAPHGEN_DECLARE
}  // namespace graphgen

namespace graphgen::formats {

namespace {

bool has_extension(std::string_view path, std::string_view ext) {
  if (path.size() < ext.size()) return false;
  std::string_view tail = path.substr(path.size() - ext.size());
  return std::equal(tail.begin(), tail.end(), ext.begin(), ext.end(),
                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

std::string join(const std::vector<std::string_view>& items) {
  std::string out;
  for (std::string_view s : items) out += out.empty() ? std::string(s) : ", " + std::string(s);
  return out;
}

// --- writers ----------------------------------------------------------------

dot::Options dot_options(const WriteInput& in) {
  dot::Options o = in.options.dot;
  o.max_bytes = in.options.max_output;
  if (in.options.imbalance) o.imbalance = in.ranks;
  return o;
}

ranks::Options rank_options(const WriteInput& in) { return {in.event, in.options.top}; }

Expected<std::string> write_ranks_text(const WriteInput& in, Diagnostics&) {
  return ranks::write_text(in.profile, *in.ranks, rank_options(in));
}
Expected<std::string> write_ranks_csv(const WriteInput& in, Diagnostics&) {
  return ranks::write_csv(in.profile, *in.ranks, rank_options(in));
}
Expected<std::string> write_ranks_json(const WriteInput& in, Diagnostics&) {
  return ranks::write_json(in.profile, *in.ranks, rank_options(in));
}

Expected<std::string> write_heatmap(const WriteInput& in, std::string_view format) {
#ifdef GRAPHGEN_HAVE_RENDER
  return render::render(ranks::heatmap_dot(in.profile, *in.ranks, rank_options(in)), format, in.options.title);
#else
  (void)in;
  return bad_usage(
      fmt::format("this graphgen was built without Graphviz, so it cannot draw the heatmap ({}); write "
                  "-T ranks or -T ranks.csv, or install libgraphviz-dev and rebuild",
                  format));
#endif
}
Expected<std::string> write_heatmap_svg(const WriteInput& in, Diagnostics&) { return write_heatmap(in, "svg"); }
Expected<std::string> write_heatmap_png(const WriteInput& in, Diagnostics&) { return write_heatmap(in, "png"); }

Expected<std::string> write_stats(const WriteInput& in, Diagnostics&) {
  return stats::write(in.profile, in.event, in.graph, in.options.stats);
}

// The stacks of a flame graph, with a word when they are rebuilt.
FlameTree stacks_of(const WriteInput& in, Diagnostics& diag, std::string_view what) {
  FlameTree tree = flame_tree(in.profile, in.event, in.totals);
  if (tree.approximate && tree.frames.size() > 1)
    diag.warn(fmt::format(
        "{} is approximate: the profile records a call graph, not stacks, so the stacks are "
        "rebuilt from call ratios{}",
        what,
        tree.pruned ? fmt::format(" ({} branches under 0.001% of the whole left out)", tree.pruned) : std::string()));
  return tree;
}

Expected<std::string> write_folded(const WriteInput& in, Diagnostics& diag) {
  return flame::write_folded(in.profile, stacks_of(in, diag, "-T folded"), in.event, in.options.max_output);
}

Expected<std::string> write_flame(const WriteInput& in, Diagnostics& diag) {
  flame::SvgOptions o;
  o.reverse = in.options.flame_reverse;
  if (!in.options.title.empty())
    o.title = fmt::format("{} of {}", o.reverse ? "Icicle Graph" : "Flame Graph", in.options.title);
  o.max_bytes = in.options.max_output;
  return flame::write_svg(in.profile, stacks_of(in, diag, "the flame graph"), in.event, o);
}

Expected<std::string> write_html(const WriteInput& in, Diagnostics& diag) {
  html::Options o;
  o.title = in.options.title;
  o.creator = in.options.creator;
  o.max_bytes = in.options.max_output;
  o.rank_rows = in.options.top;
#ifdef GRAPHGEN_HAVE_RENDER
  bool any = std::any_of(in.graph->nodes.begin(), in.graph->nodes.end(), [](const GraphNode& n) { return n.kept; });
  if (!in.options.report_graph) {
    o.graph_note = "The call graph was left out.";
  } else if (any) {
    auto text = dot::write(in.profile, *in.graph, in.options.theme, dot_options(in), diag);
    if (!text) return text.error();
    auto svg = render::render(*text, "svg", in.options.title);
    if (!svg) return svg.error();
    o.graph_svg = std::move(svg).value();
  } else {
    o.graph_note = "The thresholds left no function to draw: lower -n/-e.";
  }
#else
  o.graph_note = "This graphgen was built without Graphviz: write the call graph with -T dot.";
#endif
  FlameTree tree = flame_tree(in.profile, in.event, in.totals);
  return html::write(in.profile, in.event, *in.totals, tree, in.ranks, o);
}

Expected<std::string> write_dot(const WriteInput& in, Diagnostics& diag) {
  return dot::write(in.profile, *in.graph, in.options.theme, dot_options(in), diag);
}

Expected<std::string> write_image(const WriteInput& in, std::string_view format, Diagnostics& diag) {
#ifdef GRAPHGEN_HAVE_RENDER
  auto text = dot::write(in.profile, *in.graph, in.options.theme, dot_options(in), diag);
  if (!text) return text.error();
  return render::render(*text, format, in.options.title);
#else
  (void)in;
  (void)diag;
  return bad_usage(
      fmt::format("this graphgen was built without Graphviz, so it cannot write {}; write .dot, or "
                  "install libgraphviz-dev and rebuild",
                  format));
#endif
}

template <const char* kFormat>
Expected<std::string> write_rendered(const WriteInput& in, Diagnostics& diag) {
  return write_image(in, kFormat, diag);
}

constexpr char kPng[] = "png";
constexpr char kSvg[] = "svg";
constexpr char kPdf[] = "pdf";
constexpr char kJpg[] = "jpg";
constexpr char kGif[] = "gif";
constexpr char kPs[] = "ps";

Expected<std::string> write_callgrind(const WriteInput& in, Diagnostics&) {
  callgrind::WriteOptions o;
  o.creator = in.options.creator;
  o.cmd = in.options.cmd;
  o.max_bytes = in.options.max_output;
  return callgrind::write(in.profile, o);
}

Expected<std::string> write_pstats(const WriteInput& in, Diagnostics& diag) {
  const Event& e = in.profile.events[in.event];
  if (!e.floating && e.seconds_per_unit <= 0)
    diag.warn(
        fmt::format("pstats holds seconds, and this profile's {} are counts: they are written as if each were "
                    "one second (percentages and order are right, times are not)",
                    quote_input(in.profile.str(e.name))));
  return pstats::write(in.profile, in.event, in.options.max_output);
}

Expected<std::string> write_text(const WriteInput& in, Diagnostics& diag) {
  lprof::TextOptions o = in.options.text;
  o.max_bytes = in.options.max_output;
  return lprof::write_text(in.profile, o, diag);
}

}  // namespace

const std::vector<InputFormat>& input_formats() {
#define GRAPHGEN_ROW(name) name::input_format(),
  static const std::vector<InputFormat> kFormats = {GRAPHGEN_INPUT_FORMATS(GRAPHGEN_ROW)};
#undef GRAPHGEN_ROW
  return kFormats;
}

const InputFormat* find_input_format(std::string_view name) {
  for (const InputFormat& f : input_formats())
    if (f.name == name) return &f;
  return nullptr;
}

const InputFormat& cprofile_format() { return *find_input_format("pstats"); }

std::vector<std::string_view> input_format_names() {
  std::vector<std::string_view> names;
  for (const InputFormat& f : input_formats()) names.push_back(f.name);
  return names;
}

Expected<const InputFormat*> detect_input_format(const InputFile& input) {
  std::string_view head = input.bytes().substr(0, 4096);
  // Text formats decide from whole lines: a first line longer than the head
  // (collapsed stacks of deep recursion) is read to its end, up to 1 MiB.
  if (head.find('\n') == std::string_view::npos && input.bytes().size() > head.size()) {
    std::size_t nl = input.bytes().substr(0, std::size_t{1} << 20).find('\n');
    if (nl != std::string_view::npos) head = input.bytes().substr(0, nl + 1);
  }
  // Sniffing maps the head (and, by the kernel's fault-around, up to 64 KiB):
  // hand it back, or a thousand inputs sniffed before reading stay resident.
  struct Release {
    const InputFile& in;
    ~Release() { in.release_before(in.bytes().size()); }
  } release{input};
  const InputFormat* best = nullptr;
  Confidence best_conf = Confidence::kNo;
  bool best_ext = false;
  for (const InputFormat& f : input_formats()) {
    Confidence c = f.sniff(head);
    if (c == Confidence::kNo) continue;
    bool ext = std::any_of(f.extensions.begin(), f.extensions.end(),
                           [&](std::string_view e) { return has_extension(input.path(), e); });
    if (c == Confidence::kMaybe && !ext) continue;
    if (c > best_conf || (c == best_conf && ext && !best_ext)) {
      best = &f;
      best_conf = c;
      best_ext = ext;
    }
  }
  if (best) return best;
  if (input.bytes().empty()) return bad_input(fmt::format("{}: expected a profile, found an empty file", input.path()));
  // Files people give by mistake: say what they are and what to give instead.
  if (head.find("function calls") != std::string_view::npos &&
      (head.find("Ordered by:") != std::string_view::npos || head.find("ncalls  tottime") != std::string_view::npos))
    return bad_input(
        fmt::format("{}: this is the report pstats prints (print_stats), not a profile; give graphgen "
                    "the file cProfile wrote (python -m cProfile -o out.prof, or Stats.dump_stats)",
                    input.path()));
  return bad_input(
      fmt::format("{}:+0x0: cannot tell the profile format from the first bytes {}; "
                  "give it with -f (supported: {})",
                  input.path(), quote_input(input.bytes().substr(0, 16)), join(input_format_names())));
}

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kFormats = {
      {"dot", "Graphviz source, as gprof2dot writes it", {".dot", ".gv"}, Needs::kGraph, false, write_dot},
      {"png",
       "PNG image, laid out and rendered in-process by Graphviz",
       {".png"},
       Needs::kGraph,
       true,
       write_rendered<kPng>},
      {"svg",
       "SVG image with tooltips, rendered in-process by Graphviz",
       {".svg"},
       Needs::kGraph,
       true,
       write_rendered<kSvg>},
      {"pdf", "PDF document, rendered in-process by Graphviz", {".pdf"}, Needs::kGraph, true, write_rendered<kPdf>},
      {"jpg",
       "JPEG image, when Graphviz has its jpg plugin",
       {".jpg", ".jpeg"},
       Needs::kGraph,
       true,
       write_rendered<kJpg>},
      {"gif", "GIF image, when Graphviz has its gif plugin", {".gif"}, Needs::kGraph, true, write_rendered<kGif>},
      {"ps", "PostScript, rendered in-process by Graphviz", {".ps"}, Needs::kGraph, true, write_rendered<kPs>},
      {"callgrind",
       "callgrind profile for KCacheGrind and callgrind_annotate",
       {".callgrind"},
       Needs::kProfile,
       false,
       write_callgrind},
      {"pstats",
       "Python pstats (marshal version 2: Python 2.5+ and 3 load it)",
       {".pstats", ".prof"},
       Needs::kProfile,
       false,
       write_pstats},
      {"text",
       "line_profiler's report (Line #, Hits, Time, Per Hit, % Time, source)",
       {".txt"},
       Needs::kLineHits,
       false,
       write_text},
      {"ranks",
       "per-rank statistics, one input per rank: the functions of highest imbalance (Imb, Imb%)",
       {".ranks", ".ranks.txt"},
       Needs::kRanks,
       false,
       write_ranks_text},
      {"ranks.csv",
       "per-rank statistics of every function, for spreadsheets and pandas",
       {".csv", ".ranks.csv"},
       Needs::kRanks,
       false,
       write_ranks_csv},
      {"ranks.json",
       "per-rank statistics of every function, for scripts",
       {".ranks.json"},
       Needs::kRanks,
       false,
       write_ranks_json},
      {"heatmap",
       "SVG heatmap: the most imbalanced functions by ranks, each cell against the function's mean",
       {".heatmap.svg"},
       Needs::kRanks,
       true,
       write_heatmap_svg},
      {"heatmap.png", "the heatmap as PNG", {".heatmap.png"}, Needs::kRanks, true, write_heatmap_png},
      {"stats",
       "pstats' report: print_stats, or with --callers/--callees their tables; sorted by --sort",
       {".stats"},
       Needs::kTotals,
       false,
       write_stats},
      {"folded",
       "collapsed stacks for FlameGraph, inferno and speedscope (rebuilt from call ratios for call graphs)",
       {".folded"},
       Needs::kStacks,
       false,
       write_folded},
      {"flame",
       "interactive flame graph SVG: hover, click to zoom, search; --flame-reverse for an icicle",
       {".flame.svg"},
       Needs::kStacks,
       false,
       write_flame},
      {"html",
       "one self-contained HTML report: function table, icicle, call graph, per-rank table",
       {".html", ".htm"},
       Needs::kReport,
       false,
       write_html},
  };
  return kFormats;
}

const OutputFormat* find_output_format(std::string_view name) {
  for (const OutputFormat& f : output_formats())
    if (f.name == name) return &f;
  return nullptr;
}

const OutputFormat& kcachegrind_format() { return *find_output_format("callgrind"); }

const OutputFormat* output_format_for_path(std::string_view path) {
  std::size_t slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  // valgrind's own naming: callgrind.out.<pid>[.<part>][-<thread>]
  if (base.starts_with("callgrind.out")) return find_output_format("callgrind");
  // The longest extension that matches: x.heatmap.svg is a heatmap, not an SVG graph.
  const OutputFormat* best = nullptr;
  std::size_t best_length = 0;
  for (const OutputFormat& f : output_formats())
    for (std::string_view e : f.extensions)
      if (has_extension(base, e) && e.size() > best_length) {
        best = &f;
        best_length = e.size();
      }
  return best;
}

std::vector<std::string_view> output_format_names() {
  std::vector<std::string_view> names;
  for (const OutputFormat& f : output_formats()) names.push_back(f.name);
  return names;
}

std::vector<std::string_view> output_extensions() {
  std::vector<std::string_view> out;
  for (const OutputFormat& f : output_formats()) out.insert(out.end(), f.extensions.begin(), f.extensions.end());
  return out;
}

Expected<bool> check_pair(const InputFormat& in, const OutputFormat& out) {
  if (out.needs != Needs::kLineHits || (in.provides & kLineHits)) return true;
  std::vector<std::string_view> possible;
  for (const OutputFormat& o : output_formats())
    if ((o.needs != Needs::kLineHits || (in.provides & kLineHits)) && o.needs != Needs::kRanks)
      possible.push_back(o.name);  // per-rank outputs answer another question
  return bad_usage(fmt::format("{} output is line_profiler's report; {} input has no per-line report (write {})",
                               out.name, in.name, join(possible)));
}

}  // namespace graphgen::formats
