#include "mprof/writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/markup.h"
#include "graphgen/utf8.h"

namespace graphgen::mprof {

namespace {

using formats::xml_text;

// The most of the samples (NaN for none, as mprof prints it).
double most(const std::vector<MemoryTrace::Sample>& samples) {
  double peak = NAN;
  for (const MemoryTrace::Sample& s : samples) peak = std::isnan(peak) ? s.mib : std::max(peak, s.mib);
  return peak;
}

// mprof peak --func: the most of the samples taken within any of the ranges.
double peak_within(const MemoryTrace& t, const std::vector<std::pair<double, double>>& ranges) {
  double peak = NAN;
  for (const MemoryTrace::Sample& s : t.samples)
    for (auto [from, to] : ranges)
      if (from <= s.time && s.time <= to) {
        peak = std::isnan(peak) ? s.mib : std::max(peak, s.mib);
        break;
      }
  return peak;
}

std::string mib(double v) { return std::isnan(v) ? "NaN" : fmt::format("{:.3f}", v); }

}  // namespace

Expected<std::string> write_peaks(const Profile& p) {
  if (p.memory.empty()) return bad_input("-T stats: the profile holds no memory trace (mprof's files do)");
  std::string out;
  for (const MemoryTrace& t : p.memory) {
    out += fmt::format("{}\t{} MiB\n", visible_text(p.str(t.path)), mib(most(t.samples)));
    for (const MemoryTrace::Child& c : t.children)
      out += fmt::format("  Child {}\t\t\t{} MiB\n", visible_text(p.str(c.id)), mib(most(c.samples)));
  }
  // The @profile'd functions of every file, in order of first call.
  struct Row {
    std::size_t calls = 0;
    double peak = NAN, added = 0, seconds = 0;
  };
  std::vector<std::pair<StringId, Row>> rows;
  std::map<StringId, std::size_t> index;
  for (const MemoryTrace& t : p.memory) {
    std::map<StringId, std::vector<std::pair<double, double>>> ranges;
    for (const MemoryTrace::Call& c : t.calls) ranges[c.function].emplace_back(c.start, c.end);
    for (const MemoryTrace::Call& c : t.calls) {
      auto [it, fresh] = index.try_emplace(c.function, rows.size());
      if (fresh) rows.push_back({c.function, {}});
      Row& r = rows[it->second].second;
      ++r.calls;
      r.added += c.mib_end - c.mib_start;
      r.seconds += c.end - c.start;
    }
    for (auto& [name, r] : rows) {
      auto it = ranges.find(name);
      if (it == ranges.end()) continue;
      const double here = peak_within(t, it->second);
      if (!std::isnan(here)) r.peak = std::isnan(r.peak) ? here : std::max(r.peak, here);
    }
  }
  if (rows.empty()) return out;
  std::size_t width = 8;
  for (const auto& [name, r] : rows) width = std::max(width, p.str(name).size());
  out += fmt::format("\n{:<{}}  {:>6}  {:>12}  {:>13}  {:>10}\n", "function", width, "calls", "peak (MiB)",
                     "added (MiB)", "time (s)");
  for (const auto& [name, r] : rows)
    out += fmt::format("{:<{}}  {:>6}  {:>12}  {:>+13.3f}  {:>10.3f}\n", visible_text(p.str(name)), width, r.calls,
                       mib(r.peak), r.added, r.seconds);
  return out;
}

namespace {

// 1, 2 or 5 times a power of ten: about `count` steps over [0, top].
double tick_step(double top, int count) {
  if (!(top > 0)) return 1;
  const double raw = top / count, power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * power) return m * power;
  return 10 * power;
}

std::string number_text(double v) { return fmt::format("{:g}", std::round(v * 1e6) / 1e6); }

// The brackets' colours: darker, apart from the lines'.
constexpr const char* kBrackets[] = {"#d62728", "#7f7f7f", "#006400", "#b8860b", "#4b0082", "#008b8b"};

constexpr const char* kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
                                    "#8c564b", "#e377c2", "#17becf", "#bcbd22"};

// One run: where its samples are, its start (time 0) and name.
struct Run {
  const MemoryTrace* trace;
  std::size_t begin, end;
  double start;
  std::string name;
};

// Where the plot's area is, and its scales.
struct Frame {
  double left, top, pw, ph, x_top, y_top;
  double X(double t) const { return left + pw * t / x_top; }
  double Y(double m) const { return top + ph * (1 - m / y_top); }
};

