// The one call-graph model that every reader fills and every writer reads.
//
// Shaped after pprof's profile.proto and LLVM ProfileData: strings interned
// once, objects referring to each other by 32-bit index (never by pointer),
// costs in each event's unit, output order by index. Functions hold identity
// only (name, object, file, line); what a picture shows of them is computed
// from that identity by labels.h.
//
// Rounding rules, all of them (docs/differences.md, "Rounding"):
// - Integer events (callgrind counts, perf samples, line_profiler ticks) are
//   exact; sums saturate at the int64 limits instead of wrapping.
// - Floating events (pstats seconds) keep the profiler's doubles bit for bit
//   (Event::floating) and add in the order pstats.Stats adds them, so every
//   number equals what Python computes from the same files.
// - Events of one name but different units (line_profiler files of different
//   timer units) merge in the coarser unit, each value rounded to nearest.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graphgen/strings.h"

namespace graphgen {

using FuncId = std::uint32_t;
using CallId = std::uint32_t;
/// A cost in its event's unit: an integer, or for floating events the bits
/// of a double (read and write them through Profile's value accessors).
using Cost = std::int64_t;

/// A count the format does not provide (perf has no call counts).
inline constexpr std::int64_t kUnknownCount = -1;

/// One cost column, e.g. ("Ir", ""), ("samples", ""), ("time", "s").
struct Event {
  StringId name = kNoString;
  StringId unit = kNoString;
  /// Seconds per unit for time events (1 for pstats seconds, the timer unit
  /// for line_profiler ticks), 0 for counts.
  double seconds_per_unit = 0;
  /// Costs are doubles (pstats seconds), stored as their bits in Cost.
  bool floating = false;
  /// A longer name for viewers (callgrind `event: Ir : Instruction Fetch`).
  StringId long_name = kNoString;
};

/// How a function's label is built from its identity (labels.h).
enum class LabelStyle : std::uint8_t {
  /// The name; above it the basename of the object when the input named one
  /// (callgrind ob=, perf's DSO, even an empty one).
  kName,
  /// The name; above it the object as the input wrote it (py-spy's files in
  /// collapsed stacks).
  kNameUnderObject,
  /// `module:line:name`, module being the file's basename without its
  /// extension (pstats, line_profiler), as gprof2dot labels Python functions.
  kPython,
};

struct Function {
  /// The function's name as the profiler wrote it, e.g. `tree`; for keys of
  /// the pure-Python profiler `<code object NAME, file "FILE", line N>`.
  StringId name = kNoString;
  /// The binary or shared object (callgrind ob=, perf DSO), if any.
  StringId object = kNoString;
  /// Source file, if known.
  StringId file = kNoString;
  /// Process name (json, xperf), if any.
  StringId process = kNoString;
  /// pstats keys of the pure-Python profiler: the key's code object,
  /// marshalled on its own (no references), written back by the pstats writer.
  StringId code = kNoString;
  /// Tells apart functions the input keeps apart although every other
  /// field is equal (two gprof entries named `init`: static functions of
  /// different files): 0 for the first of a name, then 1, 2... Part of the
  /// identity, so merged files pair them in that order. (29 bits, beside
  /// the three flags, in the room before `line`: a function of 48 bytes
  /// instead of 56. Readers count with next_instance(), which stops at
  /// kMaxInstance.)
  std::uint32_t instance : 29 = 0;
  /// The input named an object, possibly empty (perf's `sym ()`).
  bool has_object : 1 = false;
  /// No symbol was found for the frame: the name is its address (perf's
  /// `[unknown]`, named by address as gprof2dot does).
  bool unresolved : 1 = false;
  /// A Python function seen in native stacks (perf's `py::NAME:FILE`
  /// frames of `python -X perf`): labelled `module:NAME` as pstats labels
  /// Python functions, whatever the profile's label style.
  bool python : 1 = false;
  /// First line (pstats key line, callgrind's first cost line), or 0.
  std::int64_t line = 0;
  /// Total calls into the function (pstats nc), or kUnknownCount.
  std::int64_t calls = kUnknownCount;
  /// Calls not already active on the stack (pstats cc), or kUnknownCount.
  std::int64_t primitive_calls = kUnknownCount;
};
static_assert(sizeof(Function) == 48, "100 000 functions of a profile: keep it small");

inline constexpr std::uint32_t kMaxInstance = (std::uint32_t{1} << 29) - 1;
/// A name's next instance number from a reader's count of it: the count,
/// then kept at kMaxInstance (536 870 911 functions of one name, where the
/// memory budget ends any real input long before).
inline std::uint32_t next_instance(std::uint32_t& count) {
  const std::uint32_t n = count;
  if (count < kMaxInstance) ++count;
  return n;
}

/// One caller -> callee edge; at most one per ordered pair.
struct Call {
  FuncId caller = 0;
  FuncId callee = 0;
  /// Calls along the edge, or kUnknownCount.
  std::int64_t count = kUnknownCount;
  /// Calls not made while the same caller->callee pair was active (pstats
  /// cc), or kUnknownCount.
  std::int64_t primitive_count = kUnknownCount;
};

/// Optional layer: self cost per position of a function (callgrind cost
/// lines, line_profiler lines). `file` may differ from the function's own
/// (inlined code); `address` is 0 when the input has no instruction positions.
/// LineCost::columns and CallSite::columns when every cost was written.
inline constexpr std::uint32_t kAllColumns = UINT32_MAX;

struct LineCost {
  FuncId function = 0;
  StringId file = kNoString;
  std::uint32_t line = 0;
  /// How many leading costs the input wrote (callgrind leaves out trailing
  /// zero costs, and callgrind_annotate shows `.` for a cost never written,
  /// `0` for a written 0); kAllColumns for every event.
  std::uint32_t columns = kAllColumns;
  std::uint64_t address = 0;
};

/// Optional layer: where in the caller a call is made (callgrind writes one
/// `calls=` per site). A call's count and inclusive cost are the sums over
/// its sites.
struct CallSite {
  CallId call = 0;
  StringId file = kNoString;  // the caller's file at the site (inlined code)
  std::uint32_t line = 0;
  std::uint32_t columns = kAllColumns;  // as LineCost::columns
  std::uint64_t address = 0;
  std::uint32_t target_line = 0;  // the callee position callgrind records
  std::uint64_t target_address = 0;
  std::int64_t count = 0;
  /// The input named no cfi= for this call: the callee's file is the
  /// current one, which callgrind_annotate takes from fi=/fe= and other
  /// readers from fl=; a writer that leaves cfi= out again means the same to
  /// all of them.
  bool callee_file_implicit = false;
};

/// Optional layer: jumps inside or between functions (callgrind
/// --collect-jumps): `jump=` (executed == kUnknownCount) and `jcnd=`.
struct Jump {
  FuncId function = 0;
  StringId file = kNoString;
  std::uint32_t line = 0;
  std::uint64_t address = 0;
  FuncId target = 0;
  StringId target_file = kNoString;
  std::uint32_t target_line = 0;
  std::uint64_t target_address = 0;
  std::int64_t count = 0;                 // jump=: times taken; jcnd=: times followed
  std::int64_t executed = kUnknownCount;  // jcnd=: times the condition ran

