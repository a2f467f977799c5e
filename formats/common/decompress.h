// Compressed inputs: gzip, bzip2, xz and zstd profiles (`cpu_0.prof.gz` on
// HPC file systems), recognised by their magic bytes (on standard input too)
// and decompressed with the Debian libraries (zlib, libbz2, liblzma,
// libzstd) before the format is sniffed. Concatenated streams are read as
// the command-line tools read them.
//
// Inflating is a stream: the first kHeadBytes are handed to a check (the
// pipeline detects the format there), so a file that is no profile stops
// after its first MiB, however large it would grow. The inflated size may
// never exceed kMaxRatio times the compressed bytes read so far plus
// kMaxSlack (a bomb is one error line, not an exhausted machine), nor the
// memory budget (--max-memory) when one is given.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

#include "graphgen/error.h"
#include "graphgen/io.h"

namespace graphgen::formats {

inline constexpr std::size_t kMaxRatio = 1000;
inline constexpr std::size_t kMaxSlack = std::size_t{64} << 20;

/// Room an inflated input keeps past its bytes, which readers may read
/// (InputFile::readable_after_end(): simdjson's padding, json_doc.h).
inline constexpr std::size_t kInflatedSpare = 64;

/// The compression a file's first bytes announce: "gzip", "bzip2", "xz",
/// "zstd", or empty.
std::string_view compression_of(std::string_view head);

/// Enough inflated bytes to detect any format (detection reads a first line
/// of up to 1 MiB).
inline constexpr std::size_t kHeadBytes = (std::size_t{1} << 20) + 1;

struct InflateLimits {
  /// The most inflated bytes (0: only the bomb ratio).
  std::size_t max_bytes = 0;
  /// Called once with the first kHeadBytes inflated bytes (all of them when
  /// fewer), under the input's name; its error stops inflating there.
  std::function<Expected<bool>(const InputFile& head)> check_head;
};

/// `input` itself, or its decompressed bytes under the same name.
/// Errors: `PATH: cannot decompress (gzip): what`, or check_head's.
Expected<InputFile> decompressed(InputFile input, const InflateLimits& limits = {});

/// Text saved as UTF-16 with a byte-order mark (Windows PowerShell's `>`
/// writes gprof output so) becomes UTF-8; a UTF-8 byte-order mark is
/// dropped. Everything else is returned as it is.
Expected<InputFile> as_utf8(InputFile input);

/// Both, as the pipeline opens every input: decompressed, then as UTF-8.
Expected<InputFile> prepared(InputFile input, const InflateLimits& limits = {});

}  // namespace graphgen::formats
