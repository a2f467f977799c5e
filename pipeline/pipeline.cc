#include "pipeline.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <unordered_map>

#ifdef GRAPHGEN_HAVE_RENDER
#include "dot/dot_writer.h"
#include "render/render.h"
#endif
#include "compare/writer.h"
#include "flame/writer.h"
#include "graphgen/analysis/flame.h"
#include "graphgen/analysis/graph.h"
#include "graphgen/analysis/integrate.h"
#include "graphgen/analysis/merge.h"
#include "graphgen/analysis/prune.h"
#include "graphgen/analysis/select.h"
#include "graphgen/analysis/stacks.h"
#include "graphgen/labels.h"
#include "graphgen/text.h"
#include "phases.h"
#include "tracemalloc/reader.h"
#include "tracemalloc/statistics.h"

namespace graphgen::pipeline {

using namespace formats;

namespace {

using Clock = std::chrono::steady_clock;

// The output is per-rank statistics (-T ranks, heatmaps) or colours by them.
bool rank_output(const Request& r) { return r.output->needs == Needs::kRanks || r.write.imbalance; }

// The largest resident memory of this run so far: the kernel's high-water
// mark of this program's memory (VmHWM), new at exec. getrusage()'s
// ru_maxrss also keeps the peak of the process it was forked from: started
// by a Python holding 514 MiB (subprocess.run, a notebook's `!graphgen`),
// a 7 MiB run said "peak memory 514 MiB". ru_maxrss where there is no /proc.
std::size_t peak_resident_bytes() {
  if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    std::size_t kib = 0;
    bool found = false;
    while (!found && std::fgets(line, sizeof line, f)) found = std::sscanf(line, "VmHWM: %zu kB", &kib) == 1;
    std::fclose(f);
    if (found) return kib * 1024;
  }
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);  // ru_maxrss is in KiB on Linux
  return static_cast<std::size_t>(usage.ru_maxrss) * 1024;
}

class Phases {
 public:
  Phases(Output& out, bool peaks) : out_(out), peaks_(peaks), last_(Clock::now()) {}
  void mark(const char* name) {
    auto now = Clock::now();
    out_.phases.push_back(
        {name, std::chrono::duration<double>(now - last_).count(), peaks_ ? peak_resident_bytes() : 0});
    last_ = now;
  }

 private:
  Output& out_;
  bool peaks_;  // (a read of /proc/self/status, 12 us, at each phase's end)
  Clock::time_point last_;
};

}  // namespace

namespace {
// Whether a file name's last suffix is one of the format's (a heatmap to
// "x.svg" is an SVG file, as the name says).
bool same_file_type(const OutputFormat& f, std::string_view path) {
  std::size_t dot = path.rfind('.'), slash = path.rfind('/');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return false;
  std::string suffix(path.substr(dot));
  for (char& c : suffix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view e : f.extensions)
    if (e.size() >= suffix.size() && e.substr(e.size() - suffix.size()) == suffix) return true;
  return false;
}
}  // namespace

Expected<const OutputFormat*> resolve_output_format(std::string_view to, std::string_view path, Diagnostics& diag) {
  const OutputFormat* by_path = path.empty() || path == "-" ? nullptr : output_format_for_path(path);
  if (!to.empty()) {
    const OutputFormat* f = find_output_format(to);
    if (!f)
      return bad_usage(
          fmt::format("-T {}: not a known output format (known: {})", quote_input(to), join(output_format_names())));
    // (.txt names any text: a stats table or folded stacks there is no
    // mistake, though the name alone means line_profiler's report.)
    const bool any_text = by_path && by_path->name == "text" && is_text(*f);
    if (by_path && by_path != f && !same_file_type(*f, path) && !any_text)
      diag.warn(fmt::format("writing {} to {}, whose name says {}", f->name, quote_input(path), by_path->name));
    return f;
  }
  // gprof2dot writes dot whatever the name; so does graphgen for names it
  // does not know (and for devices such as /dev/null).
  return by_path ? by_path : find_output_format("dot");
}

