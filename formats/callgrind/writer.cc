#include "writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace graphgen::callgrind {

std::string_view event_long_name(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 22> kNames = {{
      {"Ir", "Instruction Fetch"},
      {"Dr", "Data Read Access"},
      {"Dw", "Data Write Access"},
      {"I1mr", "L1 Instr. Fetch Miss"},
      {"D1mr", "L1 Data Read Miss"},
      {"D1mw", "L1 Data Write Miss"},
      {"ILmr", "LL Instr. Fetch Miss"},
      {"DLmr", "LL Data Read Miss"},
      {"DLmw", "LL Data Write Miss"},
      {"I2mr", "L2 Instr. Fetch Miss"},
      {"D2mr", "L2 Data Read Miss"},
      {"D2mw", "L2 Data Write Miss"},
      {"Bc", "Conditional Branches Executed"},
      {"Bcm", "Mispredicted Cond. Branches"},
      {"Bi", "Indirect Branches Executed"},
      {"Bim", "Mispredicted Ind. Branches"},
      {"Ge", "Global Bus Events"},
      {"ns", "Nanoseconds"},
      {"samples", "Samples"},
      {"period", "Sample period"},
      {"hits", "Hits"},
      {"time", "Time"},
  }};
  for (const auto& [short_name, long_name] : kNames)
    if (short_name == name) return long_name;
  return name;
}

namespace {

// Event names must be identifiers; model names are already (Ir, ns,
// samples), but a "time" event in ns is called ns.
std::string event_name(const Profile& p, const Event& e) {
  std::string name(p.str(e.unit) == "ns" && p.str(e.name) == "time" ? "ns" : p.str(e.name));
  for (char& c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) c = '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name.insert(0, "_");
  return name;
}

std::string clean(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  return out;
}

// name=(id) text on first use, (id) after, per kind.
class Names {
 public:
  std::string ref(StringId s, std::string_view text) {
    auto [it, inserted] = ids_.try_emplace(s, static_cast<std::uint32_t>(ids_.size() + 1));
    if (inserted) return fmt::format("({}) {}", it->second, clean(text.empty() ? "???" : text));
    return fmt::format("({})", it->second);
  }

 private:
  std::map<StringId, std::uint32_t> ids_;
};

class Writer {
 public:
  Writer(const Profile& p, const WriteOptions& o) : p_(p), o_(o), ne_(p.events.size()) {}

  std::string run() {
    plan_names();
    std::vector<Cost> totals(ne_, 0);
    for (FuncId f = 0; f < p_.functions.size(); ++f)
      for (std::size_t e = 0; e < ne_; ++e) totals[e] = saturating_add(totals[e], clamp(p_.self(f, e)));
    out_ += "# callgrind format\nversion: 1\n";
    out_ += fmt::format("creator: {}\n", clean(o_.creator));
    out_ += fmt::format("cmd: {}\n", clean(o_.cmd));
    out_ += "part: 1\npositions: line\n";
    std::vector<std::string> names;
    for (const Event& e : p_.events) {
      names.push_back(event_name(p_, e));
      out_ += fmt::format("event: {} : {}\n", names.back(), event_long_name(names.back()));
    }
    out_ += "events:";
    for (const std::string& n : names) out_ += " " + n;
    out_ += "\nsummary:";
    append_costs(totals);
    out_ += "\n\n";
    index_rows();
    for (FuncId f = 0; f < p_.functions.size(); ++f) write_function(f);
    out_ += "totals:";
    append_costs(totals);
    out_ += "\n";
    return std::move(out_);
  }

 private:
  static Cost clamp(Cost c) { return c < 0 ? 0 : c; }

  void append_costs(const std::vector<Cost>& costs) {
    for (Cost c : costs) out_ += fmt::format(" {}", c);
  }
  void append_costs(const Cost* costs) {
    for (std::size_t e = 0; e < ne_; ++e) out_ += fmt::format(" {}", clamp(costs[e]));
  }

  // pstats-style files: one file may hold several functions of one name
  // (e.g. <genexpr>); those become name:line, as pyprof2calltree does.
  // Functions of different objects are told apart by ob= already.
  void plan_names() {
    std::map<std::tuple<StringId, StringId, StringId>, std::vector<FuncId>> by_file_name;
    for (FuncId f = 0; f < p_.functions.size(); ++f)
      by_file_name[{p_.functions[f].object, p_.functions[f].file, p_.functions[f].name}].push_back(f);
    display_.resize(p_.functions.size());
    for (FuncId f = 0; f < p_.functions.size(); ++f) {
      const Function& fn = p_.functions[f];
      std::string_view name = p_.str(fn.name).empty() ? p_.str(fn.label) : p_.str(fn.name);
      const auto& same = by_file_name[{fn.object, fn.file, fn.name}];
      bool distinct_lines = false;
      for (FuncId g : same)
        if (p_.functions[g].line != fn.line) distinct_lines = true;
      display_[f] = distinct_lines ? fmt::format("{}:{}", name, fn.line) : std::string(name);
    }
  }

