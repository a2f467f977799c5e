#include "reader.h"

#include <fmt/format.h>

#include <unordered_map>
#include <vector>

#include "common/gprof_text.h"
#include "graphgen/flat_index.h"
#include "graphgen/text.h"

namespace graphgen::prof {

namespace {

using namespace gprof_text;

bool words_are(const std::vector<std::string_view>& w, std::initializer_list<std::string_view> want) {
  return w.size() == want.size() && std::equal(w.begin(), w.end(), want.begin());
}

// The call-graph header lines of GNU and BSD gprof (and of GNU's -T, which
// spells BSD's "descendents" "descendants").
bool is_header(std::string_view line) {
  std::vector<std::string_view> w = words(line);
  if (w.empty()) return false;
  if (w[0] == "called/total")
    return words_are(w, {"called/total", "parents"}) || words_are(w, {"called/total", "children"});
  if (!line.starts_with("index")) return false;
  return words_are(w, {"index", "%", "time", "self", "children", "called", "name"}) ||
         words_are(w, {"index", "%", "self", "children", "called", "name"}) ||
         words_are(w, {"index", "%time", "self", "descendents", "called+self", "name", "index"}) ||
         words_are(w, {"index", "%time", "self", "descendants", "called+self", "name", "index"});  // GNU's -T
}

bool is_dashes(std::string_view line) {
  if (line.empty()) return false;
  for (char c : line)
    if (c != '-') return false;
  return true;
}

// `<spontaneous>` and `name (I)` lines: nothing to read, nothing wrong.
bool is_ignored(std::string_view line) {
  std::string_view t = line;
  while (!t.empty() && is_space(t.back())) t.remove_suffix(1);
  std::size_t i = 0;
  skip_spaces(t, i);
  if (i > 0 && t.substr(i) == "<spontaneous>") return true;
  if (t.size() >= 3 && t.back() == ')') {
    std::size_t open = t.rfind('(');
    std::uint64_t n;
    if (open != std::string_view::npos && parse_u64(t.substr(open + 1, t.size() - open - 2), n)) return true;
  }
  return false;
}

struct Primary {
  std::uint64_t index = 0;
  double self = 0, children = 0;
  bool has_called = false;
  std::uint64_t called = 0, self_calls = 0;
  bool has_self_calls = false;
  Tail tail;
};

// '[' I ']' pct self children [called['+'selfcalls]] tail
bool parse_primary(std::string_view line, Primary& out) {
  if (line.empty() || line[0] != '[') return false;
  std::size_t i = 1;
  if (!take_count(line, i, out.index, ']')) return false;
  if (i < line.size() && line[i] == ']') ++i;
  double pct = 0;
  for (double* v : {&pct, &out.self, &out.children}) {
    std::size_t before = i;
    skip_spaces(line, i);
    if (i == before || !take_decimal(line, i, *v)) return false;
  }
  std::size_t before = i;
  skip_spaces(line, i);
  if (i == before) return false;
  out.has_called = out.has_self_calls = false;
  std::size_t j = i;
  std::uint64_t called = 0;
  if (take_count(line, j, called, '+')) {
    std::size_t k = j;
    std::uint64_t self_calls = 0;
    bool plus = k < line.size() && line[k] == '+';
    if (plus) ++k;
    if (!plus || take_count(line, k, self_calls)) {
      std::size_t after = k;
      skip_spaces(line, after);
      if (after > k) {  // a blank must follow the count
        out.has_called = true;
        out.called = called;
        out.has_self_calls = plus;
        out.self_calls = self_calls;
        i = after;
      }
    }
  }
  if (!tail(line.substr(i), out.tail)) return false;
  out.tail.name_at = i;
  return true;
}

struct Arc {
  double self = 0, children = 0;
  std::uint64_t called = 0;
  Tail tail;
};

// blank+ [self] [children] count['/'total] tail
bool parse_arc(std::string_view line, Arc& out) {
  if (line.empty() || !is_space(line[0])) return false;
  std::size_t i = 0;
  skip_spaces(line, i);
  take_self_children(line, i, out.self, out.children);
  if (!take_count(line, i, out.called, '/')) return false;
  if (i < line.size() && line[i] == '/') {
    ++i;
    std::uint64_t total = 0;
    if (!take_count(line, i, total)) return false;
  }
  std::size_t before = i;
  skip_spaces(line, i);
  if (i == before) return false;
  return tail(line.substr(i), out.tail);
}

// `[I] pct self children [called] <cycle N as a whole> [I]`
bool is_cycle_header(std::string_view line) {
  Primary p;
  if (!parse_primary(line, p)) return false;
  std::string_view name = p.tail.name;
  return name.starts_with("<cycle ") && name.ends_with(" as a whole>");
}

class Reader {
 public:
  Reader(const InputFile& in, const formats::ReadOptions& options) : in_(in), options_(options) { start_profile(p_); }

