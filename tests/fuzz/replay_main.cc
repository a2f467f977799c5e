// Runs a fuzz target without libFuzzer: over every file of the paths given
// (folders recursively), then, with --mutations N, over N deterministic
// corruptions of each (truncations, flipped, inserted and deleted bytes),
// the stand-in for a fuzzing run that the test suite can afford.
//
//   fuzz_X [--mutations N] [--seed S] PATH...
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

void run(const std::string& bytes) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

std::string mutant(const std::string& bytes, std::mt19937_64& rng, int kind) {
  std::string m = bytes;
  std::uniform_int_distribution<std::size_t> pos(0, m.empty() ? 0 : m.size() - 1);
  static const char kBytes[] = "\n;:=( )0x-+*\t\x80\xff\x00{}[]rcuTFN";
  switch (kind % 5) {
    case 0:
      m.resize(pos(rng));
      break;
    case 1:
      for (int k = 0; k < 4 && !m.empty(); ++k) m[pos(rng)] = static_cast<char>(rng() & 0xFF);
      break;
    case 2:
      if (!m.empty()) m.insert(pos(rng), 1, kBytes[rng() % (sizeof kBytes - 1)]);
      break;
    case 3:
      if (!m.empty()) m.erase(pos(rng), 1 + rng() % 8);
      break;
    default:  // a chunk copied elsewhere: repeated structure
      if (m.size() > 2) {
        std::size_t a = pos(rng), n = 1 + rng() % std::min<std::size_t>(64, m.size() - a);
        m.insert(pos(rng), m.substr(a, n));
      }
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  long mutations = 0;
  std::uint64_t seed = 1;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--mutations") == 0 && i + 1 < argc) {
      mutations = std::atol(argv[++i]);
    } else if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (fs::is_directory(argv[i])) {
      for (const auto& e : fs::recursive_directory_iterator(argv[i]))
        if (e.is_regular_file() && e.file_size() <= (std::uintmax_t{4} << 20)) files.push_back(e.path());
    } else if (fs::is_regular_file(argv[i])) {
      files.push_back(argv[i]);
    }  // absent paths (../shared/corpus on its own) are skipped
  }
  std::sort(files.begin(), files.end());
  std::mt19937_64 rng(seed);
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    std::string bytes = s.str();
    run(bytes);
    for (long k = 0; k < mutations; ++k) run(mutant(bytes, rng, static_cast<int>(k)));
  }
  std::printf("replayed %zu files, %ld mutations each\n", files.size(), mutations);
  return 0;
}
