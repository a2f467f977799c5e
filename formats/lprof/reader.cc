#include "reader.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <span>

#include "common/pickle.h"
#include "common/python_text.h"
#include "graphgen/flat_index.h"
#include "graphgen/labels.h"
#include "graphgen/text.h"
#include "graphgen/utf8.h"

namespace graphgen::lprof {

bool sniff(std::string_view head) {
  // (A pickle of tracemalloc's Snapshot is a snapshot, tracemalloc/reader.h.)
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x80 && head[1] >= 2 && head[1] <= 5 &&
         head.substr(0, 64).find("tracemalloc") == std::string_view::npos;
}

namespace {

struct FunctionStats {
  StringId file = kNoString;
  std::int64_t line = 0;
  StringId name = kNoString;
  std::vector<detail::LineRow> lines;  // by line number
};

// Strings are interned once per pickle object: a memoised string shared by
// thousands of keys is stored once, not once per key.
struct LineStats {
  double unit = 1e-9;  // seconds per tick
  StringTable strings;
  std::vector<FunctionStats> functions;
};

}  // namespace

namespace {

class Validator {
 public:
  Validator(const pickle::Document& doc, std::string_view path)
      : doc_(doc), path_(path), text_memo_(doc.nodes.size(), UINT32_MAX) {}

  Expected<LineStats> run() {
    const pickle::Node& root = doc_.node(doc_.root);
    if (root.type != pickle::Type::kObject || root.object.state == UINT32_MAX)
      return error(root, fmt::format("expected a LineStats object, found {}: this pickle is not a line_profiler "
                                     "file; give graphgen the .lprof that kernprof -l writes",
                                     pickle::a_type(root.type)));
    const pickle::Node& state = doc_.node(root.object.state);
    const pickle::Node* timings = nullptr;
    const pickle::Node* unit = nullptr;
    const auto items = doc_.items(state);
    for (std::size_t k = 0; k + 1 < items.size(); k += 2) {
      const pickle::Node& key = doc_.node(items[k]);
      if (key.type != pickle::Type::kStr && key.type != pickle::Type::kBytes) continue;
      if (doc_.text(key) == "timings") timings = &doc_.node(items[k + 1]);
      if (doc_.text(key) == "unit") unit = &doc_.node(items[k + 1]);
    }
    if (!timings || timings->type != pickle::Type::kDict)
      return error(state, "expected LineStats 'timings' (a dict), found none");
    if (!unit || (unit->type != pickle::Type::kFloat && unit->type != pickle::Type::kInt))
      return error(state, "expected LineStats 'unit' (a float), found none");
    LineStats& stats = stats_;
    FlatIndex keys;
    stats.unit = unit->type == pickle::Type::kFloat ? unit->f : static_cast<double>(unit->i);
    if (!(stats.unit > 0) || !std::isfinite(stats.unit))
      return error(*unit, fmt::format("expected a positive timer unit, found {}", stats.unit));
    const auto timed = doc_.items(*timings);
    for (std::size_t k = 0; k + 1 < timed.size(); k += 2) {
      FunctionStats f;
      if (auto e = key(doc_.node(timed[k]), f); !e) return e.error();
      if (auto e = entries(doc_.node(timed[k + 1]), f); !e) return e.error();
      // A repeated key (a dict): the later value wins, in the first's place.
      std::uint64_t h = FlatIndex::mix(f.file, f.name, static_cast<std::uint64_t>(f.line));
      bool fresh = false;
      std::uint32_t at = keys.find_or_add(
          h,
          [&](std::uint32_t i) {
            const FunctionStats& g = stats.functions[i];
            return g.file == f.file && g.line == f.line && g.name == f.name;
          },
          [&] {
            fresh = true;
            return static_cast<std::uint32_t>(stats.functions.size());
          });
      if (fresh)
        stats.functions.push_back(std::move(f));
      else
        stats.functions[at] = std::move(f);
    }
    return std::move(stats_);
  }

 private:
  Error error(const pickle::Node& at, std::string message) const {
    return bad_input(fmt::format("{}:+0x{:x}: {}", path_, at.offset, message));
  }

