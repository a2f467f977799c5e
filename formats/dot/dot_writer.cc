#include "dot_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <optional>

#include "common/markup.h"
#include "graphgen/analysis/merge.h"
#include "graphgen/labels.h"
#include "graphgen/text.h"
#include "graphgen/utf8.h"

namespace graphgen::dot {

namespace {

constexpr std::string_view kTimes = "\u00d7";  // MULTIPLICATION SIGN
constexpr std::size_t kMaxFunctionName = 4096;

struct MeasureName {
  std::string_view name;
  Measure measure;
};
constexpr std::array<MeasureName, 4> kMeasures = {{
    {"self-time", Measure::kSelfTime},
    {"self-time-percentage", Measure::kSelfTimePercentage},
    {"total-time", Measure::kTotalTime},
    {"total-time-percentage", Measure::kTotalTimePercentage},
}};

// --- UTF-8 helpers: Python counts code points, not bytes -------------------

std::size_t next_cp(std::string_view s, std::size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
  return std::min(s.size(), i + len);
}

std::size_t count_cp(std::string_view s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size(); i = next_cp(s, i)) ++n;
  return n;
}

std::string_view prefix_cp(std::string_view s, std::size_t n) {
  std::size_t i = 0;
  while (n-- > 0 && i < s.size()) i = next_cp(s, i);
  return s.substr(0, i);
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// Python's [^\d\W]: a word character that is not a digit. Non-ASCII bytes
// count as letters (almost all non-ASCII characters in names are).
bool is_letter(char c) {
  auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || std::isalpha(u) || c == '_';
}

bool ascii_alnum(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) return false;
  return true;
}

bool is_keyword(std::string_view s) {
  static constexpr std::array<std::string_view, 6> kKeywords = {"node",    "edge",     "graph",
                                                                "digraph", "subgraph", "strict"};
  for (std::string_view k : kKeywords) {
    if (k.size() != s.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < s.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(s[i])) != k[i]) same = false;
    if (same) return true;
  }
  return false;
}

void append_id(std::string& out, std::string_view s) {
  // Bare when alphanumeric (non-ASCII is quoted: same meaning, simpler rule),
  // not 0x..., not a keyword; else quoted with gprof2dot's four escapes.
  if (ascii_alnum(s) && !s.starts_with("0x") && !is_keyword(s)) {
    out += s;
    return;
  }
  // Graphviz reads UTF-8 and stops at a NUL, and its SVG must be XML (and
  // valid HTML5 inside the report): bytes that are not UTF-8, control
  // characters, DEL and the C1 controls become U+FFFD.
  out += '"';
  for (char c : printable_utf8(s)) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '"':
        out += "\\\"";
        break;
      default:
        out += c;
    }
  }
  out += '"';
}

// printf's %.2f rounds the exact binary value half-to-even, as Python's
// %-formatting does; keep to it rather than another formatter.
std::string fixed2(double value) { return printf_double("%.2f", value); }

std::string percentage(double ratio) { return fixed2(ratio * 100.0) + "%"; }

// Removes every innermost open...close group, repeatedly.
// Removes every matched open...close group, nested ones included, leaving
// unmatched brackets: what removing innermost groups until none is left
// (gprof2dot's loop) gives, in one pass (names with thousands of nested
// template brackets stay linear).
std::string remove_groups(std::string_view s, char open, char close) {
  std::string out;
  out.reserve(s.size());
  std::vector<std::size_t> opened;  // where each unmatched `open` is in out
  for (char c : s) {
    if (c == open) {
      opened.push_back(out.size());
    } else if (c == close && !opened.empty()) {
      out.resize(opened.back());
      opened.pop_back();
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

bool parse_measure(std::string_view name, Measure& out) {
  for (const MeasureName& m : kMeasures) {
    if (m.name == name) {
      out = m.measure;
      return true;
    }
  }
  return false;
}

std::vector<std::string_view> measure_names() {
  std::vector<std::string_view> names;
  for (const MeasureName& m : kMeasures) names.push_back(m.name);
  return names;
}

std::string strip_function_name(std::string_view name) {
  std::string s = remove_groups(name, '(', ')');
  // \s+const$
  if (s.ends_with("const")) {
    std::size_t end = s.size() - 5;
    std::size_t ws = end;
    while (ws > 0 && is_space(s[ws - 1])) --ws;
    if (ws < end) s.erase(ws);
  }
  return remove_groups(s, '<', '>');
}

namespace {

// textwrap's chunks: whitespace runs and words, words split after hyphens
// that join letters (Python's TextWrapper.wordsep_re).
std::vector<std::string> wrap_chunks(const std::string& text) {
  std::vector<std::string> chunks;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t j = i;
    if (text[i] == ' ') {
      while (j < text.size() && text[j] == ' ') ++j;
      chunks.push_back(text.substr(i, j - i));
      i = j;
      continue;
    }
    // A word: split after '-' when preceded by two letters (or L-L-) and
    // followed by letter [-] letter.
    while (j < text.size() && text[j] != ' ') {
      if (text[j] == '-' && j > i) {
        bool behind = (j >= i + 2 && is_letter(text[j - 2]) && is_letter(text[j - 1])) ||
                      (j >= i + 3 && is_letter(text[j - 3]) && text[j - 2] == '-' && is_letter(text[j - 1]));
        std::size_t k = j + 1;
        bool ahead = k < text.size() && is_letter(text[k]);
        if (ahead) {
          std::size_t m = k + 1;
          if (m < text.size() && text[m] == '-') ++m;
          ahead = m < text.size() && is_letter(text[m]);
        }
        if (behind && ahead) {
          ++j;
          break;
        }
      }
      j = next_cp(text, j);
    }
    chunks.push_back(text.substr(i, j - i));
    i = j;
  }
  return chunks;
}

bool all_space(const std::string& s) {
  for (char c : s)
    if (c != ' ') return false;
  return true;
}

std::string text_fill(std::string_view name, std::size_t width) {
  // expand_tabs, then every whitespace character becomes a space.
  std::string text;
  std::size_t col = 0;
  for (std::size_t i = 0; i < name.size(); i = next_cp(name, i)) {
    char c = name[i];
    if (c == '\t') {
      std::size_t pad = 8 - col % 8;
      text.append(pad, ' ');
      col += pad;
    } else if (c == '\n' || c == '\r') {
      text += ' ';
      col = 0;
    } else {
      text += is_space(c) ? std::string_view(" ") : name.substr(i, next_cp(name, i) - i);
      ++col;
    }
  }
  std::vector<std::string> chunks = wrap_chunks(text);
  std::reverse(chunks.begin(), chunks.end());
  std::vector<std::string> lines;
  while (!chunks.empty()) {
    std::vector<std::string> line;
    std::size_t len = 0;
    if (!lines.empty() && all_space(chunks.back())) chunks.pop_back();
    while (!chunks.empty()) {
      std::size_t l = count_cp(chunks.back());
      if (len + l > width) break;
      line.push_back(std::move(chunks.back()));
      chunks.pop_back();
      len += l;
    }
    // break_long_words=False: an over-long word goes alone on its line.
    if (!chunks.empty() && count_cp(chunks.back()) > width && line.empty()) {
      line.push_back(std::move(chunks.back()));
      chunks.pop_back();
    }
    if (!line.empty() && all_space(line.back())) line.pop_back();
    if (!line.empty()) {
      std::string joined;
      for (const std::string& c : line) joined += c;
      lines.push_back(std::move(joined));
    }
  }
  std::string out;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    if (k) out += '\n';
    out += lines[k];
  }
  return out;
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  std::string out;
  std::size_t i = 0;
  for (;;) {
    std::size_t j = s.find(from, i);
    if (j == std::string::npos) break;
    out.append(s, i, j - i);
    out += to;
    i = j + from.size();
  }
  out.append(s, i);
  s = std::move(out);
}

}  // namespace

std::string wrap_function_name(std::string_view name) {
  std::string s = count_cp(name) > 32 ? text_fill(name, 32) : std::string(name);
  replace_all(s, ", ", ",");
  replace_all(s, "> >", ">>");
  replace_all(s, "> >", ">>");
  return s;
}

std::string python_float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  // sci = [-]d[.ddd]e[+-]XX
  bool negative = sci[0] == '-';
  std::size_t e = sci.find('e');
  std::string digits;
  for (std::size_t i = negative ? 1 : 0; i < e; ++i)
    if (sci[i] != '.') digits += sci[i];
  int exponent = std::stoi(sci.substr(e + 1));
  std::string out = negative ? "-" : "";
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) {
      out += "0.";
      out.append(static_cast<std::size_t>(-exponent - 1), '0');
      out += digits;
    } else {
      std::size_t int_digits = static_cast<std::size_t>(exponent) + 1;
      if (digits.size() <= int_digits) {
        out += digits;
        out.append(int_digits - digits.size(), '0');
        out += ".0";
      } else {
        out += digits.substr(0, int_digits);
        out += '.';
        out += digits.substr(int_digits);
      }
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) {
    out += '.';
    out += digits.substr(1);
  }
  out += fmt::format("e{}{:02d}", exponent < 0 ? '-' : '+', std::abs(exponent));
  return out;
}

