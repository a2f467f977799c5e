#include "registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>

#include "graphgen/analysis/integrate.h"
#include "graphgen/text.h"

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
  X(sysprof)                      \
  X(tau)                          \
  X(cube)                         \
  X(pprof)                        \
  X(speedscope)                   \
  X(cpuprofile)                   \
  X(trace)                        \
  X(austin)                       \
  X(tracemalloc)                  \
  X(mprof)                        \
  X(importtime)

// Every folder with outputs, one line each, in the order --help lists them;
// each has <name>::output_formats(), its rows, in formats/<name>/format.cc.
#define GRAPHGEN_OUTPUT_FORMATS(X) \
  X(dot)                           \
  X(callgrind)                     \
  X(pstats)                        \
  X(lprof)                         \
  X(ranks)                         \
  X(stats)                         \
  X(flame)                         \
  X(html)                          \
  X(compare)                       \
  X(pprof)                         \
  X(speedscope)                    \
  X(trace)                         \
  X(mprof)

namespace graphgen {
#define GRAPHGEN_DECLARE(name)                \
  namespace name {                            \
  const formats::InputFormat& input_format(); \
  }
GRAPHGEN_INPUT_FORMATS(GRAPHGEN_DECLARE)
#undef GRAPHGEN_DECLARE
#define GRAPHGEN_DECLARE(name)                                \
  namespace name {                                            \
  const std::vector<formats::OutputFormat>& output_formats(); \
  }
GRAPHGEN_OUTPUT_FORMATS(GRAPHGEN_DECLARE)
#undef GRAPHGEN_DECLARE
}  // namespace graphgen

