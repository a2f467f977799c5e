// Compressed inputs: gzip, bzip2, xz and zstd profiles (`cpu_0.prof.gz` on
// HPC file systems), recognised by their magic bytes (on standard input too)
// and decompressed with the Debian libraries (zlib, libbz2, liblzma,
// libzstd) before the format is sniffed. Concatenated streams are read as
// the command-line tools read them.
//
// The decompressed size is capped at kMaxRatio times the compressed size
// plus kMaxSlack, so a decompression bomb is one error line, not an
// exhausted machine.
#pragma once

#include <cstddef>
#include <string_view>

#include "graphgen/error.h"
#include "graphgen/io.h"

namespace graphgen::formats {

inline constexpr std::size_t kMaxRatio = 1000;
inline constexpr std::size_t kMaxSlack = std::size_t{64} << 20;

/// The compression a file's first bytes announce: "gzip", "bzip2", "xz",
/// "zstd", or empty.
std::string_view compression_of(std::string_view head);

/// `input` itself, or its decompressed bytes under the same name.
/// Errors: `PATH: cannot decompress (gzip): what`.
Expected<InputFile> decompressed(InputFile input);

/// Text saved as UTF-16 with a byte-order mark (Windows PowerShell's `>`
/// writes gprof output so) becomes UTF-8; a UTF-8 byte-order mark is
/// dropped. Everything else is returned as it is.
Expected<InputFile> as_utf8(InputFile input);

/// Both, as the pipeline opens every input: decompressed, then as UTF-8.
Expected<InputFile> prepared(InputFile input);

}  // namespace graphgen::formats
