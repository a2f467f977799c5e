// Numbers kept in the narrower of two types for as long as every one so far
// fits it: the long arrays of a profile (time deltas, weights, frame
// indices) are nearly always small integers, and a reader that keeps them
// whole (JSON profiles, whose arrays come before what they mean is known)
// keeps a half or a quarter of the bytes. Each value reads back exactly as
// it was put (a double's -0.0, NaN or fraction makes the array wide).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace graphgen::formats {

template <class Narrow, class Wide>
class NarrowArray {
 public:
  void push_back(Wide v) {
    if (!wide_) {
      if (fits(v)) {
        narrow_.push_back(static_cast<Narrow>(v));
        return;
      }
      wide_values_.reserve(narrow_.capacity());
      wide_values_.assign(narrow_.begin(), narrow_.end());
      narrow_ = {};
      wide_ = true;
    }
    wide_values_.push_back(v);
  }
  Wide operator[](std::size_t i) const { return wide_ ? wide_values_[i] : static_cast<Wide>(narrow_[i]); }
  std::size_t size() const { return wide_ ? wide_values_.size() : narrow_.size(); }
  bool empty() const { return size() == 0; }
  /// Room for `n` narrow values (the wide array, if it comes, takes as many).
  void reserve(std::size_t n) { narrow_.reserve(n); }
  /// The bytes held, for memory budgets.
  std::size_t bytes() const { return narrow_.size() * sizeof(Narrow) + wide_values_.size() * sizeof(Wide); }

  static bool fits(Wide v) {
    if constexpr (std::is_floating_point_v<Wide>) {
      // (The range first: converting NaN or a double past it is undefined.)
      if (!(v >= static_cast<Wide>(std::numeric_limits<Narrow>::min()) &&
            v <= static_cast<Wide>(std::numeric_limits<Narrow>::max())))
        return false;
      return static_cast<Wide>(static_cast<Narrow>(v)) == v && !(v == 0 && std::signbit(v));
    } else if constexpr (std::is_unsigned_v<Wide> && std::is_unsigned_v<Narrow>) {
      return v <= static_cast<Wide>(std::numeric_limits<Narrow>::max());
    } else {
      return v >= static_cast<Wide>(std::numeric_limits<Narrow>::min()) &&
             v <= static_cast<Wide>(std::numeric_limits<Narrow>::max());
    }
  }

 private:
  std::vector<Narrow> narrow_;
  std::vector<Wide> wide_values_;
  bool wide_ = false;
};

}  // namespace graphgen::formats