namespace graphgen::formats {

std::optional<CallGraph> graph_from_stacks(const Profile& p, std::size_t event, Diagnostics& diag,
                                           Profile* releasable) {
  if (!p.keeps_stack_totals) return std::nullopt;
  return graph_from_call_stacks(p, event, diag, releasable);
}

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

// bpftrace's print of a map keyed by stacks: a line `@name[` (the name may
// be empty), the key's lines, then `]: COUNT` (after `, ` between keys).
bool is_bpftrace_print(std::string_view head) {
  bool opened = false;
  LineScanner lines(head);
  for (std::string_view line; lines.next(line);) {
    if (line.starts_with('@')) {
      std::size_t k = 1;
      while (k < line.size() && (std::isalnum(static_cast<unsigned char>(line[k])) || line[k] == '_')) ++k;
      opened = opened || (k < line.size() && line[k] == '[');
    } else if (opened) {
      const std::size_t close = line.find("]: ");
      if (close != std::string_view::npos && close + 3 < line.size() &&
          std::isdigit(static_cast<unsigned char>(line[close + 3])))
        return true;
    }
  }
  return false;
}

// Files people give by mistake: what they are and what to give instead, as
// the error; nullopt for bytes that are none of them.
std::optional<Error> given_by_mistake(const InputFile& input, std::string_view head) {
  // (What the whole file is: said of its first byte.)
  const std::string where = input.path() + ":+0x0";
  if (head.find("function calls") != std::string_view::npos &&
      (head.find("Ordered by:") != std::string_view::npos || head.find("ncalls  tottime") != std::string_view::npos))
    return bad_input(
        fmt::format("{}: this is the report pstats prints (print_stats), not a profile; give graphgen "
                    "the file cProfile wrote (python -m cProfile -o out.prof, or Stats.dump_stats)",
                    where));
  const std::string_view bytes = input.bytes();
  if (bytes.starts_with("PERFILE2"))
    return bad_input(
        fmt::format("{}: this is perf's binary recording (perf.data), not its samples as text; give "
                    "graphgen what perf script prints (perf script -i {} | graphgen -)",
                    where, input.path()));
  if (bytes.starts_with(std::string_view("gmon\1\0\0\0", 8)))
    return bad_input(
        fmt::format("{}: this is gprof's binary data (gmon.out), not its report; give graphgen what "
                    "gprof prints (gprof PROGRAM {} | graphgen -)",
                    where, input.path()));
  if (head.starts_with("# To display the perf.data header") || head.find("\n# Overhead ") != std::string_view::npos ||
      head.find("\n# Children ") != std::string_view::npos)
    return bad_input(
        fmt::format("{}: this is the table perf report prints, not the samples; give graphgen what "
                    "perf script prints (perf script -i perf.data | graphgen -)",
                    where));
  if (head.starts_with("desc:") && head.find("\ntime_unit:") != std::string_view::npos)
    return bad_input(
        fmt::format("{}: this is valgrind massif's heap profile, which graphgen does not read "
                    "(ms_print shows it)",
                    where));
  if (head.starts_with("v ") && head.find("\nX ") != std::string_view::npos && head.find("\nX ") < 32)
    return bad_input(
        fmt::format("{}: this is heaptrack's data, which graphgen does not read; give it the stacks "
                    "heaptrack_print writes for flame graphs (heaptrack_print -f {} -F stacks.txt)",
                    where, input.path()));
  // gperftools' CPU profile (CPUPROFILE=): a header of five machine words,
  // 0, 3, 0, the sampling period, 0; 8-byte words or 4-byte ones.
  auto word = [&](std::size_t at, std::size_t size) -> std::uint64_t {
    std::uint64_t w = 0;
    if (bytes.size() >= at + size) std::memcpy(&w, bytes.data() + at, size);  // (little-endian, as it was written)
    return w;
  };
  if (bytes.size() >= 40 && ((word(0, 8) == 0 && word(8, 8) == 3 && word(16, 8) == 0) ||
                             (word(0, 4) == 0 && word(4, 4) == 3 && word(8, 4) == 0 && word(12, 4) != 0)))
    return bad_input(fmt::format(
        "{}: this is gperftools' CPU profile, which holds addresses only; give graphgen what pprof makes of it "
        "with the program's symbols (google-pprof --collapsed PROGRAM {} | graphgen -, or pprof -proto PROGRAM "
        "{} > cpu.pb.gz)",
        where, input.path(), input.path()));
  if (head.starts_with("heap profile: ") || head.starts_with("heap_v2/"))
    return bad_input(fmt::format(
        "{}: this is a heap profile as gperftools writes it, which holds addresses only; give graphgen the "
        "stacks its pprof names with the program's symbols (google-pprof --collapsed PROGRAM {} | graphgen -)",
        where, input.path()));
  if (head.starts_with("{\"dhatFileVersion\""))
    return bad_input(fmt::format(
        "{}: this is valgrind DHAT's heap profile, which graphgen does not read (DHAT's dh_view.html shows it)",
        where));
  if (head.starts_with("v8-version,"))
    return bad_input(fmt::format(
        "{}: this is V8's log of ticks (node --prof), which graphgen does not read; record node's CPU profile "
        "instead (node --cpu-prof) and give graphgen its .cpuprofile",
        where));
  if (is_bpftrace_print(head))
    return bad_input(
        fmt::format("{}: this is bpftrace's print of a map of stacks, which graphgen does not read; give it the stacks "
                    "FlameGraph's stackcollapse-bpftrace.pl folds from it",
                    where));
  return std::nullopt;
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

std::string_view sniffed_head(const InputFile& input) {
  std::string_view head = input.bytes().substr(0, 4096);
  // Text formats decide from whole lines: a first line longer than the head
  // (collapsed stacks of deep recursion) is read to its end, up to 1 MiB.
  if (head.find('\n') == std::string_view::npos && input.bytes().size() > head.size()) {
    std::size_t nl = input.bytes().substr(0, std::size_t{1} << 20).find('\n');
    if (nl != std::string_view::npos) head = input.bytes().substr(0, nl + 1);
  }
  return head;
}

Expected<const InputFormat*> detect_input_format(const InputFile& input) {
  const std::string_view head = sniffed_head(input);
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
  if (input.bytes().empty()) return bad_input(at_line(input.path(), 1, 1, "expected a profile, found an empty file"));
  if (auto named = given_by_mistake(input, head)) return *named;
  return bad_input(
      fmt::format("{}:+0x0: cannot tell the profile format from the first bytes {}; "
                  "give it with -f (supported: {})",
                  input.path(), quote_input(input.bytes().substr(0, 16)), join(input_format_names())));
}

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kFormats = [] {
    std::vector<OutputFormat> all;
#define GRAPHGEN_ROWS(name) all.insert(all.end(), name::output_formats().begin(), name::output_formats().end());
    GRAPHGEN_OUTPUT_FORMATS(GRAPHGEN_ROWS)
#undef GRAPHGEN_ROWS
    return all;
  }();
  return kFormats;
}

const OutputFormat* find_output_format(std::string_view name) {
  for (const OutputFormat& f : output_formats())
    if (f.name == name) return &f;
  return nullptr;
}

const OutputFormat& kcachegrind_format() { return *find_output_format("callgrind"); }
bool is_text(const OutputFormat& f) {
  if (f.name == "pstats" || f.name == "pprof") return false;
  return !f.rendered ||
         std::any_of(f.extensions.begin(), f.extensions.end(), [](std::string_view e) { return e.ends_with(".svg"); });
}

const OutputFormat& run_profile_format() { return *find_output_format("pstats"); }
const OutputFormat& stats_report_format() { return *find_output_format("stats"); }

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
  if (out.needs == Needs::kMemory && !(in.provides & kMemory))
    return bad_usage(
        fmt::format("{} output plots memory over time; {} input has none (mprof's files have it)", out.name, in.name));
  if (out.needs == Needs::kTimeline && !(in.provides & kTimeline)) {
    std::vector<std::string_view> timed;
    for (const InputFormat& f : input_formats())
      if (f.provides & kTimeline) timed.push_back(f.name);
    return bad_usage(fmt::format("{} output puts samples on a timeline; {} input has no sample times ({} have them)",
                                 out.name, in.name, join(timed)));
  }
  if (out.needs != Needs::kLineHits || (in.provides & kLineHits)) return true;
  std::vector<std::string_view> possible;
  for (const OutputFormat& o : output_formats())
    if ((o.needs != Needs::kLineHits || (in.provides & kLineHits)) && o.needs != Needs::kRanks)
      possible.push_back(o.name);  // per-rank outputs answer another question
  // (A .txt name asks for this report: what people name a report meant,
  // from a profile of functions, is its table, -T stats: pstats'
  // print_stats, tracemalloc's statistics, mprof's functions.)
  const bool table = std::find(possible.begin(), possible.end(), stats_report_format().name) != possible.end();
  return bad_usage(
      fmt::format("{} output is line_profiler's report; {} input has no per-line report ({}write {})", out.name,
                  in.name, table ? "for its table of functions, -T stats or a .stats name; or " : "", join(possible)));
}

}  // namespace graphgen::formats
