// Time units as the interchange formats name them (pprof's sample types,
// speedscope's profiles): nanoseconds, microseconds, milliseconds, seconds.
#pragma once

#include <string_view>

namespace graphgen::formats {

/// Seconds per tick of a unit named `unit`; 0 for anything else.
inline double seconds_per_tick(std::string_view unit) {
  if (unit == "nanoseconds") return 1e-9;
  if (unit == "microseconds") return 1e-6;
  if (unit == "milliseconds") return 1e-3;
  if (unit == "seconds") return 1;
  return 0;
}

/// The name of a tick of `seconds` seconds (one of the four), or empty.
inline std::string_view tick_name(double seconds) {
  if (seconds == 1e-9) return "nanoseconds";
  if (seconds == 1e-6) return "microseconds";
  if (seconds == 1e-3) return "milliseconds";
  if (seconds == 1) return "seconds";
  return {};
}

}  // namespace graphgen::formats
