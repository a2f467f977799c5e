// -T stats: the report Python's pstats prints, from any profile.
//
// For pstats input it is byte for byte what
//   pstats.Stats(*files)[.strip_dirs()].sort_stats(*KEYS).print_stats(*RESTRICTIONS)
// prints (print_callers / print_callees with --callers / --callees): the
// files with their times, "N function calls (M primitive calls) in T
// seconds", "Ordered by:", the restrictions' "List reduced from" lines, the
// columns (ncalls tottime percall cumtime percall filename:lineno(function))
// with %8.3f numbers, {built-in method ...} names. Other formats give the
// same table from the model: calls, self and inclusive cost in the event's
// unit (seconds for time events), `file:line(name)` where the profile knows
// a file, the name (object:name) where it does not.
//
// Sort keys are pstats': calls ncalls cumulative cumtime file filename
// module line name nfl pcalls stdname time tottime. A restriction is, as
// pstats takes them, an int N (the first N), a fraction in [0, 1) or a
// regular expression searched in the `file:line(name)` strings, in
// Python's `re` syntax where the program embeds CPython (graphgen and the
// module install it with set_python_regex); without it, ECMAScript
// (std::regex, the same for plain patterns, classes, anchors and
// repetition), and a pattern using Python-only syntax, or syntax the two
// read differently ({,3}, [[:digit:]]), is a usage error naming the
// construct, never a silent match-all or another match.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphgen/analysis/graph.h"
#include "graphgen/error.h"
#include "graphgen/profile.h"

namespace graphgen::stats {

enum class Report { kStats, kCallers, kCallees };

struct Options {
  std::vector<std::string> sort;          // pstats keys; empty: cumulative
  std::vector<std::string> restrictions;  // in order
  bool strip_dirs = false;
  Report report = Report::kStats;
  /// The header's file lines: pstats' "ctime(mtime)    path" per input.
  std::vector<std::string> files;
};

/// A compiled pattern: true when it is found in the string.
using Search = std::function<bool(std::string_view)>;
/// Python's re.compile(pattern).search; nullopt when re.compile raises
/// (pstats then prints "<Invalid regular expression ...>" and keeps every
/// line).
using PythonRegex = std::function<std::optional<Search>(const std::string& pattern)>;
/// Installs Python's `re` for restrictions (graphgen with CPython, the module).
void set_python_regex(PythonRegex compile);

/// The first construct of `pattern` that Python's `re` has and ECMAScript
/// does not (or reads otherwise), described for an error; empty if none.
std::string python_only_construct(std::string_view pattern);

/// The sort keys pstats accepts.
const std::vector<std::string>& sort_keys();

/// Whether `word` names one of them, itself or by a prefix pstats expands
/// to it (sort_stats' abbreviations: "tot" for tottime, "cu" for cumtime;
/// not "c" or "cum").
bool names_sort_key(std::string_view word);

/// The report of `p`'s `event`. `graph` (with totals) gives the inclusive
/// costs of profiles that do not report them.
Expected<std::string> write(const Profile& p, std::size_t event, const CallGraph* graph, const Options& options);

/// pstats' file line for a path: "Sat Nov 21 15:19:08 2026    path" (the
/// file's modification time in local time), or the path alone.
std::string file_line(const std::string& path);

}  // namespace graphgen::stats
