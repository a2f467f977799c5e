#include "cli.h"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <set>
#include <utility>

#include "cli_parser.h"
#include "graphgen/io.h"
#include "registry.h"

namespace graphgen::cli {

std::set<const CLI::Option*>& common_options() {
  static std::set<const CLI::Option*> options;
  return options;
}

// Every message is one line, whatever a file name or an input held.
int fail(const Error& e) {
  std::fflush(stdout);
  std::string message = one_line(e.message);
  if (e.kind == Error::Kind::kBadUsage)
    std::fprintf(stderr, "graphgen: error: %s\n", message.c_str());
  else
    std::fprintf(stderr, "%s\n", message.c_str());
  return e.kind == Error::Kind::kBadUsage ? kExitBadUsage : kExitBadInput;
}

void use_logger(const char* name) {
  if (spdlog::get(name)) return;  // (this binary's or module's default already)
  auto logger = spdlog::stderr_logger_st(name);
  logger->set_pattern(fmt::format("{}: %l: %v", name));
  spdlog::set_default_logger(logger);
}

void report_one(const std::string& warning) { spdlog::warn("{}", one_line(warning)); }

void report(const Diagnostics& diag, bool quiet) {
  if (quiet) return;
  for (const std::string& w : diag.warnings()) report_one(w);
}

Expected<std::string> kcachegrind_path(const pipeline::Options& o) {
  if (o.output != "-") return o.output;
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/graphgen-XXXXXX.callgrind";
  int fd = ::mkstemps(path.data(), 10);
  if (fd < 0)
    return io_error(fmt::format("-k: cannot make a temporary file for the profile: {}", std::strerror(errno)));
  ::close(fd);
  return path;
}

Expected<std::string> mpi_output_path(const std::string& path) {
  auto first_set = [](std::initializer_list<const char*> names) -> const char* {
    for (const char* name : names)
      if (const char* v = std::getenv(name); v && *v) return v;
    return nullptr;
  };
  const char* rank = first_set({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"});
  const char* size = first_set({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"});
  std::string out = path;
  for (auto [key, value] : {std::pair{std::string_view("{rank}"), rank}, std::pair{std::string_view("{size}"), size}}) {
    for (std::size_t at = out.find(key); at != std::string::npos; at = out.find(key, at)) {
      if (!value)
        return bad_usage(fmt::format(
            "-o {}: {} is taken from the MPI launcher (mpirun, srun: OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, "
            "SLURM_PROCID; OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS), and none is set; run under mpirun or "
            "name the output without it",
            quote_input(path), key));
      out.replace(at, key.size(), value);
      at += std::strlen(value);
    }
  }
  return out;
}

std::string find_on_path(std::string_view program) {
  const char* env = std::getenv("PATH");
  const std::string dirs = env ? env : "/usr/bin:/bin";
  for (std::size_t at = 0; at <= dirs.size();) {
    const std::size_t colon = std::min(dirs.find(':', at), dirs.size());
    const std::string dir = dirs.substr(at, colon - at);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + std::string(program);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    at = colon + 1;
  }
  return {};
}

int open_in_kcachegrind(const std::string& path, bool temporary) {
  for (const char* viewer : {"kcachegrind", "qcachegrind"}) {
    const std::string found = find_on_path(viewer);
    if (found.empty()) continue;
    pid_t pid = ::fork();
    if (pid == 0) {
      ::execl(found.c_str(), viewer, path.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) < 0)
      return fail(io_error(fmt::format("-k: cannot start {}; the profile is in {}", found, path)));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      if (temporary) ::unlink(path.c_str());  // (the viewer is done with it)
      return kExitOk;
    }
    // The file stays, for another viewer or a later try.
    return fail(io_error(fmt::format(
        "-k: {} {} (is there a display? DISPLAY is {}); the profile is in {}", found,
        WIFEXITED(status) ? (WEXITSTATUS(status) == 127 ? std::string("could not be started")
                                                        : fmt::format("exited with status {}", WEXITSTATUS(status)))
                          : fmt::format("was stopped by signal {}", WTERMSIG(status)),
        std::getenv("DISPLAY") ? "set" : "not set", path)));
  }
  return fail(
      bad_input(fmt::format("-k: neither kcachegrind nor qcachegrind is on PATH (apt-get install "
                            "kcachegrind); the profile is in {}",
                            path)));
}

// Help and version text, checked like every other output (`> /dev/full`).
int print_or_fail(const std::string& text) {
  auto written = write_output("-", text);
  return written ? kExitOk : fail(written.error());
}

// Values stay text here: make_options() parses and checks them, the same
// for every front end. A repeatable option takes exactly one value each
// time, as argparse's `append` does, so `-p DIR prof.pstats` keeps
// prof.pstats an input.
namespace {

constexpr std::size_t kHelpWidth = 100;

// `text` in lines of at most `width` columns (UTF-8 characters counted
// once), each after `indent` spaces but the first, which follows `first`.
std::string wrap(std::string first, std::string_view text, std::size_t indent, std::size_t width) {
  auto columns = [](std::string_view s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
  };
  std::string out = first;
  std::size_t used = columns(first);
  if (used + 1 > indent) {  // the names fill the column: the text starts below
    out += '\n';
    used = 0;
  }
  bool line_empty = true;
  for (std::size_t at = 0; at < text.size();) {
    while (at < text.size() && text[at] == ' ') ++at;
    const std::size_t end = std::min(text.find(' ', at), text.size());
    if (end == at) break;
    const std::string_view word = text.substr(at, end - at);
    at = end;
    if (used < indent) {
      out.append(indent - used, ' ');
      used = indent;
      line_empty = true;
    }
    if (!line_empty && used + 1 + columns(word) > width) {
      out += '\n';
      out.append(indent, ' ');
      used = indent;
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++used;
    }
    out += word;
    used += columns(word);
    line_empty = false;
  }
  return out + '\n';
}

}  // namespace

std::string HelpFormatter::make_option(const CLI::Option* opt, bool positional) const {
  std::string opts = make_option_opts(opt);
  for (std::size_t open = opts.find(":{"); open != std::string::npos; open = opts.find(":{", open)) {
    const std::size_t close = opts.find('}', open);
    if (close == std::string::npos) break;
    opts.erase(open, close + 1 - open);
  }
  return wrap("  " + make_option_name(opt, positional) + opts, make_option_desc(opt), get_column_width(), kHelpWidth);
}

std::string wrap_help(std::string_view text) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t nl = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, nl - at);
    at = nl + 1;
    if (line.size() <= kHelpWidth) {
      out.append(line);
      out += '\n';
      continue;
    }
    // A long line: wrapped under its own indentation.
    const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
    out += wrap(std::string(line.substr(0, indent)), line.substr(indent), indent, kHelpWidth);
  }
  return out;
}

Parser add_options(CLI::App& app, pipeline::FrontEnd front_end) {
  using pipeline::OptionKind;
  Parser parser;
  for (const pipeline::OptionSpec& spec : pipeline::option_specs()) {
    if (!(spec.front_ends & front_end)) continue;
    CLI::Option* o = nullptr;
    if (spec.kind == OptionKind::kFlag) {
      o = app.add_flag(spec.names_for(front_end), spec.help);
    } else {
      o = app.add_option(spec.names_for(front_end), spec.help)->type_name(spec.value_name);
      if (!spec.default_value.empty()) o->default_str(spec.default_value);
      if (spec.key == "input")
        o->expected(0, CLI::detail::expected_max_vector_size)->allow_extra_args();
      else if (spec.kind == OptionKind::kList)
        o->expected(1)->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
      else
        o->expected(1);
    }
    o->group(spec.group);
    if (spec.common) common_options().insert(o);
    parser.options.emplace_back(&spec, o);
  }
  app.formatter(std::make_shared<HelpFormatter>());
  app.get_formatter()->column_width(34);
  app.set_help_all_flag("--help-all", "every option, by group (--help shows the most used)");
  for (auto [spec, option] : parser.options)
    for (const std::string& other : spec->excludes)
      for (auto [other_spec, other_option] : parser.options)
        if (other_spec->key == other) option->excludes(other_option);
  return parser;
}

pipeline::Settings settings_of(const Parser& parser) {
  pipeline::Settings settings;
  for (auto [spec, option] : parser.options) {
    if (option->count() == 0) continue;
    if (spec->kind == pipeline::OptionKind::kFlag)
      settings.emplace_back(spec->key, "true");
    else
      for (const std::string& value : option->results()) settings.emplace_back(spec->key, value);
  }
  return settings;
}

bool quiet(const pipeline::Settings& settings) {
  for (const auto& [key, value] : settings)
    if (key == "quiet") return true;
  return false;
}

std::string output_formats_help() {
  std::string outputs;
  for (const formats::OutputFormat& f : formats::output_formats()) {
    std::string exts;
    for (std::string_view e : f.extensions) exts += (exts.empty() ? "" : " ") + std::string(e);
    outputs += wrap(fmt::format("  {:<10} {:<12} ", f.name, exts), f.description, 26, kHelpWidth);
  }
  return outputs;
}

int parse(CLI::App& app, int argc, char** argv, std::string_view tool) {
  // An empty argument where a file or an option belongs (`graphgen "$IN" -T
  // stats` with IN unset) is a usage error, not a file that cannot be
  // opened (": cannot open"). An option's empty value is left to its check;
  // so is everything after `--`, and after graphgen run's script (its
  // arguments are the program's, an empty one among them).
  for (int i = 1; i < argc && !app.get_prefix_command(); ++i) {
    if (std::string_view(argv[i]) == "--") break;
    if (argv[i][0] != '\0') continue;
    const std::string_view before = i > 1 ? argv[i - 1] : "";
    const CLI::Option* option = before.size() > 1 && before[0] == '-' && before.find('=') == std::string_view::npos
                                    ? app.get_option_no_throw(std::string(before))
                                    : nullptr;
    if (option && option->get_items_expected_min() > 0) continue;
    std::fprintf(stderr,
                 "%.*s: error: argument %d: expected a file name or an option, found '' (an unset variable?) "
                 "(see %.*s --help)\n",
                 static_cast<int>(tool.size()), tool.data(), i, static_cast<int>(tool.size()), tool.data());
    return kExitBadUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    // The most used options; the others are one --help-all away.
    std::size_t hidden = 0;
    for (CLI::Option* o : app.get_options())
      if (!common_options().count(o) && !o->get_group().empty() && o->get_group() != "Options" &&
          o->get_name() != "--help" && o->get_name() != "--help-all") {
        o->group("");
        ++hidden;
      }
    std::string help = app.help();
    if (hidden) help += fmt::format("{} more options: {} --help-all lists every option, by group.\n", hidden, tool);
    return print_or_fail(wrap_help(help));
  } catch (const CLI::CallForAllHelp&) {
    return print_or_fail(wrap_help(app.help()));
  } catch (const CLI::CallForVersion& e) {
    return print_or_fail(std::string(e.what()) + "\n");
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    std::fprintf(stderr, "%.*s: error: %s (see %.*s --help)\n", static_cast<int>(tool.size()), tool.data(),
                 what.c_str(), static_cast<int>(tool.size()), tool.data());
    return kExitBadUsage;
  }
  return -1;
}

}  // namespace graphgen::cli