  bool conditional() const { return executed != kUnknownCount; }
  /// One row of a profile's jumps (as the reader and the merge key them):
  /// the same source, target and kind.
  bool same_row(const Jump& o) const {
    return function == o.function && file == o.file && line == o.line && address == o.address && target == o.target &&
           target_file == o.target_file && target_line == o.target_line && target_address == o.target_address &&
           conditional() == o.conditional();
  }
  /// A new row for this jump, its counts 0 (add() then adds them).
  Jump empty_row() const {
    Jump row = *this;
    row.count = 0;
    row.executed = conditional() ? 0 : kUnknownCount;
    return row;
  }
  /// Adds another jump's counts to this row (saturating).
  void add(const Jump& o);
};

/// Optional layer: sample stacks as a callsite tree (perf, collapsed stacks).
/// Node 0 is the root; `parent` of the root is itself.
struct StackNode {
  std::uint32_t parent = 0;
  FuncId function = 0;
  /// Not kNoString: the node is the process the samples below it ran in
  /// (perf's comm, the root frame of FlameGraph's folded stacks), not a
  /// function (`function` is then meaningless).
  StringId process = kNoString;
};

/// Optional layer: a file that holds several ranks or threads (TAU's
/// packed profiles, CUBE4): what each of them ran. The profile's own costs
/// are their sums; per-rank statistics read each location as a rank.
struct Location {
  /// The MPI rank (TAU's node, CUBE4's location group), or -1.
  std::int64_t rank = -1;
  /// The thread within the rank (TAU's context and thread as one number).
  std::int64_t thread = 0;
  /// How the profiler names it, e.g. "0,0,1" (ParaProf's node,context,thread).
  StringId label = kNoString;
  /// Its rows in Profile::location_functions: [begin, end).
  std::uint32_t begin = 0, end = 0;
};

/// A timeline's thread: the process and thread a recording names (perf's
/// pid/tid and command, a trace's pid/tid and thread_name), or numbers the
/// reader gave it (a .cpuprofile has one thread).
struct Track {
  std::int64_t pid = 0, tid = 0;
  StringId name = kNoString;     // the thread's name or command
  StringId process = kNoString;  // the process's name, when the input gives one
};

/// One sample on a timeline: the stack node it ran (its leaf frame), when
/// it started in seconds on the recording's clock, and how long it lasted
/// (negative: unknown, as perf's point samples; the timeline writer
/// stretches each to the next sample of its thread).
struct TimedSample {
  double start = 0, duration = -1;
  std::uint32_t node = 0;
  std::uint32_t track = 0;
};

/// Memory over time, as memory_profiler's `mprof run` samples it (one per
/// file read): the main process's samples, each child's (CHLD), and the
/// calls of its @profile'd functions (FUNC), each run (CMDLINE) in turn.
struct MemoryTrace {
  struct Sample {
    double time = 0, mib = 0;  // seconds (Unix time), MiB
  };
  struct Child {
    StringId id = kNoString;  // as the file numbers it (its pid, or an index)
    std::vector<Sample> samples;
  };
  struct Call {
    StringId function = kNoString;  // `module.function`
    double start = 0, end = 0, mib_start = 0, mib_end = 0;
    std::int32_t depth = -1;  // the stack level, or -1 (older files)
  };
  StringId path = kNoString;       // the file as given
  std::vector<StringId> commands;  // CMDLINE of each run
  /// Where each run's samples begin in `samples` (runs.size() == commands.size()).
  std::vector<std::uint32_t> runs;
  std::vector<Sample> samples;  // MEM lines, in file order
  std::vector<Child> children;  // in order of first appearance
  std::vector<Call> calls;      // FUNC lines, in file order
};

/// Which subpositions the per-position layers hold (callgrind `positions:`).
enum Positions : std::uint8_t { kPositionLine = 1, kPositionAddress = 2 };

/// A whole profile. Plain data: analysis passes are free functions.
struct Profile {
  StringTable strings;
  std::vector<Event> events;
  LabelStyle label_style = LabelStyle::kName;
  /// Functions of one name and file at different lines are different
  /// functions (JavaScript's: every anonymous function of a script is
  /// `(anonymous)`), as they are in Python's profiles (kPython): merging
  /// and comparing keep them apart by their line.
  bool line_in_identity = false;
  std::vector<Function> functions;
  /// functions.size() x events.size(), row-major: cost of the function alone.
  std::vector<Cost> self_cost;
  /// Whether the profiler reported each function's inclusive cost itself
  /// (pstats `ct`); otherwise totals are derived from the call graph.
  bool reports_totals = false;
  /// functions.size() x events.size() when reports_totals, else empty.
  std::vector<Cost> total_cost;
  /// Sampling formats: per function, the weight of the samples whose stack
  /// holds it at least once (gprof2dot's TOTAL_SAMPLES, for --total
  /// callstacks); functions.size() x events.size() when keeps_stack_totals.
  bool keeps_stack_totals = false;
  std::vector<Cost> stack_total;
  /// Per function, the share of the whole profile its inclusive cost is, as
  /// the profiler printed it (VTune's "% CPU Time" column of axe exports);
  /// empty when the profiler printed none. A merge of several files drops
  /// it (shares of different runs do not add up).
  std::vector<double> reported_share;
  /// The functions the profile lists as entries of their own, in the file's
  /// order (pstats: the stats dict's keys; a function seen only as a caller
  /// is not listed). Empty when every function is an entry, in id order.
  std::vector<FuncId> listed;

