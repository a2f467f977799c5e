#include "mprof/reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "graphgen/analysis/stacks.h"
#include "graphgen/text.h"

namespace graphgen::mprof {

namespace {

// Python's float() of a field: finite decimal numbers (and Python's
// spellings of them); false for anything else.
bool number(std::string_view field, double& out) {
  if (field.starts_with('+')) field.remove_prefix(1);
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), out);
  return ec == std::errc() && end == field.data() + field.size() && !field.empty() && std::isfinite(out);
}

// The fields of a line split at each space, as Python's str.split(' ')
// (into `out`, reused from line to line).
void fields_of(std::string_view rest, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t at = 0;
  while (at <= rest.size()) {
    const std::size_t space = std::min(rest.find(' ', at), rest.size());
    out.push_back(rest.substr(at, space - at));
    at = space + 1;
  }
}

class Reader {
 public:
  Reader(const InputFile& in, const formats::ReadOptions& options) : in_(in), options_(options) {
    trace_.path = p_.strings.intern(in.path());
  }

  Expected<Profile> run() {
    LineScanner lines(in_.bytes(), &in_);
    std::string_view line;
    std::size_t number_of_line = 0;
    while (lines.next(line)) {
      ++number_of_line;
      if (auto ok = one(line, number_of_line); !ok) return ok.error();
      if (options_.memory_budget && number_of_line % 4096 == 0 &&
          trace_.samples.size() * sizeof(MemoryTrace::Sample) + trace_.calls.size() * sizeof(MemoryTrace::Call) >
              options_.memory_budget)
        return bad_input(formats::over_budget_message(in_.path(), options_.memory_budget, trace_.calls.size(), 1));
    }
    if (trace_.runs.empty() && trace_.calls.empty())
      return bad_input(at_end(in_.path(), in_.bytes(), "expected mprof's MEM, CHLD or FUNC lines, found none"));
    build_calls();
    p_.memory.push_back(std::move(trace_));
    return std::move(p_);
  }

 private:
  Expected<bool> fail(std::size_t line, std::size_t col, std::string what) const {
    return bad_input(at_line(in_.path(), line, col, what));
  }

