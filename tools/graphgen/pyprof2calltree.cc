#include "pyprof2calltree.h"

#include <filesystem>
#include <string_view>

#include "registry.h"

namespace graphgen::cli {

namespace {

// An option of one value in argparse's spellings: "-i X", "-iX" (short),
// "--infile X", "--infile=X". True when args[i] is it (i then at its
// value's last token); a missing value is left to the parser's own error.
bool option_value(const std::vector<std::string>& args, std::size_t& i, std::string_view short_name,
                  std::string_view long_name, std::string& value) {
  const std::string_view a = args[i];
  // (--outfile has no short name: an empty argument is not it.)
  if (((!short_name.empty() && a == short_name) || a == long_name) && i + 1 < args.size()) {
    value = args[++i];
    return true;
  }
  if (!short_name.empty() && a.size() > 2 && a.starts_with(short_name) && a[2] != '-') {
    value = a.substr(2);
    return true;
  }
  if (a.starts_with(long_name) && a.size() > long_name.size() && a[long_name.size()] == '=') {
    value = a.substr(long_name.size() + 1);
    return true;
  }
  return false;
}

bool is_option(std::string_view a, std::string_view short_name, std::string_view long_name) {
  return a == short_name || a == long_name || (a.starts_with(short_name) && a.size() > 2 && a[1] != '-') ||
         (a.starts_with(long_name) && a.size() > long_name.size() && a[long_name.size()] == '=');
}

}  // namespace

std::optional<Pyprof2calltree> from_pyprof2calltree(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "run") return std::nullopt;
  std::vector<std::string> rest, script;
  std::string infile, outfile;
  bool theirs = false, run = false, has_out = false, has_to = false, has_k = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-r" || a == "--run-script" || a.starts_with("--run-script=")) {
      theirs = run = true;
      if (a.starts_with("--run-script=")) script.push_back(a.substr(13));
      script.insert(script.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (option_value(args, i, "-i", "--infile", infile)) {
      theirs = true;
    } else if (option_value(args, i, "", "--outfile", outfile)) {
      theirs = has_out = true;
    } else if (option_value(args, i, "-o", "--output", outfile)) {
      has_out = true;
    } else {
      has_to = has_to || is_option(a, "-T", "--to");
      has_k = has_k || a == "-k" || a == "--kcachegrind";
      rest.push_back(a);
    }
  }
  if (!theirs) return std::nullopt;
  Pyprof2calltree out;
  if (!has_out && !has_k && (run ? !script.empty() : !infile.empty())) {
    outfile = std::filesystem::path(run ? script[0] : infile).filename().string() + ".log";
    if (!run && outfile == infile) outfile += ".log";
    out.chosen_output = outfile;
    has_out = true;
  }
  // Callgrind, unless -T or the -o name says otherwise.
  if (has_out && !has_to && !formats::output_format_for_path(outfile)) {
    rest.push_back("-T");
    rest.emplace_back(formats::kcachegrind_format().name);
  }
  if (run) out.args.push_back("run");
  out.args.insert(out.args.end(), rest.begin(), rest.end());
  if (has_out) {
    out.args.push_back("-o");
    out.args.push_back(outfile);
  }
  if (run)
    out.args.insert(out.args.end(), script.begin(), script.end());
  else if (!infile.empty())
    out.args.push_back(infile);
  return out;
}

}  // namespace graphgen::cli
