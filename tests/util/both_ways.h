// A reader's two paths compared on files (tests only): the fast path, which
// may give a file up, and the general one (fuzz::two_paths), for the
// readers that stream (json, Chrome's trace and .cpuprofile, speedscope,
// tracemalloc).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz.h"
#include "util/test_util.h"

namespace graphgen::test {

/// `in` through both paths (and their timelines with `timeline`), with a
/// budget far past the files'. `read`, the reader's front door (the fast
/// path, else the general one), must give what the path that took the
/// file gave.
template <class Fast, class General, class Read>
fuzz::TwoPaths both_ways(const InputFile& in, Fast&& fast, General&& general, Read&& read, bool timeline = false) {
  formats::ReadOptions o;
  o.memory_budget = std::size_t{256} << 20;
  o.keep_timeline = timeline;
  auto both = fuzz::two_paths(in, o, fast, general, timeline);
  Diagnostics d;
  auto p = read(in, o, d);
  EXPECT_EQ(fuzz::tables(p, d) + (timeline ? fuzz::trace(p) : std::string()), both.fast.value_or(both.general));
  return both;
}

/// The same for the file at `path`.
template <class Fast, class General, class Read>
fuzz::TwoPaths both_ways(const fs::path& path, Fast&& fast, General&& general, Read&& read, bool timeline = false) {
  auto in = InputFile::open(path.string());
  EXPECT_TRUE(in.has_value());
  if (!in) return {};
  return both_ways(*in, fast, general, read, timeline);
}

/// Each of `files` both ways by `both` (a file to fuzz::TwoPaths): where
/// the fast path takes one, it must give what the general path gives. The
/// names of the files it took.
template <class Both>
std::set<std::string> streamed_files(const std::vector<fs::path>& files, Both&& both) {
  std::set<std::string> streamed;
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    const fuzz::TwoPaths r = both(f);
    if (r.fast) {
      streamed.insert(f.filename().string());
      EXPECT_EQ(*r.fast, r.general);
    }
  }
  return streamed;
}

/// A made input and whether the fast path must take it.
struct MadeCase {
  std::string name, text;
  bool streams;
};

/// Each case as a file named `file` both ways by `both`: the fast path
/// takes it or not as the case says, and where it does it gives what the
/// general path gives.
template <class Both>
void expect_cases(const std::vector<MadeCase>& cases, const std::string& file, Both&& both) {
  for (const MadeCase& c : cases) {
    SCOPED_TRACE(c.name);
    const fuzz::TwoPaths r = both(write_temp(file, c.text));
    EXPECT_EQ(r.fast.has_value(), c.streams) << r.general.substr(0, 300);
    if (r.fast) {
      EXPECT_EQ(*r.fast, r.general);
    }
  }
}

/// The files in `dirs` whose names end with `suffix`, or with it and ".xz".
inline std::vector<fs::path> files_named(const std::vector<fs::path>& dirs, std::string_view suffix) {
  std::vector<fs::path> files;
  for (const fs::path& d : dirs)
    for (const auto& e : fs::directory_iterator(d)) {
      const std::string name = e.path().filename().string();
      if (name.ends_with(suffix) || name.ends_with(std::string(suffix) + ".xz")) files.push_back(e.path());
    }
  return files;
}

}  // namespace graphgen::test
