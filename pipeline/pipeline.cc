#include "pipeline.h"

#include <fmt/format.h>

#include <cctype>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "common/decompress.h"
#ifdef GRAPHGEN_HAVE_RENDER
#include "render/render.h"
#endif
#include "graphgen/analysis/graph.h"
#include "graphgen/analysis/integrate.h"
#include "graphgen/analysis/merge.h"
#include "graphgen/analysis/prune.h"
#include "graphgen/analysis/select.h"

namespace graphgen::pipeline {

using namespace formats;

namespace {

using Clock = std::chrono::steady_clock;

// The output is per-rank statistics (-T ranks, heatmaps) or colours by them.
bool rank_output(const Request& r) { return r.output->needs == Needs::kRanks || r.write.imbalance; }

class Phases {
 public:
  explicit Phases(Output& out) : out_(out), last_(Clock::now()) {}
  void mark(const char* name) {
    auto now = Clock::now();
    out_.phases.emplace_back(name, std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }

 private:
  Output& out_;
  Clock::time_point last_;
};

std::string join(const std::vector<std::string_view>& items, std::string_view sep = ", ") {
  std::string out;
  for (std::string_view s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

// One input's place in the merge: what reading it gave.
struct Slot {
  std::optional<Expected<Profile>> result;
  Diagnostics diag;
  std::size_t bytes = 0;
};

// Two threads read ahead, at most kWindow profiles, while the caller folds
// them in merge order, so the result never depends on the threads' timing
// and memory stays bounded however many files there are. One input is read
// by the caller itself.
class ReadAhead {
 public:
  using Read = std::function<Expected<Profile>(std::size_t pos, Slot& slot)>;

  ReadAhead(std::size_t begin, std::size_t end, Read read)
      : ring_(kWindow), next_(begin), folded_(begin), end_(end), read_(std::move(read)) {
    if (end - begin > 1)
      for (int t = 0; t < 2; ++t) workers_.emplace_back([this] { work(); });
  }

  ~ReadAhead() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  // The profile at `pos`, its warnings into `diag` and its size into `bytes`.
  Expected<Profile> take(std::size_t pos, Diagnostics& diag, std::size_t& bytes) {
    std::optional<Expected<Profile>> result;
    if (workers_.empty()) {
      result = read_(pos, slot(pos));
    } else {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return slot(pos).result.has_value(); });
      result = std::move(slot(pos).result);
      slot(pos).result.reset();
    }
    for (const std::string& w : slot(pos).diag.warnings()) diag.warn(w);
    slot(pos).diag.clear();
    bytes += slot(pos).bytes;
    slot(pos).bytes = 0;
    return std::move(*result);
  }

  // The profile taken last is folded: its place in the window is free.
  void folded() {
    {
      std::lock_guard lock(mutex_);
      ++folded_;
    }
    changed_.notify_all();
  }

 private:
  static constexpr std::size_t kWindow = 16;

  // At most kWindow positions are in flight: a ring of slots.
  Slot& slot(std::size_t pos) { return ring_[pos % kWindow]; }

  void work() {
    for (;;) {
      std::size_t pos;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stop_ || next_ >= end_ || next_ < folded_ + kWindow; });
        if (stop_ || next_ >= end_) return;
        pos = next_++;
      }
      auto result = read_(pos, slot(pos));
      std::lock_guard lock(mutex_);
      slot(pos).result = std::move(result);
      changed_.notify_all();
    }
  }

  std::vector<Slot> ring_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t next_, folded_, end_;
  bool stop_ = false;
  Read read_;
  std::vector<std::thread> workers_;
};

// The order files merge in: as given, or pstats.Stats(a, b, c)'s a, c, b.
std::vector<std::size_t> merge_order(MergeOrder order, std::size_t n) {
  std::vector<std::size_t> out;
  if (n == 0) return out;
  if (order == MergeOrder::kPstats) {
    out.push_back(0);
    for (std::size_t i = n; i-- > 1;) out.push_back(i);
    return out;
  }
  for (std::size_t i = 0; i < n; ++i) out.push_back(i);
  return out;
}

Expected<const InputFormat*> format_of(const InputFile& file, const Request& r) {
  if (!r.input_format.empty()) {
    const InputFormat* f = find_input_format(r.input_format);
    if (!f)
      return bad_usage(fmt::format("--format {}: not a known input format (known: {})", quote_input(r.input_format),
                                   join(input_format_names())));
    return f;
  }
  return detect_input_format(file);
}

