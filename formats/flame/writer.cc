#include "flame/writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "common/markup.h"
#include "flame/flame_js.h"

namespace graphgen::flame {
namespace {

using formats::json_number;
using formats::valid_utf8;
using formats::xml_text;

// A name as a folded frame: no ';' (the separator), nothing that ends the line.
void append_folded(std::string& out, std::string_view name, bool process) {
  for (char c : name) {
    if (c == ';')
      out += ':';
    else if (c == '\n' || c == '\r')
      out += ' ';
    else if (process && c == ' ')
      out += '_';
    else
      out += c;
  }
}

// Names by function, computed once each.
class Names {
 public:
  explicit Names(const Profile& p) : p_(p), by_function_(p.functions.size()), known_(p.functions.size(), false) {}
  const std::string& of(const FlameFrame& f) {
    if (f.process != kNoString) {
      process_ = frame_name(p_, f);
      return process_;
    }
    if (!known_[f.function]) {
      by_function_[f.function] = frame_name(p_, f);
      known_[f.function] = true;
    }
    return by_function_[f.function];
  }

 private:
  const Profile& p_;
  std::vector<std::string> by_function_;
  std::vector<bool> known_;
  std::string process_;
};

std::string with_separators(double v) {
  auto s = fmt::format("{:.0f}", v);
  std::string out;
  std::size_t digits = s.size() - (s[0] == '-' ? 1 : 0);
  for (std::size_t i = 0; i < s.size(); ++i) {
    out += s[i];
    std::size_t left = s.size() - i - 1;
    if (s[i] != '-' && left > 0 && left % 3 == 0 && digits > 3) out += ',';
  }
  return out;
}

// One hue per module (hashed), away from the search highlight's magenta;
// the name moves the lightness a little so neighbours stay apart.
// flamegraph.pl's color_scale: white at 0, red as the count grew, blue as
// it shrank, full at the largest change of any stack.
std::string delta_colour(double d, double max) {
  int r = 255, g = 255, b = 255;
  if (d > 0) g = b = static_cast<int>(210 * std::max(0.0, max - d) / max);
  if (d < 0) r = g = static_cast<int>(210 * std::max(0.0, max + d) / max);
  return fmt::format("rgb({},{},{})", r, g, b);
}

std::string colour(std::string_view module, std::string_view name, bool process, bool root) {
  if (root) return "rgb(200,200,200)";
  if (process) return "rgb(180,180,190)";
  auto hash = [](std::string_view s) {
    std::uint32_t h = 2166136261u;
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
    return h;
  };
  std::uint32_t hn = hash(name);
  if (module.empty()) {
    // FlameGraph's "hot" palette.
    int r = 205 + static_cast<int>(hn % 51), g = static_cast<int>((hn >> 8) % 231),
        b = static_cast<int>((hn >> 16) % 56);
    return fmt::format("rgb({},{},{})", r, g, b);
  }
  std::uint32_t hm = hash(module);
  int hue = static_cast<int>(hm % 270);
  if (hue > 250) hue += 60;  // skip magenta
  int light = 58 + static_cast<int>(hn % 14);
  int sat = 55 + static_cast<int>((hm >> 12) % 25);
  return fmt::format("hsl({},{}%,{}%)", hue, sat, light);
}

// The name cut to what fits in `width` pixels at 12 px (FlameGraph's 0.59
// em per character), ending in ".." when cut; on a character boundary.
std::string fit(std::string_view name, double width) {
  if (width < 21) return {};
  auto room = static_cast<std::size_t>((width - 6) / 7.08);
  std::size_t chars = 0, i = 0;
  while (i < name.size()) {
    auto c = static_cast<unsigned char>(name[i]);
    std::size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    ++chars;
    i += n;
  }
  if (chars <= room) return std::string(name);
  if (room < 3) return {};
  std::size_t keep = room - 2;
  i = 0;
  for (std::size_t k = 0; k < keep && i < name.size(); ++k) {
    auto c = static_cast<unsigned char>(name[i]);
    i += c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  }
  return std::string(name.substr(0, std::min(i, name.size()))) + "..";
}

}  // namespace

double folded_scale(const Event& e) {
  if (e.floating) return 1e6;  // seconds -> whole microseconds
  return 1;
}

std::string unit_name(const Profile& p, std::size_t event) {
  const Event& e = p.events[event];
  if (is_time(e)) return "s";
  std::string_view name = p.str(e.name);
  return name.empty() ? "samples" : std::string(name);
}

std::string format_value(const Profile& p, std::size_t event, double v) {
  const Event& e = p.events[event];
  if (is_time(e)) return fmt::format("{:.6g} s", shown_value(e, v));
  return fmt::format("{} {}", with_separators(v), unit_name(p, event));
}

namespace {

// The frames' children by parent (CSR): frame k's are
// children[begin[k] .. begin[k + 1]), in frame order.
void children_by_parent(const FlameTree& tree, std::vector<std::uint32_t>& begin,
                        std::vector<std::uint32_t>& children) {
  const std::size_t n = tree.frames.size();
  begin.assign(n + 1, 0);
  children.assign(n > 0 ? n - 1 : 0, 0);
  for (std::size_t k = 1; k < n; ++k) ++begin[tree.frames[k].parent + 1];
  for (std::size_t k = 0; k < n; ++k) begin[k + 1] += begin[k];
  std::vector<std::uint32_t> fill(begin.begin(), begin.end() - 1);
  for (std::uint32_t k = 1; k < n; ++k) children[fill[tree.frames[k].parent]++] = k;
}

// One name among a frame's children as the folded lines order them: its
// own line ("...;name") or the block of lines below it ("...;name;..."),
// and the children of that name (two children whose names fold to one
// are one name: their lines add up and their children are one set).
struct FoldedItem {
  std::string_view name;
  bool block = false;
  std::uint32_t first = 0, count = 0;  // the nodes of this name: nodes[first, first + count)
};

// The order of the lines the items stand for: folded names hold no ';', so
// the lines of a block all start "name;" and sort as that key does, and a
// name's own line as the name alone (bytes compared unsigned, as
// std::string's).
bool folded_before(const FoldedItem& a, const FoldedItem& b) {
  const std::size_t n = std::min(a.name.size(), b.name.size());
  if (int c = a.name.substr(0, n).compare(b.name.substr(0, n)); c != 0) return c < 0;
  // Each key's byte at n: the name's next, ';' after a block's name, or
  // none (-1) after an own line's.
  auto at = [&](const FoldedItem& x) -> int {
    if (n < x.name.size()) return static_cast<unsigned char>(x.name[n]);
    return x.block ? ';' : -1;
  };
  // (Equal bytes here: one name's two items are never compared as equal
  // keys but as own before block; two names equal so far cannot go on with
  // ';' inside one of them.)
  return at(a) < at(b);
}

// The lines of a tree in byte order with equal stacks added, as sorting
// every stack's text would give them, written as a walk of the tree: no
// stack's text is kept beyond its line (the sorted texts of a call graph's
// rebuilt stacks were more than the output itself: 64 MB of gprof stacks
// peaked at 170 MiB).
class FoldedWalk {
 public:
  FoldedWalk(const Profile& p, const FlameTree& tree, double scale) : tree_(tree), n_(tree.frames.size()) {
    // Each frame's folded name and count, once; children by parent (CSR).
    Names names(p);
    name_at_.assign(n_ + 1, 0);
    counts_.assign(n_, 0);
    for (std::uint32_t k = 1; k < n_; ++k) {
      name_at_[k] = text_.size();
      const FlameFrame& f = tree.frames[k];
      append_folded(text_, names.of(f), f.process != kNoString);
      counts_[k] = std::round(f.self * scale);
    }
    name_at_[n_] = text_.size();
    children_by_parent(tree, begin_, children_);
  }

