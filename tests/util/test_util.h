// Shared helpers: where things are, and running the graphgen binary.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace graphgen::test {

namespace fs = std::filesystem;

/// The project's source tree and its testdata/ folder.
fs::path source_dir();
fs::path testdata_dir();
/// ../shared/corpus beside the project (or $GRAPHGEN_CORPUS); empty when absent.
fs::path corpus_dir();
/// ../shared/conformance beside the project; empty when absent.
fs::path conformance_dir();
/// The message tests print when they skip for want of the corpus.
const char* no_corpus_message();

std::string read_file(const fs::path& p);

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs a program with arguments (no shell interpretation of them) in `cwd`,
/// with optional extra environment assignments ("PATH=/x").
RunResult run(const std::vector<std::string>& argv, const fs::path& cwd = {},
              const std::vector<std::string>& env = {});
/// Runs the built graphgen.
RunResult graphgen(const std::vector<std::string>& args, const fs::path& cwd = {},
                   const std::vector<std::string>& env = {});

/// A fresh empty folder under the system temp dir, removed at exit.
fs::path temp_dir();

}  // namespace graphgen::test