// Opens an input, decompressed when it is gzip, bzip2, xz or zstd.
Expected<InputFile> open_input(const std::string& path) {
  auto file = InputFile::open(path);
  if (!file) return file.error();
  return prepared(std::move(file).value());
}

// Reads one input: opens it, checks its format, parses it.
Expected<Profile> read_input(const std::string& path, const InputFormat* format, const Request& r,
                             std::optional<InputFile>& opened, Diagnostics& diag, std::size_t& bytes) {
  if (!opened) {
    auto file = open_input(path);
    if (!file) return file.error();
    opened = std::move(file).value();
  }
  if (r.input_format.empty()) {
    auto detected = detect_input_format(*opened);
    if (!detected) return detected.error();
    if (*detected != format)
      return bad_usage(fmt::format("inputs mix formats: {} is {} but {} is {}; give one format at a time",
                                   r.inputs.front(), format->name, path, (*detected)->name));
  }
  bytes = opened->bytes().size();
  ReadOptions options = r.read;
  options.memory_budget = r.max_memory ? r.max_memory : default_budget(bytes);
  try {
    auto profile = format->read(*opened, options, diag);
    opened.reset();  // unmapped as soon as it is read
    return profile;
  } catch (const std::bad_alloc&) {
    return bad_input(
        fmt::format("{}: out of memory while reading it (the machine has less than it needs; a hostile "
                    "file? --max-memory sets a smaller limit that fails earlier)",
                    path));
  }
}

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
    if (by_path && by_path != f && !same_file_type(*f, path))
      diag.warn(fmt::format("writing {} to {}, whose name says {}", f->name, quote_input(path), by_path->name));
    return f;
  }
  // gprof2dot writes dot whatever the name; so does graphgen for names it
  // does not know (and for devices such as /dev/null).
  return by_path ? by_path : find_output_format("dot");
}

namespace {
Expected<bool> rank_values(const Profile& file, const InputFormat& format, const Request& r, std::vector<double>& self,
                           std::vector<double>& inclusive);
}  // namespace

Expected<const InputFormat*> input_format_of(const Request& r, FirstInput* first) {
  const std::size_t n = r.inputs.size();
  if (n == 0) return bad_usage("expected at least one input file, found none");
  // The first input decides (with --keep-going, the first readable one).
  std::optional<Error> first_error;
  for (std::size_t i = 0; i < n; ++i) {
    auto file = open_input(r.inputs[i]);
    Expected<const InputFormat*> f = file ? format_of(*file, r) : Expected<const InputFormat*>(file.error());
    if (f) {
      if (first) {  // standard input cannot be opened twice
        first->index = i;
        first->file = std::move(file).value();
      }
      return f;
    }
    if (!r.keep_going || n == 1 || f.error().kind == Error::Kind::kBadUsage) return f.error();
    if (!first_error) first_error = f.error();
  }
  return bad_input(
      fmt::format("none of the {} inputs could be read; {} ({})", n, r.inputs.front(), first_error->message));
}

Expected<MergedShare> read_share(const Request& r, const InputFormat& format, std::size_t begin, std::size_t end,
                                 bool want_ranks, Diagnostics& diag, FirstInput* first) {
  const std::size_t n = r.inputs.size();
  end = std::min(end, n);
  begin = std::min(begin, end);
  const InputFormat* fmt_ptr = &format;
  std::vector<std::size_t> order = merge_order(format.merge_order, n);
  MergedShare share;
  ProfileMerger merger(share.profile);
  if (want_ranks) share.ranks.emplace(r.inputs, format.merge_order == MergeOrder::kPstats, kHeatmapColumns, begin);
  std::vector<double> self_values, inclusive_values;
  // One pstats file is the merged profile itself: no copy through the merger.
  const bool solo = end - begin == 1 && format.merge_order == MergeOrder::kPstats && !want_ranks;
  ReadAhead ahead(begin, end, [&](std::size_t pos, Slot& slot) {
    std::optional<InputFile> opened;
    if (first && first->file && order[pos] == first->index) opened = std::move(first->file);
    return read_input(r.inputs[order[pos]], fmt_ptr, r, opened, slot.diag, slot.bytes);
  });
  // One input into the share; the profile is freed when it returns, before
  // the window moves on.
  auto fold = [&](Expected<Profile> result, std::size_t input) -> Expected<bool> {
    if (!result) {
      if (!r.keep_going || result.error().kind == Error::Kind::kBadUsage) return result.error();
      share.skipped.push_back(fmt::format("{} ({})", r.inputs[input], result.error().message));
      if (share.ranks) share.ranks->add({}, {}, {});  // skipped: missing in every function
      return true;
    }
    if (r.on_input)
      if (auto ok = r.on_input(input, *result); !ok) return ok;
    if (solo) {
      share.profile = std::move(*result);  // (pstats keys are unique: the merge would copy it as it is)
    } else if (auto ok = merger.add(*result, r.inputs[input]); !ok) {
      return ok;
    }
    if (share.files++ == 0) share.first_input = r.inputs[input];
    if (share.ranks) {
      if (auto ok = rank_values(*result, format, r, self_values, inclusive_values); !ok) return ok;
      share.ranks->add(self_values, inclusive_values, merger.last_map());
    }
    return true;
  };
  for (std::size_t pos = begin; pos < end; ++pos) {
    Expected<bool> ok = fold(ahead.take(pos, diag, share.input_bytes), order[pos]);
    ahead.folded();
    if (!ok) return ok.error();
  }
  share.exact = merger.take_exact();
  if (share.ranks) share.ranks->close(end);
  return share;
}