namespace {

struct Spec {
  std::size_t begin = 0, end = 0;  // the conversion, '%' to the type char
  char type = 0;
};

Expected<Spec> parse_format(std::string_view f) {
  Spec spec;
  bool found = false;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') continue;
    if (i + 1 < f.size() && f[i + 1] == '%') {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < f.size() && std::string_view("#0- +").find(f[j]) != std::string_view::npos) ++j;
    // Width and precision: at most kMaxDigits each (a label of a billion
    // digits is no label, and took gigabytes to format).
    constexpr unsigned kMaxDigits = 40;
    auto number = [&]() {
      unsigned v = 0;
      for (; j < f.size() && std::isdigit(static_cast<unsigned char>(f[j])); ++j)
        v = std::min(v * 10 + static_cast<unsigned>(f[j] - '0'), kMaxDigits + 1);
      return v;
    };
    bool too_wide = number() > kMaxDigits;
    if (j < f.size() && f[j] == '.') {
      ++j;
      too_wide = number() > kMaxDigits || too_wide;
    }
    if (too_wide)
      return bad_usage(
          fmt::format("--time-format '{}': expected a width and a precision of at most {} each", f, kMaxDigits));
    if (j >= f.size())
      return bad_usage(fmt::format("--time-format '{}': the conversion at column {} has no type letter", f, i + 1));
    if (std::string_view("diouxXeEfFgGsr").find(f[j]) == std::string_view::npos)
      return bad_usage(
          fmt::format("--time-format '{}': expected a number conversion (%f, %e, %g, %d, ...), found '%{}'", f,
                      f.substr(i + 1, j - i)));
    if (found)
      return bad_usage(fmt::format("--time-format '{}': expected one conversion for the time, found several", f));
    found = true;
    spec = {i, j + 1, f[j]};
    i = j;
  }
  if (!found) return bad_usage(fmt::format("--time-format '{}': expected a conversion such as %.3f for the time", f));
  return spec;
}

std::string unescape_percent(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    out += s[i];
    if (s[i] == '%' && i + 1 < s.size() && s[i + 1] == '%') ++i;
  }
  return out;
}

}  // namespace

Expected<bool> check_time_format(std::string_view format) {
  auto spec = parse_format(format);
  if (!spec) return spec.error();
  return true;
}

std::string format_time(std::string_view format, double value) {
  auto parsed = parse_format(format);
  if (!parsed) return python_float_repr(value);
  Spec spec = *parsed;
  std::string conv(format.substr(spec.begin, spec.end - spec.begin));
  std::string body;
  if (spec.type == 's' || spec.type == 'r') {
    conv.back() = 's';
    std::string repr = python_float_repr(value);
    int n = std::snprintf(nullptr, 0, conv.c_str(), repr.c_str());
    body.resize(static_cast<std::size_t>(n) + 1);
    std::snprintf(body.data(), body.size(), conv.c_str(), repr.c_str());
  } else if (std::string_view("diouxX").find(spec.type) != std::string_view::npos) {
    if (spec.type == 'i' || spec.type == 'u') conv.back() = 'd';
    conv.insert(conv.size() - 1, "ll");
    long long v = std::isfinite(value) ? static_cast<long long>(value) : 0;
    int n = std::snprintf(nullptr, 0, conv.c_str(), v);
    body.resize(static_cast<std::size_t>(n) + 1);
    std::snprintf(body.data(), body.size(), conv.c_str(), v);
  } else {
    int n = std::snprintf(nullptr, 0, conv.c_str(), value);
    body.resize(static_cast<std::size_t>(n) + 1);
    std::snprintf(body.data(), body.size(), conv.c_str(), value);
  }
  body.pop_back();
  return unescape_percent(format.substr(0, spec.begin)) + body + unescape_percent(format.substr(spec.end));
}

namespace {

void attr(std::string& out, bool& first, std::string_view name, std::string_view value) {
  out += first ? " [" : ", ";
  first = false;
  out += name;
  out += '=';
  append_id(out, value);
}

// What is known of each function name, worked out once per name: a hostile
// profile can give thousands of functions one megabyte-long name.
class Names {
 public:
  explicit Names(const Profile& p) : p_(p) {}

