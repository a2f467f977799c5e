#include "writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "graphgen/labels.h"
#include "graphgen/text.h"
#include "graphgen/utf8.h"

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

// Event names must be identifiers; time events in seconds are written in
// whole nanoseconds (as pyprof2calltree does) and named ns.
bool in_ns(const Event& e) { return is_time(e); }

std::string event_name(const Profile& p, const Event& e) {
  std::string name(in_ns(e) ? std::string_view("ns") : p.str(e.name));
  for (char& c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) c = '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name.insert(0, "_");
  return name;
}

// A name on one line: controls as visible escapes, invalid UTF-8 as U+FFFD.
std::string clean(std::string_view s) { return visible_text(s); }

// name=(id) text on first use, (id) after, per kind. Keys are string or
// function ids, so a table indexed by them finds each (a std::map of 100 000
// functions' ids was a third of a pstats file's -T callgrind write).
class Names {
 public:
  /// Appends "(id) text" the first time `key` is written, "(id)" after;
  /// `text()` is only called the first time.
  template <class Text>
  void put(std::string& out, std::uint32_t key, Text&& text) {
    std::uint32_t& id = slot(key);
    const bool first = id == 0;
    if (first) id = ++count_;
    out += '(';
    append_integer(out, id);
    out += ')';
    if (!first) return;
    const auto& t = text();
    const std::string_view v = t;
    out += ' ';
    out += clean(v.empty() ? "???" : v);
  }

 private:
  std::uint32_t& slot(std::uint32_t key) {
    if (key >= ids_.size()) ids_.resize(std::max<std::size_t>(key + 1, ids_.size() * 2), 0);
    return ids_[key];
  }

  std::vector<std::uint32_t> ids_;  // key (below the profile's string or function count) -> id, 0: none yet
  std::uint32_t count_ = 0;
};

std::uint32_t clamp_line(std::int64_t line) {
  return line < 0 ? 0 : static_cast<std::uint32_t>(std::min<std::int64_t>(line, UINT32_MAX));
}

class Writer {
 public:
  Writer(const Profile& p, const WriteOptions& o)
      : p_(p), o_(o), ne_(p.events.size()), samples_(sample_count_event(p)) {}

  Expected<std::string> run() {
    out_.reserve(output_reservation(o_.max_bytes, 4096 + p_.functions.size() * 64));
    plan_names();
    std::vector<Cost> totals(ne_, 0), self_sums(ne_, 0);
    for (FuncId f = 0; f < p_.functions.size(); ++f)
      for (std::size_t e = 0; e < ne_; ++e) {
        totals[e] = saturating_add(totals[e], cost(e, p_.self(f, e)));
        self_sums[e] = saturating_add(self_sums[e], p_.self(f, e));
      }
    // The input's own summary and totals while its costs are unchanged
    // (valgrind's can differ from the cost lines' sum by a few units).
    const auto& reported = p_.reported;
    const bool as_read = reported.self_sums == self_sums;
    const std::vector<Cost>& summary = as_read && !reported.summary.empty() ? reported.summary : totals;
    const std::vector<Cost>& final_totals = as_read && !reported.totals.empty() ? reported.totals : totals;
    out_ += "# callgrind format\nversion: 1\n";
    bool creator = false, cmd = false;
    for (const auto& [k, v] : p_.metadata) {
      creator = creator || p_.str(k) == "creator";
      cmd = cmd || p_.str(k) == "cmd";
      out_ += fmt::format("{}:{}\n", clean(p_.str(k)), clean(p_.str(v)));
    }
    if (!creator) out_ += fmt::format("creator: {}\n", clean(o_.creator));
    if (!cmd) out_ += fmt::format("cmd: {}\n", clean(o_.cmd));
    if (p_.metadata.empty()) out_ += "part: 1\n";
    with_address_ = (p_.positions & kPositionAddress) != 0;
    with_line_ = (p_.positions & kPositionLine) != 0 || !with_address_;
    out_ += with_address_ ? (with_line_ ? "positions: instr line\n" : "positions: instr\n") : "positions: line\n";
    std::vector<std::string> names;
    for (const Event& e : p_.events) {
      names.push_back(event_name(p_, e));
      std::string_view long_name = e.long_name != kNoString ? p_.str(e.long_name) : event_long_name(names.back());
      out_ += fmt::format("event: {} : {}\n", names.back(), clean(long_name));
    }
    out_ += "events:";
    for (const std::string& n : names) out_ += " " + n;
    out_ += "\nsummary:";
    append_costs(summary);
    out_ += "\n\n";
    index_rows();
    for (FuncId f : block_order()) {
      if (o_.max_bytes && out_.size() + p_.str(p_.functions[f].name).size() > o_.max_bytes)
        return output_too_large("callgrind", o_.max_bytes);
      write_function(f);
      if (o_.max_bytes && out_.size() > o_.max_bytes) return output_too_large("callgrind", o_.max_bytes);
    }
    out_ += "totals:";
    append_costs(final_totals);
    out_ += "\n";
    return std::move(out_);
  }

