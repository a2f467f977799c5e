#include "reader.h"

#include <fmt/format.h>

#include <unordered_map>
#include <vector>

#include "common/gprof_text.h"
#include "graphgen/flat_index.h"
#include "graphgen/text.h"

namespace graphgen::axe {

namespace {

using namespace gprof_text;

bool is_title(std::string_view line) { return line.starts_with("Index "); }

bool is_ruler(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && line[i] == '-') ++i;
  return i >= 5 && i < line.size() && line[i] == ' ';
}

bool is_footer(std::string_view line) {
  std::vector<std::string_view> w = words(line);
  return line.starts_with("Index") && w.size() == 2 && w[0] == "Index" && w[1] == "Function";
}

struct Line {
  std::size_t number;
  std::string_view text;
};

struct Primary {
  std::uint64_t index = 0;
  double pct = 0, self = 0, children = 0;
  Tail tail;
};

bool parse_primary(std::string_view line, Primary& out) {
  if (line.empty() || line[0] != '[') return false;
  std::size_t i = 1;
  if (!take_count(line, i, out.index, ']')) return false;
  if (i < line.size() && line[i] == ']') ++i;
  for (double* v : {&out.pct, &out.self, &out.children}) {
    std::size_t before = i;
    skip_spaces(line, i);
    if (i == before || !take_decimal(line, i, *v)) return false;
  }
  std::size_t before = i;
  skip_spaces(line, i);
  if (i == before) return false;
  return tail(line.substr(i), out.tail, false) && out.tail.has_index;
}

struct Arc {
  double self = 0, children = 0;
  Tail tail;
};

bool parse_arc(std::string_view line, Arc& out) {
  if (line.empty() || !is_space(line[0])) return false;
  std::size_t i = 0;
  skip_spaces(line, i);
  take_self_children(line, i, out.self, out.children, true);
  return i < line.size() && tail(line.substr(i), out.tail, false, true);
}

class Reader {
 public:
  Reader(const InputFile& in, const formats::ReadOptions& options) : in_(in), options_(options) {
    start_profile(p_);
    p_.reports_totals = true;  // VTune prints each function's total
  }

  Expected<Profile> read(Diagnostics& diag) {
    LineScanner scanner(in_.bytes(), &in_);
    std::string_view line;
    bool more = scanner.next(line);
    while (more && (is_title(line) || is_ruler(line))) more = scanner.next(line);
    std::vector<Line> entry;
    bool footer = false;
    for (; more; more = scanner.next(line)) {
      if ((scanner.line_number() & 4095) == 0 && options_.memory_budget &&
          p_.approximate_bytes() > options_.memory_budget)
        return bad_input(formats::over_budget_message(in_.path(), options_.memory_budget, p_.functions.size(), 1));
      if (is_footer(line)) {
        footer = true;
        break;
      }
      if (!line.empty() && all_spaces(line)) {
        entry_(entry);
        entry.clear();
        continue;
      }
      if (!line.empty()) entry.push_back({scanner.line_number(), line});
    }
    if (!footer) {
      if (p_.functions.empty())
        return bad_input(at_line(in_.path(), std::max<std::size_t>(scanner.line_number(), 1), 1,
                                 "expected VTune's call graph entries ('[I] % self children name [I]', then blank "
                                 "lines) and its 'Index Function' table, found neither"));
      entry_(entry);  // a file cut after its last entry
      diag.warn(at_line(in_.path(), scanner.line_number(), 1,
                        "expected the 'Index Function' table after the call graph, found the end of the file (a cut "
                        "file?)"));
    }
    skipped_.report(in_.path(), "a call graph line of VTune's gprof-cc report", diag);
    p_.reported_share.resize(p_.functions.size(), 0.0);
    return std::move(p_);
  }

 private:
  FuncId function(std::uint64_t index, std::string_view name) {
    bool fresh = false;
    FuncId f = functions_.get(index, name, fresh);
    if (fresh) p_.reported_share.push_back(0.0);
    return f;
  }

  void entry_(const std::vector<Line>& lines) {
    if (lines.empty()) return;
    bool cycle = false;
    for (const Line& l : lines) cycle = cycle || l.text.find("as a whole") != std::string_view::npos;
    if (cycle) return;  // a cycle's members are read from their own entries
    Arc arc;
    std::size_t k = 0;
    for (; k < lines.size() && lines[k].text[0] != '['; ++k)
      if (!parse_arc(lines[k].text, arc)) skipped_.add(lines[k].number, lines[k].text);
    Primary primary;
    if (k == lines.size() || !parse_primary(lines[k].text, primary)) {
      const Line& bad = k == lines.size() ? lines.back() : lines[k];
      skipped_.add(bad.number, bad.text);
      return;
    }
    if (primary.tail.name == "<spontaneous>") return;
    FuncId f = function(primary.index, primary.tail.name);
    if (!functions_.claim_entry(f)) return;  // a repeated index: the first entry stands
    p_.functions[f].name = p_.strings.intern(primary.tail.name);
    p_.self(f, 0) = float_cost(primary.self);
    p_.total(f, 0) = float_cost(primary.self + primary.children);
    p_.reported_share[f] = primary.pct / 100.0;
    p_.listed.push_back(f);
    for (++k; k < lines.size(); ++k) {
      if (!parse_arc(lines[k].text, arc) || !arc.tail.has_index) {
        skipped_.add(lines[k].number, lines[k].text);
        continue;
      }
      if (arc.tail.name == "<spontaneous>") continue;
      FuncId callee = function(arc.tail.index, arc.tail.name);
      CallId c = functions_.call(f, callee, kUnknownCount);
      p_.inclusive(c, 0) = float_cost(arc.self + arc.children);
    }
  }

  const InputFile& in_;
  const formats::ReadOptions& options_;
  Profile p_;
  gprof_text::IndexedFunctions functions_{p_};
  Skipped skipped_;
};

}  // namespace

bool sniff(std::string_view head) {
  LineScanner scanner(head);
  std::string_view title, ruler;
  if (!scanner.next(title) || !scanner.next(ruler)) return false;
  return is_title(title) && title.find(":Total") != std::string_view::npos && is_ruler(ruler);
}

Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  Reader reader(input, options);
  return reader.read(diag);
}

}  // namespace graphgen::axe
