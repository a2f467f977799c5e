#include "mprof/writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/markup.h"

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
    out += fmt::format("{}\t{} MiB\n", p.str(t.path), mib(most(t.samples)));
    for (const MemoryTrace::Child& c : t.children)
      out += fmt::format("  Child {}\t\t\t{} MiB\n", p.str(c.id), mib(most(c.samples)));
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
    out += fmt::format("{:<{}}  {:>6}  {:>12}  {:>+13.3f}  {:>10.3f}\n", p.str(name), width, r.calls, mib(r.peak),
                       r.added, r.seconds);
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

// A run's line, its children's (dashed) and its calls' brackets, a
// colour per function (the legend names them; hover says the numbers).
std::string run_lines(const Profile& p, const Run& r, const char* colour, const Frame& f,
                      std::map<StringId, std::size_t>& function_colour) {
  std::string out;
  const MemoryTrace& t = *r.trace;
  const double end_time = t.samples[r.end - 1].time;
  std::string points;
  for (std::size_t i = r.begin; i < r.end; ++i)
    points += fmt::format("{:.1f},{:.1f} ", f.X(t.samples[i].time - r.start), f.Y(t.samples[i].mib));
  out += fmt::format(
      "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\"><title>{}</title></polyline>\n", colour,
      points, xml_text(r.name));
  for (const MemoryTrace::Child& c : t.children) {
    std::string cp;
    for (const MemoryTrace::Sample& s : c.samples)
      if (s.time >= r.start && s.time <= end_time)
        cp += fmt::format("{:.1f},{:.1f} ", f.X(s.time - r.start), f.Y(s.mib));
    if (!cp.empty())
      out += fmt::format(
          "<polyline fill=\"none\" stroke=\"{}\" stroke-dasharray=\"4 3\" points=\"{}\"><title>child {} of "
          "{}</title></polyline>\n",
          colour, cp, xml_text(p.str(c.id)), xml_text(r.name));
  }
  for (const MemoryTrace::Call& c : t.calls) {
    if (c.start < r.start || c.start > end_time) continue;
    auto [it, fresh] = function_colour.try_emplace(c.function, function_colour.size());
    const double x0 = f.X(c.start - r.start), x1 = f.X(c.end - r.start), y0 = f.Y(c.mib_start), y1 = f.Y(c.mib_end);
    out += fmt::format(
        "<g stroke=\"{0}\" fill=\"none\" stroke-width=\"1.5\"><title>{1}: {2:.3f} s, {3:.3f} → {4:.3f} MiB "
        "({5:+.3f})</title><path d=\"M{6:.1f},{7:.1f}h-5v14h5\"/><path d=\"M{8:.1f},{9:.1f}h5v14h-5\"/></g>\n",
        kBrackets[it->second % std::size(kBrackets)], xml_text(p.str(c.function)), c.end - c.start, c.mib_start,
        c.mib_end, c.mib_end - c.mib_start, x0, y0 - 7, x1, y1 - 7);
  }
  return out;
}

}  // namespace