  // Python 3 str as is; Python 2 str (bytes) as UTF-8 if it decodes, else
  // Latin-1. Interned once per pickle object.
  bool text(std::uint32_t index, StringId& out) {
    const pickle::Node& n = doc_.node(index);
    if (n.type != pickle::Type::kStr && n.type != pickle::Type::kBytes) return false;
    StringId& memo = text_memo_[index];
    if (memo == UINT32_MAX) {
      if (n.type == pickle::Type::kStr || formats::valid_utf8_surrogatepass(doc_.text(n))) {
        memo = stats_.strings.intern(doc_.text(n));
      } else {
        std::string latin1;
        formats::append_latin1_as_utf8(doc_.text(n), latin1);
        memo = stats_.strings.intern(latin1);
      }
    }
    out = memo;
    return true;
  }

  Expected<bool> key(const pickle::Node& n, FunctionStats& f) {
    if (n.type != pickle::Type::kTuple || doc_.items(n).size() != 3)
      return error(n, fmt::format("expected a function key (filename, line, name), found {}", pickle::a_type(n.type)));
    const pickle::Node& line = doc_.node(doc_.items(n)[1]);
    if (!text(doc_.items(n)[0], f.file) || line.type != pickle::Type::kInt || !text(doc_.items(n)[2], f.name))
      return error(n, "expected a function key (filename: str, line: int, name: str), found other types");
    f.line = line.i;
    return true;
  }

  Expected<bool> entries(const pickle::Node& n, FunctionStats& f) const {
    if (n.type != pickle::Type::kList)
      return error(n, fmt::format("expected a list of (line, hits, time), found {}", pickle::a_type(n.type)));
    for (std::uint32_t item : doc_.items(n)) {
      const pickle::Node& t = doc_.node(item);
      if (t.type != pickle::Type::kTuple || doc_.items(t).size() != 3)
        return error(t, fmt::format("expected a (line, hits, time) tuple, found {}", pickle::a_type(t.type)));
      std::int64_t v[3];
      for (int k = 0; k < 3; ++k) {
        const pickle::Node& x = doc_.node(doc_.items(t)[static_cast<std::size_t>(k)]);
        if (x.type != pickle::Type::kInt)
          return error(x,
                       fmt::format("expected an int in a (line, hits, time) tuple, found {}", pickle::a_type(x.type)));
        v[k] = x.i;
      }
      if (v[1] < 0) return error(t, fmt::format("expected a hit count of 0 or more, found {}", v[1]));
      f.lines.push_back({v[0], v[1], v[2]});
    }
    auto* rows = f.lines.data();
    f.lines.resize(static_cast<std::size_t>(detail::merge_lines(rows, rows + f.lines.size()) - rows));
    return true;
  }