  void index_rows() {
    rows_of_.assign(p_.functions.size() + 1, 0);
    for (const LineCost& lc : p_.line_costs) ++rows_of_[lc.function + 1];
    for (std::size_t i = 0; i < p_.functions.size(); ++i) rows_of_[i + 1] += rows_of_[i];
    row_order_.resize(p_.line_costs.size());
    std::vector<std::uint32_t> fill(rows_of_.begin(), rows_of_.end() - 1);
    for (std::uint32_t r = 0; r < p_.line_costs.size(); ++r) row_order_[fill[p_.line_costs[r].function]++] = r;
    calls_of_.assign(p_.functions.size() + 1, 0);
    for (const Call& c : p_.calls) ++calls_of_[c.caller + 1];
    for (std::size_t i = 0; i < p_.functions.size(); ++i) calls_of_[i + 1] += calls_of_[i];
    call_order_.resize(p_.calls.size());
    std::vector<std::uint32_t> cfill(calls_of_.begin(), calls_of_.end() - 1);
    for (CallId c = 0; c < p_.calls.size(); ++c) call_order_[cfill[p_.calls[c].caller]++] = c;
  }

  void write_function(FuncId f) {
    const Function& fn = p_.functions[f];
    if (fn.object != kNoString || current_object_ != kNoString) {
      if (fn.object != current_object_) out_ += "ob=" + objects_.ref(fn.object, p_.str(fn.object)) + "\n";
      current_object_ = fn.object;
    }
    out_ += "fl=" + files_.ref(fn.file, p_.str(fn.file)) + "\n";
    out_ += "fn=" + functions_.ref(static_cast<StringId>(f), display_[f]) + "\n";
    // Self costs: per source line where the input had them, the rest on the
    // function's first line.
    std::vector<Cost> rest(ne_);
    for (std::size_t e = 0; e < ne_; ++e) rest[e] = p_.self(f, e);
    StringId file = fn.file;
    for (std::uint32_t i = rows_of_[f]; i < rows_of_[f + 1]; ++i) {
      std::uint32_t r = row_order_[i];
      const LineCost& lc = p_.line_costs[r];
      const Cost* costs = &p_.line_cost_values[static_cast<std::size_t>(r) * ne_];
      if (lc.file != file) {
        out_ += (lc.file == fn.file ? "fe=" : "fi=") + files_.ref(lc.file, p_.str(lc.file)) + "\n";
        file = lc.file;
      }
      out_ += fmt::format("{}", lc.line);
      append_costs(costs);
      out_ += "\n";
      for (std::size_t e = 0; e < ne_; ++e) rest[e] -= costs[e];
    }
    if (file != fn.file) out_ += "fe=" + files_.ref(fn.file, p_.str(fn.file)) + "\n";
    bool any = rows_of_[f] == rows_of_[f + 1] || std::any_of(rest.begin(), rest.end(), [](Cost c) { return c != 0; });
    if (any) {
      out_ += fmt::format("{}", fn.line);
      append_costs(rest.data());
      out_ += "\n";
    }
    for (std::uint32_t i = calls_of_[f]; i < calls_of_[f + 1]; ++i) write_call(fn, call_order_[i]);
    out_ += "\n";
  }

  void write_call(const Function& caller, CallId c) {
    const Call& call = p_.calls[c];
    const Function& callee = p_.functions[call.callee];
    if (callee.object != caller.object) out_ += "cob=" + objects_.ref(callee.object, p_.str(callee.object)) + "\n";
    if (callee.file != caller.file) out_ += "cfi=" + files_.ref(callee.file, p_.str(callee.file)) + "\n";
    out_ += "cfn=" + functions_.ref(static_cast<StringId>(call.callee), display_[call.callee]) + "\n";
    std::int64_t count = call.count;
    if (count == kUnknownCount) {  // sampled: the samples through the call stand in
      count = 0;
      for (std::size_t e = 0; e < ne_; ++e) count = std::max(count, p_.inclusive(c, e));
    }
    out_ += fmt::format("calls={} {}\n{}", std::max<std::int64_t>(count, 0), callee.line, caller.line);
    append_costs(&p_.call_cost[static_cast<std::size_t>(c) * ne_]);
    out_ += "\n";
  }

  const Profile& p_;
  const WriteOptions& o_;
  std::size_t ne_;
  std::string out_;
  Names objects_, files_, functions_;
  StringId current_object_ = kNoString;
  std::vector<std::string> display_;
  std::vector<std::uint32_t> rows_of_, row_order_, calls_of_, call_order_;
};

}  // namespace

std::string write(const Profile& p, const WriteOptions& options) { return Writer(p, options).run(); }

}  // namespace graphgen::callgrind