  Expected<Profile> read(Diagnostics& diag) {
    LineScanner scanner(in_.bytes(), &in_);
    std::string_view line;
    bool header = false;
    while (scanner.next(line)) {
      if (is_header(line)) {
        header = true;
        break;
      }
    }
    if (!header)
      return bad_input(at_line(in_.path(), std::max<std::size_t>(scanner.line_number(), 1), 1,
                               "expected gprof's call graph, with its header 'index % time self children called name' "
                               "(gprof without -p), found none before the end of the file"));
    // BSD prints three header lines.
    while (scanner.peek(line) && is_header(line)) scanner.next(line);

    std::vector<std::pair<std::size_t, std::string_view>> entry;  // (line number, text)
    bool form_feed = false;
    while (scanner.next(line)) {
      if ((scanner.line_number() & 4095) == 0 && options_.memory_budget &&
          p_.approximate_bytes() > options_.memory_budget)
        return bad_input(formats::over_budget_message(in_.path(), options_.memory_budget, p_.functions.size(), 1));
      if (!line.empty() && line[0] == '\f') {
        form_feed = true;
        break;
      }
      if (all_spaces(line)) continue;
      if (is_dashes(line)) {
        entry_(entry);
        entry.clear();
        continue;
      }
      entry.emplace_back(scanner.line_number(), line);
    }
    if (!form_feed)
      diag.warn(at_line(in_.path(), scanner.line_number(), 1,
                        fmt::format("expected a form feed line after the call graph, found the end of the file (a "
                                    "cut file?); read the {} functions before it",
                                    p_.listed.size())));
    skipped_.report(in_.path(), "a call graph line gprof writes", diag);
    if (duplicates_)
      diag.warn(fmt::format("{}: {} call graph entries repeat an index of an earlier entry; the first of each was kept",
                            in_.path(), duplicates_));
    return std::move(p_);
  }

 private:
  FuncId function(std::uint64_t index, std::string_view name) { return functions_.get(index, name); }

  void entry_(const std::vector<std::pair<std::size_t, std::string_view>>& lines) {
    if (lines.empty()) return;
    if (lines.front().second[0] == '[') {
      if (!is_cycle_header(lines.front().second)) skipped_.add(lines.front().first, lines.front().second);
      return;  // the cycle's members are read from their own entries
    }
    std::size_t k = 0;
    Arc arc;
    for (; k < lines.size() && lines[k].second[0] != '['; ++k) {
      const auto& [no, text] = lines[k];
      if (!parse_arc(text, arc) && !is_ignored(text)) skipped_.add(no, text);
    }
    Primary primary;
    if (k == lines.size() || !parse_primary(lines[k].second, primary)) {
      const auto& bad = k == lines.size() ? lines.back() : lines[k];
      skipped_.add(bad.first, bad.second);
      return;
    }
    // By the index at the end of the line: GNU gprof prints the one in
    // front with printf's %-6.6s, so from [10000] on it loses its ']' and
    // from [100000] on its last digits ([100000] and [100001] both print
    // as "[10000", as [10000] itself does).
    FuncId f = function(primary.tail.index, primary.tail.name);
    if (!functions_.claim_entry(f)) {
      ++duplicates_;
      return;
    }
    Function& fn = p_.functions[f];
    fn.name = p_.strings.intern(primary.tail.name);
    if (primary.has_called) {
      std::uint64_t calls = primary.called + (primary.has_self_calls ? primary.self_calls : 0);
      fn.calls = static_cast<std::int64_t>(std::min<std::uint64_t>(calls, INT64_MAX));
      // "20+3999960": calls from elsewhere, then from itself (or its
      // cycle), which pstats counts as primitive calls and the rest.
      if (primary.has_self_calls)
        fn.primitive_calls = static_cast<std::int64_t>(std::min<std::uint64_t>(primary.called, INT64_MAX));
    }
    p_.self(f, 0) = float_cost(primary.self);
    p_.listed.push_back(f);
    for (++k; k < lines.size(); ++k) {
      const auto& [no, text] = lines[k];
      if (!parse_arc(text, arc)) {
        if (!is_ignored(text)) skipped_.add(no, text);
        continue;
      }
      FuncId callee = function(arc.tail.index, arc.tail.name);
      // One call per child; a repeated child line replaces the earlier.
      CallId c = functions_.call(f, callee, 0);
      p_.calls[c].count = static_cast<std::int64_t>(std::min<std::uint64_t>(arc.called, INT64_MAX));
      p_.inclusive(c, 0) = float_cost(arc.self + arc.children);
    }
  }

  const InputFile& in_;
  const formats::ReadOptions& options_;
  Profile p_;
  gprof_text::IndexedFunctions functions_{p_};
  Skipped skipped_;
  std::size_t duplicates_ = 0;
};

}  // namespace

bool sniff(std::string_view head) {
  std::size_t i = 0;
  while (i < head.size() && is_space(head[i])) ++i;
  std::string_view start = head.substr(i);
  if (start.starts_with("Flat profile:") || start.starts_with("call graph profile:") || start.starts_with("Call graph"))
    return true;
  // Only then look for a header line (binary heads have no "index").
  if (head.find("index") == std::string_view::npos && head.find("called/total") == std::string_view::npos) return false;
  LineScanner scanner(head);
  std::string_view line;
  while (scanner.next(line))
    if (!scanner.at_end() && is_header(line)) return true;
  return false;
}

Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  Reader reader(input, options);
  return reader.read(diag);
}

}  // namespace graphgen::prof