  const pickle::Document& doc_;
  std::string_view path_;
  std::vector<StringId> text_memo_;
  LineStats stats_;
};

// The profile of the stats, each function's lines given back once they
// are rows of the profile.
Profile to_profile(LineStats& stats, bool keep_lines) {
  Profile p;
  p.strings = std::move(stats.strings);
  p.label_style = LabelStyle::kPython;
  detail::name_events(p, stats.unit);
  // Each table sized once: growing by doubling held the old and the new
  // (5.5 million lines: 2 x 192 MB).
  std::size_t lines = 0;
  for (const FunctionStats& f : stats.functions) lines += f.lines.size();
  p.functions.reserve(stats.functions.size());
  p.self_cost.reserve(stats.functions.size() * p.events.size());
  if (keep_lines) {
    p.line_costs.reserve(lines);
    p.line_cost_values.reserve(lines * p.events.size());
  }
  for (FunctionStats& f : stats.functions) {
    detail::add_timed_function(p, f.name, f.file, f.line, f.lines.data(), f.lines.data() + f.lines.size(), keep_lines);
    f.lines = decltype(f.lines)();  // (`= {}` would keep the room)
  }
  return p;
}

}  // namespace

namespace {

// line_profiler's LineStats, as each version's module names it.
const pickle::Allowed kLineStats = {{{"_line_profiler", "LineStats"},
                                     {"line_profiler._line_profiler", "LineStats"},
                                     {"line_profiler.line_profiler", "LineStats"}},
                                    "only line_profiler's LineStats may appear in a .lprof file"};

}  // namespace

bool detail::is_line_stats(std::string_view module, std::string_view name) {
  return std::find(kLineStats.classes.begin(), kLineStats.classes.end(), std::pair{module, name}) !=
         kLineStats.classes.end();
}

detail::LineRow* detail::merge_lines(LineRow* first, LineRow* last) {
  std::stable_sort(first, last, [](const LineRow& x, const LineRow& y) { return x[0] < y[0]; });
  LineRow* out = first;
  for (LineRow* it = first; it != last; ++it) {
    if (out != first && (out - 1)->at(0) == (*it)[0]) {
      (out - 1)->at(1) = saturating_add((out - 1)->at(1), (*it)[1]);
      (out - 1)->at(2) = saturating_add((out - 1)->at(2), (*it)[2]);
    } else {
      *out++ = *it;
    }
  }
  return out;
}

void detail::name_events(Profile& p, double unit) {
  p.events.resize(2);
  p.events[0] = {p.strings.intern("time"), p.strings.intern("tick"), unit, false, kNoString};
  p.events[1] = {p.strings.intern("hits"), kNoString, 0, false, kNoString};
}

void detail::add_timed_function(Profile& p, StringId name, StringId file, std::int64_t line, const LineRow* first,
                                const LineRow* last, bool keep_lines) {
  Function fn;
  fn.name = name;
  fn.file = file;
  fn.line = line;
  const FuncId id = p.add_function(fn);
  for (const LineRow* row = first; row != last; ++row) {
    p.self(id, 0) = saturating_add(p.self(id, 0), (*row)[2]);
    p.self(id, 1) = saturating_add(p.self(id, 1), (*row)[1]);
    if (!keep_lines) continue;
    p.line_costs.push_back({.function = id,
                            .file = file,
                            .line = static_cast<std::uint32_t>(std::clamp<std::int64_t>((*row)[0], 0, UINT32_MAX))});
    p.line_cost_values.push_back((*row)[2]);
    p.line_cost_values.push_back((*row)[1]);
  }
}

Expected<Profile> read(const InputFile& input, Diagnostics& diag, bool keep_lines) {
  if (auto streamed = read_streaming(input, diag, keep_lines)) return std::move(*streamed);
  return read_general(input, diag, keep_lines);
}

Expected<Profile> read_general(const InputFile& input, Diagnostics&, bool keep_lines) {
  Expected<LineStats> stats = [&]() -> Expected<LineStats> {
    // The decoded pickle (16 bytes a node, four nodes a line) is gone
    // before the profile is made from what it held.
    auto doc = pickle::decode(input.bytes(), input.path(), kLineStats);
    if (!doc) return doc.error();
    return Validator(*doc, input.path()).run();
  }();
  if (!stats) return stats.error();
  return to_profile(stats.value(), keep_lines);
}

bool has_line_report(const Profile& p) {
  return p.events.size() == 2 && p.events[0].seconds_per_unit > 0 && !p.events[0].floating &&
         p.str(p.events[1].name) == "hits";
}

namespace {

// Python's '%6s %9s %12s %8s %8s  %-s'.
std::string row(std::string_view a, std::string_view b, std::string_view c, std::string_view d, std::string_view e,
                std::string_view text) {
  return fmt::format("{:>6} {:>9} {:>12} {:>8} {:>8}  {}", a, b, c, d, e, text);
}

std::size_t indent_of(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return i;
}

// inspect.getblock() for a def (with decorators) starting at lines[0]: the
// decorators and the def's logical line, then the body up to its last
// logical line (trailing blank and comment lines excluded), logical lines
// joined as the tokenizer joins them (formats::LogicalLines), so docstrings
// and wrapped lines do not end the block. A `lambda` met before any def or
// class (outside a decorator's line) ends the block with its logical line,
// as getblock's tokens do: `f = staticmethod(lambda x: 0.0)` is one line,
// not the class that follows it.
std::size_t block_length(std::span<const std::string> lines) {
  formats::LogicalLines logical;
  std::size_t base_indent = 0;
  bool seen_def = false, in_body = false, lambda = false, decorator = false;
  std::size_t body_col = SIZE_MAX;  // indentation of the body's first statement
  std::size_t last = 0;             // lines[0..last) is the block so far
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& s = lines[i];
    bool continuation = logical.inside();  // this line continues a logical line
    std::size_t ind = indent_of(s);
    bool blank = ind >= s.size() || s[ind] == '\n' || s[ind] == '\r' || s[ind] == '#';
    bool comment = !continuation && ind < s.size() && s[ind] == '#';
    // Comments indented at least as deep as the body belong to it.
    if (comment && in_body && body_col != SIZE_MAX && ind >= body_col) last = i + 1;
    if (!continuation && !blank) {
      if (in_body && body_col == SIZE_MAX) body_col = ind;
      decorator = s[ind] == '@';
      if (!seen_def) {
        std::string_view rest = std::string_view(s).substr(ind);
        if (i == 0) base_indent = ind;
        if (rest.starts_with("def ") || rest.starts_with("async def ") || rest.starts_with("class ")) seen_def = true;
      } else if (in_body && ind <= base_indent) {
        break;
      }
    }
    const formats::LogicalLines::Line line = logical.next(s, [&](std::size_t begin, std::size_t end) {
      if (!seen_def && !decorator && std::string_view(s).substr(begin, end - begin) == "lambda") lambda = true;
    });
    if ((!blank || continuation) && line.ends) {
      last = i + 1;
      if (lambda) return last;
      if (seen_def && !in_body) {
        // A one-line def ("def f(): pass") is the whole block. (The def's
        // colon is the last outside its comment: `def f():  # noqa: F811`
        // has no body on its line.)
        std::string_view t = std::string_view(s).substr(0, line.code_end);
        std::size_t colon = t.rfind(':');
        std::string_view after = colon == std::string_view::npos ? "" : t.substr(colon + 1);
        std::size_t a = after.find_first_not_of(" \t\r\n");
        bool inline_body = a != std::string_view::npos && after[a] != '#';
        if (inline_body) return last;
        in_body = true;
      }
    }
  }
  return std::max<std::size_t>(last, 1);
}

// Python's '%g', through fmt: no buffer, whatever the value.
std::string general(double v) { return fmt::format("{:g}", v); }

// `v` right-aligned in `width` columns.
void right(std::string& out, std::int64_t v, std::size_t width) {
  char buf[24];
  const auto n = static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf);
  if (n < width) out.append(width - n, ' ');
  out.append(buf, n);
}