Expected<bool> combine_shares(MergedShare& into, MergedShare next) {
  std::vector<FuncId> map;
  if (next.files > 0) {  // (a share whose inputs were all skipped adds no profile)
    ProfileMerger merger(into.profile, std::move(into.exact), into.files, into.first_input);
    if (auto ok = merger.add(next.profile, next.first_input, &next.exact); !ok) return ok;
    into.exact = merger.take_exact();
    map = merger.last_map();
    if (into.files == 0) into.first_input = next.first_input;
  }
  into.files += next.files;
  if (into.ranks && next.ranks) into.ranks->combine(*next.ranks, map);
  into.skipped.insert(into.skipped.end(), std::make_move_iterator(next.skipped.begin()),
                      std::make_move_iterator(next.skipped.end()));
  into.input_bytes += next.input_bytes;
  return true;
}

Expected<Profile> finish_share(MergedShare share, const Request& r, Diagnostics& diag, RankTable* ranks) {
  const std::size_t n = r.inputs.size();
  if (share.files == 0)
    return bad_input(fmt::format("none of the {} inputs could be read; {}", n,
                                 share.skipped.empty() ? std::string("no input") : share.skipped.front()));
  share.exact = {};
  std::vector<FuncId> renumbered = order_as_gprof2dot(share.profile);
  if (ranks && share.ranks) *ranks = share.ranks->finish(share.profile.functions.size(), renumbered);
  if (!share.skipped.empty()) {
    std::string list;
    for (std::size_t i = 0; i < share.skipped.size() && i < 10; ++i) list += (i ? "; " : "") + share.skipped[i];
    if (share.skipped.size() > 10) list += fmt::format("; and {} more", share.skipped.size() - 10);
    diag.warn(
        fmt::format("--keep-going: skipped {} of {} inputs that could not be read: {}", share.skipped.size(), n, list));
  }
  return std::move(share.profile);
}

Expected<Profile> read_and_merge(const Request& r, const InputFormat*& format, Diagnostics& diag,
                                 std::size_t* input_bytes, RankTable* ranks) {
  FirstInput first;
  auto detected = input_format_of(r, &first);
  if (!detected) return detected.error();
  format = *detected;
  if (r.output && r.list_functions.empty())
    if (auto ok = check_pair(*format, *r.output); !ok) return ok.error();
  auto share = read_share(r, *format, 0, r.inputs.size(), ranks != nullptr, diag, &first);
  if (!share) return share.error();
  if (input_bytes) *input_bytes += share->input_bytes;
  return finish_share(std::move(share).value(), r, diag, ranks);
}

