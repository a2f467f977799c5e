#include "graphgen/analysis/theme.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace graphgen {

namespace {

double hue_to_rgb(double m1, double m2, double h) {
  if (h < 0.0)
    h += 1.0;
  else if (h > 1.0)
    h -= 1.0;
  if (h * 6 < 1.0) return m1 + (m2 - m1) * h * 6.0;
  if (h * 2 < 1.0) return m2;
  if (h * 3 < 2.0) return m1 + (m2 - m1) * (2.0 / 3.0 - h) * 6.0;
  return m1;
}

// Python's float modulo: the result takes the sign of the divisor.
double py_mod1(double x) {
  double r = std::fmod(x, 1.0);
  if (r != 0 && r < 0) r += 1.0;
  return r;
}

const std::array<Theme, 5> kThemes = {{
    {"bw", {0, 0, 0}, {0, 0, 0}, 2.2, 8.0, 24.0, 0.1, 8.0, true, "white"},
    {"color", {2.0 / 3.0, 0.80, 0.25}, {0.0, 1.0, 0.5}, 1.0, 10.0, 10.0, 0.5, 4.0, true, "white"},
    {"gray", {0.0, 0.0, 0.85}, {0.0, 0.0, 0.0}, 2.2, 10.0, 10.0, 0.5, 4.0, true, "white"},
    {"pink", {0.0, 1.0, 0.90}, {0.0, 1.0, 0.5}, 2.2, 10.0, 10.0, 0.5, 4.0, true, "white"},
    {"print", {0, 0, 0}, {0, 0, 0}, 2.2, 18.0, 30.0, 0.1, 8.0, false, "black"},
}};

}  // namespace

Rgb Theme::hsl_to_rgb(Hsl c) const {
  double h = py_mod1(c.h);
  double s = std::clamp(c.s, 0.0, 1.0);
  double l = std::clamp(c.l, 0.0, 1.0);
  double m2 = l <= 0.5 ? l * (s + 1.0) : l + s - l * s;
  double m1 = l * 2.0 - m2;
  Rgb rgb{hue_to_rgb(m1, m2, h + 1.0 / 3.0), hue_to_rgb(m1, m2, h), hue_to_rgb(m1, m2, h - 1.0 / 3.0)};
  rgb.r = std::pow(rgb.r, gamma);
  rgb.g = std::pow(rgb.g, gamma);
  rgb.b = std::pow(rgb.b, gamma);
  return rgb;
}

Rgb Theme::color(double weight) const {
  weight = std::min(std::max(weight, 0.0), 1.0);
  Hsl c;
  if (skew == 1.0) {
    c.h = min_color.h + weight * (max_color.h - min_color.h);
    c.s = min_color.s + weight * (max_color.s - min_color.s);
    c.l = min_color.l + weight * (max_color.l - min_color.l);
  } else {
    double f = -1.0 + std::pow(skew, weight);
    c.h = min_color.h + ((max_color.h - min_color.h) * f / (skew - 1.0));
    c.s = min_color.s + ((max_color.s - min_color.s) * f / (skew - 1.0));
    c.l = min_color.l + ((max_color.l - min_color.l) * f / (skew - 1.0));
  }
  return hsl_to_rgb(c);
}

double Theme::font_size(double weight) const { return std::max(weight * weight * max_font, min_font); }
double Theme::pen_width(double weight) const { return std::max(weight * max_pen, min_pen); }
double Theme::arrow_size(double weight) const { return 0.5 * std::sqrt(pen_width(weight)); }

const Theme* find_theme(std::string_view name) {
  for (const Theme& t : kThemes)
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<std::string_view> theme_names() {
  std::vector<std::string_view> names;
  for (const Theme& t : kThemes) names.push_back(t.name);
  return names;
}

std::string to_hex(Rgb c) {
  auto channel = [](double f) -> int {
    if (f <= 0.0) return 0;
    if (f >= 1.0) return 255;
    return static_cast<int>(255.0 * f + 0.5);
  };
  return fmt::format("#{:02x}{:02x}{:02x}", channel(c.r), channel(c.g), channel(c.b));
}

}  // namespace graphgen
