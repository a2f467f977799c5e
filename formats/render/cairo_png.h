// PNG from cairo's pixels, compressed on every core with the same bytes on
// any machine (formats/render's Graphviz device writes it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace graphgen::render {

/// Bytes of filtered scanlines per independently compressed part: the
/// parts depend on the picture alone, never on the number of cores, so a
/// picture is the same file everywhere.
inline constexpr std::size_t kPngPartBytes = std::size_t{8} << 20;

/// Cairo's image (premultiplied ARGB, one native 32-bit word per pixel,
/// `width` words per row) as a PNG appended to `out`: RGB when every
/// pixel is opaque, as cairo's own writer chooses, else RGBA with the
/// colours unpremultiplied as cairo rounds them; no filters, zlib level 1.
/// The rows are cut into parts of about `part_bytes` that threads convert
/// and deflate at once, each after the last 32 KiB of the part before as
/// its dictionary; the parts join into one zlib stream (byte-aligned
/// flushes, Adler-32 combined). False when memory or zlib fails.
bool encode_cairo_png(const std::uint32_t* argb, unsigned width, unsigned height, std::string* out,
                      std::size_t part_bytes = kPngPartBytes);

}  // namespace graphgen::render
