// libarchive, loaded on first use. Only CUBE4 (tar) and Very Sleepy (zip)
// files are archives; loading libarchive, and the libxml2, ICU, nettle,
// acl and lz4 it brings, at every start of graphgen cost 0.8 ms of a 5 ms
// run that reads no archive (docs/speed.md).
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include <string>
#include <string_view>

#include "graphgen/error.h"
#include "graphgen/shared_lib.h"

namespace graphgen::formats {

// The libarchive functions the readers call: (member, libarchive's name).
#define GRAPHGEN_ARCHIVE_FUNCTIONS(X)                                      \
  X(read_new, archive_read_new)                                            \
  X(read_free, archive_read_free)                                          \
  X(support_format_tar, archive_read_support_format_tar)                   \
  X(support_format_zip_seekable, archive_read_support_format_zip_seekable) \
  X(support_filter_none, archive_read_support_filter_none)                 \
  X(open_memory, archive_read_open_memory)                                 \
  X(error_string, archive_error_string)                                    \
  X(next_header, archive_read_next_header)                                 \
  X(filter_bytes, archive_filter_bytes)                                    \
  X(entry_pathname, archive_entry_pathname)                                \
  X(entry_size, archive_entry_size)                                        \
  X(read_data, archive_read_data)                                          \
  X(read_data_block, archive_read_data_block)

/// Those functions, with libarchive's own types.
GRAPHGEN_LIBRARY_API(ArchiveApi, GRAPHGEN_ARCHIVE_FUNCTIONS);

/// libarchive's functions, loaded once; or, for `path`'s error message,
/// why it could not be (not installed: "cannot load libarchive.so.13").
Expected<const ArchiveApi*> archive_api(const std::string& path);

/// An archive reader of libarchive's, freed with it (`a` is null when
/// libarchive ran out of memory).
struct ArchiveReader {
  explicit ArchiveReader(const ArchiveApi& api) : lib(api), a(api.read_new()) {}
  ArchiveReader(const ArchiveReader&) = delete;
  ArchiveReader& operator=(const ArchiveReader&) = delete;
  ~ArchiveReader() {
    if (a) lib.read_free(a);
  }
  /// libarchive's last message, made one line (some hold several), or
  /// `otherwise` when it has none.
  std::string why(std::string_view otherwise) const;

  const ArchiveApi& lib;
  archive* a;
};

}  // namespace graphgen::formats
