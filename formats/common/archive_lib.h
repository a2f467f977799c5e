// libarchive, loaded on first use. Only CUBE4 (tar) and Very Sleepy (zip)
// files are archives; loading libarchive, and the libxml2, ICU, nettle,
// acl and lz4 it brings, at every start of graphgen cost 0.8 ms of a 5 ms
// run that reads no archive (docs/speed.md).
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include "graphgen/error.h"

namespace graphgen::formats {

/// The libarchive functions the readers call, with libarchive's own types.
struct ArchiveApi {
  decltype(&::archive_read_new) read_new;
  decltype(&::archive_read_free) read_free;
  decltype(&::archive_read_support_format_tar) support_format_tar;
  decltype(&::archive_read_support_format_zip_seekable) support_format_zip_seekable;
  decltype(&::archive_read_support_filter_none) support_filter_none;
  decltype(&::archive_read_open_memory) open_memory;
  decltype(&::archive_error_string) error_string;
  decltype(&::archive_read_next_header) next_header;
  decltype(&::archive_filter_bytes) filter_bytes;
  decltype(&::archive_entry_pathname) entry_pathname;
  decltype(&::archive_entry_size) entry_size;
  decltype(&::archive_read_data) read_data;
};

/// libarchive's functions, loaded once; or, for `path`'s error message,
/// why it could not be (not installed: "cannot load libarchive.so.13").
Expected<const ArchiveApi*> archive_api(const std::string& path);

}  // namespace graphgen::formats