// One line of the table: Python's '%6s %9s %12s %8s %8s  %-s', the
// timings of `r` (a row of (line, hits, ticks)) or none.
void table_line(std::string& out, std::int64_t lineno, const std::array<std::int64_t, 3>* r, double total,
                double scalar, std::string_view text) {
  right(out, lineno, 6);
  out += ' ';
  if (!r) {
    out.append(9 + 1 + 12 + 1 + 8 + 1 + 8, ' ');
  } else {
    const double time = static_cast<double>((*r)[2]);
    right(out, (*r)[1], 9);
    out += ' ';
    append_fixed1(out, time * scalar, 12);
    out += ' ';
    if ((*r)[1] == 0)
      out.append(8, ' ');
    else
      append_fixed1(out, time * scalar / static_cast<double>((*r)[1]), 8);
    out += ' ';
    if (total == 0)
      out.append(8, ' ');
    else
      append_fixed1(out, 100 * time / total, 8);
  }
  out += "  ";
  out += text;
  out += '\n';
}

struct ReportFunction {
  FuncId id;
  std::string_view file, name;
  std::int64_t line;
  std::vector<std::array<std::int64_t, 3>> rows;  // (line, hits, ticks), by line
};

// More lines than this without the source to show: only timed lines are printed.
constexpr std::int64_t kMaxBlankSpan = 100000;

// A function's table: its header, then a line for each number shown (the
// source line `k` of `sub` beside the k-th number, when there is a source).
void table(std::string& out, const ReportFunction& f, std::span<const std::string> sub,
           const std::vector<std::int64_t>& numbers, double total, double scalar, std::string& text) {
  std::string header = row("Line #", "Hits", "Time", "Per Hit", "% Time", "Line Contents");
  out += "\n" + header + "\n" + std::string(header.size(), '=') + "\n";
  // The numbers shown never decrease, and the rows are sorted: one walk
  // finds each number's timings, the last row of its line (as a map
  // assigned in row order kept).
  std::size_t at = 0, group_end = 0;
  std::int64_t group_line = 0;
  bool grouped = false;
  const std::size_t shown = sub.empty() ? numbers.size() : sub.size();
  for (std::size_t k = 0; k < shown; ++k) {
    const std::int64_t lineno = numbers[k];
    if (!grouped || lineno != group_line) {
      while (at < f.rows.size() && f.rows[at][0] < lineno) ++at;
      group_end = at;
      while (group_end < f.rows.size() && f.rows[group_end][0] == lineno) ++group_end;
      group_line = lineno;
      grouped = true;
    }
    text.clear();  // the line as the source shows it: tabs kept, other controls escaped
    if (!sub.empty()) {
      std::string_view line = sub[k];
      while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
      for (std::size_t tab; (tab = line.find('\t')) != std::string_view::npos; line.remove_prefix(tab + 1)) {
        append_visible(text, line.substr(0, tab));
        text += '\t';
      }
      append_visible(text, line);
    }
    table_line(out, lineno, group_end > at ? &f.rows[group_end - 1] : nullptr, total, scalar, text);
  }
}

}  // namespace