  std::vector<Call> calls;
  /// calls.size() x events.size(): inclusive cost of the callee along the edge.
  std::vector<Cost> call_cost;
  /// calls.size() x events.size() when keeps_call_self: the callee's self
  /// cost along the edge (pstats caller tuples' tt).
  bool keeps_call_self = false;
  std::vector<Cost> call_self;
  /// The pure-Python profiler records only a count per caller: a call's
  /// inclusive cost is count / callee calls x callee total, computed when
  /// needed (call_cost stays 0), as gprof2dot does.
  bool call_costs_from_counts = false;

  /// Per-position layers (callgrind, line_profiler).
  std::uint8_t positions = kPositionLine;
  std::vector<LineCost> line_costs;
  std::vector<Cost> line_cost_values;  // line_costs.size() x events.size()
  std::vector<CallSite> call_sites;
  std::vector<Cost> call_site_cost;  // call_sites.size() x events.size()
  std::vector<Jump> jumps;
  /// Header lines of the input worth keeping (callgrind creator, pid, cmd,
  /// part, thread, desc), in order.
  std::vector<std::pair<StringId, StringId>> metadata;
  /// callgrind's `summary:` and `totals:` lines as the input wrote them
  /// (the last of each; empty when absent), and the sums of self costs
  /// they came with: valgrind's own totals can differ from the sum of the
  /// cost lines by a few units, and callgrind_annotate's percentages are of
  /// them. Writers keep them while the self costs still add up the same.
  struct ReportedTotals {
    std::vector<Cost> summary, totals, self_sums;
  } reported;

