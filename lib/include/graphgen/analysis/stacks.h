// Shared by the sampling readers (perf script, collapsed stacks): turns
// stacks of frames into the model's functions, calls, self and stack totals,
// and the callsite tree, with gprof2dot's counting rules.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graphgen/flat_index.h"
#include "graphgen/profile.h"

namespace graphgen::detail {

class StackBuilder {
 public:
  /// `event_name`/`unit` name the single cost column (e.g. "samples");
  /// `keep_tree` keeps the callsite tree (flame graphs, stack filters);
  /// `floating`: weights are doubles (Very Sleepy's seconds, xperf's
  /// weights), stored as Profile's floating costs.
  StackBuilder(Profile& p, std::string_view event_name, std::string_view unit, bool keep_tree = true,
               bool floating = false);
  /// Several integer cost columns (pprof's sample types): `events` are
  /// appended to `p` as they are, and samples carry one weight per event.
  StackBuilder(Profile& p, const std::vector<Event>& events, bool keep_tree = true);

  /// The function for (name, object, process): interned once per distinct
  /// triple. `has_object` says the input named an object (possibly empty).
  FuncId function(std::string_view name, std::string_view object, bool has_object, std::string_view process = {},
                  bool unresolved = false);

  /// The Python function NAME of FILE seen in a native stack (perf's
  /// `py::NAME:FILE`): one per (name, file), whatever map file named it.
  FuncId python_function(std::string_view name, std::string_view file);

  /// Adds one sample: `leaf_first` frames, innermost first, weighing `weight`.
  /// Self cost goes to the leaf, each adjacent pair adds to its call, every
  /// distinct function of the stack adds to its stack total, and the stack
  /// is added to the callsite tree. Functions may also come from
  /// Profile::add_function directly (formats that number their functions).
  void add_sample(const std::vector<FuncId>& leaf_first, Cost weight) { add_sample(leaf_first, weight, weight); }
  /// The same with another weight for the calls (xperf counts calls once
  /// per sample whatever its weight), and the process the sample ran in
  /// (perf's comm: a frame of the callsite tree above the outermost one).
  void add_sample(const std::vector<FuncId>& leaf_first, Cost weight, Cost call_weight, std::string_view process = {});

  /// What add_sample() did with one stack: the cells it added to. Another
  /// sample of the same frames and process adds to them again, without a
  /// lookup (replay()); the result is the same as add_sample()'s.
  struct Replay {
    bool valid = false;
    FuncId leaf = 0;
    std::vector<CallId> calls;
    std::vector<FuncId> distinct;
    std::uint32_t node = 0;
  };
  /// add_sample() that also fills `record`.
  void add_sample(const std::vector<FuncId>& leaf_first, Cost weight, Cost call_weight, std::string_view process,
                  Replay& record);
  /// A Replay its caller keeps flat (the calls and distinct functions of
  /// many in one array of its own, without two vectors each).
  struct ReplayView {
    FuncId leaf = 0;
    std::span<const CallId> calls;
    std::span<const FuncId> distinct;
    std::uint32_t node = 0;
  };
  /// One more sample of the stack `record` was filled from.
  void replay(const ReplayView& record, Cost weight, Cost call_weight) { replay(record, &weight, &call_weight); }

  /// One sample of a builder of several events: `weights` has one cost per
  /// event (calls get the same).
  void add_sample(const std::vector<FuncId>& leaf_first, const Cost* weights, std::string_view process = {}) {
    add_sample(leaf_first, weights, weights, process);
  }

  /// A sample with no frames: in the callsite tree, its process alone
  /// (stackcollapse-perf.pl writes the command with no frame); no function
  /// or call gets its cost.
  void add_frameless_sample(Cost weight, std::string_view process);

  /// Timelines: the track of thread `tid` of process `pid`, added the
  /// first time with its thread's and process's names (later names of the
  /// same pair are ignored: a thread renamed by exec stays one track).
  std::uint32_t track(std::int64_t pid, std::int64_t tid, std::string_view name, std::string_view process = {});
  /// Puts the sample added last (frameless or not) on the profile's
  /// timeline: it started at `start` seconds and lasted `duration`
  /// (negative: unknown). Nothing without the callsite tree.
  void time_last_sample(double start, double duration, std::uint32_t track) {
    if (keep_tree_ && last_node_ != 0) p_.timeline.push_back({start, duration, last_node_, track});
  }
  /// The callsite-tree node of the sample added last (0: none).
  std::uint32_t last_node() const { return last_node_; }

  /// A weight as a cost of the builder's event.
  Cost cost(double weight) const { return p_.cost_of(0, weight); }

  std::size_t samples() const { return samples_; }

  /// Room for about this many calls in the builder's index of them, made
  /// once instead of doubled on the way (a reader that knows the count
  /// within a little: the old and new tables were alive together at the
  /// last doubling, the peak of an importtime log's read).
  void reserve_calls(std::size_t calls) { calls_.reserve(calls); }

 private:
  Profile& p_;
  bool keep_tree_;
  FlatIndex functions_;  // (name, object) -> FuncId
  FlatIndex python_;     // (name, file) -> FuncId of Python frames
  FlatIndex calls_;      // (caller, callee) -> CallId
  // (parent node, function or process) -> stack node; filled to three
  // quarters: sleepy's capture of 4.3 million nodes held 128 MB of slots
  // at half (192 MB while growing), beside 87 MB of nodes.
  FlatIndex children_{3};
  FlatIndex tracks_;  // (pid, tid) -> track
  std::uint32_t last_node_ = 0;
  StringId last_process_ = kNoString;  // the interned id of the last process name
  std::string last_process_name_;
  std::vector<std::size_t> seen_in_sample_;
  // A deep stack's calls, looked up in a large index one after the other,
  // each waited for its slot and then for the call the slot names (three
  // quarters of add_sample()'s time on a file of distinct stacks). Above
  // this many calls, the slots of a sample's calls are asked for first,
  // then the calls and costs they likely name, so that the waits overlap;
  // call_hashes_ keeps the hashes for the lookups that follow.
  static constexpr std::size_t kCallsAheadAbove = 8192;
  std::vector<std::uint64_t> call_hashes_;
  void ask_for_calls(const std::vector<FuncId>& leaf_first);
  // The last sample's path in the callsite tree, root first: the frames a
  // sample shares with it from the root are found without a lookup (each
  // lookup of a large tree's index waits on memory; a file's consecutive
  // samples share most of their frames).
  std::vector<FuncId> path_functions_;
  std::vector<std::uint32_t> path_nodes_;
  StringId path_process_ = kNoString;
  std::uint32_t path_process_node_ = 0;
  bool path_valid_ = false;
  StringId process_id(std::string_view process);
  std::uint32_t child(std::uint32_t parent, FuncId f, StringId process);
  void add_sample(const std::vector<FuncId>& leaf_first, const Cost* weights, const Cost* call_weights,
                  std::string_view process, Replay* record = nullptr);
  void replay(const ReplayView& record, const Cost* weights, const Cost* call_weights);
  std::size_t samples_ = 0;
};

}  // namespace graphgen::detail