  // A short name is counted each time it is drawn, a long one once. (A
  // count for every string of the profile, made up front, was 0.8 MB of a
  // 100 000-function file's peak, for the few hundred names drawn.)
  std::size_t code_points(StringId id) {
    const std::string_view name = p_.str(id);
    if (name.size() <= kCountedEachTime) return count_cp(name);
    auto [it, fresh] = cps_.try_emplace(id, 0);
    if (fresh) it->second = count_cp(name);
    return it->second;
  }
  const std::string& stripped(StringId id) {
    auto [it, fresh] = stripped_.try_emplace(id);
    if (fresh) it->second = strip_function_name(p_.str(id));
    return it->second;
  }

  std::size_t truncated = 0;  // names cut at kMaxFunctionName
  std::string first_truncated;
  std::size_t first_length = 0;

 private:
  static constexpr std::size_t kCountedEachTime = 256;
  const Profile& p_;
  std::map<StringId, std::size_t> cps_;  // long names' counts
  std::map<StringId, std::string> stripped_;
};

// A node label's first lines: the process, the module, the name (stripped,
// cut, wrapped as the options say).
std::vector<std::string> name_lines(const Profile& p, FuncId f, const Options& options, Names& names) {
  std::vector<std::string> lines;
  const Function& fn = p.functions[f];
  if (fn.process != kNoString) lines.push_back(visible_text(p.str(fn.process)));
  std::string module;
  if (module_line(p, f, module)) lines.push_back(visible_text(module));
  // The label is prefix + name; the name's length and stripped form are
  // known per name (a prefix such as "module:12:" holds no brackets).
  std::string prefix = label_prefix(p, f);
  bool plain_prefix = prefix.find_first_of("()<>") == std::string::npos;
  std::string_view body = p.str(fn.name);
  std::string stripped;
  std::size_t cps;
  if (options.strip && !plain_prefix) {
    stripped = strip_function_name(prefix + std::string(body));
    prefix.clear();
    body = stripped;
    cps = count_cp(body);
  } else {
    if (options.strip) body = names.stripped(fn.name);
    cps = count_cp(prefix) + (options.strip ? count_cp(body) : names.code_points(fn.name));
  }
  // dot cannot parse quoted strings beyond 16K, so very long (boost) names
  // are cut, as gprof2dot does (its warning comes once, with a count).
  std::string name;
  if (cps >= kMaxFunctionName) {
    if (names.truncated++ == 0) {
      names.first_truncated = prefix + std::string(prefix_cp(body, 32));
      names.first_length = cps;
    }
    std::size_t keep = kMaxFunctionName - 1;
    std::size_t prefix_cps = count_cp(prefix);
    name = prefix_cps >= keep ? std::string(prefix_cp(prefix, keep))
                              : prefix + std::string(prefix_cp(body, keep - prefix_cps));
    name += "\u2026";
  } else {
    name = prefix + std::string(body);
  }
  name = visible_text(name);
  if (options.wrap) name = wrap_function_name(name);
  lines.push_back(std::move(name));
  return lines;
}

// `tail`: the last function of the chain f heads, drawn in f's node (its
// name under f's, with how many are between them).
std::string node_label(const Profile& p, FuncId f, const GraphNode& node, const Options& options, Names& names,
                       FuncId tail = kNoMatch, std::size_t length = 0) {
  std::vector<std::string> lines = name_lines(p, f, options, names);
  if (tail != kNoMatch) {
    lines.push_back(fmt::format("\u22ee {} calls in a chain \u22ee", length - 1));
    for (std::string& line : name_lines(p, tail, options, names)) lines.push_back(std::move(line));
  }
  for (Measure m : options.node_labels) {
    switch (m) {
      case Measure::kSelfTime:
        if (node.self_time) lines.push_back("(" + format_time(options.time_format, *node.self_time) + ")");
        break;
      case Measure::kSelfTimePercentage:
        if (node.self_ratio) lines.push_back("(" + percentage(*node.self_ratio) + ")");
        break;
      case Measure::kTotalTime:
        if (node.total_time) lines.push_back(format_time(options.time_format, *node.total_time));
        break;
      case Measure::kTotalTimePercentage:
        if (node.total_ratio) lines.push_back(percentage(*node.total_ratio));
        break;
    }
  }
  if (options.imbalance && f < options.imbalance->functions.size()) {
    const RankMeasure& m = options.imbalance->functions[f].inclusive;
    lines.push_back(fmt::format("imb {:.0f}% (max r{}, min r{})", m.imbalance_percent, m.max_rank, m.min_rank));
  }
  if (options.show_samples && node.has_samples) lines.push_back(fmt::format("{}{}", node.samples, kTimes));
  if (node.called != kUnknownCount) lines.push_back(fmt::format("{}{}", node.called, kTimes));
  std::string label;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i) label += '\n';
    label += lines[i];
  }
  return label;
}

// The graph's header, as gprof2dot writes it (--compare leaves the node
// shape to each node).
void emit_header(std::string& out, const Theme& theme, bool box_nodes) {
  out += "digraph {\n";
  out += "\ttooltip=\" \"\n";
  out += "\tgraph [fontname=Arial, nodesep=0.125, ranksep=0.25];\n";
  out += fmt::format("\tnode [fontcolor={}, fontname=Arial, height=0, {}style={}, width=0];\n", theme.font_color,
                     box_nodes ? "shape=box, " : "", theme.filled ? "filled" : "solid");
  out += "\tedge [fontname=Arial];\n";
}

// --compare's nodes add their orientation and shape, and print the font
// size with six decimals, as gprof2dot does there.
struct NodeStyle {
  std::string_view orientation, shape;  // empty: not written
  bool six_decimals = false;
};

// A function's node, coloured at `weight`.
void emit_node(std::string& out, const Profile& p, FuncId f, double weight, const std::string& label,
               const Theme& theme, const NodeStyle& style = {}) {
  out += '\t';
  out += fmt::format("{}", f);
  bool first = true;
  attr(out, first, "color", to_hex(theme.node_fill(weight)));
  attr(out, first, "fontcolor", to_hex(theme.node_font(weight)));
  attr(out, first, "fontsize",
       style.six_decimals ? fmt::format("{:f}", theme.font_size(weight)) : fixed2(theme.font_size(weight)));
  attr(out, first, "label", label);
  if (!style.orientation.empty()) attr(out, first, "orientation", style.orientation);
  if (!style.shape.empty()) attr(out, first, "shape", style.shape);
  const Function& fn = p.functions[f];
  if (fn.file != kNoString) attr(out, first, "tooltip", p.str(fn.file));
  out += "];\n";
}