  // Every line's room (its stack, a count, a blank and a newline in 24),
  // from each frame's stack length: the whole output's bound.
  std::size_t bound() const {
    std::size_t bytes = 0;
    std::vector<std::size_t> length(n_, 0);
    for (std::uint32_t k = 1; k < n_; ++k) {
      const std::uint32_t parent = tree_.frames[k].parent;
      length[k] = (parent == 0 ? 0 : length[parent] + 1) + (name_at_[k + 1] - name_at_[k]);
      if (counts_[k] >= 1) bytes += length[k] + 24;
    }
    return bytes;
  }

  // Every line into `out`, given to its sink as it fills; false when the
  // sink failed.
  bool write(SinkBuffer& out) {
    const std::uint32_t root = 0;
    if (n_ > 0) open(&root, 1, true);
    while (depth_ > 0) {
      Level& level = levels_[depth_ - 1];
      if (level.next == level.items.size()) {
        path_.resize(level.path_size);
        --depth_;
        continue;
      }
      const FoldedItem item = level.items[level.next++];
      path_.resize(level.path_size);
      if (!level.top) path_ += ';';
      path_ += item.name;
      const std::uint32_t* nodes = level.nodes.data() + item.first;
      if (!item.block) {
        own_line(out.text(), nodes, item.count);
        if (!out.maybe_give()) return false;
      } else if (level.next == level.items.size()) {
        // (`level` may move in open(): not used after it.) The last item's
        // block takes its level's place: a chain of frames is walked in one.
        parents_.assign(nodes, nodes + item.count);
        --depth_;
        open(parents_.data(), parents_.size(), false);
      } else {
        open(nodes, item.count, false);
      }
    }
    return out.give();
  }

