// Shared helpers: where things are, and running the graphgen binary.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::test {

namespace fs = std::filesystem;

/// The project's source tree and its testdata/ folder.
fs::path source_dir();
fs::path testdata_dir();
/// `name` with every character but letters and digits as '_': a name
/// gtest takes for a parameterised case.
std::string identifier(std::string name);
/// ../shared/corpus beside the project (or $GRAPHGEN_CORPUS); empty when absent.
fs::path corpus_dir();
/// ../shared/conformance beside the project; empty when absent.
fs::path conformance_dir();
/// The message tests print when they skip for want of the corpus.
const char* no_corpus_message();

std::string read_file(const fs::path& p);
/// An .xz file's bytes, as `xz -dc` gives them (a failure is a test failure).
std::string unxz(const fs::path& p);
/// XML text back to what it says (&quot; &lt; &gt; &#39; &amp;).
std::string xml_unescape(std::string s);
/// One CSV line's fields (RFC 4180 quoting).
std::vector<std::string> csv_fields(const std::string& line);
/// One tab-separated line's fields (a trailing empty one is dropped).
std::vector<std::string> tsv_fields(const std::string& line);

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  long peak_kb = 0;        // the child's peak resident memory
  double seconds = 0;      // wall time
  bool timed_out = false;  // killed after the timeout (a hang)
};

/// What a child's standard input is: /dev/null, a file, or a terminal (a
/// pseudo-terminal nobody types into).
struct Stdin {
  fs::path file;
  bool terminal = false;
};

/// Runs a program with arguments (no shell interpretation of them) in `cwd`,
/// with optional extra environment assignments ("PATH=/x").
RunResult run(const std::vector<std::string>& argv, const fs::path& cwd = {}, const std::vector<std::string>& env = {},
              int timeout_seconds = 0, const Stdin& in = {});
/// Runs the built graphgen, with VIRTUAL_ENV empty and PATH=/usr/bin:/bin
/// unless `env` sets them (graphgen run then uses the Python it embeds);
/// in the sanitized build without LeakSanitizer's check at its exit unless
/// `env` sets ASAN_OPTIONS.
RunResult graphgen(const std::vector<std::string>& args, const fs::path& cwd = {},
                   const std::vector<std::string>& env = {}, const Stdin& in = {});

/// "ASAN_OPTIONS=" this process's options followed by `flags` (the last
/// value of a flag wins), for a child's `env`.
std::string asan_options_with(std::string_view flags);

/// A fresh empty folder under the system temp dir, removed at exit.
fs::path temp_dir();

/// A file `name` holding `text` in a fresh temporary folder.
fs::path write_temp(const std::string& name, const std::string& text);

/// Writes `p` out and drops it from the page cache, so that a program
/// reads it as a profile recorded earlier, from the disk: a file just
/// written in large writes is cached in large folios, which Linux 6.18 maps
/// whole on a fault (a 14 MB perf file read with 5 MB more resident than
/// the same bytes read from the disk). For tests that bound a peak.
void as_if_on_disk(const fs::path& p);

/// Reads and merges files as the CLI does (the pipeline's read step), with
/// the format named or detected.
Expected<Profile> read_profiles(const std::vector<fs::path>& paths, const std::string& format = "",
                                const formats::ReadOptions& options = {}, Diagnostics* diag = nullptr);
/// The same, failing the test on an error.
Profile read_ok(const std::vector<fs::path>& paths, const std::string& format = "",
                const formats::ReadOptions& options = {});

/// Resident KiB of this process's mapping that holds `address`
/// (/proc/self/smaps), or SIZE_MAX when none does: readers that give back
/// the pages of a mapped input as they read are tested with it.
std::size_t resident_kib(const void* address);

/// A reader's streaming path on a mapped file of `text` whose pages were
/// all read in first: what it gave, and how much of the file it left
/// resident (a reader that gives back what it has read leaves a megabyte
/// or two of any size).
struct MappedRead {
  std::optional<InputFile> in;
  std::optional<Expected<Profile>> read;  // nothing: the path gave the file up
  Diagnostics diag;
  std::size_t resident_kib = SIZE_MAX, file_kib = 0;
};
using StreamingRead =
    std::function<std::optional<Expected<Profile>>(const InputFile&, const formats::ReadOptions&, Diagnostics&)>;
MappedRead read_mapped(const std::string& name, const std::string& text, const StreamingRead& streaming);

/// Two dot graphs compared by meaning, as ../shared/conformance/dotcmp.py
/// does (node ids are arbitrary: a node is its label, color, fontcolor,
/// fontsize and shape; an edge its two nodes' labels and its label, color,
/// fontcolor, fontsize, penwidth and arrowsize). Empty when they match,
/// else the first differences, one per line ("- " only in `expected`,
/// "+ " only in `actual`).
std::string dot_difference(const std::string& expected, const std::string& actual);

}  // namespace graphgen::test