// A call, its colour, width and font at weight `w`.
void emit_edge(std::string& out, const GraphEdge& e, double w, const std::string& label, const Theme& theme) {
  std::string color = to_hex(theme.color(w));
  std::string pen = fixed2(theme.pen_width(w));
  out += fmt::format("\t{} -> {}", e.caller, e.callee);
  bool first = true;
  attr(out, first, "arrowsize", fixed2(theme.arrow_size(w)));
  attr(out, first, "color", color);
  attr(out, first, "fontcolor", color);
  attr(out, first, "fontsize", fixed2(theme.font_size(w)));
  attr(out, first, "label", label);
  attr(out, first, "labeldistance", pen);
  attr(out, first, "penwidth", pen);
  out += "];\n";
}

// gprof2dot warns once per name it cuts; one warning says how many.
void warn_truncated(const Names& names, Diagnostics& diag) {
  if (names.truncated == 1)
    diag.warn(fmt::format("truncating function name with {} chars ({}...)", names.first_length, names.first_truncated));
  else if (names.truncated > 1)
    diag.warn(fmt::format("truncating {} function names longer than {} chars (the first has {}: {}...)",
                          names.truncated, kMaxFunctionName - 1, names.first_length, names.first_truncated));
}

// A call's label: its share of the whole, then its count.
std::string edge_label(const GraphEdge& e) {
  std::string label;
  if (e.total_ratio) label = percentage(*e.total_ratio);
  if (e.calls != kUnknownCount) {
    if (!label.empty()) label += '\n';
    label += fmt::format("{}{}", e.calls, kTimes);
  }
  return label;
}

std::size_t kept_count(const CallGraph& g) {
  return static_cast<std::size_t>(
      std::count_if(g.nodes.begin(), g.nodes.end(), [](const GraphNode& n) { return n.kept; }));
}

// The one kept edge leaving f, when f has exactly one to another function.
std::uint32_t chain_edge(const CallGraph& g, FuncId f) {
  std::uint32_t found = UINT32_MAX;
  for (std::uint32_t i = g.edge_begin[f]; i < g.edge_begin[f + 1]; ++i) {
    if (!g.edge_kept(i)) continue;
    if (found != UINT32_MAX || g.edges[i].callee == f) return UINT32_MAX;
    found = i;
  }
  return found;
}

}  // namespace

Chains find_chains(const CallGraph& g, std::size_t over) {
  Chains c;
  const std::size_t n = g.nodes.size();
  if (over == 0 || kept_count(g) <= over) return c;
  std::vector<std::uint32_t> calls_in(n, 0);
  for (std::size_t i = 0; i < g.edges.size(); ++i) {
    const GraphEdge& e = g.edges[i];
    if (g.edge_kept(i) && g.nodes[e.caller].kept && g.nodes[e.callee].kept) ++calls_in[e.callee];
  }
  // f links to g when f calls only g and only f calls g.
  std::vector<FuncId> next(n, kNoMatch);
  std::vector<bool> linked_in(n, false);
  for (FuncId f = 0; f < n; ++f) {
    if (!g.nodes[f].kept) continue;
    std::uint32_t e = chain_edge(g, f);
    if (e == UINT32_MAX || !g.nodes[g.edges[e].callee].kept || calls_in[g.edges[e].callee] != 1) continue;
    next[f] = g.edges[e].callee;
    linked_in[next[f]] = true;
  }
  c.head.resize(n);
  c.tail.resize(n);
  c.length.assign(n, 1);
  for (FuncId f = 0; f < n; ++f) c.head[f] = c.tail[f] = f;
  for (FuncId h = 0; h < n; ++h) {
    if (!g.nodes[h].kept || linked_in[h] || next[h] == kNoMatch) continue;  // (a ring has no head: kept as it is)
    std::size_t length = 1;
    FuncId t = h;
    while (next[t] != kNoMatch) {
      t = next[t];
      ++length;
    }
    if (length < kMinChain) continue;
    for (FuncId m = next[h];; m = next[m]) {
      c.head[m] = h;
      if (m == t) break;
    }
    c.tail[h] = t;
    c.length[h] = static_cast<std::uint32_t>(length);
    ++c.collapsed;
    c.absorbed += length - 1;
  }
  return c;
}

Expected<std::string> write(const Profile& p, const CallGraph& g, const Theme& theme, const Options& options,
                            Diagnostics& diag) {
  std::string out;
  out.reserve(output_reservation(options.max_bytes, 256 + g.nodes.size() * 200));
  emit_header(out, theme, true);
  // --imbalance pictures say what their colour means: not time.
  if (options.imbalance)
    out += fmt::format(
        "\tgraph [label=\"Node colour: each function's inclusive Imb% over the {} ranks, from 0 % ({}) to 100 % ({}); "
        "imb: Imb%, and the ranks of its max and min time\", labelloc=t, fontsize=\"14.00\"];\n",
        options.imbalance->ranks, theme.name == "color" ? "blue" : "lightest",
        theme.name == "color" ? "red" : "darkest");
  Names names(p);
  const Chains chains = options.collapse_chains_over ? find_chains(g, options.collapse_chains_over) : Chains{};
  for (FuncId f = 0; f < g.nodes.size(); ++f) {
    if (!g.nodes[f].kept || (!chains.head.empty() && chains.head[f] != f)) continue;  // drawn in its chain's node
    if (options.max_bytes && out.size() > options.max_bytes) return output_too_large("dot", options.max_bytes);
    const FuncId tail = chains.head.empty() ? f : chains.tail[f];
    // A chain's node: its head's measures, with the self of all its functions.
    GraphNode node = g.nodes[f];
    for (FuncId m = f; m != tail;) {
      m = g.edges[chain_edge(g, m)].callee;
      if (node.self_ratio && g.nodes[m].self_ratio) node.self_ratio = *node.self_ratio + *g.nodes[m].self_ratio;
      if (node.self_time && g.nodes[m].self_time) node.self_time = *node.self_time + *g.nodes[m].self_time;
    }
    // --imbalance: the colour says how unevenly the ranks spend the time.
    double weight = options.imbalance && f < options.imbalance->functions.size()
                        ? std::clamp(options.imbalance->functions[f].inclusive.imbalance_percent / 100.0, 0.0, 1.0)
                        : node.weight.value_or(0.0);
    std::string label = tail == f ? node_label(p, f, node, options, names)
                                  : node_label(p, f, node, options, names, tail, chains.length[f]);
    if (options.max_bytes && out.size() + label.size() > options.max_bytes)
      return output_too_large("dot", options.max_bytes);
    emit_node(out, p, f, weight, label, theme);
    for (std::uint32_t i = g.edge_begin[tail]; i < g.edge_begin[tail + 1]; ++i) {
      if (!g.edge_kept(i)) continue;
      GraphEdge e = g.edges[i];
      const double weight = edge_weight(g, e).value_or(g.nodes[e.callee].weight.value_or(0.0));
      e.caller = f;  // (a chain's last calls leave from its node)
      emit_edge(out, e, weight, edge_label(e), theme);
    }
  }
  if (chains.collapsed)
    diag.warn(
        fmt::format("the graph has {} nodes; {} of single calls ({} functions) {} drawn as one node{} "
                    "(--no-collapse-chains draws every function)",
                    kept_count(g), chains.collapsed == 1 ? "a chain" : fmt::format("{} chains", chains.collapsed),
                    chains.absorbed + chains.collapsed, chains.collapsed == 1 ? "is" : "are",
                    chains.collapsed == 1 ? "" : " each"));
  out += "}\n";
  warn_truncated(names, diag);
  return out;
}

