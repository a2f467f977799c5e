#include "reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "builder.h"
#include "graphgen/text.h"

namespace graphgen::tau {

namespace {

constexpr std::string_view kHeader = " templated_functions";

constexpr std::string_view kPathSeparator = " => ";

// Timer names, held without the input: a name is its frames between " => "
// (left to right), each frame interned once; the name's identity is the
// sequence of its frames' ids, interned as bytes. Cutting and joining at
// every separator gives the name back byte for byte, so two names are one
// exactly when their sequences are. Call paths repeat their frames on
// line after line: they take 4 bytes a frame here instead of their text,
// and the input's pages can go as they are read.
class TimerNames {
 public:
  StringId intern(std::string_view name) {
    ids_.clear();
    for (;;) {
      std::size_t sep = name.find(kPathSeparator);
      ids_.push_back(frames_.intern(name.substr(0, sep)));
      if (sep == std::string_view::npos) break;
      name.remove_prefix(sep + kPathSeparator.size());
    }
    return paths_.intern({reinterpret_cast<const char*>(ids_.data()), ids_.size() * sizeof(StringId)});
  }
  /// The name of an id from intern(), in `out`.
  std::string_view name(StringId id, std::string& out) const {
    std::string_view seq = paths_.view(id);
    out.clear();
    for (std::size_t i = 0; i < seq.size(); i += sizeof(StringId)) {
      StringId frame;
      std::memcpy(&frame, seq.data() + i, sizeof frame);
      if (i > 0) out += kPathSeparator;
      out += frames_.view(frame);
    }
    return out;
  }
  std::size_t size() const { return paths_.size(); }
  /// The frames of a name: their ids, in `out`.
  void frames(StringId id, std::vector<StringId>& out) const {
    std::string_view seq = paths_.view(id);
    out.resize(seq.size() / sizeof(StringId));
    if (!out.empty()) std::memcpy(out.data(), seq.data(), seq.size());
  }
  std::string_view frame(StringId id) const { return frames_.view(id); }
  std::size_t frame_count() const { return frames_.size(); }

