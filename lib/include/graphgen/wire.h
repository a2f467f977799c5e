// graphgen's compact internal encoding of a profile (and of the merge state
// that goes with it), for graphgen-mpi's processes to send each other the
// shares they merged. Not a file format: both ends are the same build on
// machines of one architecture; every count is still checked against the
// bytes left, so a damaged message is an error, not a crash.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "graphgen/error.h"
#include "graphgen/exact_sum.h"
#include "graphgen/profile.h"

namespace graphgen::wire {

class Writer {
 public:
  template <class T>
  void put(T v) {
    static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void bytes(std::string_view s) {
    put<std::uint64_t>(s.size());
    out_.append(s);
  }
  template <class T>
  void vec(const std::vector<T>& v) {
    static_assert(std::is_arithmetic_v<T>);
    put<std::uint64_t>(v.size());
    if (!v.empty()) out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  void exact(const ExactSum& s) {
    vec(s.partials());
    put<std::uint8_t>(s.has_special());
    put(s.special());
  }
  std::string take() { return std::move(out_); }
  const std::string& str() const { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <class T>
  T get() {
    T v{};
    if (in_.size() < sizeof v) {
      ok_ = false;
      return v;
    }
    std::memcpy(&v, in_.data(), sizeof v);
    in_.remove_prefix(sizeof v);
    return v;
  }
  std::string_view bytes() {
    auto n = get<std::uint64_t>();
    if (!ok_ || n > in_.size()) {
      ok_ = false;
      return {};
    }
    std::string_view s = in_.substr(0, n);
    in_.remove_prefix(n);
    return s;
  }
  template <class T>
  std::vector<T> vec() {
    auto n = get<std::uint64_t>();
    std::vector<T> v;
    if (!ok_ || n > in_.size() / sizeof(T)) {
      ok_ = false;
      return v;
    }
    v.resize(n);
    if (n > 0) std::memcpy(v.data(), in_.data(), n * sizeof(T));  // (an empty vector's data() may be null)
    in_.remove_prefix(n * sizeof(T));
    return v;
  }
  ExactSum exact() {
    std::vector<double> partials = vec<double>();
    bool special = get<std::uint8_t>() != 0;
    double value = get<double>();
    return ExactSum::from_parts(std::move(partials), special, value);
  }
  /// Whether everything read so far was there.
  bool ok() const { return ok_; }
  bool at_end() const { return in_.empty(); }

 private:
  std::string_view in_;
  bool ok_ = true;
};

/// A whole profile.
void put_profile(Writer& w, const Profile& p);
/// The profile put_profile wrote, or an error naming `what` (the sender).
Expected<Profile> get_profile(Reader& r, std::string_view what);

}  // namespace graphgen::wire
