// speedscope's file format (reader.h has its grammar), "sampled"
// profiles: what https://www.speedscope.app and its CLI open, and what
// py-spy and pyinstrument users know.
//
// The stacks of the event graphed (flame_tree(): recorded stacks exactly,
// a call graph's rebuilt from call ratios), one profile per process of the
// stacks (perf's commands, the profiles of a speedscope file), else one
// named after the inputs; a frame per function (its label, file and first
// line). Time in its tick when speedscope names it (nanoseconds to
// seconds) as whole numbers, else in seconds; counts as "none" (bytes as
// "bytes").
#pragma once

#include <string>
#include <string_view>

#include "graphgen/analysis/flame.h"
#include "graphgen/error.h"
#include "graphgen/profile.h"

namespace graphgen::speedscope {

struct WriteOptions {
  std::string name;      // the file's and the main profile's name
  std::string exporter;  // "graphgen 0.3.0"
  std::size_t max_bytes = 0;
};

Expected<std::string> write(const Profile& p, const FlameTree& tree, std::size_t event, const WriteOptions& o);

}  // namespace graphgen::speedscope