 private:
  // A set of sibling frames (one name's children, merged) as items, sorted.
  struct Level {
    std::vector<std::uint32_t> nodes;  // grouped by name
    std::vector<FoldedItem> items;
    std::size_t next = 0, path_size = 0;
    bool top = false;  // the root's children: no ';' before their names
  };

  std::string_view name_of(std::uint32_t k) const {
    return std::string_view(text_.data() + name_at_[k], name_at_[k + 1] - name_at_[k]);
  }
  bool has_children(std::uint32_t k) const { return begin_[k] != begin_[k + 1]; }

  // The level of the children of `parents` (one name's frames), on top.
  void open(const std::uint32_t* parents, std::size_t count, bool top) {
    if (levels_.size() == depth_) levels_.emplace_back();  // (moves keep `parents` valid)
    Level& level = levels_[depth_++];
    level.nodes.clear();
    level.items.clear();
    level.next = 0;
    level.path_size = path_.size();
    level.top = top;
    for (std::size_t i = 0; i < count; ++i)
      for (std::uint32_t c = begin_[parents[i]]; c < begin_[parents[i] + 1]; ++c) level.nodes.push_back(children_[c]);
    if (level.nodes.size() == 1) {  // (a chain's frame: its own line first, then the lines below)
      const std::uint32_t k = level.nodes[0];
      if (counts_[k] >= 1) level.items.push_back({name_of(k), false, 0, 1});
      if (has_children(k)) level.items.push_back({name_of(k), true, 0, 1});
      return;
    }
    std::sort(level.nodes.begin(), level.nodes.end(), [&](std::uint32_t a, std::uint32_t b) {
      const int c = name_of(a).compare(name_of(b));
      return c != 0 ? c < 0 : a < b;
    });
    for (std::size_t i = 0; i < level.nodes.size();) {
      std::size_t j = i;
      bool own = false, below = false;
      for (; j < level.nodes.size() && name_of(level.nodes[j]) == name_of(level.nodes[i]); ++j) {
        own = own || counts_[level.nodes[j]] >= 1;
        below = below || has_children(level.nodes[j]);
      }
      FoldedItem item{name_of(level.nodes[i]), false, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j - i)};
      if (own) level.items.push_back(item);
      item.block = true;
      if (below) level.items.push_back(item);
      i = j;
    }
    if (level.items.size() > 1) std::sort(level.items.begin(), level.items.end(), folded_before);
  }

  // A name's own line: the counts of its frames that have one, added
  // smallest first (as the sorted texts were).
  void own_line(std::string& out, const std::uint32_t* nodes, std::uint32_t count) {
    sums_.clear();
    for (std::uint32_t i = 0; i < count; ++i)
      if (counts_[nodes[i]] >= 1) sums_.push_back(counts_[nodes[i]]);
    std::sort(sums_.begin(), sums_.end());
    double sum = 0;
    for (double c : sums_) sum += c;
    out += path_;
    fmt::format_to(std::back_inserter(out), " {:.0f}\n", sum);
  }

  const FlameTree& tree_;
  const std::size_t n_;
  std::string text_;                  // the frames' folded names
  std::vector<std::size_t> name_at_;  // frame -> its name in text_ (n_ + 1 ends)
  std::vector<double> counts_;
  std::vector<std::uint32_t> begin_, children_;
  std::vector<Level> levels_;  // kept for their room: a chain opens one a frame
  std::size_t depth_ = 0;
  std::vector<std::uint32_t> parents_;
  std::string path_;
  std::vector<double> sums_;
};

}  // namespace