std::vector<Run> runs_of(const Profile& p) {
  std::vector<Run> runs;
  for (const MemoryTrace& t : p.memory)
    for (std::size_t r = 0; r < t.runs.size(); ++r) {
      const std::size_t begin = t.runs[r], end = r + 1 < t.runs.size() ? t.runs[r + 1] : t.samples.size();
      if (begin >= end) continue;
      std::string name(p.str(t.path));
      if (t.runs.size() > 1) name += fmt::format(" (run {})", r + 1);
      if (t.commands[r] != kNoString) name += ": " + std::string(p.str(t.commands[r]));
      runs.push_back({&t, begin, end, t.samples[begin].time, std::move(name)});
    }
  return runs;
}

using formats::Drawing;
using Points = std::vector<std::pair<double, double>>;

// A call's bracket pair: [ at its start, ] at its end, hover for the numbers.
void brackets(Drawing& d, double x0, double y0, double x1, double y1, const char* colour,
              const std::string& title = {}) {
  const Drawing::Stroke s{colour, 1.5};
  d.line(Points{{x0, y0 - 7}, {x0 - 5, y0 - 7}, {x0 - 5, y0 + 7}, {x0, y0 + 7}}, s, title);
  d.line(Points{{x1, y1 - 7}, {x1 + 5, y1 - 7}, {x1 + 5, y1 + 7}, {x1, y1 + 7}}, s, title);
}

// A run's line, its children's (dashed) and its calls' brackets, a
// colour per function (the legend names them; hover says the numbers).
void run_lines(Drawing& d, const Profile& p, const Run& r, const char* colour, const Frame& f,
               std::map<StringId, std::size_t>& function_colour) {
  const MemoryTrace& t = *r.trace;
  const double end_time = t.samples[r.end - 1].time;
  Points points;
  for (std::size_t i = r.begin; i < r.end; ++i)
    points.emplace_back(f.X(t.samples[i].time - r.start), f.Y(t.samples[i].mib));
  if (points.size() == 1) d.dot(points[0].first, points[0].second, 2, colour);
  d.line(std::move(points), {colour, 1.5}, r.name);
  for (const MemoryTrace::Child& c : t.children) {
    Points cp;
    for (const MemoryTrace::Sample& s : c.samples)
      if (s.time >= r.start && s.time <= end_time) cp.emplace_back(f.X(s.time - r.start), f.Y(s.mib));
    d.line(std::move(cp), {colour, 1, true}, fmt::format("child {} of {}", p.str(c.id), r.name));
  }
  for (const MemoryTrace::Call& c : t.calls) {
    if (c.start < r.start || c.start > end_time) continue;
    auto [it, fresh] = function_colour.try_emplace(c.function, function_colour.size());
    brackets(d, f.X(c.start - r.start), f.Y(c.mib_start), f.X(c.end - r.start), f.Y(c.mib_end),
             kBrackets[it->second % std::size(kBrackets)],
             fmt::format("{}: {:.3f} s, {:.3f} → {:.3f} MiB ({:+.3f})", p.str(c.function), c.end - c.start, c.mib_start,
                         c.mib_end, c.mib_end - c.mib_start));
  }
}

// The axes: time from each run's start (the longest run's end), memory
// from 0 (the most of any line); the peak and when.
struct Extent {
  double t_max = 0, m_max = 0, peak = -1, peak_t = 0;
};
Extent extent_of(const std::vector<Run>& runs) {
  Extent e;
  for (const Run& r : runs) {
    const MemoryTrace& t = *r.trace;
    for (std::size_t i = r.begin; i < r.end; ++i) {
      e.t_max = std::max(e.t_max, t.samples[i].time - r.start);
      e.m_max = std::max(e.m_max, t.samples[i].mib);
      if (t.samples[i].mib > e.peak)
        std::tie(e.peak, e.peak_t) = std::pair{t.samples[i].mib, t.samples[i].time - r.start};
    }
    for (const MemoryTrace::Child& c : t.children)
      for (const MemoryTrace::Sample& s : c.samples)
        if (s.time >= r.start && s.time <= t.samples[r.end - 1].time) e.m_max = std::max(e.m_max, s.mib);
  }
  return e;
}

