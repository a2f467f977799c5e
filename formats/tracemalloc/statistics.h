// tracemalloc's own report of a snapshot, byte for byte: the lines of
//   for stat in snapshot.statistics(KEY): print(stat)
//   for stat in new.compare_to(old, KEY): print(stat)
// (CPython 3.8 to 3.13 print them alike), KEY being `lineno` (the most
// recent frame), `traceback` (the whole traceback, printed as its oldest
// frame) or `filename` (`file:0`). Sizes as tracemalloc's _format_size
// writes them ("5600 B", "18.5 KiB", "+349 KiB"), sorted as
// Statistic._sort_key and StatisticDiff._sort_key sort, largest first.
#pragma once

#include <string>
#include <string_view>

#include "graphgen/error.h"
#include "graphgen/profile.h"
#include "stats/writer.h"

namespace graphgen::tracemalloc {

/// The group keys statistics() and compare_to() take.
bool is_key(std::string_view key);

/// The key -T stats' options give a snapshot's report (`what`:
/// "Snapshot.statistics"): the one --sort KEY, lineno by default; a usage
/// error for what only pstats' report takes (several keys, --restrict,
/// --strip-dirs, --callers, --callees). `top` is --top's (a restriction).
Expected<std::string> key_of(const stats::Options& o, std::size_t top, std::string_view what);

/// Snapshot.statistics(key), one line per statistic; the first `top` (0: all).
Expected<std::string> statistics(const Profile& p, std::string_view key, std::size_t top);

/// later.compare_to(earlier, key), one line per difference; the first `top`.
Expected<std::string> compare_to(const Profile& earlier, const Profile& later, std::string_view key, std::size_t top);

}  // namespace graphgen::tracemalloc