std::string round_difference(double difference, double tolerance) {
  const int n = -static_cast<int>(std::floor(std::log10(tolerance)));
  double rounded;
  if (n >= 0) {
    // Correctly rounded at n decimals, as Python's round() is.
    std::string text = fmt::format("{:.{}f}", difference, n);
    rounded = std::strtod(text.c_str(), nullptr);
  } else {
    double unit = std::pow(10.0, -n);
    rounded = std::nearbyint(difference / unit) * unit;
  }
  return python_float_repr(rounded);
}

namespace {

struct Shown {
  std::optional<double> value;
  std::string text;
};

// A node's measure as gprof2dot's event formats print it.
Shown measure_of(const GraphNode& n, Measure m, const Options& o) {
  switch (m) {
    case Measure::kSelfTime:
      if (n.self_time) return {n.self_time, "(" + format_time(o.time_format, *n.self_time) + ")"};
      break;
    case Measure::kSelfTimePercentage:
      if (n.self_ratio) return {n.self_ratio, "(" + percentage(*n.self_ratio) + ")"};
      break;
    case Measure::kTotalTime:
      if (n.total_time) return {n.total_time, format_time(o.time_format, *n.total_time)};
      break;
    case Measure::kTotalTimePercentage:
      if (n.total_ratio) return {n.total_ratio, percentage(*n.total_ratio)};
      break;
  }
  return {};
}

// The call caller -> callee of `g`, kept or not.
const GraphEdge* edge_between(const CallGraph& g, FuncId caller, FuncId callee) {
  if (caller == kNoMatch || callee == kNoMatch || caller + 1 >= g.edge_begin.size()) return nullptr;
  auto begin = g.edges.begin() + g.edge_begin[caller], end = g.edges.begin() + g.edge_begin[caller + 1];
  auto it = std::lower_bound(begin, end, callee, [](const GraphEdge& e, FuncId c) { return e.callee < c; });
  return it != end && it->callee == callee ? &*it : nullptr;
}

// B's edge caller -> callee, if kept.
const GraphEdge* kept_edge(const CallGraph& g, FuncId caller, FuncId callee) {
  const GraphEdge* e = edge_between(g, caller, callee);
  return e && g.edge_kept(static_cast<std::size_t>(e - g.edges.data())) ? e : nullptr;
}

// A function found in both profiles: its measures in the first, each with
// how much the second differs, and its shape (an arrow where the total
// share moved by the tolerance or more).
struct ComparedNode {
  std::string label;
  std::string_view shape = "box", orientation = "0";
  double total_difference = 0;  // percentage points, 0 where not shown
};

ComparedNode compare_node(const Profile& a, FuncId f, const GraphNode& node, const GraphNode& other,
                          const Options& options, const CompareOptions& compare) {
  const double tol = compare.tolerance;
  ComparedNode out;
  out.label = visible_text(function_label(a, f));
  if (options.wrap) out.label = wrap_function_name(out.label);
  auto called_line = [&] {
    if (node.called == kUnknownCount) return;
    out.label += fmt::format("\n{} {}/ {} {}", node.called, kTimes,
                             other.called == kUnknownCount ? std::string("?") : std::to_string(other.called), kTimes);
  };
  auto line = [&](std::optional<double> mine, std::optional<double> theirs, std::string text, bool total) {
    double x = *mine, y = theirs.value_or(0.0);
    double d = std::fabs(x - y) * 100;
    bool shown = false;
    if (d >= tol && y > x && !(total && compare.only_faster)) {
      text += " + " + round_difference(d, tol) + "%";
      shown = true;
    } else if (d >= tol && y < x && !(total && compare.only_slower)) {
      text += " - " + round_difference(d, tol) + "%";
      shown = true;
      if (total) out.orientation = "90";
    }
    if (total) {
      out.total_difference = shown ? d : 0;  // not shown, so not coloured either
      if (shown) out.shape = "cds";
    }
    out.label += "\n" + text;
    called_line();
  };
  for (Measure m : options.node_labels) {
    Shown mine = measure_of(node, m, options);
    if (!mine.value) continue;
    line(mine.value, measure_of(other, m, options).value, mine.text, m == Measure::kTotalTimePercentage);
  }
  if (options.show_samples && node.has_samples) {
    std::optional<double> theirs;
    if (other.has_samples) theirs = static_cast<double>(other.samples);
    line(static_cast<double>(node.samples), theirs, fmt::format("{}{}", node.samples, kTimes), false);
  }
  return out;
}

// A call of the first profile: `first / second` where the second has it.
std::string compare_edge_label(const GraphEdge& e, const GraphEdge* theirs) {
  if (!theirs) return edge_label(e);
  std::string label;
  auto add = [&](std::string line) {
    if (!label.empty()) label += '\n';
    label += line;
  };
  if (e.total_ratio)
    add(theirs->total_ratio ? percentage(*e.total_ratio) + " / " + percentage(*theirs->total_ratio)
                            : percentage(*e.total_ratio));
  if (e.calls != kUnknownCount)
    add(theirs->calls != kUnknownCount ? fmt::format("{}{} / {}{}", e.calls, kTimes, theirs->calls, kTimes)
                                       : fmt::format("{}{}", e.calls, kTimes));
  return label;
}

}  // namespace

