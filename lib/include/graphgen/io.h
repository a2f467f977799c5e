// Reading inputs in one piece and writing outputs atomically.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "graphgen/error.h"

namespace graphgen {

/// A whole input file in memory: mmap for regular files, one buffer for
/// pipes and standard input ("-").
class InputFile {
 public:
  static Expected<InputFile> open(const std::string& path);

  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  std::string_view bytes() const { return {data_, size_}; }
  /// Lets the kernel drop mapped pages before `offset`, which a one-pass
  /// reader will not read again (keeps resident memory small).
  void release_before(std::size_t offset) const { release_range(0, offset); }
  /// The same for the pages wholly inside [begin, end).
  void release_range(std::size_t begin, std::size_t end) const;
  const std::string& path() const { return path_; }

 private:
  InputFile() = default;
  void release();

  std::string path_;
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  bool mapped_ = false;
  std::string buffer_;
};

/// Writes `data` to `path` through a temporary file in the same folder and a
/// rename, so a failure never leaves a half-written file. "-" is stdout.
Expected<bool> write_file_atomically(const std::string& path, std::string_view data);

/// A temporary path next to `path` for writers that produce the file
/// themselves (e.g. Graphviz); pair with commit_temporary().
std::string temporary_path_for(const std::string& path);
Expected<bool> commit_temporary(const std::string& temporary, const std::string& path);

}  // namespace graphgen
