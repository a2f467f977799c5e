// What the text and packed TAU readers share: timers into the model.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graphgen/error.h"
#include "graphgen/profile.h"

namespace graphgen::tau::detail {

/// A TAU metric is time (microseconds) when its name holds TIME and is not
/// a count of something or a rate per time, as ParaProf decides
/// (Metric.isTimeMetric).
bool is_time_metric(std::string_view name);

/// Builds a profile from TAU timers: flat timers give functions (self =
/// exclusive, total = inclusive, calls), call-path timers (`a => b => c`)
/// give the edge of their last two frames. Time metrics become floating
/// seconds, counters integer counts.
class Builder {
 public:
  Builder(Profile& p, const std::vector<std::string>& metrics);

  /// One timer of the current thread; `excl` and `incl` hold one value per
  /// metric, in the constructor's order.
  void timer(std::string_view name, double calls, const double* excl, const double* incl);
  /// A call-path timer whose last two frames are `from` and `to`.
  void call_path(FuncId from, FuncId to, double calls, const double* excl, const double* incl);
  /// The function of one frame of a timer's name (made on first sight).
  FuncId function(std::string_view frame);
  /// Timers from here to end_location() are one location's (packed files).
  void begin_location(std::int64_t node, std::int64_t context, std::int64_t thread);
  void end_location();
  /// Warnings for what the files held that the model cannot (negative
  /// values TAU's reader also clamps to 0).
  void finish(std::string_view path, Diagnostics& diag);
  /// Sampling (EBS): a timer's exclusive time includes its `[CONTEXT]`
  /// timer's, whose `[SAMPLE]` callees hold the same time again; the
  /// sampled time leaves the timer's self cost, so self costs add up to the
  /// run's time. Called at the end of each location (end_location() does).
  void settle_contexts();

 private:
  Cost cost(std::size_t metric, double v);

  Profile& p_;
  std::vector<bool> time_;
  std::unordered_map<StringId, FuncId> functions_;  // by interned name
  std::unordered_map<std::uint64_t, CallId> calls_;
  std::vector<std::uint32_t> rows_;  // Profile::location_row's memory
  bool in_location_ = false;
  std::size_t clamped_ = 0, rounded_ = 0, summaries_ = 0;
  // The current location's [CONTEXT] timers: sampled function, inclusive per event.
  std::vector<std::pair<FuncId, std::vector<Cost>>> contexts_;
};

}  // namespace graphgen::tau::detail