Expected<bool> write_folded(const Profile& p, const FlameTree& tree, std::size_t event, std::size_t max_bytes,
                            OutputSink& sink) {
  FoldedWalk walk(p, tree, folded_scale(p.events[event]));
  // Refused over the limit before anything is written (the limit guards
  // the disk too: names a file gives once can repeat in every line).
  const std::size_t bytes = walk.bound();
  if (max_bytes && bytes > max_bytes) return output_too_large("folded", max_bytes);
  sink.expect(output_reservation(max_bytes, bytes));  // (a bound: a string that keeps them reserves it)
  SinkBuffer out(sink);
  return walk.write(out);
}

Expected<std::string> write_folded(const Profile& p, const FlameTree& tree, std::size_t event, std::size_t max_bytes) {
  return produce_whole([&](OutputSink& sink) { return write_folded(p, tree, event, max_bytes, sink); });
}

Layout lay_out(const Profile& p, const FlameTree& tree, double min_value) {
  Layout l;
  const std::size_t n = tree.frames.size();
  l.start.assign(n, 0);
  l.depth.assign(n, 0);
  l.name_begin.assign(n, 0);
  l.name_size.assign(n, 0);
  // Children by parent, each run sorted by name.
  std::vector<std::uint32_t> begin, children;
  children_by_parent(tree, begin, children);
  if (n == 0) return l;
  // Each function's and process's name once in one string, each frame its
  // place in it (a string per frame was most of a large report's layout).
  constexpr std::uint32_t kNotYet = UINT32_MAX;
  std::vector<std::uint32_t> function_name(p.functions.size(), kNotYet);
  std::unordered_map<StringId, std::uint32_t> process_name;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> spans;  // by name: its begin and size in text
  auto name_frame = [&](std::uint32_t k) {
    const FlameFrame& f = tree.frames[k];
    std::uint32_t& id =
        f.process != kNoString ? process_name.try_emplace(f.process, kNotYet).first->second : function_name[f.function];
    if (id == kNotYet) {
      id = static_cast<std::uint32_t>(spans.size());
      const std::string name = frame_name(p, f);
      spans.emplace_back(static_cast<std::uint32_t>(l.text.size()), static_cast<std::uint32_t>(name.size()));
      l.text += name;
    }
    l.name_begin[k] = spans[id].first;
    l.name_size[k] = spans[id].second;
  };
  l.text = "all";
  l.name_size[0] = 3;
  l.order.push_back(0);
  std::vector<std::pair<std::string_view, std::uint32_t>> run;
  for (std::size_t i = 0; i < l.order.size(); ++i) {
    std::uint32_t f = l.order[i];
    run.clear();
    // (Named first, viewed after: the text grows while its frames are named.)
    for (std::uint32_t c = begin[f]; c < begin[f + 1]; ++c) name_frame(children[c]);
    for (std::uint32_t c = begin[f]; c < begin[f + 1]; ++c) run.emplace_back(l.name(children[c]), children[c]);
    std::sort(run.begin(), run.end());
    double x = l.start[f];
    for (auto& [name, k] : run) {
      l.start[k] = x;
      x += tree.frames[k].total;
      if (tree.frames[k].total < min_value) {
        l.name_size[k] = 0;
        continue;
      }
      l.depth[k] = l.depth[f] + 1;
      l.max_depth = std::max(l.max_depth, l.depth[k]);
      l.order.push_back(k);
    }
  }
  return l;
}

