// In-process layout and rendering of DOT text with Graphviz (cgraph + gvc).
// The only code in graphgen that links Graphviz; the `dot` program is not
// needed.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "graphgen/error.h"

namespace graphgen::render {

/// True when this build can render (Graphviz was found at build time).
bool available();

/// Why Graphviz's libraries cannot be loaded on this machine (they are
/// loaded the first time a graph is laid out), or "" when they can.
std::string missing();

/// Lays out `dot_source` with `engine` (dot, or nop2 for a graph whose
/// positions are given, such as a Drawing's) and renders it as `format`
/// ("png", "svg", "pdf", ...). `title` names the graph (SVG's <title>).
/// The bytes are returned; nothing is written.
Expected<std::string> render(std::string_view dot_source, std::string_view format, std::string_view title = {},
                             const char* engine = "dot");

/// Graphviz says nothing while it lays out a graph (the sympy call graph
/// takes 13 s): with a function set, render() calls it every half second
/// from `after` on with the seconds so far and the graph's size, and once
/// more with seconds < 0 when it is done (only if it was called before).
/// `after` of 0 calls it once before the layout starts (tests).
using LayoutProgress = std::function<void(double seconds, std::size_t nodes, std::size_t edges)>;
void set_layout_progress(LayoutProgress f, std::chrono::milliseconds after);

}  // namespace graphgen::render