Expected<std::string> write_compare(const Profile& a, const CallGraph& ga, const Profile& b, const CallGraph& gb,
                                    const std::vector<FuncId>& match, const Theme& theme, const Options& options,
                                    const CompareOptions& compare, Diagnostics& diag) {
  (void)b;
  auto partner = [&](FuncId f) -> const GraphNode* {
    FuncId g = f < match.size() ? match[f] : kNoMatch;
    return g != kNoMatch && g < gb.nodes.size() && gb.nodes[g].kept ? &gb.nodes[g] : nullptr;
  };
  // The range of total-share differences over the matched functions, for
  // --compare-color-by-difference.
  double min_diff = 0, max_diff = 0;
  bool any_diff = false;
  for (FuncId f = 0; f < ga.nodes.size(); ++f) {
    const GraphNode* other = partner(f);
    if (!ga.nodes[f].kept || !other || !ga.nodes[f].total_ratio || !other->total_ratio) continue;
    double d = std::fabs(*ga.nodes[f].total_ratio - *other->total_ratio) * 100;
    min_diff = any_diff ? std::min(min_diff, d) : d;
    max_diff = any_diff ? std::max(max_diff, d) : d;
    any_diff = true;
  }

  std::string out;
  out.reserve(output_reservation(options.max_bytes, 256 + ga.nodes.size() * 240));
  emit_header(out, theme, false);
  Names names(a);
  for (FuncId f = 0; f < ga.nodes.size(); ++f) {
    const GraphNode& node = ga.nodes[f];
    if (!node.kept) continue;
    if (options.max_bytes && out.size() > options.max_bytes) return output_too_large("dot", options.max_bytes);
    const GraphNode* other = partner(f);
    ComparedNode shown = other ? compare_node(a, f, node, *other, options, compare) : ComparedNode{};
    if (!other) shown.label = node_label(a, f, node, options, names);
    double weight = 0.0;
    if (compare.color_by_difference && shown.total_difference != 0)
      weight = max_diff > min_diff ? (shown.total_difference - min_diff) / (max_diff - min_diff) : 1.0;
    else if (!compare.color_by_difference)
      weight = node.weight.value_or(0.0);
    emit_node(out, a, f, weight, shown.label, theme, {shown.orientation, shown.shape, true});
    FuncId g = other ? match[f] : kNoMatch;
    for (std::uint32_t i = ga.edge_begin[f]; i < ga.edge_begin[f + 1]; ++i) {
      if (!ga.edge_kept(i)) continue;
      const GraphEdge& e = ga.edges[i];
      const GraphEdge* theirs = nullptr;
      if (g != kNoMatch && partner(e.callee)) theirs = kept_edge(gb, g, match[e.callee]);
      double w =
          compare.color_by_difference ? 0.0 : edge_weight(ga, e).value_or(ga.nodes[e.callee].weight.value_or(0.0));
      emit_edge(out, e, w, compare_edge_label(e, theirs), theme);
    }
  }
  out += "}\n";
  warn_truncated(names, diag);
  return out;
}

}  // namespace graphgen::dot