  Expected<bool> one(std::string_view line, std::size_t n) {
    if (line.empty())
      return fail(n, 1, "expected a line of mprof's, found an empty line (mprof: sampling time was too short)");
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos)
      return fail(n, 1, fmt::format("expected 'FIELD VALUES', found {}", quote_input(line)));
    const std::string_view field = line.substr(0, space), rest = line.substr(space + 1);
    if (field == "CMDLINE") {
      trace_.commands.push_back(p_.strings.intern(rest));
      trace_.runs.push_back(static_cast<std::uint32_t>(trace_.samples.size()));
      return true;
    }
    if (field != "MEM" && field != "CHLD" && field != "FUNC") return true;  // (mprof ignores them too)
    std::vector<std::string_view>& f = fields_;
    fields_of(rest, f);
    const std::size_t want = field == "MEM" ? 2 : field == "CHLD" ? 3 : 5;
    if (f.size() < want)
      return fail(n, space + 2, fmt::format("expected {} fields after {}, found {}", want, field, f.size()));
    // Each number, where it is (column), checked.
    double v[5] = {0, 0, 0, 0, 0};
    std::size_t cols[6] = {0, 0, 0, 0, 0, 0};
    std::size_t col = space + 2;
    for (std::size_t i = 0; i < want; ++i) {
      const bool name = field != "MEM" && i == 0;
      cols[i] = col;
      if (!name && !number(f[i], v[i]))
        return fail(n, col, fmt::format("expected a number, found {}", quote_input(f[i])));
      col += f[i].size() + 1;
    }
    // Memory from 0 to 10^12 MiB, times within 10^12 s of 1970: anything
    // else is no measurement (and would make the plot's scale meaningless).
    const std::size_t mib_at[2] = {field == "MEM" ? 0u : 1u, field == "FUNC" ? 3u : 99u};
    const std::size_t time_at[2] = {field == "MEM" ? 1u : 2u, field == "FUNC" ? 4u : 99u};
    for (std::size_t i : mib_at)
      if (i < want && (v[i] < 0 || v[i] > 1e12))
        return fail(n, cols[i], fmt::format("expected memory in MiB (0 to 10^12), found {}", v[i]));
    for (std::size_t i : time_at)
      if (i < want && std::fabs(v[i]) > 1e12)
        return fail(n, cols[i], fmt::format("expected a Unix time in seconds, found {}", v[i]));
    if (field == "MEM") {
      if (trace_.runs.empty()) {  // samples before any CMDLINE: a run of no command
        trace_.commands.push_back(kNoString);
        trace_.runs.push_back(0);
      }
      trace_.samples.push_back({v[1], v[0]});
    } else if (field == "CHLD") {
      child(f[0]).samples.push_back({v[2], v[1]});
    } else {
      MemoryTrace::Call c;
      c.function = p_.strings.intern(f[0]);
      c.mib_start = v[1];
      c.start = v[2];
      c.mib_end = v[3];
      c.end = v[4];
      if (f.size() >= 6) {
        std::int32_t d = -1;
        auto [end, ec] = std::from_chars(f[5].data(), f[5].data() + f[5].size(), d);
        if (ec != std::errc() || end != f[5].data() + f[5].size() || d < 0 || d > 100000)
          return fail(n, col, fmt::format("expected a stack level, found {}", quote_input(f[5])));
        c.depth = d;
      }
      trace_.calls.push_back(c);
    }
    return true;
  }

  // (A process has a few children: found by a look along them.)
  MemoryTrace::Child& child(std::string_view id) {
    for (MemoryTrace::Child& c : trace_.children)
      if (p_.str(c.id) == id) return c;
    trace_.children.push_back({p_.strings.intern(id), {}});
    return trace_.children.back();
  }

  // The calls nested by their times (a call inside another's interval is
  // its callee), each a sample of its own time.
  void build_calls() {
    Event time;
    time.name = p_.strings.intern("time");
    time.unit = p_.strings.intern("seconds");
    time.floating = true;
    time.seconds_per_unit = 1;
    detail::StackBuilder builder(p_, std::vector<Event>{time}, options_.keep_stacks);
    p_.label_style = LabelStyle::kName;
    std::vector<std::size_t> order(trace_.calls.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto& calls = trace_.calls;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return calls[a].start != calls[b].start ? calls[a].start < calls[b].start
                                              : calls[a].end - calls[a].start > calls[b].end - calls[b].start;
    });
    std::vector<double> inner(calls.size(), 0.0);  // the callees' time of each call
    std::vector<std::size_t> open, parent(calls.size(), SIZE_MAX);
    for (std::size_t i : order) {
      while (!open.empty() && calls[open.back()].end < calls[i].end) open.pop_back();
      if (!open.empty()) {
        parent[i] = open.back();
        inner[open.back()] += calls[i].end - calls[i].start;
      }
      open.push_back(i);
    }
    std::vector<FuncId> stack;
    for (std::size_t i : order) {
      stack.clear();
      for (std::size_t at = i; at != SIZE_MAX && stack.size() < calls.size(); at = parent[at])
        stack.push_back(builder.function(p_.str(calls[at].function), {}, false));
      const double own = std::max(0.0, calls[i].end - calls[i].start - inner[i]);
      const Cost w = float_cost(own);
      builder.add_sample(stack, &w);
    }
  }

  const InputFile& in_;
  const formats::ReadOptions& options_;
  Profile p_;
  MemoryTrace trace_;
  std::vector<std::string_view> fields_;  // the current line's
};

}  // namespace

bool sniff(std::string_view head) {
  LineScanner lines(head);
  std::string_view line;
  if (!lines.next(line)) return false;
  double v = 0;
  std::vector<std::string_view> f;
  fields_of(line, f);
  if (f.size() >= 2 && f[0] == "CMDLINE") return true;
  if (f.size() == 3 && f[0] == "MEM") return number(f[1], v) && number(f[2], v);
  if (f.size() == 4 && f[0] == "CHLD") return number(f[2], v) && number(f[3], v);
  if ((f.size() == 6 || f.size() == 7) && f[0] == "FUNC") return number(f[2], v) && number(f[3], v);
  return false;
}

Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics&) {
  return Reader(input, options).run();
}

}  // namespace graphgen::mprof