namespace {

// --compare A B: each read on its own, drawn as one graph of differences.
// The inputs of one side of --compare (0: before, 1: after).
std::vector<std::string> side_inputs(const Request& r, int side) {
  const std::size_t split = std::min(r.compare_split, r.inputs.size());
  return side == 0 ? std::vector<std::string>(r.inputs.begin(), r.inputs.begin() + static_cast<std::ptrdiff_t>(split))
                   : std::vector<std::string>(r.inputs.begin() + static_cast<std::ptrdiff_t>(split), r.inputs.end());
}

// A side's name for messages: as given, else its (first) file.
std::string side_name(const Request& r, int side) {
  if (r.compare_sides.size() == 2) {
    std::string given = r.compare_sides[static_cast<std::size_t>(side)];
    while (given.size() > 1 && given.back() == '/') given.pop_back();  // (after/: a name, not "")
    return given;
  }
  std::vector<std::string> files = side_inputs(r, side);
  return files.empty() ? std::string() : files.front();
}

// One folded line, `stack count`: the count after the last blank.
bool split_folded(std::string_view line, std::string_view& stack, double& count) {
  std::size_t blank = line.find_last_of(" \t");
  if (blank == std::string_view::npos || blank == 0) return false;
  std::string_view number = line.substr(blank + 1);
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), count);
  if (ec != std::errc() || end != number.data() + number.size()) return false;
  stack = line.substr(0, blank);
  return true;
}

