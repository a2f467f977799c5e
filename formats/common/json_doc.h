// An On Demand simdjson document of a whole input, and the offsets its
// errors name: what the JSON readers (speedscope, .cpuprofile) share.
#pragma once

#include <fmt/format.h>
#include <simdjson.h>

#include <string>
#include <string_view>

#include "common/decompress.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/text.h"

namespace graphgen::formats {

// An inflated input (decompress.h) is read in place.
static_assert(kInflatedSpare >= simdjson::SIMDJSON_PADDING);

/// The last byte of `text` but blanks (a JSON document's closing '}'), or 0.
inline std::size_t closing_brace(std::string_view text) {
  const std::size_t last = text.find_last_not_of(" \t\r\n");
  return last == std::string_view::npos ? 0 : last;
}

/// An input's bytes as simdjson reads them: in place when the padding it
/// reads past the end is readable there (a mapped file's last page, a
/// buffer's spare capacity), else a padded copy (one more input's worth of
/// memory).
class PaddedInput {
 public:
  explicit PaddedInput(const InputFile& in) : PaddedInput(in.bytes(), in.readable_after_end()) {}
  /// `b` followed by `readable` bytes that may be read.
  PaddedInput(std::string_view b, std::size_t readable) { reset(b, readable); }
  /// The same, in place of what it held.
  void reset(std::string_view b, std::size_t readable) {
    if (readable >= simdjson::SIMDJSON_PADDING) {
      copy_ = simdjson::padded_string();
      view_ = simdjson::padded_string_view(b.data(), b.size(), b.size() + readable);
    } else {
      copy_ = simdjson::padded_string(b.data(), b.size());
      view_ = copy_;
    }
  }
  PaddedInput(const PaddedInput&) = delete;
  PaddedInput& operator=(const PaddedInput&) = delete;
  const simdjson::padded_string_view& view() const { return view_; }
  const char* data() const { return view_.data(); }

 private:
  simdjson::padded_string copy_;
  simdjson::padded_string_view view_;
};

class JsonDocument {
 public:
  explicit JsonDocument(const InputFile& in) : in_(in), text_(in) {}
  /// `text` in place of the input's bytes (the same up to its end: offsets
  /// still name the input's).
  JsonDocument(const InputFile& in, std::string_view text) : in_(in), text_(text, 0) {}

  /// Starts the document; an error when the bytes are not JSON.
  Expected<bool> open() {
    if (auto e = parser_.iterate(text_.view()).get(doc_); e) return fail("a JSON document", e);
    iterating_ = true;
    return true;
  }
  /// Starts a document over `text` instead, `readable` bytes readable after
  /// its end, with the parser's buffers kept: the windows of one big array
  /// read one after the other (its offsets are then the window's).
  Expected<bool> reopen(std::string_view text, std::size_t readable) {
    iterating_ = false;
    text_.reset(text, readable);
    return open();
  }
  simdjson::ondemand::document& doc() { return doc_; }

  /// Where the parser is in the input (0 before the document started).
  std::size_t here() {
    if (!iterating_) return 0;
    const char* at = nullptr;
    if (doc_.current_location().get(at) == simdjson::SUCCESS && at >= text_.data())
      return static_cast<std::size_t>(at - text_.data());
    return in_.bytes().size();
  }
  /// `file:+0xOFF`.
  std::string where(std::size_t offset) const { return fmt::format("{}:+0x{:x}", in_.path(), offset); }
  /// closing_brace() of the input: where a member never found was still
  /// expected.
  std::size_t closing() const { return closing_brace(in_.bytes()); }
  /// file:+0xOFF: expected WHAT, found simdjson's reason.
  Error fail(std::string_view what, simdjson::error_code e) {
    std::string found = simdjson::error_message(e);
    if (e == simdjson::INCORRECT_TYPE) found = "a value of another type";
    return Error{Error::Kind::kBadInput,
                 fmt::format("{}: expected {}, found {}", where(cut_short(e) ? in_.bytes().size() : here()), what,
                             one_line(found))};
  }
  /// A document cut short (an array, an object or a string never closed):
  /// found so at the input's end, where the parser stood before it began
  /// (every such error said +0x0).
  static bool cut_short(simdjson::error_code e) {
    return e == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || e == simdjson::UNCLOSED_STRING;
  }

 private:
  const InputFile& in_;
  PaddedInput text_;
  simdjson::ondemand::parser parser_;
  simdjson::ondemand::document doc_;
  bool iterating_ = false;
};

}  // namespace graphgen::formats