namespace {

// --event: the cost column to use (formats whose readers filter samples by
// event have one column).
Expected<std::size_t> pick_event(const Profile& p, const InputFormat& format, const std::string& event) {
  if (event.empty() || format.event_option == EventOption::kSampleFilter) return std::size_t{0};
  std::vector<std::string_view> names;
  for (std::size_t e = 0; e < p.events.size(); ++e) {
    names.push_back(p.str(p.events[e].name));
    if (names.back() == event) return e;
  }
  return bad_usage(
      fmt::format("--event {}: the profile has no such event; it has {}", quote_input(event), join(names)));
}

// Each function's totals, as the format's rules give them (no pruning).
CallGraph graph_totals(const Profile& p, const InputFormat& format, std::size_t event, const GraphOptions& o,
                       Diagnostics& diag) {
  CallGraph graph;
  std::optional<CallGraph> own = format.graph ? format.graph(p, event, diag) : std::nullopt;
  if (own) {
    graph = std::move(*own);
  } else if (p.has_total_cost()) {
    graph = graph_from_reported_totals(p, event, diag);
  } else if (o.total == TotalMethod::kCallStacks && p.keeps_stack_totals) {
    graph = graph_from_call_stacks(p, event, diag);
  } else {
    if (o.total == TotalMethod::kCallStacks)
      diag.warn(fmt::format("--total callstacks needs sample stacks, which {} profiles do not have; using callratios",
                            format.name));
    graph = graph_from_call_ratios(p, event, diag);
  }
  return graph;
}

Expected<CallGraph> build_graph(const Profile& p, const InputFormat& format, std::size_t event, const GraphOptions& o,
                                Diagnostics& diag) {
  CallGraph graph = graph_totals(p, format, event, o, diag);
  prune(p, graph, o.prune);
  if (!o.root.empty()) {
    auto roots = match_functions(p, graph, o.root);
    if (roots.empty())
      return bad_input(fmt::format("root node {} not found (might already be pruned : try -e0 -n0 flags)", o.root));
    keep_descendants(graph, roots, o.depth);
  }
  return graph;
}

// A rank's self and inclusive value per function, in the event's shown
// unit: reported totals as they are, else the totals the graph would show.
Expected<bool> rank_values(const Profile& file, const InputFormat& format, const Request& r, std::vector<double>& self,
                           std::vector<double>& inclusive) {
  auto event = pick_event(file, format, r.event);
  if (!event) return event.error();
  const Event& ev = file.events[*event];
  const std::size_t n = file.functions.size();
  self.resize(n);
  inclusive.resize(n);
  for (FuncId f = 0; f < n; ++f) self[f] = event_value(ev, file.self(f, *event));
  if (file.has_total_cost()) {
    for (FuncId f = 0; f < n; ++f) inclusive[f] = event_value(ev, file.total(f, *event));
    return true;
  }
  Diagnostics quiet;
  CallGraph g = r.graph.total == TotalMethod::kCallStacks && file.keeps_stack_totals
                    ? graph_from_call_stacks(file, *event, quiet)
                    : graph_from_call_ratios(file, *event, quiet);
  for (FuncId f = 0; f < n; ++f) inclusive[f] = node_total(g, f);
  return true;
}

}  // namespace

