// Merging: the one step that folds per-file profiles into one (several files
// of one format, ranks, parts of one big file), and unifying functions that
// a reader kept apart for views that want a coarser identity.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "graphgen/error.h"
#include "graphgen/exact_sum.h"
#include "graphgen/flat_index.h"
#include "graphgen/profile.h"

namespace graphgen {

enum class FunctionKey {
  kNameAndObject,  // one node per (name, binary): callgrind's fl= files set aside
  kName,           // gprof2dot's identity for callgrind: the name alone
};

/// Whether two functions of two profiles are the same function: the same
/// name, object, file, process, code object and instance, and the same line
/// where the label shows it (Python labels). What merging and --compare
/// match by.
bool same_identity(const Profile& pa, const Function& a, const Profile& pb, const Function& b);

/// For each function of `a`, the function of `b` with the same identity
/// (same_identity; with `name_only`, the same name: graphs of callgrind
/// functions made one per name, --merge-by-name), or kNoMatch.
inline constexpr FuncId kNoMatch = UINT32_MAX;
std::vector<FuncId> match_functions_by_identity(const Profile& a, const Profile& b, bool name_only = false);

/// How a function of one profile was paired with one of another.
enum class PairRule : std::uint8_t {
  kNone,           // no partner
  kIdentity,       // same_identity
  kNameAndFile,    // the same name and file, another line (an edit moved it)
  kNameAndObject,  // the same name and object file name (a rebuild in another folder)
  kName,           // the same name, found once on each side (a binary of another name)
  kCloneName,      // the same name once the compiler's clone suffixes are cut (foo.part.0, foo.isra.0)
};
inline constexpr std::size_t kPairRules = 6;
std::string_view pair_rule_name(PairRule rule);

/// `name` without the suffixes compilers give the copies of a function they
/// specialise or split (GCC's .part.N, .isra.N, .constprop.N, .cold, .cold.N,
/// .lto_priv.N, .localalias; clang's .llvm.N), keeping callgrind's recursion
/// suffix ('2): what an -O2 build calls the function an -O0 build names
/// plainly.
std::string_view clone_base_name(std::string_view name, std::string& scratch);

/// Pairs the functions of `a` with those of `b` that survive rebuilds and
/// edits: by identity first, then among the functions still alone by name
/// and file, by name and object basename, by name alone, and by name without
/// clone suffixes (clone_base_name) and object basename, each where the key
/// names one function on each side. `match` as match_functions_by_identity's;
/// `rule` says how, per function of `a`.
struct Pairing {
  std::vector<FuncId> match;
  std::vector<PairRule> rule;
  /// How many functions each rule paired, by PairRule (kNone: none).
  std::array<std::size_t, kPairRules> count() const;
  std::size_t paired() const;
  /// "237 by identity, 7 by name and file": the rules that paired any.
  std::string summary() const;
};
Pairing pair_functions(const Profile& a, const Profile& b);

/// `p` with functions of the same key made one function (the first one's
/// attributes, in first-appearance order): self costs, call counts, calls,
/// per-position costs and stack totals summed. Takes `p` by value so callers
/// can move it in; strings and rows are moved, not copied.
Profile merge_functions(Profile p, FunctionKey key);

/// Folds profiles into `into`, keeping its indexes between additions so that
/// folding many files costs one pass over each (`into` must change only
/// through this merger while it lives).
///
/// What add() does: events are matched by name (the same set, else an error
/// naming both lists; one name in two units is summed in the coarser unit);
/// functions by identity (name, object, file, process, code object, and the
/// line where the label shows it); self, total and stack costs, call counts,
/// calls, per-position costs, call sites, jumps and callsite trees are
/// summed, floating costs exactly (ExactSum: the double nearest the exact
/// total, whatever the order or grouping of the additions). What is new to `into` is
/// appended in `other`'s order, so adding files in order equals reading them
/// in one pass, and listed entries (pstats dict keys) keep pstats.Stats.add's
/// order. The order of functions, calls and listed entries depends on the
/// order of the add() calls; no value does.
class ProfileMerger {
 public:
  /// The cost tables whose floating cells add exactly (ExactSum).
  enum Table { kSelf, kTotal, kStack, kCall, kCallSelf, kLine, kSite, kNode, kTables };
  /// Per table, each cell's exact partials (parallel to the table; empty
  /// where nothing floating was added).
  using ExactTables = std::array<std::vector<ExactSum>, kTables>;