 private:
  // A cost as written: whole non-negative numbers (ns for time events).
  Cost cost(std::size_t e, Cost c) const {
    const Event& ev = p_.events[e];
    if (in_ns(ev) && (ev.floating || ev.seconds_per_unit != 1e-9)) {
      double ns = event_value(ev, c) * 1e9;
      return ns >= 9.2e18 ? INT64_MAX : !(ns > 0) ? 0 : static_cast<Cost>(std::llround(ns));
    }
    return c < 0 ? 0 : c;
  }

  Cost minus(std::size_t e, Cost a, Cost b) const {
    if (p_.events[e].floating) return float_cost(cost_float(a) - cost_float(b));
    return saturating_add(a, b == INT64_MIN ? INT64_MAX : -b);
  }

  template <class Int>
  void append_number(Int v, int base = 10) {
    append_integer(out_, v, base);
  }

  void append_costs(const std::vector<Cost>& costs) {
    for (Cost c : costs) {
      out_ += ' ';
      append_number(c);
    }
  }
  // The costs of a line: as many as the input wrote (`columns`), and every
  // one up to the last that is not 0 (callgrind leaves out trailing zeros;
  // callgrind_annotate shows `.` for a cost never written, `0` for a 0).
  void append_costs(const Cost* costs, std::uint32_t columns = kAllColumns) {
    std::size_t n = std::min<std::size_t>(ne_, columns);
    for (std::size_t e = n; e < ne_; ++e)
      if (cost(e, costs[e]) != 0) n = e + 1;
    for (std::size_t e = 0; e < n; ++e) {
      out_ += ' ';
      append_number(cost(e, costs[e]));
    }
  }

  void append_position(std::uint64_t address, std::uint32_t line) {
    if (with_address_) {
      out_ += "0x";
      append_number(address, 16);
    }
    if (with_address_ && with_line_) out_ += ' ';
    if (with_line_) append_number(line);
  }

  // pstats-style files: one file may hold several functions of one name
  // (e.g. <genexpr>); those become name:line, as pyprof2calltree does.
  // Functions of different objects are told apart by ob= already.
  void plan_names() {
    std::map<std::tuple<StringId, StringId, StringId>, std::vector<FuncId>> by_file_name;
    for (FuncId f = 0; f < p_.functions.size(); ++f)
      by_file_name[{p_.functions[f].object, p_.functions[f].file, p_.functions[f].name}].push_back(f);
    with_line_suffix_.assign(p_.functions.size(), false);
    for (FuncId f = 0; f < p_.functions.size(); ++f) {
      const Function& fn = p_.functions[f];
      for (FuncId g : by_file_name[{fn.object, fn.file, fn.name}])
        if (p_.functions[g].line != fn.line) with_line_suffix_[f] = true;
    }
  }

  // The name a function is written under (made when first written: names
  // are not copied per function, however long they are).
  std::string display(FuncId f) const {
    const Function& fn = p_.functions[f];
    std::string name = p_.str(fn.name).empty() ? function_label(p_, f) : std::string(p_.str(fn.name));
    return with_line_suffix_[f] ? fmt::format("{}:{}", name, fn.line) : name;
  }

  // `key`=, then a function's reference: its name the first time, its id after.
  void function_ref(std::string_view key, FuncId f) {
    out_ += key;
    functions_.put(out_, f, [&] { return display(f); });
    out_ += '\n';
  }
  // `key`=, then an object's or file's reference.
  void name_ref(std::string_view key, Names& names, StringId s) {
    out_ += key;
    names.put(out_, s, [&] { return p_.str(s); });
    out_ += '\n';
  }

