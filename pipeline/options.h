// Every option of every front end, written once: its names, its value, its
// default and its help (option_specs()), and the one place where (key,
// value) pairs become a Request (make_options()), checked once. The CLI
// (tools/) adds the specs to its parser and hands over what was given; the
// Python module (python/) hands over its keyword arguments; graphgen-mpi
// and `graphgen run` are the CLI with fewer options. pprof's driver fills
// one report.Options the same way.
//
// A default is not written here: each is the value of the field the option
// sets (PruneOptions{}.node_threshold_percent for -n), shown from it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graphgen/error.h"
#include "pipeline.h"

namespace graphgen::pipeline {

/// How an option takes its value.
enum class OptionKind : std::uint8_t {
  kFlag,   // given or not: the value "true"
  kValue,  // one value
  kList,   // repeatable, one value each time, kept in order
};

/// The front ends that offer an option (a bit each).
enum FrontEnd : unsigned {
  kGraphgen = 1,  // graphgen
  kRun = 2,       // graphgen run
  kMpi = 4,       // graphgen-mpi
  kPython = 8,    // the Python module's keyword arguments
  kEvery = 15,
};

struct OptionSpec {
  /// The parser's names, short first: "-n,--node-thres"; the positional
  /// inputs are "input".
  std::string names;
  /// The long name without dashes ("node-thres"): the key of settings, and
  /// with '_' for '-' the Python keyword.
  std::string key;
  OptionKind kind = OptionKind::kValue;
  /// The value as --help shows it: "PERCENTAGE:FLOAT in [0 - 100]".
  std::string value_name;
  /// Shown as "=0.5" (empty: no default shown).
  std::string default_value;
  std::string help;
  /// The values it accepts (empty: any the checks in make_options() allow).
  std::vector<std::string> choices;
  /// Values beyond `choices` it accepts (pstats' abbreviated sort keys).
  bool (*also_accepts)(std::string_view value) = nullptr;
  /// Keys of options it cannot be given with.
  std::vector<std::string> excludes;
  unsigned front_ends = kEvery;
  /// The names in `graphgen run`, where they differ (cProfile's -s is
  /// --sort there, so --strip has no short name); empty: `names`.
  std::string run_names;
  /// --help's group ("The call graph"); --help shows the `common` ones,
  /// --help-all every group.
  std::string group;
  bool common = false;
  const std::string& names_for(FrontEnd f) const { return f == kRun && !run_names.empty() ? run_names : names; }
  /// names_for(f) one name each: {"-n", "--node-thres"}.
  std::vector<std::string> name_list(FrontEnd f) const {
    std::vector<std::string> out;
    const std::string& all = names_for(f);
    for (std::size_t at = 0; at < all.size();) {
      const std::size_t comma = std::min(all.find(',', at), all.size());
      out.push_back(all.substr(at, comma - at));
      at = comma + 1;
    }
    return out;
  }
};

/// Every option, in --help's order.
const std::vector<OptionSpec>& option_specs();

/// The option of this key, or null.
const OptionSpec* find_option(std::string_view key);

/// What a front end was given, in order: (key, value); a flag's value is
/// "true", a list option repeats its key.
using Settings = std::vector<std::pair<std::string, std::string>>;

/// A request and what the front end does around it.
struct Options {
  Request request;
  std::string output = "-";  // -o: a path, "-" for standard output
  bool each = false;         // --each
  unsigned jobs = 0;         // --jobs (0: one per core)
  bool kcachegrind = false;  // -k
  bool timings = false;      // --timings
  bool quiet = false;        // -q
};

/// The options `settings` give (every other option at its default), or the
/// usage error naming the option: unknown keys, values that do not parse
/// or are out of range, options that go with another one not given. Each
/// front end offers only its options (OptionSpec::front_ends), so this
/// checks what any of them may give; warnings (-T and -o disagreeing) go
/// to `diag`.
Expected<Options> make_options(const Settings& settings, Diagnostics& diag);

/// What a picture is of: the inputs as given (a glob stays a glob), the
/// first few and the last of a long list.
std::string joined_inputs(const std::vector<std::string>& inputs);

}  // namespace graphgen::pipeline
