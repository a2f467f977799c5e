#include "common/drawing.h"

#include <fmt/format.h>

#include "common/markup.h"
#include "graphgen/utf8.h"

namespace graphgen::formats {

namespace {

constexpr std::string_view kFont = "DejaVu Sans";

// Text one line of a picture can show.
std::string shown(std::string_view s) {
  std::string out = printable_utf8(s);
  for (char& c : out)
    if (c == '\t' || c == '\n') c = ' ';
  return out;
}

// An xdot string operand: its length in bytes, then the bytes. Inside the
// quoted dot string '"' takes a backslash; cgraph keeps any other
// backslash as it is, but reads a backslash before an escaped quote as a
// pair of backslashes that ends the string, so such a backslash (it cannot
// be written) is drawn as U+FF3C, a fullwidth one. Every operation ends
// with a space, so a text's last backslash never meets the closing quote.
void xdot_string(std::string& out, std::string_view s) {
  std::string text;
  for (std::size_t i = 0; i < s.size(); ++i)
    text += s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '"' ? std::string_view("\uFF3C") : s.substr(i, 1);
  out += fmt::format("{} -", text.size());
  for (char c : text) {
    if (c == '"') out += '\\';
    out += c;
  }
  out += ' ';
}

void xdot_points(std::string& out, char op, const std::vector<std::pair<double, double>>& points, double height) {
  out += fmt::format("{} {} ", op, points.size());
  for (auto [x, y] : points) out += fmt::format("{:.2f} {:.2f} ", x, height - y);
}

std::string svg_points(const std::vector<std::pair<double, double>>& points) {
  std::string out;
  for (auto [x, y] : points) out += fmt::format("{}{:.1f},{:.1f}", out.empty() ? "" : " ", x, y);
  return out;
}

}  // namespace

void Drawing::add(Shape s) {
  points_ += s.points.size() + 1;
  shapes_.push_back(std::move(s));
}

void Drawing::line(std::vector<std::pair<double, double>> points, Stroke s, std::string_view title) {
  if (points.size() < 2) return;
  add({Kind::kLine, std::move(points), std::string(s.colour), std::string(title), s.width, s.dashed});
}

void Drawing::outline(std::vector<std::pair<double, double>> points, Stroke s) {
  if (points.size() < 2) return;
  add({Kind::kOutline, std::move(points), std::string(s.colour), {}, s.width, s.dashed});
}

void Drawing::dot(double x, double y, double radius, std::string_view colour) {
  add({Kind::kDot, {{x, y}}, std::string(colour), {}, radius});
}

void Drawing::text(double x, double y, std::string_view text, Anchor a, double size, std::string_view colour) {
  add({Kind::kText, {{x, y}}, std::string(colour), shown(text), size, false, a});
}

std::string Drawing::svg(std::string_view title) const {
  std::string out = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" "
      "height=\"{1}\" viewBox=\"0 0 {0} {1}\" font-family=\"{2}, Verdana, sans-serif\" font-size=\"12\">\n"
      "<title>{3}</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      width_, height_, kFont, xml_text(shown(title)));
  for (const Shape& s : shapes_) {
    const std::string dash = s.dashed ? " stroke-dasharray=\"5 3\"" : "";
    switch (s.kind) {
      case Kind::kLine:
        out += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{} points=\"{}\">", s.colour,
                           s.width, dash, svg_points(s.points));
        out += s.text.empty() ? "</polyline>\n" : fmt::format("<title>{}</title></polyline>\n", xml_text(s.text));
        break;
      case Kind::kOutline:
        out += fmt::format("<polygon fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{} points=\"{}\"/>\n", s.colour,
                           s.width, dash, svg_points(s.points));
        break;
      case Kind::kDot:
        out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\"/>\n", s.points[0].first,
                           s.points[0].second, s.width, s.colour);
        break;
      case Kind::kText: {
        constexpr const char* kAnchor[] = {"start", "middle", "end"};
        out += fmt::format(
            "<text x=\"{:.1f}\" y=\"{:.1f}\"{}{}{}>{}</text>\n", s.points[0].first, s.points[0].second,
            s.anchor == Anchor::kStart ? std::string()
                                       : fmt::format(" text-anchor=\"{}\"", kAnchor[static_cast<int>(s.anchor)]),
            s.width == 12 ? std::string() : fmt::format(" font-size=\"{}\"", s.width),
            s.colour == "#000000" ? std::string() : fmt::format(" fill=\"{}\"", s.colour), xml_text(s.text));
        break;
      }
    }
  }
  return out + "</svg>\n";
}

std::string Drawing::dot_graph() const {
  std::string ops;
  for (const Shape& s : shapes_) {
    ops += "c ";
    xdot_string(ops, s.colour);
    switch (s.kind) {
      case Kind::kLine:
      case Kind::kOutline:
        ops += "S ";
        xdot_string(ops, s.dashed ? "dashed" : "solid");
        ops += "S ";
        xdot_string(ops, fmt::format("setlinewidth({})", s.width));
        xdot_points(ops, s.kind == Kind::kLine ? 'L' : 'p', s.points, height_);
        break;
      case Kind::kDot:
        ops += "C ";
        xdot_string(ops, s.colour);
        ops += fmt::format("E {:.2f} {:.2f} {} {} ", s.points[0].first, height_ - s.points[0].second, s.width, s.width);
        break;
      case Kind::kText:
        ops += fmt::format("F {} ", s.width);
        xdot_string(ops, kFont);
        ops += fmt::format("T {:.2f} {:.2f} {} 0 ", s.points[0].first, height_ - s.points[0].second,
                           static_cast<int>(s.anchor) - 1);
        xdot_string(ops, s.text);
        break;
    }
  }
  // Two invisible corners: without a node, Graphviz crops the picture to
  // the extent of the operations' points (and cuts text that sticks out).
  return fmt::format(
      "digraph {{\ngraph [bb=\"0,0,{0},{1}\" pad=0 bgcolor=white _background=\"{2}\"]\nnode [shape=point width=0 "
      "height=0 style=invis]\nc0 [pos=\"0,0\"]\nc1 [pos=\"{0},{1}\"]\n}}\n",
      width_, height_, ops);
}

}  // namespace graphgen::formats
