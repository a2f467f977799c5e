#include "builder.h"

#include <fmt/format.h>

#include <cmath>

#include "graphgen/text.h"

namespace graphgen::tau::detail {

namespace {

constexpr std::string_view kPathSeparator = " => ";

// `int foo(int) C [{foo.c} {3,1}-{7,1}]`: TAU's source location of an
// instrumented routine, the file and its first line.
void source_location(std::string_view name, std::string_view& file, std::int64_t& line) {
  std::size_t open = name.rfind("[{");
  if (open == std::string_view::npos) return;
  std::size_t close = name.find("} {", open);
  if (close == std::string_view::npos) return;
  file = name.substr(open + 2, close - open - 2);
  std::size_t digits = close + 3, end = digits;
  while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
  std::uint64_t v = 0;
  if (end > digits && parse_u64(name.substr(digits, end - digits), v) && v <= INT32_MAX)
    line = static_cast<std::int64_t>(v);
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

}  // namespace

bool is_time_metric(std::string_view name) {
  std::string n = upper(name);
  if (n.find("TIME") == std::string::npos) return false;
  std::size_t slash = n.find('/');
  return slash == std::string::npos || n.find("TIME", slash) == std::string::npos;
}

Builder::Builder(Profile& p, const std::vector<std::string>& metrics) : p_(p) {
  for (const std::string& m : metrics) {
    Event e;
    e.name = p.strings.intern(m);
    const bool time = is_time_metric(m);
    time_.push_back(time);
    if (time) {
      e.unit = p.strings.intern("s");
      e.floating = true;
      e.seconds_per_unit = 1;
    }
    p.events.push_back(e);
  }
  p.reports_totals = true;
  p.keeps_call_self = true;
}

Cost Builder::cost(std::size_t metric, double v) {
  if (!(v >= 0) || std::isinf(v)) {  // negative, NaN or infinite
    ++clamped_;
    v = 0;
  }
  if (time_[metric]) return float_cost(v / 1e6);
  double r = std::nearbyint(v);
  if (r != v) ++rounded_;
  return r >= 9.2e18 ? INT64_MAX : static_cast<Cost>(r);
}

FuncId Builder::function(std::string_view frame) {
  // As ParaProf names it: runs of spaces one space, none at the ends
  // (TAU appends an empty type: "MPI_Init()  ").
  frame = trim(frame);
  std::string squeezed;
  if (frame.find("  ") != std::string_view::npos) {
    squeezed.reserve(frame.size());
    for (char c : frame)
      if (c != ' ' || squeezed.empty() || squeezed.back() != ' ') squeezed += c;
    frame = squeezed;
  }
  StringId name = p_.strings.intern(frame);
  auto [it, fresh] = functions_.try_emplace(name, 0);
  if (!fresh) return it->second;
  Function f;
  f.name = name;
  std::string_view file;
  source_location(frame, file, f.line);
  if (!file.empty()) f.file = p_.strings.intern(file);
  it->second = p_.add_function(f);
  return it->second;
}

void Builder::timer(std::string_view name, double calls, const double* excl, const double* incl) {
  const std::size_t ne = p_.events.size();
  const std::int64_t n = calls >= 0 && calls < 9.2e18 ? static_cast<std::int64_t>(calls) : 0;
  std::size_t arrow = name.rfind(kPathSeparator);
  if (arrow != std::string_view::npos) {
    // A call path: the edge of its last two frames.
    std::string_view head = name.substr(0, arrow);
    std::size_t before = head.rfind(kPathSeparator);
    std::string_view caller = before == std::string_view::npos ? head : head.substr(before + kPathSeparator.size());
    FuncId from = function(caller), to = function(name.substr(arrow + kPathSeparator.size()));  // in this order
    call_path(from, to, calls, excl, incl);
    return;
  }
  // ParaProf-era sampling summaries: the [SAMPLE] timers' time again, by function.
  if (trim(name).starts_with("[SUMMARY] ")) {
    ++summaries_;
    return;
  }
  FuncId f = function(name);
  if (std::string_view t = trim(name); t.starts_with("[CONTEXT] ")) {
    std::vector<Cost> sampled(ne);
    for (std::size_t e = 0; e < ne; ++e) sampled[e] = cost(e, incl[e]);
    contexts_.emplace_back(function(t.substr(10)), std::move(sampled));
  }
  Function& fn = p_.functions[f];
  fn.calls = fn.calls == kUnknownCount ? n : saturating_add(fn.calls, n);
  const std::size_t row = in_location_ ? p_.location_row(f, rows_) : 0;
  for (std::size_t e = 0; e < ne; ++e) {
    Cost self = cost(e, excl[e]), total = cost(e, incl[e]);
    // TAU's reader adds timers of one name together.
    p_.self(f, e) = p_.add(e, p_.self(f, e), self);
    p_.total(f, e) = p_.add(e, p_.total(f, e), total);
    if (in_location_) {
      Cost& s = p_.location_self[row * ne + e];
      Cost& t = p_.location_total[row * ne + e];
      s = p_.add(e, s, self);
      t = p_.add(e, t, total);
    }
  }
}

void Builder::call_path(FuncId from, FuncId to, double calls, const double* excl, const double* incl) {
  const std::size_t ne = p_.events.size();
  const std::int64_t n = calls >= 0 && calls < 9.2e18 ? static_cast<std::int64_t>(calls) : 0;
  auto [it, fresh] = calls_.try_emplace((std::uint64_t{from} << 32) | to, 0);
  if (fresh) it->second = p_.add_call(Call{from, to, 0, kUnknownCount});
  Call& c = p_.calls[it->second];
  c.count = saturating_add(c.count, n);
  for (std::size_t e = 0; e < ne; ++e) {
    p_.inclusive(it->second, e) = p_.add(e, p_.inclusive(it->second, e), cost(e, incl[e]));
    p_.along(it->second, e) = p_.add(e, p_.along(it->second, e), cost(e, excl[e]));
  }
}

void Builder::begin_location(std::int64_t node, std::int64_t context, std::int64_t thread) {
  Location l;
  l.rank = node;
  l.thread = context * 65536 + thread;
  l.label = p_.strings.intern(fmt::format("{},{},{}", node, context, thread));
  l.begin = l.end = static_cast<std::uint32_t>(p_.location_functions.size());
  p_.locations.push_back(l);
  in_location_ = true;
}

void Builder::settle_contexts() {
  const std::size_t ne = p_.events.size();
  auto less = [&](std::size_t e, Cost a, Cost b) -> Cost {  // max(a - b, 0)
    if (p_.events[e].floating) return float_cost(std::max(0.0, cost_float(a) - cost_float(b)));
    return a > b ? a - b : 0;
  };
  for (const auto& [f, sampled] : contexts_) {
    const std::uint32_t row = in_location_ ? p_.location_row(f, rows_, false) : UINT32_MAX;
    for (std::size_t e = 0; e < ne; ++e) {
      // What this location gave the function's self cost, less what was sampled.
      if (row != UINT32_MAX) {
        Cost& s = p_.location_self[row * ne + e];
        Cost before = s;
        s = less(e, s, sampled[e]);
        p_.self(f, e) = p_.add(e, p_.self(f, e),
                               p_.events[e].floating ? float_cost(cost_float(s) - cost_float(before)) : s - before);
      } else if (!in_location_) {
        p_.self(f, e) = less(e, p_.self(f, e), sampled[e]);
      }
    }
  }
  contexts_.clear();
}

void Builder::end_location() {
  settle_contexts();
  in_location_ = false;
}

void Builder::finish(std::string_view path, Diagnostics& diag) {
  settle_contexts();
  if (summaries_)
    diag.warn(fmt::format("{}: {} [SUMMARY] timers of TAU's sampling left out: they repeat the [SAMPLE] timers' time",
                          path, summaries_));
  if (clamped_)
    diag.warn(fmt::format("{}: {} negative or undefined values read as 0 (a corrupt profile, as ParaProf says)", path,
                          clamped_));
  if (rounded_) diag.warn(fmt::format("{}: {} fractional counter values rounded to the nearest count", path, rounded_));
}

}  // namespace graphgen::tau::detail