// A count as Perl prints a number: integers whole, others with 15
// significant digits.
std::string perl_number(double v) {
  if (v == std::trunc(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<std::int64_t>(v));
  return fmt::format("{:.15g}", v);
}

// Two profiles' stacks side by side, as difffolded.pl pairs them: each side
// folded as -T folded writes it alone; rows in first appearance, before's
// then after's; --normalize scales before to after's total as difffolded
// -n does (int(count * total2 / total1)).
struct DiffRow {
  std::string_view stack;
  double count[2] = {0, 0};
};
struct DiffStacks {
  std::string sides[2];  // the folded texts the rows point into
  std::vector<DiffRow> rows;
  std::size_t input_bytes = 0;
};

Expected<bool> diff_stacks(const Request& r, Diagnostics& diag, DiffStacks& out) {
  for (int i = 0; i < 2; ++i) {
    Request one = r;
    one.inputs = side_inputs(r, i);
    one.compare = false;
    one.keep_going = false;
    one.output = find_output_format("folded");
    one.stream_to = nullptr;  // (each side's lines are read here, not written)
    auto side = convert(one, diag);
    if (!side) return side.error();
    out.sides[i] = std::move(side->bytes);
    out.input_bytes += side->input_bytes;
  }
  std::unordered_map<std::string_view, std::size_t> row_of;
  double total[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    std::string_view text = out.sides[i];
    for (std::size_t at = 0; at < text.size();) {
      std::size_t nl = text.find('\n', at);
      std::string_view line = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
      at = nl == std::string_view::npos ? text.size() : nl + 1;
      std::string_view stack;
      double count = 0;
      if (!split_folded(line, stack, count)) continue;
      auto [it, fresh] = row_of.try_emplace(stack, out.rows.size());
      if (fresh) out.rows.push_back(DiffRow{stack});
      out.rows[it->second].count[i] += count;
      total[i] += count;
    }
  }
  if (r.compare_options.normalize && total[0] != total[1] && total[0] != 0)
    for (DiffRow& row : out.rows) row.count[0] = std::trunc(row.count[0] * total[1] / total[0]);
  return true;
}

// -T folded --compare: difffolded.pl's `stack count_before count_after` (0
// where a side lacks the stack), the input of flamegraph.pl's differential
// flame graphs.
Expected<Output> compare_folded(const Request& r, Diagnostics& diag) {
  DiffStacks d;
  if (auto ok = diff_stacks(r, diag, d); !ok) return ok.error();
  Output out;
  out.input_bytes = d.input_bytes;
  for (const DiffRow& row : d.rows) {
    out.bytes += fmt::format("{} {} {}\n", row.stack, perl_number(row.count[0]), perl_number(row.count[1]));
    if (r.max_memory && out.bytes.size() > r.max_memory) return bad_input("-T folded --compare: over --max-memory");
  }
  return out;
}

// -T flame --compare: the differential flame graph difffolded.pl |
// flamegraph.pl draws: the second profile's stacks as widths, each frame
// coloured by the change of its own count (red grew, blue shrank).
Expected<Output> compare_flame(const Request& r, Diagnostics& diag) {
  DiffStacks d;
  if (auto ok = diff_stacks(r, diag, d); !ok) return ok.error();
  Profile p;
  detail::StackBuilder builder(p, "count", "", true);  // (folded counts are whole numbers)
  std::vector<std::vector<FuncId>> paths(d.rows.size());
  std::vector<FuncId> leaf_first;
  double max_delta = 1;
  for (std::size_t i = 0; i < d.rows.size(); ++i) {
    const DiffRow& row = d.rows[i];
    max_delta = std::max(max_delta, std::fabs(row.count[1] - row.count[0]));
    for (std::size_t at = 0; at <= row.stack.size();) {
      std::size_t semi = std::min(row.stack.find(';', at), row.stack.size());
      paths[i].push_back(builder.function(row.stack.substr(at, semi - at), {}, false));
      at = semi + 1;
    }
    if (row.count[1] <= 0) continue;  // no width after: nothing drawn
    leaf_first.assign(paths[i].rbegin(), paths[i].rend());
    builder.add_sample(leaf_first, p.cost_of(0, row.count[1]));
  }
  // Each frame's own change: the stack node its row ends at.
  std::unordered_map<std::uint64_t, std::uint32_t> child;
  for (std::uint32_t n = 1; n < p.stack_nodes.size(); ++n)
    child.emplace((std::uint64_t{p.stack_nodes[n].parent} << 32) | p.stack_nodes[n].function, n);
  std::vector<double> delta(p.stack_nodes.size(), 0.0);
  for (std::size_t i = 0; i < d.rows.size(); ++i) {
    std::uint32_t node = 0;
    for (FuncId f : paths[i]) {
      auto it = child.find((std::uint64_t{node} << 32) | f);
      node = it == child.end() ? UINT32_MAX : it->second;
      if (node == UINT32_MAX) break;
    }
    if (node != UINT32_MAX && node != 0) delta[node] += d.rows[i].count[1] - d.rows[i].count[0];
  }
  FlameTree tree = flame_tree(p, 0, nullptr);
  flame::SvgOptions o;
  o.title = r.write.title.empty() ? "Differential Flame Graph" : r.write.title;
  o.subtitle = fmt::format("widths: {}; colours: its change from {} (red grew, blue shrank)",
                           basename_of(side_name(r, 1)), basename_of(side_name(r, 0)));
  o.delta = &delta;
  o.max_delta = max_delta;
  o.max_bytes = r.max_memory ? r.max_memory : default_budget(d.input_bytes);
  auto svg = flame::write_svg(p, tree, 0, o);
  if (!svg) return svg.error();
  Output out;
  out.input_bytes = d.input_bytes;
  out.bytes = std::move(svg).value();
  return out;
}

// What the comparison cannot show: the functions of each side that have no
// match on the other, with the share of that side's self cost they hold
// (a rebuilt binary's functions carry another object name; an edit moves
// a Python function's line).
void warn_unpaired(const Profile (&p)[2], const std::size_t (&event)[2], const std::vector<FuncId>& match,
                   bool by_object, bool by_share, const Request& r, Diagnostics& diag) {
  std::vector<bool> matched[2] = {std::vector<bool>(p[0].functions.size()), std::vector<bool>(p[1].functions.size())};
  for (FuncId f = 0; f < match.size(); ++f)
    if (match[f] != kNoMatch && match[f] < matched[1].size()) {
      matched[0][f] = true;
      matched[1][match[f]] = true;
    }
  std::string said;
  for (int i = 0; i < 2; ++i) {
    const Event& ev = p[i].events[event[i]];
    double total = 0, lost = 0;
    std::vector<std::pair<double, FuncId>> alone;
    for (FuncId f = 0; f < p[i].functions.size(); ++f) {
      double v = event_value(ev, p[i].self(f, event[i]));
      total += v;
      if (matched[i][f]) continue;
      lost += v;
      alone.emplace_back(v, f);
    }
    if (alone.empty()) continue;
    std::sort(alone.begin(), alone.end(),
              [](auto& a, auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
    std::string heaviest;
    for (std::size_t k = 0; k < alone.size() && k < 5; ++k)
      heaviest += fmt::format("{}{} ({:.1f}%)", k ? ", " : "", function_label(p[i], alone[k].second),
                              total > 0 ? 100 * alone[k].first / total : 0.0);
    said += fmt::format("{}{} of {} functions of {} have no match in {} ({:.1f}% of its self cost; the heaviest: {})",
                        said.empty() ? "" : "; ", alone.size(), p[i].functions.size(), basename_of(side_name(r, i)),
                        basename_of(side_name(r, 1 - i)), total > 0 ? 100 * lost / total : 0.0, heaviest);
  }
  if (said.empty()) return;
  if (by_share)
    diag.warn("--compare: " + said + ". With --compare-by share functions pair by identity (name, object, file)" +
              (by_object && !r.read.merge_by_name ? "; --merge-by-name pairs them by name" : ""));
  else
    diag.warn("--compare: " + said +
              ". Functions pair by identity, then by name and file, by name and object file name, by name alone, "
              "by name without the compiler's clone suffix (.part.0, .isra.0), where each names one function on "
              "each side");
}

// The two profiles of --compare, each read (and merged) alone, of one format.
Expected<bool> read_both(const Request& r, Diagnostics& diag, Output& out, Profile (&profiles)[2],
                         const InputFormat* (&formats)[2]) {
  for (int i = 0; i < 2; ++i) {
    Request one = r;
    one.inputs = side_inputs(r, i);
    one.keep_going = false;
    auto read = read_and_merge(one, formats[i], diag, &out.input_bytes);
    if (!read) return read.error();
    profiles[i] = std::move(read).value();
  }
  if (formats[0] != formats[1])
    return bad_usage(fmt::format("--compare needs two profiles of one format: {} is {}, {} is {}", side_name(r, 0),
                                 formats[0]->name, side_name(r, 1), formats[1]->name));
  return true;
}

// -T compare, -T compare.csv: every function before and after, paired so
// that rebuilds and edits keep functions together (pair_functions).
Expected<Output> compare_table(const Request& r, Diagnostics& diag) {
  Output out;
  Profile profiles[2];
  const InputFormat* formats[2] = {nullptr, nullptr};
  CallGraph totals[2];
  compare::Side sides[2];
  if (auto ok = read_both(r, diag, out, profiles, formats); !ok) return ok.error();
  for (int i = 0; i < 2; ++i) {
    if (auto ok = apply_filters(profiles[i], r.filters, diag); !ok) return ok.error();
    if (formats[i]->graph_merges_functions)
      profiles[i] = merge_functions(std::move(profiles[i]),
                                    r.read.merge_by_name ? FunctionKey::kName : FunctionKey::kNameAndObject);
    auto event = pick_event(profiles[i], *formats[i], r.event);
    if (!event) return event.error();
    GraphOptions all = r.graph;
    if (profiles[i].keeps_stack_totals) all.total = TotalMethod::kCallStacks;
    totals[i] = graph_totals(profiles[i], *formats[i], *event, all, diag);
    sides[i] = compare::Side{&profiles[i], *event, &totals[i], std::string(basename_of(side_name(r, i)))};
  }
  Pairing pairing = pair_functions(profiles[0], profiles[1]);
  out.bytes = r.output->name == "compare" ? compare::write_text(sides[0], sides[1], pairing, {r.write.top})
              : r.output->name == "html"  ? compare::write_html(sides[0], sides[1], pairing, r.write.creator)
                                          : compare::write_csv(sides[0], sides[1], pairing);
  return out;
}

// -T stats of two tracemalloc snapshots: after.compare_to(before, KEY).
Expected<Output> compare_snapshots(const Request& r, Diagnostics& diag) {
  Output out;
  Profile profiles[2];
  const InputFormat* formats[2] = {nullptr, nullptr};
  if (auto ok = read_both(r, diag, out, profiles, formats); !ok) return ok.error();
  if (!tracemalloc::is_snapshot(profiles[0]))
    return bad_usage(fmt::format(
        "--compare -T stats compares tracemalloc snapshots (Snapshot.compare_to); {} is {}: write -T compare",
        side_name(r, 0), formats[0]->name));
  auto key = tracemalloc::key_of(r.write.stats, r.write.top, "Snapshot.compare_to");
  if (!key) return key.error();
  auto text = tracemalloc::compare_to(profiles[0], profiles[1], *key, r.write.top);
  if (!text) return text.error();
  out.bytes = std::move(text).value();
  return out;
}

Expected<Output> compare(const Request& r, Diagnostics& diag) {
  Output out;
  Phases phases(out, r.measure_peaks);
  if (r.compare_split == 0 || r.compare_split >= r.inputs.size() ||
      (r.compare_sides.size() != 2 && r.inputs.size() != 2))
    return bad_usage(fmt::format(
        "--compare takes two inputs, the profile before and the one after (several files a side: a folder or a "
        "quoted pattern each, --compare 'before/*.prof' after/); found {}",
        r.compare_sides.empty() ? r.inputs.size() : r.compare_sides.size()));
  if (r.output->name == "folded") return compare_folded(r, diag);
  if (r.output->name == "flame") return compare_flame(r, diag);
  if (r.output->name == "compare" || r.output->name == "compare.csv" || r.output->name == "html")
    return compare_table(r, diag);
  if (r.output->name == "stats") return compare_snapshots(r, diag);
  if (r.compare_options.normalize)
    return bad_usage("--normalize scales the stacks of --compare: write -T folded or -T flame, or leave it out");
  if (r.output->needs != Needs::kGraph)
    return bad_usage(
        fmt::format("--compare writes a graph (dot or an image), a table (compare, compare.csv, html), "
                    "a differential flame graph (flame) or difffolded.pl's columns (folded), not {}",
                    r.output->name));
  if (!r.list_functions.empty()) return bad_usage("--list-functions lists one profile: leave out --compare");
  Profile profiles[2];
  const InputFormat* formats[2] = {nullptr, nullptr};
  if (auto ok = read_both(r, diag, out, profiles, formats); !ok) return ok.error();
  phases.mark("read");
  CallGraph graphs[2];
  std::size_t events[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    if (auto ok = apply_filters(profiles[i], r.filters, diag); !ok) return ok.error();
    auto event = pick_event(profiles[i], *formats[i], r.event);
    if (!event) return event.error();
    events[i] = *event;
    auto built = graph_of(profiles[i], *formats[i], *event, r, true, diag);
    if (!built) return built.error();
    graphs[i] = std::move(built).value();
  }
  const bool by_share = r.compare_options.by == dot::CompareBy::kShare;
  // gprof2dot draws the first profile's graph; the absolute comparison both.
  if (kept_nodes(graphs[0]) + (by_share ? 0 : kept_nodes(graphs[1])) == 0 && r.output->rendered)
    return bad_input(fmt::format("nothing to draw: nothing of {} is left after the thresholds and selections",
                                 by_share ? side_name(r, 0) : side_name(r, 0) + " or " + side_name(r, 1)));
  dot::Options options = r.write.dot;
  options.max_bytes = r.max_memory ? r.max_memory : default_budget(out.input_bytes);
  Expected<std::string> text = std::string();
  if (by_share) {
    std::vector<FuncId> match = match_functions_by_identity(profiles[0], profiles[1],
                                                            formats[0]->graph_merges_functions && r.read.merge_by_name);
    warn_unpaired(profiles, events, match, formats[0]->graph_merges_functions, true, r, diag);
    phases.mark("analyse");
    text = dot::write_compare(profiles[0], graphs[0], profiles[1], graphs[1], match, r.write.theme, options,
                              r.compare_options, diag);
  } else {
    Pairing pairing = pair_functions(profiles[0], profiles[1]);
    warn_unpaired(profiles, events, pairing.match, formats[0]->graph_merges_functions, false, r, diag);
    phases.mark("analyse");
    dot::ChangeSide sides[2];
    for (int i = 0; i < 2; ++i)
      sides[i] = {&profiles[i], &graphs[i], events[i], std::string(basename_of(side_name(r, i)))};
    text = dot::write_change(sides[0], sides[1], pairing, r.write.theme, options, r.compare_options, diag);
  }
  if (!text) return text.error();
  if (r.output->rendered) {
#ifdef GRAPHGEN_HAVE_RENDER
    auto image = render::render(*text, r.output->name, r.write.title);
    if (!image) return image.error();
    out.bytes = std::move(image).value();
#else
    return bad_usage(
        fmt::format("this graphgen was built without Graphviz, so it cannot write {}; write .dot", r.output->name));
#endif
  } else {
    out.bytes = std::move(text).value();
  }
  phases.mark("write");
  return out;
}

}  // namespace

Expected<Output> convert(const Request& r, Diagnostics& diag) {
  if (r.compare) return compare(r, diag);
  Output out;
  Phases phases(out, r.measure_peaks);
  const InputFormat* format = nullptr;
  // Per-rank statistics are taken from each input as it streams into the
  // merge, before the filters, which apply to the merged profile.
  if (rank_output(r) && r.inputs.size() > 1 && !r.filters.empty())
    return bad_usage(
        fmt::format("--focus, --ignore, --hide and --show apply to the merged profile, not to the "
                    "per-rank statistics of {}; leave them out, or filter one rank at a time",
                    r.write.imbalance ? "--imbalance" : fmt::format("-T {}", r.output->name)));
  // (The HTML report has a ranks table when there are several inputs and
  // no filter.)
  const bool report_ranks = r.output->needs == Needs::kReport && r.inputs.size() > 1;
  if (report_ranks && !r.filters.empty())
    diag.warn(
        "the report has no ranks table: --focus, --ignore, --hide and --show apply to the merged profile, "
        "not to each rank");
  // (One input with filters: its one rank is taken after them, in
  // convert_profile, so the table's functions are the filtered profile's.)
  const bool want_ranks = (rank_output(r) && r.filters.empty()) || (report_ranks && r.filters.empty());
  RankTable table;
  // (One input of a format whose files hold several ranks has them too.)
  const bool report_located = r.output->needs == Needs::kReport && r.filters.empty() && !want_ranks;
  std::vector<std::size_t> skipped;
  auto read = read_and_merge(r, format, diag, &out.input_bytes, want_ranks ? &table : nullptr,
                             report_located ? &table : nullptr, &skipped);
  if (!read) return read.error();
  if (report_located && table.ranks > 1) out.ranks = std::move(table);
  if (want_ranks) {
    if (table.ranks == 1)
      diag.warn(fmt::format("{}: one input is one rank, so nothing can be imbalanced; give one file per rank",
                            r.write.imbalance ? "--imbalance" : fmt::format("-T {}", r.output->name)));
    out.ranks = std::move(table);
  }
  release_freed_memory();
  phases.mark("read");
  const std::optional<Request> named = name_merged_files(r, *format, skipped);
  if (auto ok = convert_profile(std::move(read).value(), *format, named ? *named : r, diag, out); !ok)
    return ok.error();
  return out;
}

Expected<bool> convert_profile(Profile profile, const InputFormat& input_format, const Request& r, Diagnostics& diag,
                               Output& out) {
  const InputFormat* format = &input_format;
  // (read_and_merge checks files; a profile given as it is, by graphgen run
  // or the module's pstats.Stats, is checked here.)
  if (r.output && r.list_functions.empty())
    if (auto ok = check_pair(*format, *r.output); !ok) return ok;
  Phases phases(out, r.measure_peaks);
  if (auto ok = apply_filters(profile, r.filters, diag); !ok) return ok;
  if (rank_output(r) && !out.ranks) {
    // A profile given as it is: one rank.
    RankAccumulator one({"profile"}, false, kHeatmapColumns);
    if (r.output->per_rank_values) one.keep_values();
    std::vector<double> self_values, inclusive_values;
    if (auto ok = rank_values(profile, *format, r, self_values, inclusive_values); !ok) return ok;
    std::vector<FuncId> identity(profile.functions.size());
    for (FuncId f = 0; f < identity.size(); ++f) identity[f] = f;
    one.add(self_values, inclusive_values, identity);
    out.ranks = one.finish(profile.functions.size());
  }
  auto event = pick_event(profile, *format, r.event);
  if (!event) return event.error();
  const Needs needs = r.output->needs;
  const bool graph_output = !r.list_functions.empty() || needs == Needs::kGraph || needs == Needs::kReport;
  std::optional<CallGraph> graph, totals;
  if (needs == Needs::kTotals && !profile.has_total_cost()) {
    // A report's inclusive costs: exact from sample stacks where there are
    // some (the share of samples whose stack holds the function).
    GraphOptions totals = r.graph;
    if (profile.keeps_stack_totals) totals.total = TotalMethod::kCallStacks;
    graph = graph_totals(profile, *format, *event, totals, diag);
  }
  if (graph_output) {
    // (Not with per-rank statistics, whose ids are the profile's.)
    std::string listing;
    // A picture's writer reads the profile's functions and strings, not
    // its calls.
    auto built = graph_of(profile, *format, *event, r, !out.ranks, diag, r.list_functions.empty() ? nullptr : &listing,
                          needs == Needs::kGraph);
    if (!built) return built.error();
    graph = std::move(built).value();
    if (!r.list_functions.empty()) {
      out.bytes = std::move(listing);
      phases.mark("analyse");
      return true;
    }
    std::size_t nodes = kept_nodes(*graph);
    if (profile.functions.empty()) {
      // Nothing was recorded (gprof's "no time accumulated"), no option to blame.
      if (r.output->rendered) return bad_input("nothing to draw: the profile holds no function");
      diag.warn("the profile holds no function: the graph is empty");
    } else if (nodes == 0 && needs == Needs::kReport) {
      diag.warn("the thresholds and selections left no function: the report's call graph is empty (lower -n/-e)");
    } else if (nodes == 0 && r.output->rendered) {
      return bad_input(
          "nothing to draw: the thresholds and selections left no function (lower -n/-e, check "
          "-z/-l/-p, or see what is there with --list-functions '*' -n0 -e0)");
    } else if (nodes == 0) {
      diag.warn("the thresholds and selections left no function: the graph is empty (lower -n/-e, check -z/-l/-p)");
    }
    // Said before the layout starts (warnings print as they come).
    const std::size_t over = r.write.dot.collapse_chains_over;
    const bool laid_out = r.output->rendered || needs == Needs::kReport;
    const std::size_t drawn = laid_out && over ? nodes - dot::find_chains(*graph, over).absorbed : nodes;
    if (laid_out && drawn > r.graph.large_graph)
      diag.warn(
          fmt::format("the graph has {} nodes after pruning; laying it out can take minutes: raise -n or "
                      "keep the heaviest with --node-count N",
                      drawn));
  }
  if (needs == Needs::kReport || (needs == Needs::kStacks && profile.stack_nodes.size() <= 1)) {
    // Every function's inclusive cost, unpruned: the report's table, and
    // the call ratios flame graphs are rebuilt from when there are no stacks.
    // (After graph_of, which may have merged functions.)
    GraphOptions all = r.graph;
    if (profile.keeps_stack_totals) all.total = TotalMethod::kCallStacks;
    totals = graph_totals(profile, *format, *event, all, diag);
  }
  phases.mark("analyse");
  WriteOptions write = r.write;
  write.max_output = r.max_memory ? r.max_memory : default_budget(out.input_bytes);
  if (!r.output->rendered && needs != Needs::kReport) write.dot.collapse_chains_over = 0;  // -T dot: gprof2dot's
  const formats::WriteInput input{profile, graph ? &*graph : nullptr,         *event,
                                  write,   out.ranks ? &*out.ranks : nullptr, totals ? &*totals : nullptr};
  const auto produce = [&](OutputSink& sink) { return r.output->stream(input, sink, diag); };
  if (r.output->stream && r.stream_to) {
    auto streamed = r.stream_to(produce);
    if (!streamed) return streamed.error();
    out.streamed = true;
  } else {
    auto bytes = r.output->stream ? produce_whole(produce) : r.output->write(input, diag);
    if (!bytes) return bytes.error();
    out.bytes = std::move(bytes).value();
  }
  phases.mark("write");
  return true;
}

}  // namespace graphgen::pipeline