// Grid, ticks, frame and the axes' names.
void axes(Drawing& d, const Frame& f, double x_step, double y_step) {
  const double bottom = f.top + f.ph, right = f.left + f.pw;
  for (double i = 0, v = 0; i <= 100 && v <= f.x_top + x_step / 2; v = ++i * x_step) {  // (at most 100 ticks)
    d.line(Points{{f.X(v), f.top}, {f.X(v), bottom}}, {"#e5e5e5"});
    d.text(f.X(v), bottom + 16, number_text(v), Drawing::Anchor::kMiddle);
  }
  for (double i = 0, v = 0; i <= 100 && v <= f.y_top + y_step / 2; v = ++i * y_step) {
    d.line(Points{{f.left, f.Y(v)}, {right, f.Y(v)}}, {"#e5e5e5"});
    d.text(f.left - 6, f.Y(v) + 4, number_text(v), Drawing::Anchor::kEnd);
  }
  d.outline(Points{{f.left, f.top}, {right, f.top}, {right, bottom}, {f.left, bottom}}, {"#333333"});
  d.text(f.left + f.pw / 2, bottom + 36, "time (in seconds)", Drawing::Anchor::kMiddle);
  d.text(f.left, f.top - 8, "memory used (in MiB)");
}

// The functions' legend, from `y` down: each function's bracket, its name,
// and its time in all calls (as mprof plot's legend says it).
void function_legend(Drawing& d, const Profile& p, const std::map<StringId, std::size_t>& function_colour, double left,
                     double y) {
  std::vector<std::pair<std::size_t, double>> calls(function_colour.size());  // count, seconds
  for (const MemoryTrace& t : p.memory)
    for (const MemoryTrace::Call& c : t.calls)
      if (auto it = function_colour.find(c.function); it != function_colour.end()) {
        ++calls[it->second].first;
        calls[it->second].second += c.end - c.start;
      }
  std::vector<StringId> by_colour(function_colour.size());
  for (auto [fn, k] : function_colour) by_colour[k] = fn;
  for (std::size_t k = 0; k < by_colour.size(); ++k, y += 18) {
    const std::string name(p.str(by_colour[k]));
    brackets(d, left + 5, y - 2, left + 15, y - 2, kBrackets[k % std::size(kBrackets)]);
    d.text(left + 30, y + 4,
           fmt::format("{}  {:.3f} s{}", name, calls[k].second,
                       calls[k].first > 1 ? fmt::format(" in {} calls", calls[k].first) : std::string()));
  }
}

}  // namespace

Expected<formats::Drawing> plot(const Profile& p, const PlotOptions& o) {
  const std::vector<Run> runs = runs_of(p);
  if (runs.empty()) return bad_input("-T memplot: no memory samples to plot (mprof's MEM lines)");
  const Extent e = extent_of(runs);
  std::set<StringId> functions;
  for (const MemoryTrace& t : p.memory)
    for (const MemoryTrace::Call& c : t.calls) functions.insert(c.function);
  const double rows = static_cast<double>(runs.size() + functions.size());
  const double w = 960, left = 80, right = 30, top = 60, bottom = 60 + 18.0 * rows, h = 490 + 18.0 * rows;
  const double pw = w - left - right, ph = h - top - bottom;
  const double x_step = tick_step(e.t_max, 8), y_step = tick_step(e.m_max * 1.05, 6);
  const double x_top = std::max(x_step, std::ceil(e.t_max / x_step) * x_step);
  const double y_top = std::max(y_step, std::ceil(e.m_max * 1.05 / y_step) * y_step);
  const Frame f{left, top, pw, ph, x_top, y_top};
  Drawing d(w, h);
  d.text(w / 2, 24, o.title.empty() ? "Memory used over time" : o.title, Drawing::Anchor::kMiddle, 16);
  axes(d, f, x_step, y_step);
  std::map<StringId, std::size_t> function_colour;  // in order of first call
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const char* colour = kColours[k % std::size(kColours)];
    run_lines(d, p, runs[k], colour, f, function_colour);
    const double y = top + ph + 52 + 18.0 * static_cast<double>(k);
    d.line(Points{{left, y}, {left + 24, y}}, {colour, 2});
    d.text(left + 30, y + 4, runs[k].name);
  }
  function_legend(d, p, function_colour, left, top + ph + 52 + 18.0 * static_cast<double>(runs.size()));
  // The peak: a dashed red line across and down, a dot, its value.
  const Drawing::Stroke red{"#ff0000", 1, true};
  d.line(Points{{left, f.Y(e.peak)}, {left + pw, f.Y(e.peak)}}, red);
  d.line(Points{{f.X(e.peak_t), top}, {f.X(e.peak_t), top + ph}}, red);
  d.dot(f.X(e.peak_t), f.Y(e.peak), 3, "#ff0000");
  d.text(left + pw - 4, f.Y(e.peak) - 5, fmt::format("peak {} MiB", mib(e.peak)), Drawing::Anchor::kEnd, 12, "#ff0000");
  return d;
}

}  // namespace graphgen::mprof
