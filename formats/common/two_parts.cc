#include "two_parts.h"

#include <algorithm>
#include <new>
#include <optional>

#include "graphgen/analysis/merge.h"
#include "graphgen/thread.h"

namespace graphgen::formats {

namespace {

// One part's read on the calling thread or the helper: out of memory is a
// failed part (the whole file is then read again, and fails as it would).
std::optional<Expected<Profile>> read_part(const ReadPart& read, const FilePart& part, Diagnostics& diag,
                                           std::atomic<bool>& stop) {
  std::optional<Expected<Profile>> out;
  try {
    out.emplace(read(part, diag));
  } catch (const std::bad_alloc&) {
    out.reset();
  }
  if (!out || !*out) stop.store(true, std::memory_order_relaxed);
  return out;
}

}  // namespace

std::size_t FilePart::file_line(std::size_t line) const {
  const std::string_view before = input->bytes().substr(0, begin);
  return line + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
}

std::size_t next_line(std::string_view bytes, std::size_t from) {
  const std::size_t nl = bytes.find('\n', from);
  return nl == std::string_view::npos ? nl : nl + 1;
}

Expected<Profile> read_in_two_parts(const InputFile& in, std::size_t budget, std::size_t split_above,
                                    const FindRecord& record, const ReadPart& read, Diagnostics& diag) {
  const std::string_view bytes = in.bytes();
  const FilePart whole{&in, 0, bytes.size(), budget, nullptr};
  const std::size_t cut = bytes.size() > split_above ? record(bytes, bytes.size() / 2) : std::string_view::npos;
  if (cut == std::string_view::npos || cut == 0 || cut >= bytes.size()) return read(whole, diag);
  const std::size_t half = budget == 0 ? 0 : std::max<std::size_t>(budget / 2, 1);
  std::atomic<bool> stop{false};
  Diagnostics first_diag, second_diag;
  std::optional<Expected<Profile>> first, second;
  {
    // (No thread: one part after the other.)
    BesideThread helper = BesideThread::start_or_run([&] {
      second = read_part(read, {&in, cut, bytes.size(), half, &stop}, second_diag, stop);
    });
    first = read_part(read, {&in, 0, cut, half, &stop}, first_diag, stop);
  }
  if (first && *first && second && *second) {
    Profile p = std::move(**first);
    first.reset();
    if (add_profile(p, **second, in.path())) {
      second.reset();
      for (const Diagnostics* d : {&first_diag, &second_diag})
        for (const std::string& w : d->warnings()) diag.warn(w);
      return p;
    }
  }
  first.reset();
  second.reset();
  return read(whole, diag);
}

}  // namespace graphgen::formats
