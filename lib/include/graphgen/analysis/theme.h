// gprof2dot's colour maps: weight in [0, 1] -> colour, font size, pen width.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace graphgen {

struct Hsl {
  double h, s, l;
};
struct Rgb {
  double r, g, b;
};

struct Theme {
  std::string_view name;
  Hsl min_color;
  Hsl max_color;
  double gamma;
  double min_font, max_font;
  double min_pen, max_pen;
  bool filled;                  // node style: filled (white text) or solid
  std::string_view font_color;  // the default `node [fontcolor=...]`
  double skew = 1.0;

  Rgb color(double weight) const;
  Rgb background() const { return hsl_to_rgb({0.0, 0.0, 1.0}); }
  Rgb node_fill(double weight) const { return color(weight); }
  Rgb node_font(double weight) const { return filled ? background() : color(weight); }
  double font_size(double weight) const;
  double pen_width(double weight) const;
  double arrow_size(double weight) const;
  Rgb hsl_to_rgb(Hsl c) const;
};

/// The theme graphs get unless -c names another (gprof2dot's default).
inline constexpr std::string_view kDefaultTheme = "color";

/// The five built-in themes by name (color, pink, gray, bw, print), or null.
const Theme* find_theme(std::string_view name);
/// Theme names in sorted order, for --help and error messages.
std::vector<std::string_view> theme_names();

/// `#rrggbb` with gprof2dot's rounding: <=0 -> 00, >=1 -> ff, else
/// int(255*c + 0.5).
std::string to_hex(Rgb c);

}  // namespace graphgen