 private:
  StringTable frames_, paths_;
  std::vector<StringId> ids_;
};

// One metric's file: its timers in file order.
struct TextTimer {
  StringId name = 0;  // in TimerNames
  double calls = 0, excl = 0, incl = 0;
};
struct TextFile {
  std::string metric;
  std::vector<TextTimer> timers;
  std::vector<std::pair<std::string, std::string>> metadata;
};

bool parse_count(std::string_view s, std::size_t& out) {
  std::uint64_t v = 0;
  if (!parse_u64(s, v) || v > UINT32_MAX) return false;
  out = static_cast<std::size_t>(v);
  return true;
}

bool parse_number(std::string_view s, double& out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

// The metadata block's attributes: <attribute><name>K</name><value>V</value></attribute>.
void read_metadata(std::string_view text, TextFile& out) {
  static constexpr std::string_view kKeep[] = {"Metric Name", "Executable",        "Command Line",
                                               "Hostname",    "TAU_CALLPATH",      "TAU_CALLPATH_DEPTH",
                                               "Node Name",   "Starting Timestamp"};
  std::size_t pos = 0;
  for (;;) {
    std::size_t n = text.find("<attribute><name>", pos);
    if (n == std::string_view::npos) return;
    n += 17;
    std::size_t n_end = text.find("</name><value>", n);
    if (n_end == std::string_view::npos) return;
    std::size_t v = n_end + 14, v_end = text.find("</value>", v);
    if (v_end == std::string_view::npos) return;
    std::string_view key = text.substr(n, n_end - n), value = text.substr(v, v_end - v);
    if (std::find(std::begin(kKeep), std::end(kKeep), key) != std::end(kKeep))
      out.metadata.emplace_back(std::string(key), std::string(value));
    pos = v_end;
  }
}

// `<count> <word>`: the aggregates and userevents lines.
bool counted_line(std::string_view line, std::string_view word, std::size_t& count) {
  line = trim(line);
  std::size_t space = line.find(' ');
  return space != std::string_view::npos && line.substr(space + 1) == word && parse_count(line.substr(0, space), count);
}

// `input`, when given, is the file `bytes` are: its pages go as they are read.
Expected<TextFile> parse(std::string_view bytes, const InputFile* input, const std::string& path, TimerNames& names) {
  TextFile out;
  LineScanner lines(bytes, input);
  std::string_view line;
  auto error = [&](std::size_t col, std::string_view message) {
    return bad_input(at_line(path, lines.line_number(), col, message));
  };
  if (!lines.next(line))
    return bad_input(at_line(path, 1, 1, "expected TAU's 'N templated_functions' line, found an empty file"));
  std::size_t space = line.find(' '), count = 0;
  if (space == std::string_view::npos || !parse_count(line.substr(0, space), count) ||
      line.substr(space, kHeader.size()) != kHeader)
    return error(1, fmt::format("expected TAU's 'N templated_functions' line, found {}", quote_input(line)));
  std::string_view rest = line.substr(space + kHeader.size());
  if (rest.starts_with("_MULTI_"))
    out.metric = std::string(trim(rest.substr(7)));
  else if (rest.starts_with("_hw_counters"))
    out.metric = "Hardware Counter";
  else
    out.metric = "Time";
  if (!lines.next(line) || !line.starts_with("# Name Calls Subrs Excl Incl"))
    return error(
        1, fmt::format("expected the column line '# Name Calls Subrs Excl Incl ...', found {}", quote_input(line)));
  const bool sum_sq = line.substr(0, line.find('<')).find("SumExclSqr") != std::string_view::npos;
  if (std::size_t meta = line.find("<metadata>"); meta != std::string_view::npos) read_metadata(line.substr(meta), out);
  for (const auto& [k, v] : out.metadata)
    if (k == "Metric Name" && !v.empty()) out.metric = v;
  const std::size_t numbers = sum_sq ? 6 : 5;
  static constexpr std::string_view kPlain[] = {"calls", "subrs", "excl", "incl", "profile calls", ""};
  static constexpr std::string_view kWithSquares[] = {"calls",        "subrs", "excl", "incl", "sum of excl squared",
                                                      "profile calls"};
  const std::string_view* kColumns = sum_sq ? kWithSquares : kPlain;
  for (std::size_t i = 0; i < count; ++i) {
    if (!lines.next(line))
      return bad_input(at_line(path, lines.line_number() + 1, 1,
                               fmt::format("expected {} timer lines as the header says, found {}", count, i)));
    std::size_t aggregates = 0;
    if (counted_line(line, "aggregates", aggregates))
      return error(1, fmt::format("expected {} timer lines as the header says, found {}", count, i));
    if (line.empty() || line.front() != '"')
      return error(
          1, fmt::format("expected a timer line '\"name\" calls subrs excl incl ...', found {}", quote_input(line)));
    std::size_t group = line.rfind(" GROUP=\"");
    if (group == std::string_view::npos || group < 2)
      return error(line.size() + 1, "expected GROUP=\"...\" at the end of the timer line, found none");
    std::size_t close = line.rfind('"', group - 1);
    if (close == 0 || close == std::string_view::npos)
      return error(2, "expected the timer's name in quotes, found no closing quote");
    TextTimer t;
    t.name = names.intern(line.substr(1, close - 1));
    double values[6] = {};
    std::size_t k = 0, pos = close + 1;
    while (pos < group) {
      while (pos < group && is_blank(line[pos])) ++pos;
      if (pos >= group) break;
      std::size_t end = pos;
      while (end < group && !is_blank(line[end])) ++end;
      if (k == numbers)
        return error(pos + 1, fmt::format("expected {} numbers after the name, found one more: {}", numbers,
                                          quote_input(line.substr(pos, end - pos))));
      if (!parse_number(line.substr(pos, end - pos), values[k]))
        return error(pos + 1, fmt::format("expected a number ({}), found {}", kColumns[k],
                                          quote_input(line.substr(pos, end - pos))));
      ++k;
      pos = end;
    }
    if (k != numbers) return error(group + 1, fmt::format("expected {} numbers after the name, found {}", numbers, k));
    t.calls = values[0];
    t.excl = values[2];
    t.incl = values[3];
    out.timers.push_back(t);
  }
  std::size_t skip = 0;
  if (!lines.next(line) || !counted_line(line, "aggregates", skip))
    return error(1, fmt::format("expected 'N aggregates' after the timers, found {}", quote_input(line)));
  for (std::size_t i = 0; i < skip; ++i)
    if (!lines.next(line)) return error(1, "expected aggregate lines as the count says, found the end of the file");
  // User events (atomic counters) follow, if any: not costs of functions.
  return out;
}

// The MULTI__<metric> folders beside the one holding `path`, each with a
// file of that name, in name order; empty when `path` is in no such folder.
std::vector<std::string> metric_siblings(const std::string& path) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  fs::path p(path), folder = p.parent_path();
  if (!folder.filename().string().starts_with("MULTI__")) return out;
  std::error_code ec;
  for (const auto& e :
       fs::directory_iterator(folder.parent_path().empty() ? fs::path(".") : folder.parent_path(), ec)) {
    if (!e.path().filename().string().starts_with("MULTI__") || !e.is_directory(ec)) continue;
    fs::path file = e.path() / p.filename();
    if (fs::is_regular_file(file, ec)) out.push_back(file.string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

bool sniff_text(std::string_view head) {
  std::size_t space = head.find(' ');
  if (space == 0 || space == std::string_view::npos || space > 10) return false;
  for (std::size_t i = 0; i < space; ++i)
    if (head[i] < '0' || head[i] > '9') return false;
  return head.substr(space, kHeader.size()) == kHeader;
}

Expected<Profile> read_text(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  std::vector<std::string> siblings = metric_siblings(input.path());
  TimerNames timer_names;
  std::vector<TextFile> files;
  std::error_code ec;
  for (const std::string& s : siblings) {
    Expected<TextFile> parsed = TextFile();
    if (std::filesystem::equivalent(s, input.path(), ec)) {
      parsed = parse(input.bytes(), &input, s, timer_names);
    } else {
      auto opened = InputFile::open(s);
      if (!opened) return opened.error();
      parsed = parse(opened->bytes(), &*opened, s, timer_names);
    }
    if (!parsed) return parsed.error();
    files.push_back(std::move(parsed).value());
  }
  if (files.empty()) {
    auto parsed = parse(input.bytes(), &input, input.path(), timer_names);
    if (!parsed) return parsed.error();
    files.push_back(std::move(parsed).value());
  }
  // Time first (what --event picks by default), then the counters.
  std::stable_sort(files.begin(), files.end(), [](const TextFile& a, const TextFile& b) {
    return detail::is_time_metric(a.metric) && !detail::is_time_metric(b.metric);
  });
  std::vector<std::string> metrics;
  for (const TextFile& f : files) metrics.push_back(f.metric);
  // One row per timer name over every metric's file, in first appearance.
  const std::size_t nm = files.size();
  constexpr std::uint32_t kNoRow = UINT32_MAX;
  std::vector<std::uint32_t> row_of(timer_names.size(), kNoRow);
  std::vector<StringId> names;
  std::vector<double> calls, excl, incl;
  for (std::size_t m = 0; m < nm; ++m) {
    for (const TextTimer& t : files[m].timers) {
      std::uint32_t& r = row_of[t.name];
      if (r == kNoRow) {
        r = static_cast<std::uint32_t>(names.size());
        names.push_back(t.name);
        calls.push_back(0);
        excl.resize(excl.size() + nm, 0);
        incl.resize(incl.size() + nm, 0);
      }
      if (m == 0) calls[r] += t.calls;  // the same in every metric's file
      excl[r * nm + m] += t.excl;
      incl[r * nm + m] += t.incl;
    }
    files[m].timers = std::vector<TextTimer>();
  }
  row_of = std::vector<std::uint32_t>();
  Profile p;
  detail::Builder builder(p, metrics);
  // A call path's edge is its last two frames, as the builder cuts it with
  // rfind; the frames cut here from the left are the same unless one of the
  // two begins with "=> " (" => => ": the separators overlap). Each frame's
  // function is then looked up once, not once per path it ends.
  constexpr FuncId kNoFunction = UINT32_MAX;
  std::vector<FuncId> function_of(timer_names.frame_count(), kNoFunction);
  auto function = [&](StringId frame) {
    FuncId& f = function_of[frame];
    if (f == kNoFunction) f = builder.function(timer_names.frame(frame));
    return f;
  };
  std::string name;
  std::vector<StringId> frames;
  for (std::size_t r = 0; r < names.size(); ++r) {
    if (options.memory_budget && (r & 1023) == 0 && p.approximate_bytes() > options.memory_budget)
      return bad_input(formats::over_budget_message(input.path(), options.memory_budget, p.functions.size(), nm));
    timer_names.frames(names[r], frames);
    const std::size_t n = frames.size();
    if (n >= 2 && !timer_names.frame(frames[n - 1]).starts_with("=> ") &&
        !timer_names.frame(frames[n - 2]).starts_with("=> ")) {
      FuncId from = function(frames[n - 2]), to = function(frames[n - 1]);  // in this order
      builder.call_path(from, to, calls[r], &excl[r * nm], &incl[r * nm]);
    } else {
      builder.timer(timer_names.name(names[r], name), calls[r], &excl[r * nm], &incl[r * nm]);
    }
  }
  for (const auto& [k, v] : files[0].metadata) p.metadata.emplace_back(p.strings.intern(k), p.strings.intern(v));
  builder.finish(input.path(), diag);
  return p;
}

}  // namespace graphgen::tau