Expected<std::string> write_plot(const Profile& p, const PlotOptions& o) {
  const std::vector<Run> runs = runs_of(p);
  if (runs.empty()) return bad_input("-T memplot: no memory samples to plot (mprof's MEM lines)");
  // The axes: time from each run's start, memory from 0.
  double t_max = 0, m_max = 0, peak = -1, peak_t = 0;
  for (const Run& r : runs) {
    const MemoryTrace& t = *r.trace;
    for (std::size_t i = r.begin; i < r.end; ++i) {
      t_max = std::max(t_max, t.samples[i].time - r.start);
      m_max = std::max(m_max, t.samples[i].mib);
      if (t.samples[i].mib > peak) std::tie(peak, peak_t) = std::pair{t.samples[i].mib, t.samples[i].time - r.start};
    }
    for (const MemoryTrace::Child& c : t.children)
      for (const MemoryTrace::Sample& s : c.samples)
        if (s.time >= r.start && s.time <= t.samples[r.end - 1].time) m_max = std::max(m_max, s.mib);
  }
  std::set<StringId> functions;
  for (const MemoryTrace& t : p.memory)
    for (const MemoryTrace::Call& c : t.calls) functions.insert(c.function);
  const double rows = static_cast<double>(std::max(runs.size(), functions.size()));
  const double w = 960, left = 80, right = 30, top = 50, bottom = 60 + 18.0 * rows, h = 480 + 18.0 * rows;
  const double pw = w - left - right, ph = h - top - bottom;
  const double x_step = tick_step(t_max, 8), y_step = tick_step(m_max * 1.05, 6);
  const double x_top = std::max(x_step, std::ceil(t_max / x_step) * x_step);
  const double y_top = std::max(y_step, std::ceil(m_max * 1.05 / y_step) * y_step);
  const Frame f{left, top, pw, ph, x_top, y_top};
  auto X = [&](double t) { return f.X(t); };
  auto Y = [&](double m) { return f.Y(m); };
  std::string svg = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" "
      "height=\"{1}\" viewBox=\"0 0 {0} {1}\" font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{2}\" y=\"24\" text-anchor=\"middle\" "
      "font-size=\"16\">{3}</text>\n",
      w, h, w / 2, xml_text(o.title.empty() ? "Memory used over time" : o.title));
  // Grid and ticks.
  for (double i = 0, v = 0; i <= 100 && v <= x_top + x_step / 2; v = ++i * x_step)  // (at most 100 ticks)
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#e5e5e5\"/><text x=\"{0:.1f}\" "
        "y=\"{3:.1f}\" text-anchor=\"middle\">{4}</text>\n",
        X(v), top, top + ph, top + ph + 16, number_text(v));
  for (double i = 0, v = 0; i <= 100 && v <= y_top + y_step / 2; v = ++i * y_step)
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#e5e5e5\"/><text x=\"{3:.1f}\" "
        "y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
        left, Y(v), left + pw, left - 6, Y(v) + 4, number_text(v));
  svg += fmt::format(
      "<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" fill=\"none\" stroke=\"#333\"/>\n<text x=\"{4}\" "
      "y=\"{5}\" text-anchor=\"middle\">time (in seconds)</text>\n<text transform=\"translate(20 {6}) rotate(-90)\" "
      "text-anchor=\"middle\">memory used (in MiB)</text>\n",
      left, top, pw, ph, left + pw / 2, top + ph + 36, top + ph / 2);
  std::map<StringId, std::size_t> function_colour;  // in order of first call
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const Run& r = runs[k];
    const char* colour = kColours[k % std::size(kColours)];
    svg += run_lines(p, r, colour, f, function_colour);
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"{3}\" stroke-width=\"2\"/><text x=\"{4}\" "
        "y=\"{5:.1f}\">{6}</text>\n",
        left, top + ph + 52 + 18.0 * static_cast<double>(k), left + 24, colour, left + 30,
        top + ph + 56 + 18.0 * static_cast<double>(k), xml_text(r.name));
    if (o.max_bytes && svg.size() > o.max_bytes)
      return bad_input(fmt::format("the plot would be over {} bytes; --max-memory raises the limit", o.max_bytes));
  }
  // The functions' legend, beside the runs'.
  std::vector<StringId> by_colour(function_colour.size());
  for (auto [f, k] : function_colour) by_colour[k] = f;
  for (std::size_t k = 0; k < by_colour.size(); ++k)
    svg += fmt::format(
        "<g stroke=\"{0}\" fill=\"none\" stroke-width=\"1.5\"><path d=\"M{1},{2:.1f}h-5v10h5\"/><path "
        "d=\"M{3},{2:.1f}h5v10h-5\"/></g><text x=\"{4}\" y=\"{5:.1f}\">{6}</text>\n",
        kBrackets[k % std::size(kBrackets)], left + pw / 2 + 10, top + ph + 44 + 18.0 * static_cast<double>(k),
        left + pw / 2 + 20, left + pw / 2 + 34, top + ph + 53 + 18.0 * static_cast<double>(k),
        xml_text(p.str(by_colour[k])));
  svg += fmt::format(
      "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"red\" stroke-dasharray=\"6 4\"/><line "
      "x1=\"{3:.1f}\" y1=\"{7}\" x2=\"{3:.1f}\" y2=\"{8}\" stroke=\"red\" stroke-dasharray=\"6 4\"/><circle "
      "cx=\"{3:.1f}\" cy=\"{1:.1f}\" r=\"3\" fill=\"red\"/><text x=\"{4}\" y=\"{5:.1f}\" fill=\"red\" "
      "text-anchor=\"end\">peak {6} MiB</text>\n</svg>\n",
      left, Y(peak), left + pw, X(peak_t), left + pw - 4, Y(peak) - 5, mib(peak), top, top + ph);
  return svg;
}

}  // namespace graphgen::mprof