Expected<std::string> write_text(const Profile& p, const TextOptions& options, Diagnostics& diag) {
  std::string out;
  out.reserve(output_reservation(options.max_bytes, 4096));
  out += fmt::format("Timer unit: {} s\n\n", general(options.output_unit));
  std::vector<ReportFunction> functions(p.functions.size());
  for (FuncId f = 0; f < p.functions.size(); ++f) {
    const Function& fn = p.functions[f];
    functions[f] = {f, p.str(fn.file), p.str(fn.name), fn.line, {}};
  }
  for (std::size_t r = 0; r < p.line_costs.size(); ++r)
    functions[p.line_costs[r].function].rows.push_back(
        {p.line_costs[r].line, p.line_cost_values[r * 2 + 1], p.line_cost_values[r * 2]});
  std::sort(functions.begin(), functions.end(), [](const ReportFunction& a, const ReportFunction& b) {
    return std::tie(a.file, a.line, a.name) < std::tie(b.file, b.line, b.name);
  });
  const double unit = p.events[0].seconds_per_unit;
  const double scalar = unit / options.output_unit;
  std::vector<std::string> source;
  std::string text;
  for (ReportFunction& f : functions) {
    if (options.max_bytes && out.size() + f.file.size() + f.name.size() > options.max_bytes)
      return output_too_large("text", options.max_bytes);
    std::sort(f.rows.begin(), f.rows.end());
    double total = 0.0;
    for (const auto& r : f.rows) total += static_cast<double>(r[2]);
    if (options.skip_zero && total == 0) continue;
    out += fmt::format("Total time: {} s\n", general(total * unit));
    std::string file(f.file);
    std::span<const std::string> sub;   // the source lines shown, if any
    std::vector<std::int64_t> numbers;  // the line number of each row shown
    if (options.no_source) {
      source.clear();
      out += fmt::format("File: {}\nFunction: {} at line {}\n", visible_text(f.file), visible_text(f.name), f.line);
    }
    if (!options.no_source && formats::read_source(file, options.source_root, source)) {
      out += fmt::format("File: {}\nFunction: {} at line {}\n", visible_text(f.file), visible_text(f.name), f.line);
      if (f.line >= 1 && static_cast<std::size_t>(f.line) <= source.size()) {
        // (A view: each function of a long file copied the rest of it.)
        sub = std::span<const std::string>(source).subspan(static_cast<std::size_t>(f.line - 1));
        sub = sub.first(block_length(sub));
      }
      for (std::size_t k = 0; k < sub.size(); ++k) numbers.push_back(f.line + static_cast<std::int64_t>(k));
    } else {
      if (!options.no_source) {
        out += fmt::format("\nCould not find file {}\n", visible_text(f.file));
        out += "Are you sure you are running this program from the same directory\n";
        out += "that you ran the profiler from?\n";
        out += "Continuing without the function's contents.\n";
      }
      // Checked arithmetic: a file may give any 64-bit first line.
      std::int64_t lo = f.line, n = 1, last = 0;
      bool huge = false;
      if (!f.rows.empty()) {
        lo = std::min(f.rows.front()[0], f.line);
        std::int64_t d = 0;
        huge = __builtin_sub_overflow(f.rows.back()[0], lo, &d) || __builtin_add_overflow(d, 1, &n);
      }
      huge = huge || n > kMaxBlankSpan || __builtin_add_overflow(f.line, n, &last);
      if (huge) {
        // The profile's own numbers would have the report print millions of
        // empty lines: print the timed ones only.
        diag.warn(fmt::format("{}: {} spans more than {} lines without its source; only its timed lines are printed",
                              quote_input(f.file), quote_input(f.name), kMaxBlankSpan));
        for (const auto& r : f.rows) numbers.push_back(r[0]);
      } else {
        for (std::int64_t k = 0; k < std::max<std::int64_t>(n, 1); ++k) numbers.push_back(f.line + k);
      }
    }
    table(out, f, sub, numbers, total, scalar, text);
    out += "\n";
  }
  return out;
}

}  // namespace graphgen::lprof