Expected<std::string> write_svg(const Profile& p, const FlameTree& tree, std::size_t event, const SvgOptions& o) {
  if (tree.frames.empty() || !(tree.frames[0].total > 0))
    return bad_input(fmt::format("nothing to draw: no cost of {} is in the profile's stacks", unit_name(p, event)));
  const double total = tree.frames[0].total;
  const double width = std::max(o.width, 200);
  const double pad = 10, usable = width - 2 * pad, frame_h = 16;
  const double top = tree.approximate ? 64 : 46, bottom = 34;
  Layout l = lay_out(p, tree, total * 0.1 / usable);
  const double height = top + bottom + (l.max_depth + 1) * frame_h;
  std::string out;
  out.reserve(output_reservation(o.max_bytes, 4096 + l.order.size() * 260));
  const std::string unit = unit_name(p, event);
  out += fmt::format(
      "<?xml version=\"1.0\" standalone=\"no\"?>\n"
      "<svg version=\"1.1\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "xmlns=\"http://www.w3.org/2000/svg\" data-total=\"{2}\" data-unit=\"{3}\" data-reverse=\"{4}\" "
      "data-approximate=\"{5}\">\n",
      width, height, json_number(total), xml_text(unit), o.reverse ? 1 : 0, tree.approximate ? 1 : 0);
  out +=
      "<defs><linearGradient id=\"bg\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop stop-color=\"#eeeeb0\" offset=\"95%\"/>"
      "</linearGradient></defs>\n";
  out +=
      "<style type=\"text/css\">text{font-family:Verdana,'DejaVu Sans',sans-serif;font-size:12px;fill:#000}"
      "#title{font-size:17px;text-anchor:middle}#subtitle{text-anchor:middle;fill:#a00}"
      "#search,#unzoom{cursor:pointer}#search,#matched{text-anchor:end}"
      ".f{cursor:pointer}.f:hover rect{stroke:#000;stroke-width:0.5}.f text{pointer-events:none}"
      ".hide{display:none}.parent{opacity:0.55}</style>\n";
  out += "<script type=\"text/ecmascript\"><![CDATA[\n";
  out += kFlameJs;
  out += "]]></script>\n";
  out += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"url(#bg)\"/>\n", width, height);
  out += fmt::format("<text id=\"title\" x=\"{}\" y=\"24\">{}</text>\n", width / 2,
                     xml_text(o.title.empty() ? (o.reverse ? "Icicle Graph" : "Flame Graph") : o.title));
  if (!o.subtitle.empty())
    out += fmt::format("<text id=\"subtitle\" x=\"{}\" y=\"44\">{}</text>\n", width / 2, xml_text(o.subtitle));
  else if (tree.approximate)
    out += fmt::format(
        "<text id=\"subtitle\" x=\"{}\" y=\"44\">approximate: built from call ratios (the profile has no "
        "stacks)</text>\n",
        width / 2);
  out += fmt::format("<text id=\"unzoom\" class=\"hide\" x=\"{}\" y=\"24\">Reset Zoom</text>\n", pad);
  out += fmt::format("<text id=\"search\" x=\"{}\" y=\"24\">Search</text>\n", width - pad);
  out += fmt::format("<text id=\"details\" x=\"{}\" y=\"{}\"> </text>\n", pad, height - 12);
  out += fmt::format("<text id=\"matched\" x=\"{}\" y=\"{}\"> </text>\n", width - pad, height - 12);
  out += "<g id=\"frames\">\n";
  for (std::uint32_t k : l.order) {
    const FlameFrame& f = tree.frames[k];
    double x = pad + l.start[k] / total * usable, w = f.total / total * usable;
    double y = o.reverse ? top + l.depth[k] * frame_h : height - bottom - (l.depth[k] + 1) * frame_h;
    std::string name = valid_utf8(l.name(k));
    std::string module = k == 0 ? std::string() : frame_module(p, f);
    std::string tip = fmt::format("{} ({}, {:.2f}%", name, format_value(p, event, f.total), 100.0 * f.total / total);
    std::string fill;
    if (o.delta && k < o.delta->size()) {
      // flamegraph.pl's differential colours and its "+1.23%" of the width.
      double d = (*o.delta)[k];
      if (d != 0) tip += fmt::format("; {}{:.2f}%", d > 0 ? "+" : "", 100.0 * d / total);
      fill = k == 0 ? "rgb(200,200,200)" : delta_colour(d, o.max_delta);
    } else {
      fill = colour(module, name, f.process != kNoString, k == 0);
    }
    tip += ")";
    if (!module.empty()) tip += fmt::format(" in {}", module);
    out += fmt::format(
        "<g class=\"f\" data-d=\"{}\" data-n=\"{}\"><title>{}</title><rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" "
        "height=\"{}\" fill=\"{}\" rx=\"2\" ry=\"2\"/><text x=\"{:.2f}\" y=\"{}\">{}</text></g>\n",
        l.depth[k], xml_text(name), xml_text(tip), x, y, w, frame_h - 1, fill, x + 3, y + 11.5, xml_text(fit(name, w)));
    if (o.max_bytes && out.size() > o.max_bytes) return output_too_large("flame", o.max_bytes);
  }
  out += "</g>\n</svg>\n";
  return out;
}

}  // namespace graphgen::flame
