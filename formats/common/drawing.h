// A picture as a list of shapes (lines, outlines, dots, text), written
// either as SVG or as the xdot drawing operations Graphviz renders: a graph
// whose `_background` is the picture, which Graphviz's PNG and PDF devices
// draw as they draw a call graph (render::render with the "nop2" engine).
// So a plot is laid out once and comes out as SVG and PNG alike, with no
// library but Graphviz. Coordinates are SVG's: x right, y down, in points.
//
// Text is any bytes: written as printable UTF-8 (controls and invalid
// bytes U+FFFD, tab and newline a space), escaped for XML or for a quoted
// dot string. xdot cannot rotate text; the shapes here need none.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace graphgen::formats {

class Drawing {
 public:
  enum class Anchor { kStart, kMiddle, kEnd };
  struct Stroke {
    std::string_view colour = "#000000";  // #rrggbb
    double width = 1;
    bool dashed = false;
  };

  Drawing(double width, double height) : width_(width), height_(height) {}

  /// A polyline; `title` is its tooltip in SVG (none in PNG).
  void line(std::vector<std::pair<double, double>> points, Stroke s, std::string_view title = {});
  /// A closed outline.
  void outline(std::vector<std::pair<double, double>> points, Stroke s);
  /// A filled circle.
  void dot(double x, double y, double radius, std::string_view colour);
  /// Text whose baseline starts, is centred or ends at (x, y).
  void text(double x, double y, std::string_view text, Anchor a = Anchor::kStart, double size = 12,
            std::string_view colour = "#000000");

  double width() const { return width_; }
  double height() const { return height_; }
  /// Points in all shapes: what the picture will cost to write.
  std::size_t points() const { return points_; }

  /// A standalone SVG document titled `title`.
  std::string svg(std::string_view title) const;
  /// A dot graph with nothing but the picture, for render::render(…, "nop2").
  std::string dot_graph() const;

 private:
  enum class Kind { kLine, kOutline, kDot, kText };
  struct Shape {
    Kind kind;
    std::vector<std::pair<double, double>> points;
    std::string colour, text;  // text: the text, or a line's tooltip
    double width = 1;          // a line's width, a dot's radius, a text's size
    bool dashed = false;
    Anchor anchor = Anchor::kStart;
  };
  void add(Shape s);
  double width_, height_;
  std::size_t points_ = 0;
  std::vector<Shape> shapes_;
};

}  // namespace graphgen::formats