  std::vector<StackNode> stack_nodes;
  std::vector<Cost> stack_node_cost;  // stack_nodes.size() x events.size()

  /// Optional layer over the callsite tree: when each sample ran, for
  /// timelines (-T trace), when the input has times and the output asks
  /// for them (ReadOptions::keep_timeline). In the readers' order; samples
  /// of one track need not be sorted.
  std::vector<Track> tracks;
  std::vector<TimedSample> timeline;

  /// Optional layer: memory over time (MemoryTrace), one per file read.
  std::vector<MemoryTrace> memory;

  /// Per-location layer (Location): the functions each location ran, and
  /// their self and inclusive costs there (location_functions.size() x
  /// events.size() each). Merging profiles drops it.
  std::vector<Location> locations;
  std::vector<FuncId> location_functions;
  std::vector<Cost> location_self, location_total;

  std::size_t num_events() const { return events.size(); }
  bool has_total_cost() const { return reports_totals; }

  FuncId add_function(const Function& f);
  CallId add_call(const Call& c);
  /// Room for this many functions and calls in every table add_function
  /// and add_call grow (set the events and what is kept first): a reader
  /// of many small files skips the tables' growth, a few allocations each.
  void reserve(std::size_t functions, std::size_t calls);
  /// reserve() for a reader that bounds the functions and calls by its
  /// input's bytes (a function or call a line at most): each table at
  /// bounded_rows() of its bound, so it never moves; nothing where
  /// bounded_rows() reserves nothing (an address-space limit,
  /// AddressSanitizer): there the tables grow as they need.
  void reserve_bound(std::size_t functions, std::size_t calls);
  /// The row of function `f` in the last location, added with zero costs
  /// the first time (`add`; else UINT32_MAX when it has none). `rows`
  /// remembers each function's last row between calls: one vector per
  /// reader, kept across the locations.
  std::uint32_t location_row(FuncId f, std::vector<std::uint32_t>& rows, bool add = true);
  /// Appends an event after functions or calls exist (their new costs are 0).
  std::size_t add_event(const Event& e);