  // CSR lists per function: its rows, its calls, its jumps; per call its sites.
  static void group(std::size_t groups, std::size_t items, const auto& group_of, std::vector<std::uint32_t>& begin,
                    std::vector<std::uint32_t>& order) {
    begin.assign(groups + 1, 0);
    for (std::size_t i = 0; i < items; ++i) ++begin[group_of(i) + 1];
    for (std::size_t g = 0; g < groups; ++g) begin[g + 1] += begin[g];
    order.resize(items);
    std::vector<std::uint32_t> fill(begin.begin(), begin.end() - 1);
    for (std::size_t i = 0; i < items; ++i) order[fill[group_of(i)]++] = static_cast<std::uint32_t>(i);
  }

  void index_rows() {
    const std::size_t n = p_.functions.size();
    group(
        n, p_.line_costs.size(), [&](std::size_t r) { return p_.line_costs[r].function; }, rows_of_, row_order_);
    group(
        n, p_.calls.size(), [&](std::size_t c) { return p_.calls[c].caller; }, calls_of_, call_order_);
    group(
        n, p_.jumps.size(), [&](std::size_t j) { return p_.jumps[j].function; }, jumps_of_, jump_order_);
    group(
        p_.calls.size(), p_.call_sites.size(), [&](std::size_t s) { return p_.call_sites[s].call; }, sites_of_,
        site_order_);
  }

  // Functions in the order of their own blocks in the input (their first
  // cost line, then their first call), the others after in id order:
  // callgrind_annotate breaks ties by the order it met functions in.
  std::vector<FuncId> block_order() const {
    const std::size_t n = p_.functions.size();
    std::vector<std::uint64_t> first(n, UINT64_MAX);
    for (std::size_t r = p_.line_costs.size(); r-- > 0;) first[p_.line_costs[r].function] = r;
    for (std::size_t s = p_.call_sites.size(); s-- > 0;) {
      FuncId f = p_.calls[p_.call_sites[s].call].caller;
      if (first[f] == UINT64_MAX || first[f] >= (std::uint64_t{1} << 32)) first[f] = (std::uint64_t{1} << 32) + s;
    }
    std::vector<FuncId> order(n);
    for (FuncId f = 0; f < n; ++f) order[f] = f;
    std::stable_sort(order.begin(), order.end(), [&](FuncId a, FuncId b) { return first[a] < first[b]; });
    return order;
  }

  // fi=/fe= so that what follows is in `file`.
  void switch_file(const Function& fn, StringId file) {
    if (file == file_) return;
    name_ref(file == fn.file ? "fe=" : "fi=", files_, file);
    file_ = file;
  }

  void write_function(FuncId f) {
    const Function& fn = p_.functions[f];
    if (fn.object != kNoString || current_object_ != kNoString) {
      if (fn.object != current_object_) name_ref("ob=", objects_, fn.object);
      current_object_ = fn.object;
    }
    name_ref("fl=", files_, fn.file);
    function_ref("fn=", f);
    file_ = fn.file;
    // Self costs: at their positions where the input had them, the rest on
    // the function's first line.
    std::vector<Cost> rest(ne_);
    for (std::size_t e = 0; e < ne_; ++e) rest[e] = p_.self(f, e);
    for (std::uint32_t i = rows_of_[f]; i < rows_of_[f + 1]; ++i) {
      std::uint32_t r = row_order_[i];
      const LineCost& lc = p_.line_costs[r];
      const Cost* costs = &p_.line_cost_values[static_cast<std::size_t>(r) * ne_];
      switch_file(fn, lc.file);
      append_position(lc.address, lc.line);
      append_costs(costs, lc.columns);
      out_ += "\n";
      for (std::size_t e = 0; e < ne_; ++e) rest[e] = minus(e, rest[e], costs[e]);
    }
    bool any = rows_of_[f] == rows_of_[f + 1] || std::any_of(rest.begin(), rest.end(), [&](Cost c) { return c != 0; });
    if (any) {
      switch_file(fn, fn.file);
      append_position(0, clamp_line(fn.line));
      append_costs(rest.data());
      out_ += "\n";
    }
    for (std::uint32_t i = calls_of_[f]; i < calls_of_[f + 1]; ++i) write_call(fn, call_order_[i]);
    for (std::uint32_t i = jumps_of_[f]; i < jumps_of_[f + 1]; ++i) write_jump(fn, f, p_.jumps[jump_order_[i]]);
    out_ += "\n";
  }