namespace {

Expected<CallGraph> graph_of(Profile& profile, const InputFormat& format, std::size_t event, const Request& r,
                             bool merge_identity, Diagnostics& diag, std::string* listing = nullptr);

// --compare A B: each read on its own, drawn as one graph of differences.
Expected<Output> compare(const Request& r, Diagnostics& diag) {
  Output out;
  Phases phases(out);
  if (r.inputs.size() != 2)
    return bad_usage(
        fmt::format("--compare takes two inputs, the profile before and the one after; found {}", r.inputs.size()));
  if (r.output->needs != Needs::kGraph)
    return bad_usage(fmt::format("--compare draws a graph: write dot or an image, not {}", r.output->name));
  if (!r.list_functions.empty()) return bad_usage("--list-functions lists one profile: leave out --compare");
  Profile profiles[2];
  const InputFormat* formats[2] = {nullptr, nullptr};
  for (int i = 0; i < 2; ++i) {
    Request one = r;
    one.inputs = {r.inputs[i]};
    one.keep_going = false;
    auto read = read_and_merge(one, formats[i], diag, &out.input_bytes);
    if (!read) return read.error();
    profiles[i] = std::move(read).value();
  }
  if (formats[0] != formats[1])
    return bad_usage(fmt::format("--compare needs two profiles of one format: {} is {}, {} is {}", r.inputs[0],
                                 formats[0]->name, r.inputs[1], formats[1]->name));
  phases.mark("read");
  CallGraph graphs[2];
  for (int i = 0; i < 2; ++i) {
    if (auto ok = apply_filters(profiles[i], r.filters, diag); !ok) return ok.error();
    auto event = pick_event(profiles[i], *formats[i], r.event);
    if (!event) return event.error();
    auto built = graph_of(profiles[i], *formats[i], *event, r, true, diag);
    if (!built) return built.error();
    graphs[i] = std::move(built).value();
  }
  if (kept_nodes(graphs[0]) == 0 && r.output->rendered)
    return bad_input(
        fmt::format("nothing to draw: nothing of {} is left after the thresholds and selections", r.inputs[0]));
  std::vector<FuncId> match =
      match_functions_by_identity(profiles[0], profiles[1], formats[0]->graph_merges_functions && r.read.merge_by_name);
  phases.mark("analyse");
  dot::Options options = r.write.dot;
  options.max_bytes = r.max_memory ? r.max_memory : default_budget(out.input_bytes);
  auto text = dot::write_compare(profiles[0], graphs[0], profiles[1], graphs[1], match, r.write.theme, options,
                                 r.compare_options, diag);
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
  Phases phases(out);
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
  const bool want_ranks = rank_output(r) || (report_ranks && r.filters.empty());
  RankTable table;
  auto read = read_and_merge(r, format, diag, &out.input_bytes, want_ranks ? &table : nullptr);
  if (!read) return read.error();
  if (want_ranks) {
    if (table.ranks == 1)
      diag.warn(fmt::format("{}: one input is one rank, so nothing can be imbalanced; give one file per rank",
                            r.write.imbalance ? "--imbalance" : fmt::format("-T {}", r.output->name)));
    out.ranks = std::move(table);
  }
  phases.mark("read");
  if (r.output->needs == Needs::kTotals && r.write.stats.files.empty()) {
    // pstats' report names its files first, in the order they merged.
    Request with_files = r;
    for (std::size_t input : merge_order(format->merge_order, r.inputs.size()))
      with_files.write.stats.files.push_back(stats::file_line(r.inputs[input]));
    if (auto ok = convert_profile(std::move(read).value(), *format, with_files, diag, out); !ok) return ok.error();
    return out;
  }
  if (auto ok = convert_profile(std::move(read).value(), *format, r, diag, out); !ok) return ok.error();
  return out;
}

namespace {

// The graph a graph output draws: function identity for graphs, totals,
// pruning, -z, -l, --node-count, and the warnings about what is left.
// With --list-functions, `listing` gets the list instead.
Expected<CallGraph> graph_of(Profile& profile, const InputFormat& format, std::size_t event, const Request& r,
                             bool merge_identity, Diagnostics& diag, std::string* listing) {
  // Readers that keep functions per file (callgrind) show one node per
  // function of a binary, or per name as gprof2dot does.
  if (format.graph_merges_functions && merge_identity)
    profile =
        merge_functions(std::move(profile), r.read.merge_by_name ? FunctionKey::kName : FunctionKey::kNameAndObject);
  auto built = build_graph(profile, format, event, r.graph, diag);
  if (!built) return built.error();
  CallGraph graph = std::move(built).value();
  if (listing) {
    *listing = list_functions(profile, graph, r.list_functions);
    return graph;
  }
  if (!r.graph.leaf.empty()) {
    auto leaves = match_functions(profile, graph, r.graph.leaf);
    if (leaves.empty())
      return bad_input(fmt::format("leaf node {} not found (maybe already pruned : try -e0 -n0 flags)", r.graph.leaf));
    keep_ancestors(graph, leaves, r.graph.depth);
  }
  if (r.graph.node_count > 0) keep_heaviest(graph, r.graph.node_count);
  return graph;
}

}  // namespace

Expected<bool> convert_profile(Profile profile, const InputFormat& input_format, const Request& r, Diagnostics& diag,
                               Output& out) {
  const InputFormat* format = &input_format;
  // (read_and_merge checks files; a profile given as it is, by graphgen run
  // or the module's pstats.Stats, is checked here.)
  if (r.output && r.list_functions.empty())
    if (auto ok = check_pair(*format, *r.output); !ok) return ok;
  Phases phases(out);
  if (auto ok = apply_filters(profile, r.filters, diag); !ok) return ok;
  if (rank_output(r) && !out.ranks) {
    // A profile given as it is: one rank.
    RankAccumulator one({"profile"}, false, kHeatmapColumns);
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
    auto built = graph_of(profile, *format, *event, r, !out.ranks, diag, r.list_functions.empty() ? nullptr : &listing);
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
    if (r.output->rendered && nodes > r.graph.large_graph)
      diag.warn(
          fmt::format("the graph has {} nodes after pruning; laying it out can take minutes: raise -n or "
                      "keep the heaviest with --node-count N",
                      nodes));
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
  auto bytes = r.output->write({profile, graph ? &*graph : nullptr, *event, write, out.ranks ? &*out.ranks : nullptr,
                                totals ? &*totals : nullptr},
                               diag);
  if (!bytes) return bytes.error();
  out.bytes = std::move(bytes).value();
  phases.mark("write");
  return true;
}

}  // namespace graphgen::pipeline
