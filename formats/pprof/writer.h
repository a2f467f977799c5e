// pprof's profile.proto, gzipped as pprof writes it: what `go tool pprof`,
// speedscope, Perfetto UI, Grafana Pyroscope and Datadog read.
//
// Profiles that keep their sample stacks (perf, collapsed stacks, pprof,
// CUBE4, ...) write them exactly: one sample per stack, one value per
// event. Call-graph profiles (pstats, callgrind, gprof) write the stacks
// flame_tree() rebuilds from call ratios, for the event graphed (the
// profile's comment says so). One Function and one Location per function
// (its label as name, its file and first line), one Mapping per object;
// the process of perf's stacks is the sample label `process`. Values are
// int64: seconds (pstats' floating times) become nanoseconds, rounded; a
// time event of another tick keeps its unit when pprof names it
// (nanoseconds to seconds), else becomes nanoseconds. The default sample
// type is the event graphed.
#pragma once

#include <string>

#include "graphgen/analysis/flame.h"
#include "graphgen/error.h"
#include "graphgen/profile.h"

namespace graphgen::pprof {

/// `rebuilt`: the stacks rebuilt for `event` when `p` keeps none (null
/// otherwise). Fails past `max_bytes` (0: no limit).
Expected<std::string> write(const Profile& p, std::size_t event, const FlameTree* rebuilt, std::size_t max_bytes);

}  // namespace graphgen::pprof
