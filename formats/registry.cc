#include "registry.h"

#include <algorithm>
#include <fmt/format.h>

#include "callgrind/reader.h"
#include "collapse/reader.h"
#include "lprof/reader.h"
#include "perf/reader.h"
#include "pstats/pstats.h"
#include "pstats/writer.h"

namespace graphgen::formats {

namespace {

Confidence sniff_pstats(std::string_view head) {
  // A marshalled dict (possibly FLAG_REF'd) whose first key is a tuple.
  if (head.empty()) return Confidence::kNo;
  auto b0 = static_cast<unsigned char>(head[0]);
  if (b0 != 0x7B && b0 != 0xFB) return Confidence::kNo;
  if (head.size() < 2) return Confidence::kWeak;
  auto b1 = static_cast<unsigned char>(head[1]);
  if (b1 == 0x28 || b1 == 0x29 || b1 == 0xA8 || b1 == 0xA9) return Confidence::kStrong;
  return Confidence::kWeak;
}

Expected<pstats::Table> merged_pstats(const std::vector<InputFile>& inputs, Diagnostics& diag) {
  return pstats::merge_files(inputs, diag);
}

Expected<Profile> read_pstats(const std::vector<InputFile>& inputs, const ReadOptions&, Diagnostics& diag) {
  auto merged = merged_pstats(inputs, diag);
  if (!merged) return merged.error();
  return pstats::to_profile(*merged);
}

Expected<std::string> pstats_to_pstats(const std::vector<InputFile>& inputs, Diagnostics& diag) {
  auto merged = merged_pstats(inputs, diag);
  if (!merged) return merged.error();
  return pstats::write_table(*merged);
}

bool has_extension(std::string_view path, std::string_view ext) {
  if (path.size() < ext.size()) return false;
  std::string_view tail = path.substr(path.size() - ext.size());
  return std::equal(tail.begin(), tail.end(), ext.begin(), ext.end(),
                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

Confidence sniff_callgrind(std::string_view head) {
  return callgrind::sniff(head) ? Confidence::kStrong : Confidence::kNo;
}

Expected<Profile> read_callgrind(const std::vector<InputFile>& inputs, const ReadOptions& options,
                                 Diagnostics& diag) {
  return callgrind::read(inputs, options.merge_by_name, diag);
}

Confidence sniff_perf(std::string_view head) {
  return perf::sniff(head) ? Confidence::kStrong : Confidence::kNo;
}

Expected<Profile> read_perf(const std::vector<InputFile>& inputs, const ReadOptions& options, Diagnostics& diag) {
  perf::Options o;
  o.event = options.event;
  o.weight_by_period = options.weight_by_period;
  return perf::read(inputs, o, diag);
}

Confidence sniff_collapse(std::string_view head) {
  return collapse::sniff(head) ? Confidence::kWeak : Confidence::kNo;
}

Expected<Profile> read_collapse(const std::vector<InputFile>& inputs, const ReadOptions&, Diagnostics& diag) {
  return collapse::read(inputs, diag);
}

Confidence sniff_lprof(std::string_view head) { return lprof::sniff(head) ? Confidence::kStrong : Confidence::kNo; }

Expected<Profile> read_lprof(const std::vector<InputFile>& inputs, const ReadOptions&, Diagnostics&) {
  auto stats = lprof::read_all(inputs);
  if (!stats) return stats.error();
  return lprof::to_profile(*stats);
}

Expected<std::string> lprof_text(const std::vector<InputFile>& inputs, double output_unit, bool skip_zero) {
  auto stats = lprof::read_all(inputs);
  if (!stats) return stats.error();
  return lprof::write_text(*stats, {output_unit, skip_zero});
}

}  // namespace

const std::vector<InputFormat>& input_formats() {
  static const std::vector<InputFormat> kFormats = {
      {"pstats", "Python cProfile/profile statistics (marshal), several files merge as pstats.Stats does",
       {".pstats", ".prof", ".profile", ".cprof"}, sniff_pstats, read_pstats, pstats_to_pstats},
      {"callgrind", "Valgrind callgrind (and cachegrind-style) profiles; several files are summed",
       {".callgrind", ".out"}, sniff_callgrind, read_callgrind},
      {"perf", "perf script output (with or without -g); several files are summed",
       {".perf", ".script"}, sniff_perf, read_perf},
      {"collapse", "collapsed/folded stacks ('a;b;c 12'), as from stackcollapse-perf.pl or py-spy",
       {".collapse", ".folded", ".collapsed"}, sniff_collapse, read_collapse},
      {"lprof", "line_profiler results (kernprof -l), read without Python; several files are summed",
       {".lprof"}, sniff_lprof, read_lprof, nullptr, lprof_text},
  };
  return kFormats;
}

const InputFormat* find_input_format(std::string_view name) {
  for (const InputFormat& f : input_formats())
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<std::string_view> input_format_names() {
  std::vector<std::string_view> names;
  for (const InputFormat& f : input_formats()) names.push_back(f.name);
  return names;
}

Expected<const InputFormat*> detect_input_format(const InputFile& input) {
  std::string_view head = input.bytes().substr(0, 4096);
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
    if (c > best_conf || (c == best_conf && ext && !best_ext)) {
      best = &f;
      best_conf = c;
      best_ext = ext;
    }
  }
  if (best) return best;
  std::string names;
  for (std::string_view n : input_format_names()) names += names.empty() ? std::string(n) : ", " + std::string(n);
  if (input.bytes().empty())
    return bad_input(fmt::format("{}: expected a profile, found an empty file", input.path()));
  return bad_input(fmt::format("{}:+0x0: cannot tell the profile format from the first bytes {}; "
                               "give it with -f (supported: {})",
                               input.path(), quote_input(input.bytes().substr(0, 16)), names));
}

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kFormats = {
      {"dot", "Graphviz source, as gprof2dot writes it", {".dot", ".gv"}, OutputFormat::Kind::kDot},
      {"png", "PNG image, laid out and rendered in-process by Graphviz", {".png"}, OutputFormat::Kind::kImage},
      {"svg", "SVG image with tooltips, rendered in-process by Graphviz", {".svg"}, OutputFormat::Kind::kImage},
      {"pdf", "PDF document, rendered in-process by Graphviz", {".pdf"}, OutputFormat::Kind::kImage},
      {"callgrind", "callgrind profile for KCacheGrind and callgrind_annotate", {".callgrind"},
       OutputFormat::Kind::kCallgrind},
      {"pstats", "Python pstats (marshal version 2: Python 2.5+ and 3 load it)", {".pstats", ".prof"},
       OutputFormat::Kind::kPstats},
      {"text", "line_profiler's report (Line #, Hits, Time, Per Hit, % Time, source)", {".txt"},
       OutputFormat::Kind::kText},
  };
  return kFormats;
}

const OutputFormat* find_output_format(std::string_view name) {
  for (const OutputFormat& f : output_formats())
    if (f.name == name) return &f;
  return nullptr;
}

const OutputFormat* output_format_for_path(std::string_view path) {
  for (const OutputFormat& f : output_formats())
    for (std::string_view e : f.extensions)
      if (has_extension(path, e)) return &f;
  return nullptr;
}

std::vector<std::string_view> output_format_names() {
  std::vector<std::string_view> names;
  for (const OutputFormat& f : output_formats()) names.push_back(f.name);
  return names;
}

}  // namespace graphgen::formats
