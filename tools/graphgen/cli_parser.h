// The command line shared by graphgen, graphgen run and graphgen-mpi: the
// options of pipeline/options.h on CLI11. Apart from cli.h because CLI11 is
// header-only and costs every file that includes it about 7 s of compiling
// (its validators are objects defined in each); only the files that build a
// parser include it.
#pragma once

#include <CLI/CLI.hpp>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "cli.h"
#include "options.h"

namespace graphgen::cli {

/// The options of one front end as added to its parser, each with its
/// spec (pipeline/options.h, where options are written once).
struct Parser {
  std::vector<std::pair<const pipeline::OptionSpec*, CLI::Option*>> options;
};

/// Every option `front_end` offers into `app`, in --help's order and
/// groups, with --help (the most used options) and --help-all (every
/// group), at most 100 columns wide.
Parser add_options(CLI::App& app, pipeline::FrontEnd front_end);

/// --help at 100 columns: each option's text wrapped under its names, the
/// choices said once (in the text, not after the value's name).
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option(const CLI::Option* opt, bool positional) const override;
};

/// The options --help shows (OptionSpec::common); the others are hidden
/// there and listed by --help-all.
std::set<const CLI::Option*>& common_options();

/// What the parsed command line gave, as settings for make_options().
pipeline::Settings settings_of(const Parser& parser);

/// Parses the command line; -1 to go on, else the exit status (help,
/// version, a usage error, all printed).
int parse(CLI::App& app, int argc, char** argv, std::string_view tool);

}  // namespace graphgen::cli