  explicit ProfileMerger(Profile& into);
  /// With `next`, the profile add() takes next: the indexes of `into` are
  /// made with room for it too (not made, then made again twice as large).
  ProfileMerger(Profile& into, const Profile* next);
  /// Goes on merging into a profile another merger built: `exact` are its
  /// partials, `files` how many profiles it holds and `first_path` the first
  /// of them, for messages (graphgen-mpi combining its processes' shares).
  ProfileMerger(Profile& into, ExactTables exact, std::size_t files, std::string_view first_path);
  /// Adds `other`; `other_exact`, if given, holds its floating cells'
  /// partials (a profile merged by another ProfileMerger, which the sum
  /// then takes exactly instead of its rounded values).
  Expected<bool> add(const Profile& other, std::string_view other_path, const ExactTables* other_exact = nullptr);
  /// Puts the functions of a listed profile in gprof2dot's order (each
  /// listed entry, then its callers, first appearance); call after the last
  /// add(). A no-op for profiles without listed entries.
  void finish();

  /// The partials of the floating cells added so far, handed over with
  /// `into` holding their rounded values (the merger takes no more
  /// profiles). finish() does the same and drops them.
  ExactTables take_exact();
  /// How many profiles were added (and held by `into` before, see above).
  std::size_t files() const { return files_; }

  /// Where the last add() put each function of the profile it added.
  const std::vector<FuncId>& last_map() const { return map_; }
  /// After finish(): each function's id before finish() -> its final id
  /// (empty when finish() kept the ids).
  const std::vector<FuncId>& renumbering() const { return renumbered_; }

 private:
  struct Adding;  // one add(): the profile added and where its parts go
  void start(const Profile& other, std::string_view other_path);
  void add_functions(Adding& a);
  void add_calls(Adding& a);
  void add_lines(Adding& a);
  void add_sites(Adding& a);
  void add_jumps(Adding& a);
  void add_stacks(Adding& a);
  void add_timeline(const Profile& other, const std::vector<std::uint32_t>& node_map, Adding& a);
  Expected<bool> adopt_events(const Profile& other, std::string_view other_path, std::vector<std::size_t>& map);
  // Each function's identity hashed by its strings' bytes, so a function
  // `into` has already is found without interning its strings again.
  std::vector<std::uint64_t> function_hashes(const Profile& p) const;
  bool same_function(const Function& mine, const Profile& other, const Function& theirs) const;

  Profile& into_;
  std::string first_path_;
  bool started_ = false;
  std::size_t files_ = 0;  // profiles added
  FlatIndex functions_, calls_, sites_, jumps_, children_;
  GroupedIndex lines_;  // each function's rows of positions (a file lists them together)
  std::vector<bool> is_listed_;
  std::vector<FuncId> map_, renumbered_;
  std::vector<StringId> string_map_;
  ExactTables exact_;
  // Per table, the floating cells that have had an addend (whose partials
  // are made only when a second one comes).
  std::array<std::vector<bool>, kTables> written_;
  // Floating cells get their exactly rounded value (they are summed in
  // exact_ meanwhile).
  void write_exact();
};

/// What ProfileMerger::finish() does to a merged profile: functions of a
/// listed profile put in gprof2dot's order. Returns each old id's new id,
/// empty when nothing moved.
std::vector<FuncId> order_as_gprof2dot(Profile& p);

/// Adds `other` into `into`, as ProfileMerger::add does.
Expected<bool> add_profile(Profile& into, const Profile& other, std::string_view other_path);

/// Renumbers functions: `order[k]` is the old id of new function k (a
/// permutation). Calls keep their order; every reference is remapped.
void renumber_functions(Profile& p, const std::vector<FuncId>& order);

}  // namespace graphgen
