#include "inputs.h"

#include <fmt/format.h>
#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "registry.h"

namespace graphgen::pipeline {

namespace {

namespace fs = std::filesystem;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool has_wildcard(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

// Whether the file at `path` begins as a callgrind profile does.
bool is_callgrind(const std::string& path) {
  auto file = InputFile::open(path);
  const formats::InputFormat* callgrind = formats::find_input_format("callgrind");
  return file && callgrind && callgrind->sniff(formats::sniffed_head(*file)) == formats::Confidence::kStrong;
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

Expected<bool> add_list(const std::string& argument, std::vector<std::string>& out) {
  std::string name = argument.substr(1);
  std::ifstream file;
  std::istream* in = &std::cin;
  if (name != "-") {
    file.open(name);
    if (!file) return bad_input(fmt::format("{}: cannot read this list of inputs", quote_input(name)));
    in = &file;
  }
  std::size_t before = out.size();
  for (std::string line; std::getline(*in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) out.push_back(line);
  }
  if (out.size() == before) return bad_input(fmt::format("{}: expected paths, one per line, found none", argument));
  return true;
}

}  // namespace

bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      std::size_t i0 = i, j0 = j;
      while (i0 < a.size() && a[i0] == '0') ++i0;
      while (j0 < b.size() && b[j0] == '0') ++j0;
      std::size_t i1 = i0, j1 = j0;
      while (i1 < a.size() && is_digit(a[i1])) ++i1;
      while (j1 < b.size() && is_digit(b[j1])) ++j1;
      if (i1 - i0 != j1 - j0) return i1 - i0 < j1 - j0;
      for (std::size_t k = 0; k < i1 - i0; ++k)
        if (a[i0 + k] != b[j0 + k]) return a[i0 + k] < b[j0 + k];
      i = i1;
      j = j1;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  if (i < a.size() || j < b.size()) return a.size() - i < b.size() - j;
  return a < b;  // the same numbers written differently (01 and 1)
}

Expected<std::vector<std::string>> expand_inputs(const std::vector<std::string>& arguments) {
  std::vector<std::string> out;
  for (const std::string& arg : arguments) {
    if (arg.size() > 1 && arg[0] == '@' && !exists(arg)) {
      if (auto ok = add_list(arg, out); !ok) return ok.error();
      continue;
    }
    std::error_code ec;
    if (arg != "-" && fs::is_directory(arg, ec)) {
      std::vector<std::string> files;
      // Hidden files are not profiles (.DS_Store, an editor's .swp), as a
      // shell's * leaves them out.
      std::vector<std::string> metric_folders;
      for (const auto& e : fs::directory_iterator(arg, ec)) {
        const std::string name = e.path().filename().string();
        if (e.is_regular_file(ec) && !name.starts_with("."))
          files.push_back(e.path().string());
        else if (name.starts_with("MULTI__") && e.is_directory(ec))
          metric_folders.push_back(e.path().string());
      }
      // TAU's several metrics: one MULTI__<metric> folder each, the same
      // file names in each. Its reader takes the other metrics of a file
      // from the sibling folders, so the files of one folder are the inputs.
      if (files.empty() && !metric_folders.empty()) {
        std::sort(metric_folders.begin(), metric_folders.end());
        for (const auto& e : fs::directory_iterator(metric_folders.front(), ec))
          if (e.is_regular_file(ec) && !e.path().filename().string().starts_with("."))
            files.push_back(e.path().string());
      }
      if (ec) return bad_input(fmt::format("{}: cannot list this folder: {}", quote_input(arg), ec.message()));
      if (files.empty())
        return bad_input(fmt::format("{}: expected profile files in this folder, found none", quote_input(arg)));
      std::sort(files.begin(), files.end(), natural_less);
      out.insert(out.end(), files.begin(), files.end());
      continue;
    }
    if (has_wildcard(arg) && !exists(arg)) {
      glob_t g{};
      int rc = ::glob(arg.c_str(), GLOB_NOSORT, nullptr, &g);
      std::vector<std::string> files;
      for (std::size_t k = 0; rc == 0 && k < g.gl_pathc; ++k) files.emplace_back(g.gl_pathv[k]);
      globfree(&g);
      if (rc == GLOB_NOMATCH || files.empty())
        return bad_input(fmt::format("{}: no file matches this pattern", quote_input(arg)));
      if (rc != 0) return bad_input(fmt::format("{}: cannot expand this pattern", quote_input(arg)));
      std::sort(files.begin(), files.end(), natural_less);
      out.insert(out.end(), files.begin(), files.end());
      continue;
    }
    out.push_back(arg);
  }
  return out;
}

void callgrind_parts(std::vector<std::string>& inputs, Diagnostics& diag) {
  std::vector<std::string> out;
  out.reserve(inputs.size());
  for (const std::string& input : inputs) {  // (copied, not moved: `given` below looks at them all)
    const fs::path path(input);
    const std::string name = path.filename().string();
    struct stat st;
    if (::stat(input.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != 0) {
      out.push_back(input);
      continue;
    }
    // NAME-NN beside it, named as the input names it (dir/NAME-01).
    std::vector<std::string> parts;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(path.has_parent_path() ? path.parent_path() : fs::path("."), ec)) {
      const std::string other = e.path().filename().string();
      if (other.size() > name.size() + 1 && other.starts_with(name) && other[name.size()] == '-' &&
          std::all_of(other.begin() + static_cast<std::ptrdiff_t>(name.size() + 1), other.end(), is_digit) &&
          e.is_regular_file(ec))
        parts.push_back((path.parent_path() / other).string());
    }
    std::sort(parts.begin(), parts.end(), natural_less);
    // A name of the user's (--callgrind-out-file=prof.out): the first part
    // says whether they are callgrind's.
    if (parts.empty() || (name.find("callgrind") == std::string::npos && !is_callgrind(parts.front()))) {
      out.push_back(input);  // (an empty file: the reader says so)
      continue;
    }
    const bool given = std::any_of(parts.begin(), parts.end(), [&](const std::string& part) {
      return std::find(inputs.begin(), inputs.end(), part) != inputs.end();
    });
    if (given) continue;
    diag.warn(
        fmt::format("{} is empty, as valgrind --separate-threads=yes leaves it: its {} thread(s), {}{}, are "
                    "read instead",
                    input, parts.size(), parts.front(), parts.size() > 1 ? " to " + parts.back() : ""));
    for (std::string& part : parts) out.push_back(std::move(part));
  }
  inputs = std::move(out);
}

}  // namespace graphgen::pipeline
