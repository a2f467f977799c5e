// Subgraph selection: -z/--root, -l/--leaf, --depth and --list-functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graphgen/analysis/graph.h"

namespace graphgen {

/// Kept functions whose label matches the glob; when several share a label,
/// only the last one counts (gprof2dot keys them by name). In id order.
std::vector<FuncId> match_functions(const Profile& p, const CallGraph& g, std::string_view glob);

/// Keeps only `roots` and what they reach through kept edges, at most
/// `depth` calls away (depth < 0: unlimited). Breadth-first, so a function
/// is kept when its shortest distance is within the depth.
void keep_descendants(CallGraph& g, const std::vector<FuncId>& roots, int depth);

/// Keeps only `leaves` and the functions that reach them, within `depth`.
void keep_ancestors(CallGraph& g, const std::vector<FuncId>& leaves, int depth);

/// Keeps the `count` kept nodes of highest total share (pprof's -nodecount),
/// ties broken by id, and drops the edges that lose an end.
void keep_heaviest(CallGraph& g, std::size_t count);

/// Number of kept nodes.
std::size_t kept_nodes(const CallGraph& g);

/// gprof2dot's --list-functions: `+` or `*` lists `id:\tlabel` of every
/// kept function, `%GLOB` dumps what is known of each match, anything else
/// lists the labels matching it as a glob; entries are joined by ",\n".
/// Ends with a newline unless empty.
std::string list_functions(const Profile& p, const CallGraph& g, std::string_view selector);

}  // namespace graphgen