  void call_lines(const Function& caller, CallId c, std::int64_t count, std::uint64_t target_address,
                  std::uint32_t target_line, std::uint64_t address, std::uint32_t line, const Cost* costs,
                  bool implicit_file = false, std::uint32_t columns = kAllColumns) {
    const Call& call = p_.calls[c];
    const Function& callee = p_.functions[call.callee];
    if (callee.object != caller.object) name_ref("cob=", objects_, callee.object);
    // Readers disagree on the callee's file when cfi= is absent inside an
    // fi= region (callgrind_annotate: the inlined file; others: fl=), so it
    // is left out only where both mean the same file, or where the input
    // left it out too (then every reader reads it as it read the input).
    bool implicit = callee.file == file_ && (file_ == caller.file || implicit_file);
    if (!implicit) name_ref("cfi=", files_, callee.file);
    function_ref("cfn=", call.callee);
    out_ += "calls=";
    append_number(std::max<std::int64_t>(count, 0));
    out_ += ' ';
    append_position(target_address, target_line);
    out_ += "\n";
    append_position(address, line);
    append_costs(costs, columns);
    out_ += "\n";
  }

  void write_call(const Function& caller, CallId c) {
    const Call& call = p_.calls[c];
    const Function& callee = p_.functions[call.callee];
    std::int64_t count = call.count;
    std::vector<Cost> rest(&p_.call_cost[static_cast<std::size_t>(c) * ne_],
                           &p_.call_cost[static_cast<std::size_t>(c + 1) * ne_]);
    for (std::size_t e = 0; e < ne_ && p_.call_costs_from_counts; ++e) rest[e] = p_.cost_of(e, p_.call_value(c, e));
    for (std::uint32_t i = sites_of_[c]; i < sites_of_[c + 1]; ++i) {
      const CallSite& s = p_.call_sites[site_order_[i]];
      const Cost* costs = &p_.call_site_cost[static_cast<std::size_t>(site_order_[i]) * ne_];
      switch_file(caller, s.file);
      call_lines(caller, c, s.count, s.target_address, s.target_line, s.address, s.line, costs, s.callee_file_implicit,
                 s.columns);
      if (count != kUnknownCount) count -= s.count;
      for (std::size_t e = 0; e < ne_; ++e) rest[e] = minus(e, rest[e], costs[e]);
    }
    bool left = false;
    for (std::size_t e = 0; e < ne_; ++e) left = left || cost(e, rest[e]) > 0;
    if (sites_of_[c] != sites_of_[c + 1] && count <= 0 && !left) return;
    if (count == kUnknownCount) {  // sampled: the samples through the call stand in
      count = 0;
      if (samples_)  // (counted beside a time: a .cpuprofile's, a Go CPU profile's)
        count = cost(*samples_, rest[*samples_]);
      else
        for (std::size_t e = 0; e < ne_; ++e) count = std::max(count, cost(e, rest[e]));
    }
    switch_file(caller, caller.file);
    call_lines(caller, c, count, 0, clamp_line(callee.line), 0, clamp_line(caller.line), rest.data());
  }

  void write_jump(const Function& fn, FuncId f, const Jump& j) {
    switch_file(fn, j.file);
    if (j.target_file != j.file) name_ref("jfi=", files_, j.target_file);
    if (j.target != f) function_ref("jfn=", j.target);
    if (j.executed == kUnknownCount) {
      out_ += "jump=";
      append_number(j.count);
    } else {
      out_ += "jcnd=";
      append_number(j.count);
      out_ += '/';
      append_number(j.executed);
    }
    out_ += ' ';
    append_position(j.target_address, j.target_line);
    out_ += "\n";
    append_position(j.address, j.line);
    out_ += "\n";
  }

  const Profile& p_;
  const WriteOptions& o_;
  std::size_t ne_;
  std::optional<std::size_t> samples_;  // sample_count_event()
  std::string out_;
  bool with_address_ = false, with_line_ = true;
  Names objects_, files_, functions_;
  StringId current_object_ = kNoString;
  StringId file_ = kNoString;
  std::vector<bool> with_line_suffix_;
  std::vector<std::uint32_t> rows_of_, row_order_, calls_of_, call_order_, jumps_of_, jump_order_, sites_of_,
      site_order_;
};

}  // namespace

Expected<std::string> write(const Profile& p, const WriteOptions& options) { return Writer(p, options).run(); }

}  // namespace graphgen::callgrind
