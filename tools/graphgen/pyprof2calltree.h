// pyprof2calltree's command lines, unchanged, as graphgen ones:
//
//   pyprof2calltree -i prof.pstats [-o out] [-k]    graphgen prof.pstats ...
//   pyprof2calltree -r script.py [args...]          graphgen run ... script.py [args...]
//
// with --infile, --outfile and --run-script (argparse's spellings: "-i X",
// "-iX", "--infile X", "--infile=X"; -r takes the rest of the line). As
// pyprof2calltree does, no -o (and no -k) writes basename(IN).log or
// basename(script).log in the current folder (IN.log.log where that is IN
// itself), and the output is callgrind unless -T, or an -o name graphgen
// knows (out.png), asks for another format.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace graphgen::cli {

struct Pyprof2calltree {
  /// graphgen's arguments (without the program name); "run" first for -r.
  std::vector<std::string> args;
  /// The output graphgen chose as pyprof2calltree would, said on stderr
  /// once written; empty when -o named it.
  std::string chosen_output;
};

/// The graphgen command line of a pyprof2calltree one, or nothing when
/// `args` (without the program name) uses none of -i, --infile, -r,
/// --run-script or --outfile.
std::optional<Pyprof2calltree> from_pyprof2calltree(const std::vector<std::string>& args);

}  // namespace graphgen::cli