  Cost& self(FuncId f, std::size_t e) { return self_cost[f * events.size() + e]; }
  Cost self(FuncId f, std::size_t e) const { return self_cost[f * events.size() + e]; }
  Cost& total(FuncId f, std::size_t e) { return total_cost[f * events.size() + e]; }
  Cost total(FuncId f, std::size_t e) const { return total_cost[f * events.size() + e]; }
  Cost& stack_inclusive(FuncId f, std::size_t e) { return stack_total[f * events.size() + e]; }
  Cost stack_inclusive(FuncId f, std::size_t e) const { return stack_total[f * events.size() + e]; }
  Cost& inclusive(CallId c, std::size_t e) { return call_cost[c * events.size() + e]; }
  Cost inclusive(CallId c, std::size_t e) const { return call_cost[c * events.size() + e]; }
  Cost& along(CallId c, std::size_t e) { return call_self[c * events.size() + e]; }
  Cost along(CallId c, std::size_t e) const { return call_self[c * events.size() + e]; }

  /// A cost of event `e` as a number in the event's unit (the double itself
  /// for floating events).
  double value(std::size_t e, Cost c) const;
  /// The cost that stands for `v` in event `e`'s unit (rounded for integer events).
  Cost cost_of(std::size_t e, double v) const;
  /// a + b in event `e`: saturating for integers, IEEE addition for floats.
  Cost add(std::size_t e, Cost a, Cost b) const;

  /// The inclusive cost of call `c` in event `e` as a number: call_cost, or
  /// for call_costs_from_counts the count's share of the callee's total.
  double call_value(CallId c, std::size_t e) const;

  [[gnu::always_inline]] std::string_view str(StringId id) const { return strings.view(id); }

  /// About how many bytes the profile's tables hold (readers compare it
  /// with their memory budget as they grow them).
  std::size_t approximate_bytes() const;
};

/// Adds with saturation at the int64 limits instead of wrapping.
inline Cost saturating_add(Cost a, Cost b) {
  Cost r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

inline Cost float_cost(double v) { return std::bit_cast<Cost>(v); }
inline double cost_float(Cost c) { return std::bit_cast<double>(c); }

/// A number in an event's unit as a number to show: seconds for time
/// events, else the count itself (exact for whole nanoseconds).
double shown_value(const Event& event, double value);
/// A cost as a number to show, as shown_value(); exact for floating events.
double event_value(const Event& event, Cost cost);
/// Whether the event is time (shown in seconds), not a count.
inline bool is_time(const Event& event) { return event.floating || event.seconds_per_unit > 0; }
/// `v`, a cost of `event` integrated along call ratios, without their
/// rounding noise: a count event's costs are whole numbers where they are
/// within 1e-9 (relative) of one.
double without_noise(const Event& event, double v);
/// The inverse of shown_value(): a shown number in the event's unit.
double unit_value(const Event& event, double shown);
/// The event that counts samples beside the others (an integer event named
/// `samples`: a .cpuprofile's, a Go CPU profile's), if the profile has one.
std::optional<std::size_t> sample_count_event(const Profile& p);

/// CSR adjacency over Profile::calls: out-calls and in-calls per function,
/// each range in call-index order.
struct Adjacency {
  std::vector<std::uint32_t> out_begin, out_calls, in_begin, in_calls;

  static Adjacency build(const Profile& p);
  std::size_t out_size(FuncId f) const { return out_begin[f + 1] - out_begin[f]; }
};

}  // namespace graphgen