namespace graphgen::dot {

namespace {

// --- --compare-by absolute -------------------------------------------------

bool in_seconds(const ChangeSide& s) { return is_time(s.profile->events[s.event]); }

double tidy(const ChangeSide& s, double v) { return without_noise(s.profile->events[s.event], v); }

// A cost for people: seconds in s, ms or µs; counts whole below 10 000,
// else with k, M, G, T (four significant digits).
std::string amount(double v, bool seconds) {
  const double m = std::fabs(v);
  if (seconds) {
    if (m == 0) return "0 s";
    if (m >= 1) return fmt::format("{:.4g} s", v);
    if (m >= 1e-3) return fmt::format("{:.4g} ms", v * 1e3);
    return fmt::format("{:.4g} \u00b5s", v * 1e6);
  }
  if (m < 1e4) return m == std::round(m) ? fmt::format("{:.0f}", v) : fmt::format("{:.4g}", v);
  static constexpr std::array<std::pair<double, std::string_view>, 4> kScales = {
      {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
  for (auto [scale, suffix] : kScales)
    if (m >= scale) return fmt::format("{:.4g}{}", v / scale, suffix);
  return fmt::format("{:.4g}", v);
}

std::string change_text(double before, double after) {
  if (before == after) return "same";
  if (before == 0) return "new";
  return fmt::format("{:+.1f} %", 100 * (after - before) / std::fabs(before));
}

constexpr std::string_view kArrow = " \u2192 ";  // RIGHTWARDS ARROW

// Where a change sits on the colour scale, -1 (faster) .. 1 (slower): the
// base-2 logarithm of after / before, so half or less is the full blue and
// twice or more the full red; with --compare-color-by-difference the change
// against the largest one. Changes within the tolerance (percent of the
// cost before) and those --compare-only-* leaves out are 0.
double change_scale(double before, double after, const CompareOptions& c, double largest_change) {
  const double d = after - before;
  if (d == 0) return 0;
  if (before != 0 && std::fabs(d) / std::fabs(before) * 100 < c.tolerance) return 0;
  if ((c.only_slower && d < 0) || (c.only_faster && d > 0)) return 0;
  if (c.color_by_difference) return largest_change > 0 ? std::clamp(d / largest_change, -1.0, 1.0) : 0.0;
  if (before <= 0 || after <= 0) return d > 0 ? 1.0 : -1.0;
  return std::clamp(std::log2(after / before), -1.0, 1.0);
}

struct ChangeColour {
  std::string fill, line, font;
};

// White to ColorBrewer RdBu's darkest blue (#2166ac) or red (#b2182b).
ChangeColour change_colour(double x) {
  const double m = std::fabs(x);
  const int end[3] = {x < 0 ? 0x21 : 0xb2, x < 0 ? 0x66 : 0x18, x < 0 ? 0xac : 0x2b};
  int fill[3], line[3];
  for (int i = 0; i < 3; ++i) {
    fill[i] = static_cast<int>(std::lround(255 + m * (end[i] - 255)));
    line[i] = fill[i] * 3 / 5;
  }
  return {fmt::format("#{:02x}{:02x}{:02x}", fill[0], fill[1], fill[2]),
          fmt::format("#{:02x}{:02x}{:02x}", line[0], line[1], line[2]), m > 0.55 ? "#ffffff" : "#000000"};
}

std::string calls_text(std::int64_t before, std::int64_t after) {
  auto one = [](std::int64_t n) { return n == kUnknownCount ? std::string("?") : fmt::format("{}{}", n, kTimes); };
  return one(before) + std::string(kArrow) + one(after);
}

// A call's cost on one side, if the graph has the call and knows it.
std::optional<double> edge_cost(const ChangeSide& s, const GraphEdge* e) {
  if (!e || !e->total_ratio) return std::nullopt;
  return tidy(s, *e->total_ratio * s.graph->whole);
}

std::string legend_cell(double x, std::string_view text) {
  ChangeColour c = change_colour(x);
  // Fixed sizes: a legend cell would otherwise stretch to the width of the
  // lines around it.
  return fmt::format(
      "<td bgcolor=\"{}\" width=\"96\" height=\"18\" fixedsize=\"true\"><font color=\"{}\">{}</font></td>", c.fill,
      c.font, text);
}

// One absolute comparison being written: both sides, and the nodes drawn,
// one per pair (a's function id) and one per function of b alone (after
// a's ids).
class ChangeWriter {
 public:
  ChangeWriter(const ChangeSide& a, const ChangeSide& b, const Pairing& pairing, const Theme& theme,
               const Options& options, const CompareOptions& compare)
      : a_(a),
        b_(b),
        pairing_(pairing),
        theme_(theme),
        options_(options),
        compare_(compare),
        names_a_(*a.profile),
        names_b_(*b.profile),
        na_(a.profile->functions.size()),
        nb_(b.profile->functions.size()),
        seconds_(in_seconds(a)) {
    partner_of_b_.assign(nb_, kNoMatch);
    for (FuncId f = 0; f < na_; ++f)
      if (match(f) != kNoMatch) partner_of_b_[match(f)] = f;
    shown_.assign(na_ + nb_, false);
    for (FuncId f = 0; f < na_ && f < a.graph->nodes.size(); ++f) shown_[f] = a.graph->nodes[f].kept;
    for (FuncId g = 0; g < nb_ && g < b.graph->nodes.size(); ++g)
      if (b.graph->nodes[g].kept) shown_[node_of_b(g)] = true;
    for (FuncId u = 0; u < shown_.size(); ++u) {
      if (!shown_[u]) continue;
      auto [f, g] = sides_of(u);
      largest_ = std::max(largest_, std::fabs(total(b_, g) - total(a_, f)));
    }
    for (Measure m : options.node_labels) {
      if (m == Measure::kTotalTime || m == Measure::kTotalTimePercentage) want_total_ = true;
      if (m == Measure::kSelfTime || m == Measure::kSelfTimePercentage) want_self_ = true;
    }
  }

  Expected<std::string> write(Diagnostics& diag) {
    out_.reserve(output_reservation(options_.max_bytes, 1024 + (na_ + nb_) * 120));
    out_ += "digraph {\n";
    out_ += "\ttooltip=\" \"\n";
    legend();
    out_ += "\tnode [fontname=Arial, height=0, shape=box, style=filled, width=0];\n";
    out_ += "\tedge [fontname=Arial];\n";
    for (FuncId u = 0; u < shown_.size(); ++u) {
      if (!shown_[u]) continue;
      if (options_.max_bytes && out_.size() > options_.max_bytes) return output_too_large("dot", options_.max_bytes);
      node(u);
      calls(u);
    }
    out_ += "}\n";
    warn_truncated(names_a_, diag);
    warn_truncated(names_b_, diag);
    return std::move(out_);
  }

 private:
  FuncId match(FuncId f) const {
    FuncId g = f < pairing_.match.size() ? pairing_.match[f] : kNoMatch;
    return g < nb_ ? g : kNoMatch;
  }
  FuncId node_of_b(FuncId g) const { return partner_of_b_[g] != kNoMatch ? partner_of_b_[g] : FuncId(na_ + g); }
  // A node's functions on each side (kNoMatch where absent).
  std::pair<FuncId, FuncId> sides_of(FuncId u) const {
    if (u < na_) return {u, match(u)};
    return {kNoMatch, FuncId(u - na_)};
  }
  static double total(const ChangeSide& s, FuncId f) {
    return f == kNoMatch || f >= s.graph->nodes.size() ? 0.0 : tidy(s, node_total(*s.graph, f));
  }
  static double self(const ChangeSide& s, FuncId f) {
    return f == kNoMatch ? 0.0 : event_value(s.profile->events[s.event], s.profile->self(f, s.event));
  }
  static double weight(const ChangeSide& s, FuncId f) {
    return f == kNoMatch || f >= s.graph->nodes.size() ? 0.0 : s.graph->nodes[f].weight.value_or(0.0);
  }
  std::string from_to(double before, double after) const {
    return amount(before, seconds_) + std::string(kArrow) + amount(after, seconds_);
  }

  // The graph's label: both totals, the colour scale, how functions paired.
  void legend() {
    const std::size_t paired = pairing_.paired();
    const Profile& pb = *b_.profile;
    const std::string unit = seconds_ ? "seconds" : std::string(pb.str(pb.events[b_.event].name));
    std::string pairs = fmt::format("{} functions paired", paired);
    if (paired) pairs += " (" + pairing_.summary() + ")";
    pairs += fmt::format("; {} only in {}, {} only in {}", na_ - paired, a_.name, nb_ - paired, b_.name);
    std::string scale;
    if (compare_.color_by_difference) {
      const std::string all = amount(largest_, seconds_), half = amount(largest_ / 2, seconds_);
      scale = legend_cell(-1, "-" + all) + legend_cell(-0.5, "-" + half) + legend_cell(0, "same") +
              legend_cell(0.5, "+" + half) + legend_cell(1, "+" + all);
    } else {
      scale = legend_cell(-1, "half or less") + legend_cell(std::log2(0.7), "-30 %") +
              legend_cell(std::log2(0.9), "-10 %") + legend_cell(0, "same") + legend_cell(std::log2(1.1), "+10 %") +
              legend_cell(std::log2(1.4), "+40 %") + legend_cell(1, "twice or more");
    }
    const double whole[2] = {tidy(a_, a_.graph->whole), tidy(b_, b_.graph->whole)};
    std::string heading = fmt::format("{}{}{}, in {}: {} ({})", a_.name, kArrow, b_.name, unit,
                                      from_to(whole[0], whole[1]), change_text(whole[0], whole[1]));
    std::string colour = compare_.color_by_difference ? "Colour: the change of inclusive cost, against the largest"
                         : compare_.only_slower       ? "Colour: the change of inclusive cost, slower only"
                         : compare_.only_faster       ? "Colour: the change of inclusive cost, faster only"
                                                      : "Colour: the change of inclusive cost";
    out_ += fmt::format(
        "\tgraph [fontname=Arial, nodesep=0.125, ranksep=0.25, labelloc=t, fontsize=\"12.00\", label=<<table "
        "border=\"0\" cellspacing=\"0\" cellpadding=\"2\"><tr><td>{0}</td></tr><tr><td>{1}</td></tr><tr><td><table "
        "align=\"center\" border=\"0\" cellborder=\"1\" cellspacing=\"0\" "
        "cellpadding=\"3\"><tr>{2}</tr></table></td></tr><tr><td>Boxes: "
        "inclusive before{3}after (change), (self), calls.<br/>{4}</td></tr></table>>];\n",
        formats::xml_text(heading), colour, scale, kArrow, formats::xml_text(pairs));
  }

  // Where a function is, for its tooltip.
  static std::string where(const Profile& p, FuncId h) {
    const Function& fn = p.functions[h];
    std::string at = fn.file != kNoString ? std::string(p.str(fn.file)) : std::string();
    if (fn.line > 0) at += fmt::format(":{}", fn.line);
    return at;
  }

  void node(FuncId u) {
    auto [f, g] = sides_of(u);
    const bool has_a = f != kNoMatch, has_b = g != kNoMatch;
    const Profile& pa = *a_.profile;
    const Profile& pb = *b_.profile;
    std::vector<std::string> lines =
        has_a ? name_lines(pa, f, options_, names_a_) : name_lines(pb, g, options_, names_b_);
    const double t0 = total(a_, f), t1 = total(b_, g);
    if (want_total_ || !want_self_) lines.push_back(from_to(t0, t1) + " (" + change_text(t0, t1) + ")");
    if (want_self_) lines.push_back("(" + from_to(self(a_, f), self(b_, g)) + ")");
    const std::int64_t c0 = has_a ? a_.graph->nodes[f].called : 0, c1 = has_b ? b_.graph->nodes[g].called : 0;
    if ((has_a && c0 != kUnknownCount) || (has_b && c1 != kUnknownCount)) lines.push_back(calls_text(c0, c1));
    // The tooltip: where the function is, and how it was paired.
    std::string tooltip = has_a ? where(pa, f) : where(pb, g);
    std::string said;
    if (!has_b || !has_a) {
      said = "only in " + (has_a ? a_.name : b_.name);
      lines.push_back(said);
    } else {
      PairRule rule = f < pairing_.rule.size() ? pairing_.rule[f] : PairRule::kIdentity;
      said = "paired by " + std::string(pair_rule_name(rule));
      if (rule != PairRule::kIdentity) {
        lines.push_back(said);
        std::string there = where(pb, g);
        if (!there.empty() && there != tooltip) said += " with " + there;
      }
    }
    tooltip += (tooltip.empty() ? "" : "\n") + said;
    std::string label;
    for (std::size_t i = 0; i < lines.size(); ++i) label += (i ? "\n" : "") + lines[i];
    ChangeColour c = change_colour(change_scale(t0, t1, compare_, largest_));
    const double w = std::max(weight(a_, f), weight(b_, g));
    out_ += fmt::format("\t{}", u);
    bool first = true;
    attr(out_, first, "color", c.line);
    attr(out_, first, "fillcolor", c.fill);
    attr(out_, first, "fontcolor", c.font);
    attr(out_, first, "fontsize", fixed2(theme_.font_size(w)));
    attr(out_, first, "label", label);
    attr(out_, first, "tooltip", tooltip);
    out_ += "];\n";
  }

  // The node's calls: the first profile's, then those of the second it lacks.
  void calls(FuncId u) {
    auto [f, g] = sides_of(u);
    const CallGraph& ga = *a_.graph;
    const CallGraph& gb = *b_.graph;
    if (f != kNoMatch && f + 1 < ga.edge_begin.size())
      for (std::uint32_t i = ga.edge_begin[f]; i < ga.edge_begin[f + 1]; ++i) {
        const GraphEdge& e = ga.edges[i];
        if (!ga.edge_kept(i) || !shown_[e.callee]) continue;
        call(u, e.callee, &e, g != kNoMatch ? edge_between(gb, g, match(e.callee)) : nullptr);
      }
    if (g != kNoMatch && g + 1 < gb.edge_begin.size())
      for (std::uint32_t i = gb.edge_begin[g]; i < gb.edge_begin[g + 1]; ++i) {
        const GraphEdge& e = gb.edges[i];
        const FuncId to = node_of_b(e.callee);
        if (!gb.edge_kept(i) || !shown_[to]) continue;
        const GraphEdge* theirs = f != kNoMatch && to < na_ ? edge_between(ga, f, to) : nullptr;
        if (theirs && ga.edge_kept(static_cast<std::size_t>(theirs - ga.edges.data()))) continue;  // drawn above
        call(u, to, theirs, &e);
      }
  }

  void call(FuncId from, FuncId to, const GraphEdge* ea, const GraphEdge* eb) {
    std::optional<double> before = edge_cost(a_, ea), after = edge_cost(b_, eb);
    std::string label;
    if (before || after) label = from_to(before.value_or(0), after.value_or(0));
    if ((ea && ea->calls != kUnknownCount) || (eb && eb->calls != kUnknownCount))
      label += (label.empty() ? "" : "\n") + calls_text(ea ? ea->calls : 0, eb ? eb->calls : 0);
    double w = 0;
    for (auto [e, g] : {std::pair{ea, a_.graph}, std::pair{eb, b_.graph}})
      if (e) w = std::max(w, edge_weight(*g, *e).value_or(g->nodes[e->callee].weight.value_or(0.0)));
    // Lines are thin: unchanged ones grey, changed ones at least a third of
    // the way to the full colour, so that they show against the white.
    const double x = change_scale(before.value_or(0), after.value_or(0), compare_, largest_);
    ChangeColour c = change_colour(x == 0 ? 0 : std::copysign(0.35 + 0.65 * std::fabs(x), x));
    if (x == 0) c.fill = c.line = "#808080";
    const std::string pen = fixed2(theme_.pen_width(w));
    out_ += fmt::format("\t{} -> {}", from, to);
    bool first = true;
    attr(out_, first, "arrowsize", fixed2(theme_.arrow_size(w)));
    attr(out_, first, "color", c.fill);
    attr(out_, first, "fontcolor", c.line);
    attr(out_, first, "fontsize", fixed2(theme_.font_size(w)));
    attr(out_, first, "label", label);
    attr(out_, first, "labeldistance", pen);
    attr(out_, first, "penwidth", pen);
    out_ += "];\n";
  }

  const ChangeSide &a_, &b_;
  const Pairing& pairing_;
  const Theme& theme_;
  const Options& options_;
  const CompareOptions& compare_;
  Names names_a_, names_b_;
  const std::size_t na_, nb_;
  const bool seconds_;
  std::vector<FuncId> partner_of_b_;
  std::vector<bool> shown_;
  double largest_ = 0;  // the largest inclusive change drawn
  bool want_total_ = false, want_self_ = false;
  std::string out_;
};

}  // namespace

Expected<std::string> write_change(const ChangeSide& a, const ChangeSide& b, const Pairing& pairing, const Theme& theme,
                                   const Options& options, const CompareOptions& compare, Diagnostics& diag) {
  return ChangeWriter(a, b, pairing, theme, options, compare).write(diag);
}

}  // namespace graphgen::dot
